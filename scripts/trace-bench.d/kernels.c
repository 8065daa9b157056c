/* Address traces of one reference of a few kernels, one decimal address per line.
   usage: kernels KERNEL N [T]   (KERNEL: matmul, matmul-tiled, jacobi2d, trisolv) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int min(int a, int b) { return a < b ? a : b; }
int main(int argc, char **argv) {
  const char *k = argv[1];
  int n = atoi(argv[2]);
  int t = argc > 3 ? atoi(argv[3]) : 32;
  double *A = malloc(sizeof(double) * n * n);
  double *B = malloc(sizeof(double) * n * n);
  if (!strcmp(k, "matmul")) {          /* C[i][j] += A[i][k] * B[k][j]: B[k][j] */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        for (int kk = 0; kk < n; kk++)
          printf("%lld\n", (long long)&B[kk * n + j]);
  } else if (!strcmp(k, "matmul-tiled")) { /* tiled by t in i, j, k: A[i][k] */
    for (int it = 0; it < n; it += t)
      for (int jt = 0; jt < n; jt += t)
        for (int kt = 0; kt < n; kt += t)
          for (int i = it; i < min(it + t, n); i++)
            for (int j = jt; j < min(jt + t, n); j++)
              for (int kk = kt; kk < min(kt + t, n); kk++)
                printf("%lld\n", (long long)&A[i * n + kk]);
  } else if (!strcmp(k, "jacobi2d")) {  /* t steps of B = 5-point(A), A = 5-point(B): A[i-1][j] */
    for (int s = 0; s < t; s++) {
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
          printf("%lld\n", (long long)&A[(i - 1) * n + j]);
    }
  } else if (!strcmp(k, "trisolv")) {   /* x[i] -= L[i][j] * x[j], j < i: L[i][j] */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++)
        printf("%lld\n", (long long)&A[i * n + j]);
  } else return 1;
  return 0;
}
