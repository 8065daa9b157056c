/* For the tests only: the raw address streams a compressed trace must regenerate,
 * captured at the ABI itself. Linked into an instrumented program with
 * -Wl,--wrap=polyrust_rt_access, it sees every call the program makes, appends the
 * address of each load and store to $RAW_DIR/<nest id>.<site>.raw (8-byte
 * little-endian integers, the nest id with '/' and ':' replaced by '_'), then hands the
 * call on to the real runtime. Single-threaded programs only (no lock); aborts if it
 * cannot write, so that a test never compares against a stream cut short. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "polyrust_rt.h"

void __real_polyrust_rt_access(const struct polyrust_rt_nest *nest, uint32_t site,
                               const int64_t *iv, uint64_t address);

#define SLOTS 8192
static struct {
  const struct polyrust_rt_nest *nest;
  uint32_t site;
  FILE *file;
} streams[SLOTS];

static FILE *stream_of(const struct polyrust_rt_nest *nest, uint32_t site) {
  size_t h = (((uintptr_t)nest >> 3) * 31 + site) % SLOTS;
  for (size_t probe = 0; probe < SLOTS; probe++, h = (h + 1) % SLOTS) {
    if (streams[h].nest == nest && streams[h].site == site)
      return streams[h].file;
    if (!streams[h].nest) {
      const char *dir = getenv("RAW_DIR");
      char id[256], path[4096];
      snprintf(id, sizeof id, "%s", nest->id ? nest->id : "null");
      for (char *c = id; *c; c++)
        if (*c == '/' || *c == ':')
          *c = '_';
      snprintf(path, sizeof path, "%s/%s.%u.raw", dir ? dir : ".", id, site);
      FILE *file = fopen(path, "wb");
      if (!file) {
        perror(path);
        abort();
      }
      streams[h].nest = nest;
      streams[h].site = site;
      streams[h].file = file;
      return file;
    }
  }
  abort();
}

void __wrap_polyrust_rt_access(const struct polyrust_rt_nest *nest, uint32_t site,
                               const int64_t *iv, uint64_t address) {
  if (nest && site < nest->num_sites && nest->sites[site].kind != POLYRUST_RT_SITE_LOOP) {
    int64_t value = (int64_t)address;
    if (fwrite(&value, sizeof value, 1, stream_of(nest, site)) != 1)
      abort();
  }
  __real_polyrust_rt_access(nest, site, iv, address);
}
