// The profile decides about arrays that may overlap. The product below is optimized
// behind a check that its arrays are apart; the instrumented build records, at that
// check, whether it passed and where each array lay. A program that always multiplies
// in place (C is A) gets its check failing in every profiled entry: the second compile
// leaves the loops alone and says why. A program that mixes both gets the optimized
// code, and the original loops run exactly for the overlapping calls. Outputs are
// byte-identical to -O3's throughout.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/run-%%p.json \
// RUN:   %s -o %t/instrumented %rtlib -Rpass=polyrust 2>&1 | %FileCheck %s --check-prefix=GEN
// RUN: %clang -O3 %s -o %t/plain
//
// Only overlapping calls in the profiled runs.
// RUN: %t/instrumented 40 1 > %t/instrumented.out
// RUN: %t/instrumented 56 1 >> %t/instrumented.out
// RUN: %polyrust-prof merge -o %t/inplace.polyprof %t/run-*.json
// RUN: %polyrust-prof show %t/inplace.polyprof | %FileCheck %s --check-prefix=SHOW
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/inplace.polyprof \
// RUN:   %s -o %t/inplace -Rpass=polyrust -Rpass-missed=polyrust 2>&1 | %FileCheck %s --check-prefix=INPLACE
// RUN: %t/plain 40 1 > %t/plain.out
// RUN: %t/plain 56 1 >> %t/plain.out
// RUN: cmp %t/plain.out %t/instrumented.out
// RUN: %t/plain 48 0 >> %t/plain.out
// RUN: %t/inplace 40 1 > %t/inplace.out
// RUN: %t/inplace 56 1 >> %t/inplace.out
// RUN: %t/inplace 48 0 >> %t/inplace.out
// RUN: cmp %t/plain.out %t/inplace.out
//
// Both kinds of calls: optimized, and counted.
// RUN: rm %t/run-*.json
// RUN: %t/instrumented 40 0 > /dev/null
// RUN: %t/instrumented 40 1 > /dev/null
// RUN: %polyrust-prof merge -o %t/mixed.polyprof %t/run-*.json
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/mixed.polyprof \
// RUN:   -mllvm -polyrust-profile-generate=%t/count-%%p.json %s -o %t/mixed %rtlib \
// RUN:   -Rpass=polyrust 2>&1 | %FileCheck %s --check-prefix=MIXED
// RUN: %t/mixed 40 1 > %t/mixed.out
// RUN: %t/mixed 56 1 >> %t/mixed.out
// RUN: %t/mixed 48 0 >> %t/mixed.out
// RUN: cmp %t/plain.out %t/mixed.out
// RUN: %polyrust-prof merge -o %t/count.polyprof %t/count-*.json
// RUN: %polyrust-prof show %t/count.polyprof | %FileCheck %s --check-prefix=COUNT
//
// GEN: alias-profile.c:[[#LINE:]]:3: remark: region in mm at alias-profile.c:{{[0-9]+}} optimized ({{.*}}), behind a run-time check
// SHOW: entered 2 times
// SHOW: run-time check of the optimized code: passed in 0 entries (0.0%), failed in 2 entries (100.0%)
// SHOW: C and A overlapped in 2 entries of 2 (100.0%)
// INPLACE: alias-profile.c:[[#LINE:]]:3: remark: region in mm at alias-profile.c:{{[0-9]+}} left unchanged: its run-time check passed in 0 of 2 entries (C and A overlapped in 2) in the profiled run ({{.*}}inplace.polyprof): the original loops would run
// INPLACE-NOT: optimized
// MIXED: alias-profile.c:[[#LINE:]]:3: remark: region in mm at alias-profile.c:{{[0-9]+}} optimized ({{.*}}), behind a run-time check
// COUNT: entered 3 times
// COUNT: run-time check of the optimized code: passed in 1 entry (33.3%), failed in 2 entries (66.7%)
// COUNT: C and A overlapped in 2 entries of 3 (66.7%)

#include <stdio.h>
#include <stdlib.h>

/* C += A * B on n x n matrices that the caller may pass overlapping. */
__attribute__((noinline)) void mm(int n, double (*C)[n], double (*A)[n], double (*B)[n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}

/* Mode 0: three arrays; 1: C is A (multiplied in place). */
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int mode = argc > 2 ? atoi(argv[2]) : 0;
  double *A = malloc(sizeof(double) * n * n), *B = malloc(sizeof(double) * n * n);
  double *C = mode == 1 ? A : calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n * n; i++) {
    A[i] = (double)((i * 7) % 13) / 7.0;
    B[i] = (double)((i * 5) % 11) / 3.0;
  }
  mm(n, (double(*)[n])C, (double(*)[n])A, (double(*)[n])B);
  double sum = 0;
  for (int i = 0; i < n * n; i++)
    sum += C[i] * (double)(i % 17);
  printf("%d %d %.17g\n", n, mode, sum);
  if (C != A)
    free(C);
  free(A);
  free(B);
  return 0;
}
