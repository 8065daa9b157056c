/* polyrust_rt: the instrumentation runtime of polyrust (link with -lpolyrust_rt).
 *
 * The compiler emits these calls under -mllvm -polyrust-profile-generate; a program may
 * also call polyrust_rt_write_profile() itself, e.g. before it ends with _exit().
 * At exit the runtime writes the profile to $POLYRUST_PROFILE_FILE, else to the path
 * compiled in (default_path), else to default.polyprof.json; %p becomes the process id.
 * Mirrored in Rust by runtime/src/abi/descriptor.rs. */
#ifndef POLYRUST_RT_H
#define POLYRUST_RT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define POLYRUST_RT_ABI_VERSION 1

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

/* Version of the profile format written (1). */
uint32_t polyrust_rt_profile_format_version(void);

/* Writes the profile now; it is written again at exit. */
void polyrust_rt_write_profile(void);

#ifdef __cplusplus
}
#endif

#endif
