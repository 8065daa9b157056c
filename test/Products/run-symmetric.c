// The symmetric product as PolyBench's symm writes it gives the bytes -O3 gives: fused
// (-march=native) and not (x86-64's baseline, no FMA: the kernel behind a test of the
// CPU; and `fp contract(off)`), doubles and floats, sizes that fill no micro-kernel and
// that cross blocks of rows and of k (caches given small), sizes 0 and 1, -0.0 among
// the values; B one row into C (the run-time check keeps the loops).
// REQUIRES: avx2-fma
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -march=native -fpass-plugin=%plugin -Rpass=polyrust -mllvm -polyrust-l1-cache=4K \
// RUN:   -mllvm -polyrust-l2-cache=32K %s -o %t/packed 2> %t/remarks
// RUN: %FileCheck %s < %t/remarks
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -mllvm -polyrust-l1-cache=4K \
// RUN:   -mllvm -polyrust-l2-cache=32K %s -o %t/packed-baseline 2> %t/remarks-baseline
// RUN: %FileCheck %s --check-prefix=BASELINE < %t/remarks-baseline
// RUN: %clang -O3 -g -march=native %s -o %t/plain
// RUN: %clang -O3 -g %s -o %t/plain-baseline
// RUN: %t/plain 1 1 2 3 37 41 130 17 61 67 0 5 5 0 7 100 > %t/plain.out
// RUN: %t/packed 1 1 2 3 37 41 130 17 61 67 0 5 5 0 7 100 > %t/packed.out
// RUN: cmp %t/plain.out %t/packed.out
// RUN: %t/plain-baseline 1 1 2 3 37 41 130 17 61 67 0 5 5 0 7 100 > %t/plain-baseline.out
// RUN: %t/packed-baseline 1 1 2 3 37 41 130 17 61 67 0 5 5 0 7 100 > %t/packed-baseline.out
// RUN: cmp %t/plain-baseline.out %t/packed-baseline.out
// CHECK-DAG: remark: region in symm at {{.*}} optimized (symmetric matrix product C[i][j] = beta * C[i][j] + alpha * sum over k of A[i][k] * B[k][j] (A symmetric, its lower triangle read: {{.*}}): packed, blocks 60 x 32, micro-kernel 6 x 8, bit-exact)
// CHECK-DAG: remark: region in symm_float at {{.*}} optimized (symmetric matrix product C[i][j] = {{.*}} micro-kernel 6 x 16, bit-exact)
// CHECK-DAG: remark: region in symm_unfused at {{.*}} optimized (symmetric matrix product {{.*}} (products rounded before they are added, as written), bit-exact)
// CHECK-DAG: remark: region in may_alias at {{.*}} optimized (symmetric matrix product
// BASELINE-DAG: remark: region in symm at {{.*}} optimized (symmetric matrix product {{.*}} (products rounded before they are added, as written), bit-exact, needs AVX2 and FMA at run time, original loops otherwise)

#include <stdio.h>
#include <stdlib.h>

#define KERNEL __attribute__((noinline)) void
#define ARGS(T) int M, int N, T alpha, T beta, T C[restrict M][N + 2], \
                const T A[restrict M][M + 3], const T B[restrict M][N + 5]

/* PolyBench's symm. */
KERNEL symm(ARGS(double)) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}

KERNEL symm_float(ARGS(float)) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}

/* B and C may overlap: the check keeps the loops when they do. */
KERNEL may_alias(int M, int N, double alpha, double beta, double C[M][N],
                 const double A[restrict M][M], const double B[M][N]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}

KERNEL symm_unfused(ARGS(double));

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
static void fill_float(float *x, size_t n, unsigned *seed) {
  for (size_t i = 0; i < n; i++)
    x[i] = (float)value(seed);
}
static void print_float(const float *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    printf("%a\n", (double)x[i]);
}

static void doubles(int M, int N, unsigned seed) {
  int m = M > 0 ? M : 1, n = N > 0 ? N : 1;
  size_t na = (size_t)m * (m + 3), nb = (size_t)m * (n + 5), nc = (size_t)m * (n + 2);
  double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B);
  double *C = malloc(nc * sizeof *C);
  fill(A, na, &seed);
  fill(B, nb, &seed);
  fill(C, nc, &seed);
  double alpha = value(&seed) + 1.25, beta = value(&seed) - 0.75;
  symm(M, N, alpha, beta, (void *)C, (const void *)A, (const void *)B);
  print(C, nc);
  symm_unfused(M, N, -alpha, beta, (void *)C, (const void *)A, (const void *)B);
  print(C, nc);
  /* Apart, then B one row into C. */
  may_alias(M, N, alpha, beta, (void *)C, (const void *)A, (const void *)B);
  print(C, nc);
  if (M > 1) {
    may_alias(M - 1, N, alpha, beta, (void *)C, (const void *)A, (const void *)(C + N));
    print(C, nc);
  }
  free(A);
  free(B);
  free(C);
}

static void floats(int M, int N, unsigned seed) {
  int m = M > 0 ? M : 1, n = N > 0 ? N : 1;
  size_t na = (size_t)m * (m + 3), nb = (size_t)m * (n + 5), nc = (size_t)m * (n + 2);
  float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B);
  float *C = malloc(nc * sizeof *C);
  fill_float(A, na, &seed);
  fill_float(B, nb, &seed);
  fill_float(C, nc, &seed);
  float alpha = (float)value(&seed) + 1.25f, beta = (float)value(&seed) - 0.75f;
  symm_float(M, N, alpha, beta, (void *)C, (const void *)A, (const void *)B);
  print_float(C, nc);
  free(A);
  free(B);
  free(C);
}

int main(int argc, char **argv) {
  for (int a = 1; a + 1 < argc; a += 2) {
    int M = atoi(argv[a]), N = atoi(argv[a + 1]);
    printf("%d x %d\n", M, N);
    doubles(M, N, 7u * M + 13u * N);
    floats(M, N, 11u * M + 5u * N);
  }
  return 0;
}

/* Products rounded before they are added (no contraction from here on). */
#pragma clang fp contract(off)
KERNEL symm_unfused(ARGS(double)) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}
