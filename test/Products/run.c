// The packed product gives the bytes -O3 gives: sizes that fill no micro-kernel, that
// cross blocks of rows and of k (caches given small so that 53 steps of k are two
// blocks and 130 rows three), and sizes 0 and 1.
// REQUIRES: avx2-fma
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -march=native -fpass-plugin=%plugin -Rpass=polyrust -mllvm -polyrust-l1-cache=4K \
// RUN:   -mllvm -polyrust-l2-cache=32K %s -o %t/packed 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -march=native %s -o %t/plain
// RUN: %t/plain 37 41 53 1 1 1 0 5 5 5 0 5 5 5 0 130 17 300 6 8 32 7 9 33 > %t/plain.out
// RUN: %t/packed 37 41 53 1 1 1 0 5 5 5 0 5 5 5 0 130 17 300 6 8 32 7 9 33 > %t/packed.out
// RUN: cmp %t/plain.out %t/packed.out
// CHECK-DAG: remark: region in dot_rows at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 60 x 32, micro-kernel 6 x 8, bit-exact)
// CHECK-DAG: remark: region in columns at {{.*}} optimized (matrix product C[i][j] += A[k][i] * B[k][j] (A transposed, a dot product per element)
// CHECK-DAG: remark: region in in_c at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[k][j] (C kept in a register across k): packed, blocks 60 x 32, micro-kernel 6 x 8, bit-exact)
// CHECK-DAG: remark: region in in_c_transposed at {{.*}} optimized (matrix product C[i][j] += A[k][i] * B[k][j] (A transposed, C kept in a register across k)
// CHECK-DAG: remark: region in in_c_unfused at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[k][j] (C kept in a register across k): packed, blocks 60 x 32, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact)
// CHECK-DAG: remark: region in unfused at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 60 x 32, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact)

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void dot_rows(int M, int N, int K, const double *A, int lda,
                                        const double *B, int ldb, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

/* A transposed: C = C + A^T B, the columns of A and B as the dot products' vectors. */
__attribute__((noinline)) void columns(int M, int N, int K, const double *A, int lda,
                                       const double *B, int ldb, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[k * lda + i] * B[k * ldb + j];
      C[i * ldc + j] += sum;
    }
}

/* Values of every sign and size, exact zeros of both signs among them. */
static double value(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  unsigned r = (*seed >> 8) & 0xffff;
  if (r % 11 == 0)
    return r % 2 ? -0.0 : 0.0;
  return ((double)r - 32768.0) / (r % 7 + 1) * 1e-3;
}

/* C itself the accumulator, k innermost: C's element kept in a register across k. */
__attribute__((noinline)) void in_c(int M, int N, int K, const double *A, int lda,
                                    const double *B, int ldb, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * ldc + j] += A[i * lda + k] * B[k * ldb + j];
}

/* The same with A transposed. */
__attribute__((noinline)) void in_c_transposed(int M, int N, int K, const double *A,
                                               int lda, const double *B, int ldb, double *C,
                                               int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * ldc + j] += A[k * lda + i] * B[k * ldb + j];
}

void unfused(int M, int N, int K, const double *A, int lda, const double *B, int ldb,
             double *C, int ldc);
void in_c_unfused(int M, int N, int K, const double *A, int lda, const double *B, int ldb,
                  double *C, int ldc);

/* The products that keep C in a register, on arrays of their own shapes (B is K x N,
 * A^T is K x M), printing C after each. */
static void products_in_c(int M, int N, int K, unsigned seed) {
  int m = M > 0 ? M : 1, n = N > 0 ? N : 1, k = K > 0 ? K : 1;
  int lda = k + 3, ldat = m + 1, ldb = n + 5, ldc = n + 2;
  size_t na = (size_t)m * lda, nat = (size_t)k * ldat, nb = (size_t)k * ldb;
  size_t nc = (size_t)m * ldc;
  double *A = malloc(na * sizeof *A), *At = malloc(nat * sizeof *At);
  double *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C);
  for (size_t i = 0; i < na; i++) A[i] = value(&seed);
  for (size_t i = 0; i < nat; i++) At[i] = value(&seed);
  for (size_t i = 0; i < nb; i++) B[i] = value(&seed);
  for (size_t i = 0; i < nc; i++) C[i] = value(&seed);
  in_c(M, N, K, A, lda, B, ldb, C, ldc);
  for (size_t i = 0; i < nc; i++) printf("%a\n", C[i]);
  in_c_transposed(M, N, K, At, ldat, B, ldb, C, ldc);
  for (size_t i = 0; i < nc; i++) printf("%a\n", C[i]);
  in_c_unfused(M, N, K, A, lda, B, ldb, C, ldc);
  for (size_t i = 0; i < nc; i++) printf("%a\n", C[i]);
  free(A);
  free(At);
  free(B);
  free(C);
}

int main(int argc, char **argv) {
  for (int a = 1; a + 2 < argc; a += 3) {
    int M = atoi(argv[a]), N = atoi(argv[a + 1]), K = atoi(argv[a + 2]);
    int lda = K + 3, ldb = K + 1, ldc = N + 2;
    size_t na = (size_t)(M > 0 ? M : 1) * lda, nb = (size_t)(N > 0 ? N : 1) * ldb;
    size_t nc = (size_t)(M > 0 ? M : 1) * ldc;
    double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C);
    unsigned seed = 7u * M + 13u * N + K;
    for (size_t i = 0; i < na; i++) A[i] = value(&seed);
    for (size_t i = 0; i < nb; i++) B[i] = value(&seed);
    for (size_t i = 0; i < nc; i++) C[i] = value(&seed);
    dot_rows(M, N, K, A, lda, B, ldb, C, ldc);
    printf("%d x %d x %d\n", M, N, K);
    for (size_t i = 0; i < nc; i++) printf("%a\n", C[i]);
    /* A^T B on the same arrays, square at the smallest of the three sizes (which fits
     * in each of them). */
    int s = M < N ? M : N, t = s < K ? s : K;
    columns(t, t, t, A, t, B, t, C, t);
    for (size_t i = 0; i < (size_t)t * t; i++) printf("%a\n", C[i]);
    unfused(M, N, K, A, lda, B, ldb, C, ldc);
    for (size_t i = 0; i < nc; i++) printf("%a\n", C[i]);
    products_in_c(M, N, K, seed);
    free(A);
    free(B);
    free(C);
  }
  return 0;
}

/* Products rounded before they are added (no contraction from here on). */
#pragma clang fp contract(off)
__attribute__((noinline)) void unfused(int M, int N, int K, const double *A, int lda,
                                       const double *B, int ldb, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

__attribute__((noinline)) void in_c_unfused(int M, int N, int K, const double *A, int lda,
                                            const double *B, int ldb, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * ldc + j] += A[i * lda + k] * B[k * ldb + j];
}
