/* C += A * B hand-tiled by 32 in i, j, k (the plugin does not optimize the nests it
 * instruments, so a tiled trace needs tiled source). Usage: matmul_tiled N; prints a
 * checksum. */
#include <stdio.h>
#include <stdlib.h>

#define T 32
static int min(int a, int b) { return a < b ? a : b; }

static __attribute__((noinline)) void matmul_tiled(int n, double *restrict C,
                                                   const double *restrict A,
                                                   const double *restrict B) {
  for (int it = 0; it < n; it += T)
    for (int jt = 0; jt < n; jt += T)
      for (int kt = 0; kt < n; kt += T)
        for (int i = it; i < min(it + T, n); i++)
          for (int j = jt; j < min(jt + T, n); j++) {
            double s = C[i * n + j];
            for (int k = kt; k < min(kt + T, n); k++)
              s += A[i * n + k] * B[k * n + j];
            C[i * n + j] = s;
          }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 120;
  if (n < 1 || n > 4096)
    return 2;
  double *A = malloc(sizeof(double) * n * n), *B = malloc(sizeof(double) * n * n);
  double *C = calloc((size_t)n * n, sizeof(double));
  if (!A || !B || !C)
    return 2;
  for (int i = 0; i < n * n; i++) {
    A[i] = (i % 7) * 0.125;
    B[i] = (i % 5) * 0.25;
  }
  matmul_tiled(n, C, A, B);
  double sum = 0;
  for (int i = 0; i < n * n; i++)
    sum += C[i];
  printf("C %.17g\n", sum);
  free(A);
  free(B);
  free(C);
  return 0;
}
