// A statement deeper than its neighbour shares their outer loop: gemm scales a row of C
// (`C[i][j] *= beta`, two loops) before accumulating into it (three loops). isl's fused
// schedule gives the product no band of its three loops, or, tiled, puts the scaling
// under a condition inside the innermost loop; distributed into nests of their own,
// the product gets its band, tiled for L2 although its vectorized loop (1100 doubles)
// fits in L1 as a whole, and register tiles. PolyBench gemm (LARGE): 0.12 s at -O3,
// 0.045 s so.
// Products are off: the packed kernel would take gemm (test/Products).
// RUN: %clang -O3 -g -c %s -o /dev/null -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=1M \
// RUN:   -mllvm -polyrust-products=false -Rpass=polyrust 2>&1 | %FileCheck %s
// Distribution is taken only for the tiles it reaches, and tiles only when they are
// estimated to move less data (see cost-model tests; gram's distribution with tiles
// estimated 1.0x is refused in interchange-distribution.c).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-products=false %s -o %t/distributed -DSMALL
// RUN: %clang -O3 %s -o %t/plain -DSMALL
// RUN: %t/plain > %t/plain.out
// RUN: %t/distributed > %t/distributed.out
// RUN: cmp %t/plain.out %t/distributed.out

#include <stdio.h>

#ifdef SMALL
#define NI 37
#define NJ 45
#define NK 53
#else
#define NI 1000
#define NJ 1100
#define NK 1200
#endif

static double C[NI][NJ], A[NI][NK], B[NK][NJ];

__attribute__((noinline)) void gemm(double alpha, double beta) {
  for (int i = 0; i < NI; i++) {
    for (int j = 0; j < NJ; j++)
      C[i][j] *= beta;
    for (int k = 0; k < NK; k++)
      for (int j = 0; j < NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
// CHECK: remark: region in gemm at {{.*}} optimized (statements distributed into loop nests of their own; vectorized loop tiled by 1100, outermost loop by {{[0-9]+}}, loop 2 by {{[0-9]+}} so that its tiles stay in L2; register tiles of 4x4 copies around the innermost loop ({{[0-9]+}} vector registers): memory traffic estimated {{[0-9.]+}}x lower), behind a run-time check

int main(void) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      C[i][j] = (double)((i * j + 1) % NI) / NI;
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = (double)(i * (k + 1) % NK) / NK;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = (double)(k * (j + 2) % NJ) / NJ;
  gemm(1.5, 1.2);
  double sum = 0;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      sum += C[i][j] * (i + 2 * j + 1);
  printf("%.17g %.17g\n", sum, C[NI / 2][NJ / 3]);
  return 0;
}
