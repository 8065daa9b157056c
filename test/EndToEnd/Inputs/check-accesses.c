/* For the tests only: a stand-in for the runtime's entry points of
 * -polyrust-instrument=accesses that checks what instrumented code passes and aborts
 * (so the program's output differs) if the descriptor is malformed, a site is called
 * outside an entry of its nest, or a site's iteration vectors do not increase
 * lexicographically within one entry of its nest (the counters are canonical: each
 * loop's from 0, +1 per iteration). A nest with a plain copy runs it in every second
 * entry (polyrust_rt_nest_begin returns 0), and in the others from the fourth
 * iteration of its outermost loop on (polyrust_rt_nest_next returns 1 at its third
 * call); no site of the instrumented copy may be called while the plain copy runs, and
 * the plain copy's count only then. Prints nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct polyrust_rt_site {
  uint32_t kind, depth, size, line, column, loop;
  const char *name;
};

struct polyrust_rt_fact {
  uint32_t kind, loop, load, store;
  const char *operation, *name;
};

struct polyrust_rt_nest {
  uint32_t abi_version, num_sites, max_depth, line;
  const char *id, *function, *file, *module_hash;
  const struct polyrust_rt_site *sites;
  const char *default_path;
  uint32_t modelled, num_facts;
  const struct polyrust_rt_fact *facts;
};

#define SLOTS 8192
#define MAX_DEPTH 16

/* Entries per nest, and per (nest, site) the entry and iteration vector last seen. */
static struct {
  const struct polyrust_rt_nest *nest;
  uint64_t entries;
  /* Calls of polyrust_rt_nest_next in the current entry; whether the plain copy runs. */
  uint64_t nexts;
  int plain;
} nests[SLOTS];
static struct {
  const struct polyrust_rt_nest *nest;
  uint32_t site;
  uint64_t entry;
  int64_t iv[MAX_DEPTH];
} sites[SLOTS];

static size_t slot_of(const struct polyrust_rt_nest *nest, int insert) {
  size_t h = ((uintptr_t)nest >> 4) % SLOTS;
  for (size_t k = 0; k < SLOTS; k++, h = (h + 1) % SLOTS) {
    if (nests[h].nest == nest)
      return h;
    if (!nests[h].nest) {
      if (!insert)
        return SLOTS;
      nests[h].nest = nest;
      return h;
    }
  }
  return SLOTS;
}

static uint64_t *entries_of(const struct polyrust_rt_nest *nest, int insert) {
  size_t h = slot_of(nest, insert);
  return h < SLOTS ? &nests[h].entries : NULL;
}

static void check_descriptor(const struct polyrust_rt_nest *nest) {
  if (nest->abi_version != 2 || nest->num_sites == 0 || nest->num_sites > 4096 ||
      nest->max_depth == 0 || nest->max_depth > MAX_DEPTH || !nest->id || !nest->function ||
      !nest->file || !nest->module_hash || !nest->sites || nest->modelled > 1 ||
      nest->num_facts > 4096 || (nest->num_facts != 0) != (nest->facts != NULL))
    abort();
  /* Each fact is about a loop site, with its strings. */
  for (uint32_t f = 0; f < nest->num_facts; f++) {
    const struct polyrust_rt_fact *fact = &nest->facts[f];
    if (fact->kind > 4 || fact->loop >= nest->num_sites ||
        (fact->kind == 3 && (fact->load >= nest->num_sites || fact->store >= nest->num_sites ||
                             nest->sites[fact->load].kind != 0 ||
                             nest->sites[fact->store].kind != 1)) ||
        nest->sites[fact->loop].kind != 2 || !fact->operation || !fact->name)
      abort();
  }
  for (uint32_t s = 0; s < nest->num_sites; s++) {
    const struct polyrust_rt_site *site = &nest->sites[s];
    if (site->kind > 2 || site->depth == 0 || site->depth > nest->max_depth || !site->name)
      abort();
    /* The first site is the outermost loop; every other site lies in a loop site. */
    if (s == 0 ? site->kind != 2 || site->depth != 1 || site->loop != UINT32_MAX
               : site->loop >= nest->num_sites || nest->sites[site->loop].kind != 2)
      abort();
    if (s != 0 && nest->sites[site->loop].depth != site->depth - (site->kind == 2))
      abort();
  }
}

void polyrust_rt_nest_enter(const struct polyrust_rt_nest *nest) {
  uint64_t *entries = entries_of(nest, 1);
  if (entries && *entries == 0)
    check_descriptor(nest);
  if (entries) {
    ++*entries;
    nests[slot_of(nest, 0)].plain = 0;
  }
}

uint32_t polyrust_rt_nest_begin(const struct polyrust_rt_nest *nest) {
  polyrust_rt_nest_enter(nest);
  size_t h = slot_of(nest, 0);
  if (h == SLOTS)
    abort();
  nests[h].nexts = 0;
  nests[h].plain = nests[h].entries % 2 == 0;
  return !nests[h].plain;
}

uint32_t polyrust_rt_nest_next(const struct polyrust_rt_nest *nest) {
  size_t h = slot_of(nest, 0);
  if (h == SLOTS || nests[h].plain)
    abort();
  nests[h].plain = ++nests[h].nexts == 3;
  return nests[h].plain;
}

void polyrust_rt_nest_plain(const struct polyrust_rt_nest *nest) {
  size_t h = slot_of(nest, 0);
  if (h == SLOTS || !nests[h].plain)
    abort();
}

void polyrust_rt_access(const struct polyrust_rt_nest *nest, uint32_t site, const int64_t *iv,
                        uint64_t address) {
  uint64_t *entries = entries_of(nest, 0);
  if (!entries || site >= nest->num_sites || nests[slot_of(nest, 0)].plain)
    abort();
  uint32_t depth = nest->sites[site].depth;
  if ((nest->sites[site].kind == 2) != (address == 0))
    abort();
  for (uint32_t d = 0; d < depth; d++)
    if (iv[d] < 0)
      abort();
  size_t h = (((uintptr_t)nest >> 4) * 31 + site) % SLOTS;
  for (size_t k = 0; k < SLOTS; k++, h = (h + 1) % SLOTS) {
    if (!sites[h].nest) {
      sites[h].nest = nest;
      sites[h].site = site;
      break;
    }
    if (sites[h].nest == nest && sites[h].site == site) {
      if (sites[h].entry == *entries) {
        uint32_t d = 0;
        while (d < depth && iv[d] == sites[h].iv[d])
          d++;
        if (d == depth || iv[d] < sites[h].iv[d])
          abort();
      }
      break;
    }
  }
  if (sites[h].nest == nest && sites[h].site == site) {
    sites[h].entry = *entries;
    memcpy(sites[h].iv, iv, depth * sizeof *iv);
  }
}
