// The chain rule (innermost loop tiled by 16, "it carries a dependence") is for an
// innermost loop whose own statements wait on each other. C's rows zeroed before the
// loops over k and j (a memset after -O3, one loop deep) depend on the update across
// j, but run outside j's loop: j stays a vectorized loop, and gets SICA's L1 tile.
// Under the chain rule this i-k-j product kept a 16-wide strip of C in memory across k
// and ran 2x slower than -O3 (matmul_ptr, n = 1100: 1.5 s against 0.75 s; now as -O3).
// A product whose own update carries the dependence along k still gets the chain.
// Products are off (they now take this nest on any x86-64 target, behind a CPU test):
// this test is about the loop plan. The machine is given so that the sizes do not
// depend on the host.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -polyrust-simd-width=128 \
// RUN:   -polyrust-products=false -disable-output 2>&1 | %FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-products=false %s -o %t/new
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 0 1 7 33 130 > %t/plain.out
// RUN: %t/new 0 1 7 33 130 > %t/new.out
// RUN: cmp %t/plain.out %t/new.out

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void zeroed_rows(int ni, int nj, int nk, double *C,
                                           const double *A, const double *B) {
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
// CHECK-LABEL: polyrust-ast: function 'zeroed_rows'
// CHECK-NOT: carries a dependence
// CHECK: New AST of zeroed_rows{{.*}} (vectorized loop tiled by
// CHECK-LABEL: polyrust-ast: function 'dot_products'

__attribute__((noinline)) void dot_products(int n, int m, double *restrict P,
                                            const double *restrict G,
                                            const double *restrict X) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < m; k++)
        P[i * n + j] += G[i * m + k] * X[j * m + k];
}
// CHECK: New AST of dot_products{{.*}} (innermost loop tiled by 16 (it carries a dependence: short chains of dependent iterations overlap)

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]), ni = n, nj = n + 2, nk = n + 1;
    size_t big = (size_t)(n + 3) * (size_t)(n + 3);
    double *A = malloc(big * sizeof *A), *B = malloc(big * sizeof *B);
    double *C = malloc(big * sizeof *C);
    for (size_t x = 0; x < big; x++) {
      A[x] = (double)(x % 17) - 8.0;
      B[x] = (double)(x % 11) / 4.0;
      C[x] = 99.0;
    }
    zeroed_rows(ni, nj, nk, C, A, B);
    double sum = 0;
    for (size_t x = 0; x < (size_t)ni * (size_t)nj; x++)
      sum += C[x] * (double)(x % 7 + 1);
    dot_products(n, n, C, A, B);
    for (size_t x = 0; x < (size_t)n * (size_t)n; x++)
      sum += C[x] * (double)(x % 5 + 1);
    printf("%d %a\n", n, sum);
    free(A), free(B), free(C);
  }
  return 0;
}
