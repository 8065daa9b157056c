/*
 * harness.h - shared helpers for the polyrust C kernel corpus.
 *
 * Every kernel program includes this header.  Only static inline functions
 * are defined here, so a program is always a single translation unit.
 *
 * Conventions:
 *   - argv[1] is the problem size N (a non-negative decimal integer).
 *   - stdout carries only deterministic checksum lines (byte-comparable
 *     between compilations); stderr carries the kernel time.
 *   - All initial values are small rationals (k/12, or small integers),
 *     computed the same way on every run; no rand().
 *   - Checksums are accumulated with plain sequential loops in a fixed
 *     order; they never depend on the compiler reassociating anything.
 */
#ifndef POLYRUST_HARNESS_H
#define POLYRUST_HARNESS_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* Problem size                                                         */
/* ------------------------------------------------------------------ */

/* Parse argv[1] as the problem size; return dflt when absent.
 * Accepts 0 and 1.  Rejects empty strings, trailing garbage, signs,
 * negative numbers and values above INT_MAX with exit code 2. */
static inline int pr_size(int argc, char **argv, int dflt)
{
#ifdef PR_FIXED_SIZE
    /* scripts/bench --roofline compiles the kernel with its size fixed, so the loop
     * bounds become constants and polyrust can count the kernel's work. */
    (void)argc, (void)argv, (void)dflt;
    return PR_FIXED_SIZE;
#endif
    if (argc < 2)
        return dflt;
    const char *s = argv[1];
    if (s[0] < '0' || s[0] > '9') {
        fprintf(stderr, "%s: invalid size '%s' (expected a non-negative integer)\n",
                argv[0], s);
        exit(2);
    }
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0 || v > INT_MAX) {
        fprintf(stderr, "%s: invalid size '%s' (expected a non-negative integer)\n",
                argv[0], s);
        exit(2);
    }
    return (int)v;
}

/* Exit with code 2 when n exceeds the capacity of a fixed-size array or
 * the limit that keeps int index arithmetic of a kernel in range. */
static inline void pr_size_limit(int n, long max, const char *what)
{
    if ((long)n > max) {
        fprintf(stderr, "size %d exceeds the limit %ld of this kernel (%s)\n",
                n, max, what);
        exit(2);
    }
}

/* ------------------------------------------------------------------ */
/* Allocation                                                           */
/* ------------------------------------------------------------------ */

/* Zero-filled allocation of count elements of size bytes, with all pages
 * already touched.  Never returns NULL (a zero count still yields a valid,
 * distinct block); exits with status 3 when memory is exhausted. */
static inline void *pr_alloc(size_t count, size_t size)
{
    if (count == 0)
        count = 1;
    if (size != 0 && count > SIZE_MAX / size) {
        fprintf(stderr, "allocation size overflow\n");
        exit(3);
    }
    void *p = calloc(count, size);
    if (p == NULL) {
        fprintf(stderr, "out of memory allocating %zu x %zu bytes\n", count, size);
        exit(3);
    }
    /* Fault every page in now, so that first-touch page faults are not
     * counted in the kernel time (volatile: the stores cannot be elided). */
    volatile char *v = (volatile char *)p;
    size_t bytes = count * size;
    for (size_t k = 0; k < bytes; k += 4096)
        v[k] = 0;
    return p;
}

/* ------------------------------------------------------------------ */
/* Deterministic initialisation                                         */
/* ------------------------------------------------------------------ */

/* Position hash: mixes (i, j, n, salt) into 32 well-spread bits.  The
 * values are deliberately non-periodic in i and j, so that an optimizer
 * bug that shifts or permutes iterations changes the checksums.  All
 * arithmetic is unsigned (wrap-around is well defined). */
static inline uint32_t pr_hash(long i, long j, long n, uint32_t salt)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ULL;
    x ^= (uint64_t)j * 0xC2B2AE3D27D4EB4FULL;
    x ^= (uint64_t)n * 0x165667B19E3779F9ULL + salt;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 32;
    return (uint32_t)x;
}

/* A value k/12 in [-1, 1], depending on the position (i, j) and the
 * problem size n.  Twelfths are not exact in binary, so arithmetic on
 * these values rounds: an illegal reassociation of a floating-point
 * reduction changes the printed checksums instead of hiding behind exact
 * arithmetic.  The conversion itself is deterministic. */
static inline double pr_init(long i, long j, long n)
{
    return (double)((int)(pr_hash(i, j, n, 1u) % 25u) - 12) / 12.0;
}

/* A value k/12 in [1/12, 2] (positive; good for weights, distances and
 * intensities). */
static inline double pr_init_pos(long i, long j, long n)
{
    return (double)(pr_hash(i, j, n, 2u) % 24u + 1u) / 12.0;
}

static inline float pr_initf(long i, long j, long n)
{
    return (float)pr_init(i, j, n);
}

static inline float pr_init_posf(long i, long j, long n)
{
    return (float)pr_init_pos(i, j, n);
}

/* A small integer in [lo, hi] (requires lo <= hi). */
static inline int pr_init_int(long i, long j, long n, int lo, int hi)
{
    uint32_t span = (uint32_t)((long)hi - (long)lo + 1);
    return lo + (int)(pr_hash(i, j, n, 3u) % span);
}

/* Tiny deterministic generator (64-bit LCG, high bits).  Used for
 * permutations and random-looking structure; identical on every run. */
static inline uint32_t pr_lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*state >> 33);
}

/* Fill p[0..n-1] with a deterministic pseudo-random permutation. */
static inline void pr_permutation(int *p, int n, uint64_t seed)
{
    for (int i = 0; i < n; i++)
        p[i] = i;
    uint64_t st = seed;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(pr_lcg(&st) % (uint32_t)(i + 1));
        int t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* ------------------------------------------------------------------ */
/* Kernel timer (result on stderr only)                                 */
/* ------------------------------------------------------------------ */

static inline struct timespec *pr__timer_slot(void)
{
    static struct timespec t0;
    return &t0;
}

static inline void pr_timer_start(void)
{
    clock_gettime(CLOCK_MONOTONIC, pr__timer_slot());
}

/* Seconds since the last pr_timer_start(), without printing. */
static inline double pr_timer_elapsed(void)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const struct timespec *t0 = pr__timer_slot();
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Print a kernel time on stderr in the format the scripts parse. */
static inline void pr_timer_report(double seconds)
{
    fprintf(stderr, "kernel-time: %.6f\n", seconds);
}

/* Stop the timer and report the elapsed kernel time on stderr. */
static inline double pr_timer_stop(void)
{
    double s = pr_timer_elapsed();
    pr_timer_report(s);
    return s;
}

/* ------------------------------------------------------------------ */
/* Checksums (stdout)                                                   */
/* ------------------------------------------------------------------ */
/*
 * For a logical rows x cols array stored with leading dimension ld
 * (element (r, c) at base[r*ld + c]), print
 *     <name> <sum> <weighted sum>
 *     <name> samples <x[0]> <x[total/3]> <x[~5 total/7]> <x[total-1]>
 * where the weighted sum is sum over the row-major logical index k of
 * (k % 7 + 1) * x[k].  Summation is strictly sequential.
 */

static inline void pr__samples_header(const char *name, long total)
{
    printf("%s samples", name);
    if (total == 0)
        printf(" (empty)");
}

static inline void pr_check_d2(const char *name, const double *a,
                               long rows, long cols, long ld)
{
    double sum = 0.0, wsum = 0.0;
    long k = 0;
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++, k++) {
            double x = a[r * ld + c];
            sum += x;
            wsum += (double)(k % 7 + 1) * x;
        }
    printf("%s %.17g %.17g\n", name, sum, wsum);
    long total = rows * cols;
    pr__samples_header(name, total);
    if (total > 0) {
        long idx[4] = {0, total / 3, total / 7 * 5 + total % 7 * 5 / 7, total - 1};
        for (int s = 0; s < 4; s++)
            printf(" %.17g", a[(idx[s] / cols) * ld + idx[s] % cols]);
    }
    printf("\n");
}

static inline void pr_check_f2(const char *name, const float *a,
                               long rows, long cols, long ld)
{
    double sum = 0.0, wsum = 0.0;
    long k = 0;
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++, k++) {
            double x = (double)a[r * ld + c];
            sum += x;
            wsum += (double)(k % 7 + 1) * x;
        }
    printf("%s %.17g %.17g\n", name, sum, wsum);
    long total = rows * cols;
    pr__samples_header(name, total);
    if (total > 0) {
        long idx[4] = {0, total / 3, total / 7 * 5 + total % 7 * 5 / 7, total - 1};
        for (int s = 0; s < 4; s++)
            printf(" %.9g", (double)a[(idx[s] / cols) * ld + idx[s] % cols]);
    }
    printf("\n");
}

/* Integer arrays: sums in long long (callers keep values small enough
 * that no overflow is possible). */
static inline void pr_check_i2(const char *name, const int *a,
                               long rows, long cols, long ld)
{
    long long sum = 0, wsum = 0;
    long k = 0;
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++, k++) {
            long long x = a[r * ld + c];
            sum += x;
            wsum += (long long)(k % 7 + 1) * x;
        }
    printf("%s %lld %lld\n", name, sum, wsum);
    long total = rows * cols;
    pr__samples_header(name, total);
    if (total > 0) {
        long idx[4] = {0, total / 3, total / 7 * 5 + total % 7 * 5 / 7, total - 1};
        for (int s = 0; s < 4; s++)
            printf(" %d", a[(idx[s] / cols) * ld + idx[s] % cols]);
    }
    printf("\n");
}

static inline void pr_check_d(const char *name, const double *a, long n)
{
    pr_check_d2(name, a, 1, n, n);
}

static inline void pr_check_f(const char *name, const float *a, long n)
{
    pr_check_f2(name, a, 1, n, n);
}

static inline void pr_check_i(const char *name, const int *a, long n)
{
    pr_check_i2(name, a, 1, n, n);
}

/* A single scalar result. */
static inline void pr_check_scalar(const char *name, double v)
{
    printf("%s %.17g\n", name, v);
}

#endif /* POLYRUST_HARNESS_H */
