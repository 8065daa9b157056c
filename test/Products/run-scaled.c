// The scaled products (C scaled by beta or set to 0 first, A's element times alpha) give
// the bytes -O3 gives: j innermost and k innermost, fused and not, sizes that fill no
// micro-kernel, that cross blocks of rows and of k (caches given small), and sizes 0
// and 1; syrk's lower triangle, syr2k's two products per step; arrays that overlap
// (the run-time check keeps the loops). beta applied after the update is not this product and stays loops.
// REQUIRES: avx2-fma
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -march=native -fpass-plugin=%plugin -Rpass=polyrust -mllvm -polyrust-l1-cache=4K \
// RUN:   -mllvm -polyrust-l2-cache=32K %s -o %t/packed 2> %t/remarks
// RUN: %FileCheck %s < %t/remarks
// RUN: %FileCheck %s --check-prefix=AFTER < %t/remarks
// RUN: %clang -O3 -g -march=native %s -o %t/plain
// RUN: %t/plain 37 41 53 1 1 1 0 5 5 5 0 5 5 5 0 130 17 70 6 8 32 61 67 40 50 70 60 > %t/plain.out
// RUN: %t/packed 37 41 53 1 1 1 0 5 5 5 0 5 5 5 0 130 17 70 6 8 32 61 67 40 50 70 60 > %t/packed.out
// RUN: cmp %t/plain.out %t/packed.out
// CHECK-DAG: remark: region in gemm at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed, blocks 60 x 32, micro-kernel 6 x 8, bit-exact)
// CHECK-DAG: remark: region in gemm_k_innermost at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed
// CHECK-DAG: remark: region in zeroed at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (C set to 0 first): packed
// CHECK-DAG: remark: region in alpha_only at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (C updated in place): packed
// CHECK-DAG: remark: region in transposed at {{.*}} optimized (matrix product C[i][j] += alpha * A[k][i] * B[k][j] (A transposed, beta-scaled C): packed
// CHECK-DAG: remark: region in syrk at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * A[j][k] (B transposed, lower triangle of C, beta-scaled C): packed
// CHECK-DAG: remark: region in syr2k at {{.*}} optimized (matrix product C[i][j] += alpha * A[j][k] * B[i][k] + alpha * B[j][k] * A[i][k] (two products per step, lower triangle of C, beta-scaled C): packed
// CHECK-DAG: remark: region in may_alias at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed
// CHECK-DAG: remark: region in gemm_unfused at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed, blocks 60 x 32, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact)
// AFTER-NOT: region in scaled_after at {{.*}} (matrix product

#include <stdio.h>
#include <stdlib.h>

#define KERNEL __attribute__((noinline)) void
#define ARGS int M, int N, int K, double alpha, double beta, double C[restrict M][N + 2], \
             const double A[restrict M][K + 3], const double B[restrict K][N + 5]

/* PolyBench's gemm. */
KERNEL gemm(ARGS) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      C[i][j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

/* k innermost: C's element kept in a register across k, starting at C * beta. */
KERNEL gemm_k_innermost(ARGS) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < K; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

/* PolyBench's 2mm and 3mm: C set to 0, then the product. */
KERNEL zeroed(ARGS) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] = 0.0;
      for (int k = 0; k < K; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

/* Its zeroing loop becomes a memset per row, which the scaled form does not take:
 * loops, run here for their bytes. */
KERNEL zeroed_j_innermost(ARGS) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      C[i][j] = 0.0;
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
  }
}

KERNEL alpha_only(ARGS) {
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
}

/* A transposed (its rows are k): square, at the smallest size. */
KERNEL transposed(int S, double alpha, double beta, double C[restrict S][S],
                  const double A[restrict S][S], const double B[restrict S][S]) {
  for (int i = 0; i < S; i++) {
    for (int j = 0; j < S; j++)
      C[i][j] *= beta;
    for (int k = 0; k < S; k++)
      for (int j = 0; j < S; j++)
        C[i][j] += alpha * A[k][i] * B[k][j];
  }
}

/* syrk: C's lower triangle (the upper one untouched), A times its transpose. */
KERNEL syrk(int S, int K, double alpha, double beta, double C[restrict S][S + 2],
            const double A[restrict S][K + 3]) {
  for (int i = 0; i < S; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}

/* syr2k: two products per step, C's lower triangle. */
KERNEL syr2k(int S, int K, double alpha, double beta, double C[restrict S][S + 2],
             const double A[restrict S][K + 3], const double B[restrict S][K + 5]) {
  for (int i = 0; i < S; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
}

/* Without restrict: called with C overlapping A, the run-time check keeps the loops. */
KERNEL may_alias(int n, double alpha, double beta, double C[n][n], double A[n][n],
                 double B[n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      C[i][j] *= beta;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

/* Not this product: C scaled after its update. */
KERNEL scaled_after(ARGS) {
  for (int i = 0; i < M; i++) {
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    for (int j = 0; j < N; j++)
      C[i][j] *= beta;
  }
}

KERNEL gemm_unfused(ARGS);

/* Values of every sign and size, exact zeros of both signs among them. */
static double value(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  unsigned r = (*seed >> 8) & 0xffff;
  if (r % 11 == 0)
    return r % 2 ? -0.0 : 0.0;
  return ((double)r - 32768.0) / (r % 7 + 1) * 1e-3;
}

static void fill(double *x, size_t n, unsigned *seed) {
  for (size_t i = 0; i < n; i++)
    x[i] = value(seed);
}

static void print(const double *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    printf("%a\n", x[i]);
}

int main(int argc, char **argv) {
  for (int a = 1; a + 2 < argc; a += 3) {
    int M = atoi(argv[a]), N = atoi(argv[a + 1]), K = atoi(argv[a + 2]);
    int m = M > 0 ? M : 1, n = N > 0 ? N : 1, k = K > 0 ? K : 1;
    size_t na = (size_t)m * (k + 3), nb = (size_t)k * (n + 5), nc = (size_t)m * (n + 2);
    double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B);
    double *C = malloc(nc * sizeof *C);
    unsigned seed = 7u * M + 13u * N + K;
    fill(A, na, &seed);
    fill(B, nb, &seed);
    fill(C, nc, &seed);
    double alpha = value(&seed) + 1.25, beta = value(&seed) - 0.75;
    printf("%d x %d x %d\n", M, N, K);
    void (*kernels[])(ARGS) = {gemm, gemm_k_innermost, zeroed, zeroed_j_innermost,
                               alpha_only, scaled_after, gemm_unfused};
    for (size_t f = 0; f < sizeof kernels / sizeof *kernels; f++) {
      kernels[f](M, N, K, alpha, beta, (void *)C, (const void *)A, (const void *)B);
      print(C, nc);
    }
    if (M <= N) {
      syrk(M, K, alpha, beta, (void *)C, (const void *)A);
      print(C, nc);
      /* B as M x (K + 5): it holds K rows of N + 5 >= K + 5 when M <= K <= N. */
      if (M <= K && K <= N) {
        syr2k(M, K, alpha, beta, (void *)C, (const void *)A, (const void *)B);
        print(C, nc);
      }
    }
    int s = M < N ? M : N, t = s < K ? s : K;
    if (t > 1) {
      /* Apart, then C one row into A. */
      may_alias(t, alpha, beta, (void *)C, (void *)A, (void *)B);
      print(C, (size_t)t * t);
      may_alias(t - 1, alpha, beta, (void *)(A + t), (void *)A, (void *)B);
      print(A, (size_t)t * t);
    }
    if (t > 0) {
      transposed(t, alpha, beta, (void *)C, (const void *)A, (const void *)B);
      print(C, (size_t)t * t);
    }
    free(A);
    free(B);
    free(C);
  }
  return 0;
}

/* Products rounded before they are added (no contraction from here on). */
#pragma clang fp contract(off)
KERNEL gemm_unfused(ARGS) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      C[i][j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
