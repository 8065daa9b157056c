/* The program of tests/trace_end_to_end.rs, compiled with the plugin and
 * -polyrust-instrument=accesses:
 *   transpose_lower: for i < n: for j <= i: L[i][j] = 2 * A[j][i]   (static control,
 *                    entered twice, on global arrays)
 *   histogram:       for i < 4n: h[idx[i]] += 1   (idx scattered: no nest explains h)
 * Usage: kernels N ADDRESSES: also writes to the file ADDRESSES the address of A[j][i]
 * of each iteration of transpose_lower in execution order, one decimal per line (the
 * stream its load of A must have, computed without the runtime). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NMAX 64
static double A[NMAX][NMAX], L[NMAX][NMAX];
static int h[NMAX], idx[4 * NMAX];

static __attribute__((noinline)) void transpose_lower(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      L[i][j] = 2 * A[j][i];
}

static __attribute__((noinline)) void histogram(int n) {
  for (int i = 0; i < 4 * n; i++)
    h[idx[i]] += 1;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  int n = atoi(argv[1]);
  if (n < 1 || n > NMAX)
    return 2;
  FILE *addresses = fopen(argv[2], "w");
  if (!addresses)
    return 2;
  uint64_t state = 12345;
  for (int i = 0; i < 4 * n; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    idx[i] = (int)((state >> 33) % (uint64_t)n);
  }
  for (int i = 0; i < n; i++)
    A[i][(i * 7) % n] = i;
  for (int repeat = 0; repeat < 2; repeat++) {
    transpose_lower(n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= i; j++)
        fprintf(addresses, "%lld\n", (long long)(intptr_t)&A[j][i]);
  }
  histogram(n);
  fclose(addresses);
  double sum = 0;
  long hits = 0;
  for (int i = 0; i < n; i++) {
    hits += h[i];
    for (int j = 0; j < n; j++)
      sum += L[i][j];
  }
  printf("sum %g hits %ld\n", sum, hits);
  return 0;
}
