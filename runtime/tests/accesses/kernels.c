/* Two loop nests instrumented by hand the way -polyrust-instrument=accesses does it:
 * canonical counters per loop, one polyrust_rt_access call per loop-header iteration
 * and per load or store, polyrust_rt_nest_enter in front of each entry.
 *   matmul:    for i, j < n: C[i][j] = 0; for k < n: C[i][j] += A[i][k] * B[k][j]
 *   histogram: for i < 4n: h[idx[i]] += 1  (idx scattered: not affine)
 * Built with -DINSTRUMENT=0 the calls vanish: the baseline of the overhead figure.
 * Usage: kernels [n [repetitions [threads]]]; prints a checksum and the kernels' seconds.
 * With a third argument, two threads run the histogram at the same time instead. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "polyrust_rt.h"

#ifndef INSTRUMENT
#define INSTRUMENT 1
#endif
#if INSTRUMENT
#define ENTER(nest) polyrust_rt_nest_enter(nest)
#define ACCESS(nest, site, iv, address) \
  polyrust_rt_access(nest, site, iv, (uint64_t)(uintptr_t)(address))
#else
#define ENTER(nest) ((void)0)
#define ACCESS(nest, site, iv, address) ((void)(iv))
#endif
#define NONE UINT32_MAX

static const struct polyrust_rt_site mm_sites[] = {
    {POLYRUST_RT_SITE_LOOP, 1, 0, 30, 3, NONE, "i"},
    {POLYRUST_RT_SITE_LOOP, 2, 0, 31, 5, 0, "j"},
    {POLYRUST_RT_SITE_STORE, 2, 8, 32, 7, 1, "C"},
    {POLYRUST_RT_SITE_LOOP, 3, 0, 33, 7, 1, "k"},
    {POLYRUST_RT_SITE_LOAD, 3, 8, 34, 9, 3, "C"},
    {POLYRUST_RT_SITE_LOAD, 3, 8, 34, 20, 3, "A"},
    {POLYRUST_RT_SITE_LOAD, 3, 8, 34, 30, 3, "B"},
    {POLYRUST_RT_SITE_STORE, 3, 8, 34, 9, 3, "C"},
};
static const struct polyrust_rt_nest mm = {
    POLYRUST_RT_NEST_ABI_VERSION, 8, 3, 30, "matmul:30:5eed", "matmul", "kernels.c", "5eed",
    mm_sites, NULL, 1, 0};

static const struct polyrust_rt_site hist_sites[] = {
    {POLYRUST_RT_SITE_LOOP, 1, 0, 50, 3, NONE, "i"},
    {POLYRUST_RT_SITE_LOAD, 1, 4, 51, 7, 0, "idx"},
    {POLYRUST_RT_SITE_LOAD, 1, 4, 51, 5, 0, "h"},
    {POLYRUST_RT_SITE_STORE, 1, 4, 51, 5, 0, "h"},
};
static const struct polyrust_rt_nest hist = {
    POLYRUST_RT_NEST_ABI_VERSION, 4, 1, 50, "histogram:50:5eed", "histogram", "kernels.c",
    "5eed", hist_sites, NULL, 0, 0};

/* A descriptor that breaks the ABI (a site deeper than the nest): must be ignored. */
static const struct polyrust_rt_site bad_sites[] = {{POLYRUST_RT_SITE_LOAD, 5, 4, 0, 0, NONE, "x"}};
static const struct polyrust_rt_nest bad = {
    POLYRUST_RT_NEST_ABI_VERSION, 1, 1, 0, "bad:1:5eed", "bad", "", "5eed", bad_sites, NULL, 0, 0};

static void matmul(int64_t n, const double *A, const double *B, double *C) {
  ENTER(&mm);
  for (int64_t i = 0; i < n; i++) {
    int64_t iv[3] = {i, 0, 0};
    ACCESS(&mm, 0, iv, 0);
    for (int64_t j = 0; j < n; j++) {
      iv[1] = j;
      ACCESS(&mm, 1, iv, 0);
      ACCESS(&mm, 2, iv, &C[i * n + j]);
      C[i * n + j] = 0;
      for (int64_t k = 0; k < n; k++) {
        iv[2] = k;
        ACCESS(&mm, 3, iv, 0);
        ACCESS(&mm, 4, iv, &C[i * n + j]);
        ACCESS(&mm, 5, iv, &A[i * n + k]);
        ACCESS(&mm, 6, iv, &B[k * n + j]);
        double sum = C[i * n + j] + A[i * n + k] * B[k * n + j];
        ACCESS(&mm, 7, iv, &C[i * n + j]);
        C[i * n + j] = sum;
      }
    }
  }
}

static void histogram(int64_t count, const int32_t *idx, int32_t *h) {
  ENTER(&hist);
  for (int64_t i = 0; i < count; i++) {
    int64_t iv[1] = {i};
    ACCESS(&hist, 0, iv, 0);
    ACCESS(&hist, 1, iv, &idx[i]);
    ACCESS(&hist, 2, iv, &h[idx[i]]);
    int32_t bumped = h[idx[i]] + 1;
    ACCESS(&hist, 3, iv, &h[idx[i]]);
    h[idx[i]] = bumped;
  }
}

struct histogram_work {
  int64_t count, repetitions;
  const int32_t *idx;
  int32_t h[64];
};

static void *histogram_thread(void *arg) {
  struct histogram_work *work = arg;
  for (int64_t r = 0; r < work->repetitions; r++)
    histogram(work->count, work->idx, work->h);
  return NULL;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 16;
  int64_t repetitions = argc > 2 ? atoll(argv[2]) : 1;
  double *A = malloc(n * n * sizeof *A), *B = malloc(n * n * sizeof *B), *C = malloc(n * n * sizeof *C);
  int32_t *idx = malloc(4 * n * sizeof *idx), h[64] = {0};
  for (int64_t i = 0; i < n * n; i++) {
    A[i] = (double)(i % 7);
    B[i] = (double)(i % 5) - 2.0;
  }
  for (int64_t i = 0; i < 4 * n; i++)
    idx[i] = (int32_t)((i * 7919) % 61);
  /* Calls that break the ABI are ignored, never fatal. */
  int64_t iv[3] = {0, 0, 0};
  ENTER(&bad);
  ACCESS(&bad, 0, iv, h);
  ENTER(NULL);
  ACCESS(NULL, 0, iv, h);
  ACCESS(&mm, 99, iv, h);   /* no such site */
  ACCESS(&mm, 4, NULL, h);  /* a site of depth 3 without counters */
  if (argc > 3) {
    struct histogram_work work[2] = {{4 * n, repetitions, idx, {0}}, {4 * n, repetitions, idx, {0}}};
    pthread_t threads[2];
    for (int t = 0; t < 2; t++)
      pthread_create(&threads[t], NULL, histogram_thread, &work[t]);
    for (int t = 0; t < 2; t++)
      pthread_join(threads[t], NULL);
    printf("checksum %d seconds 0\n", work[0].h[0] + work[1].h[0]);
    return 0;
  }
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int64_t r = 0; r < repetitions; r++) {
    matmul(n, A, B, C);
    histogram(4 * n, idx, h);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  double checksum = 0;
  for (int64_t i = 0; i < n * n; i++)
    checksum += C[i];
  for (int i = 0; i < 64; i++)
    checksum += h[i];
  printf("checksum %.1f seconds %.6f\n", checksum,
         (double)(end.tv_sec - start.tv_sec) + 1e-9 * (double)(end.tv_nsec - start.tv_nsec));
  return 0;
}
