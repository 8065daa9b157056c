/* For the tests only: the entry points of -polyrust-instrument=accesses (the ABI of
 * struct polyrust_rt_nest, version 2, read up to its facts), printing each call to
 * stderr. The descriptor is printed at the first entry into each nest; addresses are
 * shown relative to the arrays A and B of the program under test. A nest with a plain
 * copy runs its instrumented copy, but with PLAIN_AFTER=N in the environment the rest
 * of an entry goes to the plain copy after N iterations of its outermost loop; with
 * PLAIN_ENTRIES_AFTER=N, entries past the Nth run the plain copy. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct polyrust_rt_site {
  uint32_t kind, depth, size, line, column, loop;
  const char *name;
};

struct polyrust_rt_nest {
  uint32_t abi_version, num_sites, max_depth, line;
  const char *id, *function, *file, *module_hash;
  const struct polyrust_rt_site *sites;
  const char *default_path;
  uint32_t modelled, num_facts;
};

extern double A[8][8], B[8];

static const struct polyrust_rt_nest *seen[64];

static void where(uint64_t address) {
  uintptr_t a = (uintptr_t)A, b = (uintptr_t)B;
  if (address >= a && address < a + sizeof A)
    fprintf(stderr, " A+%lu", (unsigned long)(address - a));
  else if (address >= b && address < b + sizeof B)
    fprintf(stderr, " B+%lu", (unsigned long)(address - b));
  else if (address)
    fprintf(stderr, " elsewhere");
}

void polyrust_rt_nest_enter(const struct polyrust_rt_nest *nest) {
  static const char *const kinds[] = {"load", "store", "loop"};
  int known = 0;
  for (int i = 0; i < 64 && seen[i]; i++)
    known |= seen[i] == nest;
  if (!known) {
    for (int i = 0; i < 64; i++)
      if (!seen[i]) {
        seen[i] = nest;
        break;
      }
    fprintf(stderr, "nest %s: version %u, %u sites, depth %u, line %u, modelled %u, %s\n",
            nest->function, nest->abi_version, nest->num_sites, nest->max_depth, nest->line,
            nest->modelled, nest->default_path ? nest->default_path : "(no path)");
    for (uint32_t s = 0; s < nest->num_sites; s++) {
      const struct polyrust_rt_site *site = &nest->sites[s];
      fprintf(stderr, "  site %u: %s %s, depth %u, %u bytes, line %u, in %d\n", s,
              site->kind < 3 ? kinds[site->kind] : "?", site->name, site->depth, site->size,
              site->line, (int)site->loop);
    }
  }
  fprintf(stderr, "enter %s\n", nest->function);
}

void polyrust_rt_access(const struct polyrust_rt_nest *nest, uint32_t site, const int64_t *iv,
                        uint64_t address) {
  uint32_t depth = site < nest->num_sites ? nest->sites[site].depth : 0;
  fprintf(stderr, "%u [", site);
  for (uint32_t d = 0; d < depth; d++)
    fprintf(stderr, d ? ",%ld" : "%ld", (long)iv[d]);
  fprintf(stderr, "]");
  where(address);
  fprintf(stderr, "\n");
}

static long number_in(const char *variable) {
  const char *text = getenv(variable);
  return text ? atol(text) : -1;
}

static long iterations, entries;

uint32_t polyrust_rt_nest_begin(const struct polyrust_rt_nest *nest) {
  polyrust_rt_nest_enter(nest);
  iterations = 1;
  long after = number_in("PLAIN_ENTRIES_AFTER");
  if (after >= 0 && ++entries > after) {
    fprintf(stderr, "plain copy of %s\n", nest->function);
    return 0;
  }
  return 1;
}

uint32_t polyrust_rt_nest_next(const struct polyrust_rt_nest *nest) {
  long after = number_in("PLAIN_AFTER");
  if (after >= 0 && iterations++ >= after) {
    fprintf(stderr, "plain copy of %s from here\n", nest->function);
    return 1;
  }
  return 0;
}

void polyrust_rt_nest_plain(const struct polyrust_rt_nest *nest) {
  fprintf(stderr, "plain iteration of %s\n", nest->function);
}
