// A product whose C is zeroed first, where LLVM has made the zeroing a memset (it does
// at -O3, on every target), is the product from +0.0: the rows zeroed one per i (the
// zeroing loop inside i), all of C zeroed before the nest, k innermost. A memset of
// other bytes than 0, of fewer columns than the product makes, or of all rows when the
// product makes a lower triangle, is not. The programs give -O3's bytes.
// REQUIRES: avx2-fma
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -mavx2 -mfma -c -o /dev/null -fpass-plugin=%plugin -Rpass=polyrust \
// RUN:   -Rpass-missed=polyrust %s 2>&1 | %FileCheck %s --check-prefix=REMARK
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -march=native -fpass-plugin=%plugin %s -o %t/packed
// RUN: %clang -O3 -march=native %s -o %t/plain
// RUN: %t/plain 0 0 0 1 1 1 7 9 0 13 37 41 40 50 70 131 67 300 > %t/plain.out
// RUN: %t/packed 0 0 0 1 1 1 7 9 0 13 37 41 40 50 70 131 67 300 > %t/packed.out
// RUN: cmp %t/plain.out %t/packed.out

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL __attribute__((noinline)) void

/* The kernel corpus's matmul_ptr: i-k-j, flat indexing, the zeroing loop inside i. */
KERNEL rows(int ni, int nj, int nk, double *C, const double *A, const double *B) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i * nj + j] = 0.0;
    for (int k = 0; k < nk; k++) {
      double a = A[i * nk + k];
      for (int j = 0; j < nj; j++)
        C[i * nj + j] += a * B[k * nj + j];
    }
  }
}
// CHECK-LABEL: polyrust-ast: function 'rows'
// CHECK: (matrix product C[i][j] += A[i][k] * B[k][j] (C set to 0 first): packed
// REMARK-DAG: remark: region in rows at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[k][j] (C set to 0 first): packed

/* All of C zeroed by one memset before the nest, outside the region: C updated in
   place. */
KERNEL whole(int ni, int nj, int nk, double *C, const double *A, const double *B) {
  memset(C, 0, sizeof(double) * (size_t)ni * (size_t)nj);
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i * nj + j] += A[i * nk + k] * B[k * nj + j];
}
// CHECK-LABEL: polyrust-ast: function 'whole'
// CHECK: (matrix product C[i][j] += A[i][k] * B[k][j] (C updated in place): packed
// REMARK-DAG: remark: region in whole at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[k][j] (C updated in place): packed

/* k innermost: C's element in a register across k starts at its load after the
   memset (or at +0.0 where LLVM forwards it). */
KERNEL k_inner(int ni, int nj, int nk, double *C, const double *A, const double *B) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i * nj + j] = 0.0;
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++)
        C[i * nj + j] += A[i * nk + k] * B[k * nj + j];
  }
}
// CHECK-LABEL: polyrust-ast: function 'k_inner'
// CHECK: (matrix product C[i][j] += A[i][k] * B[k][j] (C set to 0 first): packed

/* Bytes of 1: C starts at another value than +0.0. */
KERNEL ones(int ni, int nj, int nk, double *C, const double *A, const double *B) {
  for (int i = 0; i < ni; i++) {
    memset(&C[i * nj], 1, sizeof(double) * (size_t)nj);
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i * nj + j] += A[i * nk + k] * B[k * nj + j];
  }
}
// CHECK-LABEL: polyrust-ast: function 'ones'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'short_rows'

/* One column fewer zeroed than the product makes: the last column starts from C. */
KERNEL short_rows(int ni, int nj, int nk, double *C, const double *A, const double *B) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj - 1; j++)
      C[i * nj + j] = 0.0;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i * nj + j] += A[i * nk + k] * B[k * nj + j];
  }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'triangle'

/* The rows zeroed whole, the product makes their lower triangle only (syrk's). */
KERNEL triangle(int n, int nk, double *C, const double *A) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      C[i * n + j] = 0.0;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j <= i; j++)
        C[i * n + j] += A[i * nk + k] * A[j * nk + k];
  }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'main'

static double *filled(size_t n, unsigned seed) {
  double *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++)
    x[i] = (double)((i * 7919u + seed * 104729u) % 1009u) / 1009.0 - 0.5;
  return x;
}

static void print(const char *name, const double *C, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += C[i] * (double)(i % 13 + 1);
  printf("%s %a %a %a\n", name, sum, n ? C[0] : 0.0, n ? C[n - 1] : 0.0);
}

int main(int argc, char **argv) {
  for (int a = 1; a + 2 < argc; a += 3) {
    int ni = atoi(argv[a]), nj = atoi(argv[a + 1]), nk = atoi(argv[a + 2]);
    size_t nc = (size_t)(ni > 0 ? ni : 0) * (size_t)(nj > 0 ? nj : 0);
    size_t big = (size_t)(ni > nj ? ni : nj) + 1, most = big * (size_t)(nk + 1) + nc + 1;
    double *A = filled(most, 1), *B = filled(most, 2), *C = filled(nc + big * big, 3);
    rows(ni, nj, nk, C, A, B), print("rows", C, nc);
    whole(ni, nj, nk, C, A, B), print("whole", C, nc);
    k_inner(ni, nj, nk, C, A, B), print("k_inner", C, nc);
    ones(ni, nj, nk, C, A, B), print("ones", C, nc);
    short_rows(ni, nj, nk, C, A, B), print("short_rows", C, nc);
    triangle(ni, nk, C, A), print("triangle", C, (size_t)ni * (size_t)ni);
    free(A), free(B), free(C);
  }
  return 0;
}
