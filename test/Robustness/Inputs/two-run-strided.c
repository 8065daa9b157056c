// One program through the fuzzer's two-run set (profile-guided speculation): a
// flattened matrix with an `int` row length and a strided view, whose products with
// the loop counters keep the nest from being a region until a profile fixes them. The
// first input is profiled (B row-major: unit stride s1); the second has other sizes
// but the same unit stride, the third another layout of B (column-major when n is
// odd), which the run-time check sends to the original loops.
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) void kernel(int n, int m, int ld, double *A, long s0, long s1,
                                             const double *B) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i * ld + j] = A[i * ld + j] * 0.5 + B[i * s0 + j * s1];
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int ld = m + 4;
  long s0 = n % 2 ? 1 : m, s1 = n % 2 ? n : 1;
  double *A = calloc((size_t)n * ld + 1, sizeof(double));
  double *B = calloc((size_t)n * m + 1, sizeof(double));
  for (int k = 0; k < n * m; k++) B[k] = (k % 7) / 8.0;
  for (int r = 0; r < 3; r++) kernel(n, m, ld, A, s0, s1, B);
  double s = 0;
  for (int k = 0; k < n * ld; k++) s += A[k] * (k % 5 + 1);
  printf("%.17g\n", s);
  return 0;
}
// inputs (N M): 6 5, 3 8, 7 5
