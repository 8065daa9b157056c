// A nest whose subscript is loaded inside it (`C[idx[i]][j]`): detection rejects it
// (non-affine subscript). The folded access profile shows the address moved by the
// same stride per outer iteration in every piece, so the second compile speculates
// `idx[i] == idx[0] + 2 * i` (the stride over a row's length), checks it in a loop in
// front of the nest, and models the subscript as affine; the original loops run when
// the check fails. Generated even where the cost model would keep the loops
// (-polyrust-force-codegen), so that the speculated code runs. Outputs are
// byte-identical to -O3's for the profiled input, another first row, another step, a
// reversed index and one row out of place (the fallback).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/p.json \
// RUN:   -mllvm -polyrust-instrument=accesses %s -o %t/instrumented %rtlib
// RUN: %t/instrumented 40 2 > /dev/null
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/p.json \
// RUN:   -mllvm -polyrust-force-codegen %s -o %t/speculated -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=USE
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 40 2 > %t/plain.out
// RUN: %t/plain 40 2 -1 5 >> %t/plain.out
// RUN: %t/plain 40 3 >> %t/plain.out
// RUN: %t/plain 40 -1 >> %t/plain.out
// RUN: %t/plain 40 2 8 >> %t/plain.out
// RUN: %t/speculated 40 2 > %t/speculated.out
// RUN: %t/speculated 40 2 -1 5 >> %t/speculated.out
// RUN: %t/speculated 40 3 >> %t/speculated.out
// RUN: %t/speculated 40 -1 >> %t/speculated.out
// RUN: %t/speculated 40 2 8 >> %t/speculated.out
// RUN: cmp %t/plain.out %t/speculated.out
//
// The check loop compares idx[k] with idx[0] + 2 * k.
// RUN: %clang -O3 -fno-discard-value-names -S -emit-llvm -fpass-plugin=%plugin \
// RUN:   -mllvm -polyrust-profile-use=%t/p.json -mllvm -polyrust-force-codegen %s -o - \
// RUN:   | %FileCheck %s --check-prefix=IR
//
// USE: remark: loop nest speculated on an indirect subscript: in the profiled run ({{.*}}p.json) the address of the {{.*}}C[idx[i]][j] moved by the same stride per outer iteration in every piece, so idx[i] is taken to be its first value + 2 * i; a check loop in front of the nest compares idx[i] in every outer iteration, and the original loops run if one differs
// USE: remark: region in gather at indirect-two-run.c:{{[0-9]+}} optimized ({{.*}}), behind a run-time check that also compares idx[i] in every outer iteration with its first value + 2 * i (from the profile)
//
// IR-LABEL: define {{.*}} @gather(
// IR: [[FIRST:%[0-9]+]] = load i32, ptr %idx
// IR: polyrust.bound.compare:
// IR: [[ROW:%[0-9]+]] = load i32, ptr
// IR: [[K:%[0-9]+]] = trunc i64 %polyrust.bound.k to i32
// IR-NEXT: [[TWICE:%[0-9]+]] = shl i32 [[K]], 1
// IR-NEXT: [[EXPECTED:%[0-9]+]] = add i32 [[FIRST]], [[TWICE]]
// IR-NEXT: icmp eq i32 [[ROW]], [[EXPECTED]]
// IR: br i1 {{%[0-9]+}}, label %polyrust.bound.compare, label %polyrust.check
// IR: polyrust.check:
// IR: br i1 {{%[0-9]+}}, label %polyrust.{{[a-z.0-9]+}}, label %[[FALLBACK:[A-Za-z0-9.]+]]
// IR: [[FALLBACK]]:{{.*}}preds = %polyrust.check

#include <stdio.h>
#include <stdlib.h>

/* Row idx[i] of C accumulates row i of A times B. */
__attribute__((noinline)) void gather(int n, int m, const int *idx, double C[][128],
                                      const double A[][128], const double B[][128]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < m; k++)
        C[idx[i]][j] += A[i][k] * B[k][j];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 40;
  int step = argc > 2 ? atoi(argv[2]) : 2;
  int odd = argc > 3 ? atoi(argv[3]) : -1;
  int first = argc > 4 ? atoi(argv[4]) : 1;
  int m = 128;
  int rows = n * (step < 0 ? -step : step) + first + 1;
  int *idx = malloc(sizeof(int) * n);
  double(*A)[128] = malloc(sizeof(double) * 128 * n);
  double(*B)[128] = malloc(sizeof(double) * 128 * 128);
  double(*C)[128] = calloc(rows, sizeof(double) * 128);
  for (int i = 0; i < n; i++) {
    idx[i] = i == odd ? 0 : (step < 0 ? (n - 1 - i) * -step : i * step) + first;
    for (int k = 0; k < m; k++)
      A[i][k] = (double)((i * 7 + k) % 11) / 8.0;
  }
  for (int j = 0; j < 128; j++)
    for (int k = 0; k < m; k++)
      B[j][k] = (double)((j * 3 + k * 5) % 13) / 16.0;
  gather(n, m, idx, C, A, B);
  double sum = 0;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < 128; j++)
      sum += C[i][j] * (double)((i * 3 + j) % 7);
  printf("%.6f\n", sum);
  return 0;
}
