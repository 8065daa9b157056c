// A forward substitution (`x[i] = b[i]; for j < i: x[i] -= L[i][j] * x[j]; x[i] /=
// L[i][i]`): each row's chain of dependent subtractions waits for the one before it
// at -O3. By blocks of 8 rows, the columns before the block's first row read only
// results of earlier blocks: that part of the 8 chains is interleaved, 16 columns at
// a time, then each row of the block is finished in order (the rest of its chain,
// then its division). Each x[i]'s subtractions keep their order: the outputs are
// -O3's, at sizes that do not divide the blocks, with and without fused
// multiply-adds. Detection keeps the chain in x[i] (the phis LLVM hands the stored
// value on in are reads of the element: ScopInfo/stored-phis.c).
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust \
// RUN:   -c %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=REMARK
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 %s -o %t/plain
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/new
// RUN: %clang -O3 -mfma %s -o %t/fma-plain
// RUN: %clang -O3 -mfma -fpass-plugin=%plugin %s -o %t/fma-new
// RUN: %t/plain 1 2 7 8 9 17 63 80 > %t/plain.out
// RUN: %t/new 1 2 7 8 9 17 63 80 > %t/new.out
// RUN: cmp %t/plain.out %t/new.out
// RUN: %t/fma-plain 1 2 7 8 9 17 63 80 > %t/fma-plain.out
// RUN: %t/fma-new 1 2 7 8 9 17 63 80 > %t/fma-new.out
// RUN: cmp %t/fma-plain.out %t/fma-new.out
// CHECK-LABEL: New AST of forward:for.body (triangular solve by blocks of 8 rows: S1 interleaves the rows' dependent chains in steps of 16 columns up to the block's first row, then each row of the block is finished in order):
// CHECK-NEXT: for (int c0 = 0; c0 < n; c0 += 8) {
// CHECK:          S0(c3);
// CHECK:            for (int c4 = c0; c4 < c2; c4 += 1)
// CHECK-NEXT:         S1(c2, c4);
// CHECK-NEXT:       S2(c2);
// CHECK:        for (int c2 = 0; c2 < c0; c2 += 16)
// CHECK-NEXT:     for (int c3 = c0; c3 <= min(n - 1, c0 + 7); c3 += 1)
// CHECK-NEXT:       for (int c4 = c2; c4 <= min(c0 - 1, c2 + 15); c4 += 1)
// CHECK-NEXT:         S1(c3, c4);
// REMARK: remark: region in forward at {{.*}} optimized (triangular solve by blocks of 8 rows
#include <stdio.h>
#include <stdlib.h>
#define N 80

__attribute__((noinline)) void forward(int n, double L[N][N], double *x, double *b) {
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}

int main(int argc, char **argv) {
  static double L[N][N], x[N], b[N];
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    for (int i = 0; i < n; i++) {
      b[i] = (i % 7) * 0.25 - 0.6;
      for (int j = 0; j <= i; j++)
        L[i][j] = j == i ? 1.5 + (i % 3) * 0.5 : ((i * 5 + j * 3) % 11) / 11.0 - 0.45;
    }
    forward(n, L, x, b);
    for (int i = 0; i < n; i++)
      printf("%a\n", x[i]);
  }
  return 0;
}
