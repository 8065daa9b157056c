/* The matrix products of scripts/bench-products, in the shapes real code writes them.
 * Compiled once per configuration with -DCONFIG=<name>, so every configuration's code
 * lives in one program and runs side by side. The computation of each shape equals
 * C := beta * C + alpha * A' * B' for some transposition of A and B (see products.c). */
#include <stddef.h>

#define JOIN2(a, b) a##_##b
#define JOIN(a, b) JOIN2(a, b)
#define NAME(shape) JOIN(shape, CONFIG)

/* Shape 1: two-dimensional arrays of run-time size, C scaled by beta, then rank-1
 * updates over k (C = beta C + alpha A B). */
void NAME(vla_scaled)(int n, double alpha, double beta, double C[n][n], double A[n][n],
                      double B[n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      C[i][j] *= beta;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

/* Shape 2: dot products of rows with run-time leading dimensions, a scalar accumulator
 * added into C after the k loop (C = C + A B^T), as CPU GEMMs of neural-network
 * frameworks write A * B^T. */
void NAME(dot_rows)(int M, int N, int K, const double *A, int lda, const double *B,
                    int ldb, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

/* Shape 3: A transposed, k innermost (C = C + A^T B). */
void NAME(transposed_a)(int n, double C[n][n], double A[n][n], double B[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[k][i] * B[k][j];
}
