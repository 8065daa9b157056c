// The float products give the bytes -O3 gives: the dot product per element (also with
// alpha * A's element, darknet's gemm_nt, in float and double), C kept in a register
// across k, and the beta-scaled product with alpha, fused and not; sizes
// that fill no micro-kernel (16 columns of floats), that cross blocks of rows and of k
// (caches given small), and sizes 0 and 1.
// REQUIRES: avx2-fma
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -march=native -fpass-plugin=%plugin -Rpass=polyrust -mllvm -polyrust-l1-cache=4K \
// RUN:   -mllvm -polyrust-l2-cache=32K %s -o %t/packed 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -march=native %s -o %t/plain
// RUN: %t/plain 37 41 53 1 1 1 0 5 5 5 0 5 5 5 0 130 17 300 6 16 32 7 17 33 > %t/plain.out
// RUN: %t/packed 37 41 53 1 1 1 0 5 5 5 0 5 5 5 0 130 17 300 6 16 32 7 17 33 > %t/packed.out
// RUN: cmp %t/plain.out %t/packed.out
// CHECK-DAG: remark: region in dot_rows at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 126 x 32, micro-kernel 6 x 16, bit-exact)
// CHECK-DAG: remark: region in in_c at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[k][j] (C kept in a register across k): packed
// CHECK-DAG: remark: region in gemm at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed
// CHECK-DAG: remark: region in unfused at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 126 x 32, micro-kernel 6 x 16 (products rounded before they are added, as written), bit-exact)
// CHECK-DAG: remark: region in dot_alpha at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 126 x 32, micro-kernel 6 x 16, bit-exact)
// CHECK-DAG: remark: region in dot_alpha_f64 at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 60 x 32, micro-kernel 6 x 8, bit-exact)
// CHECK-DAG: remark: region in gemm_unfused at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed, blocks 126 x 32, micro-kernel 6 x 16 (products rounded

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void dot_rows(int M, int N, int K, const float *A, int lda,
                                        const float *B, int ldb, float *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

__attribute__((noinline)) void in_c(int M, int N, int K, const float *A, int lda,
                                    const float *B, int ldb, float *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * ldc + j] += A[i * lda + k] * B[k * ldb + j];
}

__attribute__((noinline)) void gemm(int M, int N, int K, float alpha, float beta,
                                    float C[M][N], float A[M][K], float B[K][N]) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      C[i][j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

/* darknet's gemm_nt: alpha * A's element, then times B's, into the sum. */
__attribute__((noinline)) void dot_alpha(int M, int N, int K, float ALPHA, const float *A,
                                         int lda, const float *B, int ldb, float *C,
                                         int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0;
      for (int k = 0; k < K; ++k)
        sum += ALPHA * A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

/* The same in double, on the floats widened. */
__attribute__((noinline)) void dot_alpha_f64(int M, int N, int K, double ALPHA,
                                             const double *A, int lda, const double *B,
                                             int ldb, double *C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int k = 0; k < K; ++k)
        sum += ALPHA * A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

static void widen(const float *x, double *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    y[i] = x[i];
}

void unfused(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
             float *C, int ldc);
void gemm_unfused(int M, int N, int K, float alpha, float beta, float C[M][N],
                  float A[M][K], float B[K][N]);

/* Values of every sign and size, exact zeros of both signs among them. */
static float value(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  unsigned r = (*seed >> 8) & 0xffff;
  if (r % 11 == 0)
    return r % 2 ? -0.0f : 0.0f;
  return ((float)r - 32768.0f) / (r % 7 + 1) * 1e-3f;
}

static void print(const float *C, size_t n) {
  for (size_t i = 0; i < n; i++)
    printf("%a\n", C[i]);
}

int main(int argc, char **argv) {
  for (int a = 1; a + 2 < argc; a += 3) {
    int M = atoi(argv[a]), N = atoi(argv[a + 1]), K = atoi(argv[a + 2]);
    int m = M > 0 ? M : 1, n = N > 0 ? N : 1, k = K > 0 ? K : 1;
    int lda = k + 3, ldb = k + 1, ldbn = n + 5, ldc = n + 2;
    size_t na = (size_t)m * lda, nb = (size_t)(n > k ? n : k) * (ldb > ldbn ? ldb : ldbn);
    size_t nc = (size_t)m * ldc;
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C);
    unsigned seed = 7u * M + 13u * N + K;
    for (size_t i = 0; i < na; i++) A[i] = value(&seed);
    for (size_t i = 0; i < nb; i++) B[i] = value(&seed);
    for (size_t i = 0; i < nc; i++) C[i] = value(&seed);
    printf("%d x %d x %d\n", M, N, K);
    dot_rows(M, N, K, A, lda, B, ldb, C, ldc);
    print(C, nc);
    unfused(M, N, K, A, lda, B, ldb, C, ldc);
    print(C, nc);
    in_c(M, N, K, A, lda, B, ldbn, C, ldc);
    print(C, nc);
    float alpha = value(&seed), beta = value(&seed);
    gemm(M, N, K, alpha, beta, (float (*)[N])C, (float (*)[K])A, (float (*)[N])B);
    print(C, nc);
    gemm_unfused(M, N, K, alpha, beta, (float (*)[N])C, (float (*)[K])A, (float (*)[N])B);
    print(C, nc);
    dot_alpha(M, N, K, alpha, A, lda, B, ldb, C, ldc);
    print(C, nc);
    double *Ad = malloc(na * sizeof *Ad), *Bd = malloc(nb * sizeof *Bd);
    double *Cd = malloc(nc * sizeof *Cd);
    widen(A, Ad, na);
    widen(B, Bd, nb);
    widen(C, Cd, nc);
    dot_alpha_f64(M, N, K, 1.0 / 3, Ad, lda, Bd, ldb, Cd, ldc);
    for (size_t i = 0; i < nc; i++)
      printf("%a\n", Cd[i]);
    free(Ad);
    free(Bd);
    free(Cd);
    free(A);
    free(B);
    free(C);
  }
  return 0;
}

/* Products rounded before they are added (no contraction from here on). */
#pragma clang fp contract(off)
__attribute__((noinline)) void unfused(int M, int N, int K, const float *A, int lda,
                                       const float *B, int ldb, float *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

__attribute__((noinline)) void gemm_unfused(int M, int N, int K, float alpha, float beta,
                                            float C[M][N], float A[M][K], float B[K][N]) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      C[i][j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
