// A bound `n * n` and a subscript `i * n * n + j` (a matrix of n rows of n * n
// elements): neither is affine, so the nest is a candidate; the profiled run sees one
// n, and the second compile specializes the nest on it. Generated even where the cost
// model would keep the loops (-polyrust-force-codegen), so that the specialized code
// runs: the output is byte-identical to -O3's for the profiled n and for another, and
// a build that is specialized and instrumented at once counts one passed check for the
// profiled n and one failed check (the original loops) for the other.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/p.json \
// RUN:   %s -o %t/instrumented %rtlib -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=GEN
// RUN: %t/instrumented 20 > %t/instrumented.out
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/p.json \
// RUN:   -mllvm -polyrust-force-codegen %s -o %t/specialized -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=USE
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 20 > %t/plain.out
// RUN: cmp %t/plain.out %t/instrumented.out
// RUN: %t/plain 13 >> %t/plain.out
// RUN: %t/specialized 20 > %t/specialized.out
// RUN: %t/specialized 13 >> %t/specialized.out
// RUN: cmp %t/plain.out %t/specialized.out
//
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/p.json \
// RUN:   -mllvm -polyrust-force-codegen -mllvm -polyrust-profile-generate=%t/count-%%p.json \
// RUN:   %s -o %t/counted %rtlib
// RUN: %t/counted 20 > %t/counted.out
// RUN: %t/counted 13 >> %t/counted.out
// RUN: cmp %t/plain.out %t/counted.out
// RUN: %polyrust-prof merge -o %t/count.polyprof %t/count-*.json
// RUN: %polyrust-prof show %t/count.polyprof | %FileCheck %s --check-prefix=COUNT
//
// GEN: nn-bounds.c:[[@LINE+12]]:3: remark: loop nest instrumented: each entry records n for profile-guided specialization
// USE: nn-bounds.c:[[@LINE+11]]:3: remark: loop nest specialized for n = 20, the values of 100% of its 1 profiled entries
// USE: nn-bounds.c:[[@LINE+10]]:3: remark: region in blocks at nn-bounds.c:[[@LINE+10]] optimized ({{.*}}), behind a run-time check that also compares n = 20 (from the profile)
// COUNT: region blocks:{{[0-9]+}}:{{[0-9a-f]+}} (module hash
// COUNT-NEXT: entered 2 times
// COUNT-NEXT: run-time check of the optimized code: passed in 1 entry (50.0%), failed in 1 entry (50.0%)

#include <stdio.h>
#include <stdlib.h>

/* A[i][j] for n rows of n * n elements. */
__attribute__((noinline)) void blocks(int n, double *restrict A, const double *restrict B) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n * n; j++)
      A[i * n * n + j] = B[j] * (i + 1) + A[i * n * n + j] * 0.5;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20;
  double *A = malloc(sizeof(double) * n * n * n), *B = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n * n * n; i++)
    A[i] = (double)(i % 9) / 4.0;
  for (int j = 0; j < n * n; j++)
    B[j] = (double)(j % 7) / 3.0;
  blocks(n, A, B);
  double sum = 0;
  for (int i = 0; i < n * n * n; i++)
    sum += A[i] * (double)(i % 5);
  printf("%d %.17g\n", n, sum);
  free(A);
  free(B);
  return 0;
}
