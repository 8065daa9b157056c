/* polyrust_rt: the instrumentation runtime of polyrust (link with -lpolyrust_rt).
 *
 * The compiler emits these calls under -mllvm -polyrust-profile-generate; a program may
 * also call polyrust_rt_write_profile() itself, e.g. before it ends with _exit().
 * At exit the runtime writes the profile to $POLYRUST_PROFILE_FILE, else to the path
 * compiled in (default_path), else to default.polyprof.json; %p becomes the process id.
 * With $POLYRUST_TRACE=DIR, a program instrumented for accesses also writes into DIR, per
 * loop nest and thread, the compressed trace of each load and store (README.md).
 * Mirrored in Rust by runtime/src/abi/descriptor.rs. */
#ifndef POLYRUST_RT_H
#define POLYRUST_RT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define POLYRUST_RT_ABI_VERSION 1

/* Kinds of facts: what the compiler sees of a loop that a run of it cannot show. */
#define POLYRUST_RT_FACT_REDUCTION      0u  /* a value accumulated in a register across the
                                               loop's iterations with `operation` */
#define POLYRUST_RT_FACT_RECURRENCE     1u  /* another value carried in a register from one
                                               iteration to the next */
#define POLYRUST_RT_FACT_UNRECORDED_CALL 2u /* a call in the loop that touches memory and
                                               whose accesses are not recorded */
#define POLYRUST_RT_FACT_MEMORY_REDUCTION 3u /* site `store` stores `operation` applied to
                                               what site `load` loaded from the same
                                               address in the loop (y[i] += d) */
#define POLYRUST_RT_FACT_DATA_EXIT      4u  /* the loop leaves on a value it loads from an
                                               address that changes with the iteration
                                               (a search); `name`: the array */

struct polyrust_rt_fact {
  uint32_t kind;          /* POLYRUST_RT_FACT_* */
  uint32_t loop;          /* index (into the nest's sites) of the loop's header site */
  uint32_t load, store;   /* a memory reduction's sites; UINT32_MAX for other kinds */
  const char *operation;  /* a reduction's: "+", "*", "min/max", "&", "|", "^", "flag",
                             "argmin/argmax" (an extremum and the values chosen
                             with it, one fact each); else "" */
  const char *name;       /* the value's source name or the callee's, "" if unknown */
};

/* One private constant per instrumented loop nest. */
struct polyrust_rt_region {
  uint32_t abi_version;           /* POLYRUST_RT_ABI_VERSION */
  uint32_t num_values;            /* values recorded per entry (at most 64) */
  uint32_t num_ranges;            /* address ranges recorded per entry (at most 64) */
  uint32_t line;                  /* source line of the nest, 0 if unknown */
  const char *id;                 /* stable region id, e.g. "mm_view:3:9f2c41d0" */
  const char *function;           /* function name (source name if known) */
  const char *file;               /* source file, "" if unknown */
  const char *module_hash;        /* hex hash of the compiled source */
  const char *const *value_names; /* num_values names, e.g. "sa1" */
  const char *const *range_names; /* num_ranges names, e.g. "A" */
  const char *default_path;       /* profile path from the compile option, or NULL */
};

/* Records one entry of a loop nest: num_values values (NULL if none) and num_ranges
 * [low, high) byte address pairs (NULL if none). Never fails, never does I/O. */
void polyrust_rt_enter(const struct polyrust_rt_region *region, const int64_t *values,
                       const uint64_t *ranges);

/* ---- Folded accesses (-polyrust-instrument=accesses, issue 13) ----
 * Mirrored in Rust by runtime/src/abi/nest_descriptor.rs. The runtime counts entries per
 * nest and prepends the entry number to every iteration vector; it folds one stream per
 * site (label: the address) and one per data-flow dependence (last writer of each
 * address -> reading site; label: the writer's iteration vector). Each thread's
 * executions of a nest are folded apart; within one thread, the iteration vectors of a
 * site must increase lexicographically (else its stream keeps only a bounding box). */

#define POLYRUST_RT_NEST_ABI_VERSION 2   /* the runtime also reads version 1 (no facts) */

/* Kinds of sites */
#define POLYRUST_RT_SITE_LOAD   0u   /* address = the byte address loaded */
#define POLYRUST_RT_SITE_STORE  1u   /* address = the byte address stored */
#define POLYRUST_RT_SITE_LOOP   2u   /* a loop header: one event per iteration, address 0 */

struct polyrust_rt_site {
  uint32_t kind;     /* POLYRUST_RT_SITE_* */
  uint32_t depth;    /* number of loops of the nest around the site (length of its IV);
                        for a loop header, the loop's own depth (1 = outermost loop) */
  uint32_t size;     /* bytes accessed (0 for a loop) */
  uint32_t line;     /* source line, 0 if unknown */
  uint32_t column;   /* source column, 0 if unknown */
  uint32_t loop;     /* index (into the nest's sites) of the innermost loop-header
                        site around this site; for a loop, its parent loop's site;
                        UINT32_MAX if none */
  const char *name;  /* source name of the array/pointer or the loop counter, "" if unknown */
};

/* One private constant per instrumented loop nest. */
struct polyrust_rt_nest {
  uint32_t abi_version;        /* POLYRUST_RT_NEST_ABI_VERSION */
  uint32_t num_sites;          /* at most 4096 */
  uint32_t max_depth;          /* deepest site depth, at most 16 */
  uint32_t line;               /* source line of the nest's outermost loop, 0 if unknown */
  const char *id;              /* stable id, same scheme as polyrust_rt_region ids */
  const char *function;
  const char *file;
  const char *module_hash;
  const struct polyrust_rt_site *sites;
  const char *default_path;    /* profile path from the compile option, or NULL */
  uint32_t modelled;           /* 1 if detection accepted this nest as (part of) a SCoP */
  uint32_t num_facts;          /* version 2 (version 1: reserved, 0); at most 4096 */
  const struct polyrust_rt_fact *facts; /* version 2 only: num_facts facts */
};

/* Called once in front of each entry into the nest (in the outermost loop's preheader). */
void polyrust_rt_nest_enter(const struct polyrust_rt_nest *nest);

/* Instead of polyrust_rt_nest_enter, for a nest the pass also left a plain copy of
   (no calls): counts the entry and returns 1 if the instrumented nest is to run, 0 if
   the plain copy is (entries past the folded ones). The instrumented nest calls
   polyrust_rt_nest_next before each iteration of its outermost loop but the first:
   1 means the rest of the entry runs in the plain copy (the nest has folded its budget,
   POLYRUST_FOLD_EVENTS). The plain copy calls polyrust_rt_nest_plain once per
   iteration of its outermost loop: the accesses it makes are estimated from those. */
uint32_t polyrust_rt_nest_begin(const struct polyrust_rt_nest *nest);
uint32_t polyrust_rt_nest_next(const struct polyrust_rt_nest *nest);
void polyrust_rt_nest_plain(const struct polyrust_rt_nest *nest);

/* Called for every execution of a site. iv points to the site's `depth` loop counters,
   outermost first, each 0 at its loop's first iteration and +1 per iteration (canonical
   counters the pass materializes as header phis). `address` is the byte address for
   loads and stores, 0 for loop headers. Never fails, never does I/O. */
void polyrust_rt_access(const struct polyrust_rt_nest *nest, uint32_t site,
                        const int64_t *iv, uint64_t address);

/* Newest version of the profile format written (2; 1 when no nest was recorded). */
uint32_t polyrust_rt_profile_format_version(void);

/* Writes the profile now; it is written again at exit. */
void polyrust_rt_write_profile(void);

#ifdef __cplusplus
}
#endif

#endif
