// A loop's sum kept in a register (`t[i]`, promoted), stored after the loop and read by
// the next loop through its LCSSA copy: the statement of the later loop reads the
// element, so it stays ordered after the sum, and the next row's sum after the update
// of `y` (bug: the read was missing in the pass's model, which sees LCSSA form, and the
// rows were interleaved by the chain rule; the program printed wrong values).
// RUN: %o3ir -fno-discard-value-names %s | %opt -passes='loop-simplify,lcssa' -S \
// RUN:   | %opt %loadpolyrust -passes='print<polyrust-scops>' -disable-output 2>&1 \
// RUN:   | %FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 %s -o %t/plain
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/optimized
// RUN: %t/plain 7 7 > %t/plain.7 && %t/optimized 7 7 > %t/optimized.7
// RUN: cmp %t/plain.7 %t/optimized.7
// RUN: %t/plain 40 33 > %t/plain.40 && %t/optimized 40 33 > %t/optimized.40
// RUN: cmp %t/plain.40 %t/optimized.40
// CHECK: S2
// CHECK: Read: {{.*}} -> { S2[i0, i1] -> t[i0] }   ; {{.*}} = phi double {{.*}}(promoted scalar, kept in memory)
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void feedback(int m, int n, double A[restrict m][n],
                                        double *restrict y, double *restrict t) {
  for (int i = 0; i < m; i++) {
    t[i] = 0.0;
    for (int j = 0; j < n; j++)
      t[i] = t[i] + A[i][j] * y[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * t[i];
  }
}

int main(int argc, char **argv) {
  int m = argc > 2 ? atoi(argv[1]) : 7, n = argc > 2 ? atoi(argv[2]) : 7;
  double(*A)[n] = malloc(sizeof(double) * m * n);
  double *y = malloc(sizeof(double) * n), *t = malloc(sizeof(double) * m);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0 - 0.3;
  for (int j = 0; j < n; j++)
    y[j] = (j % 5) * 0.1;
  feedback(m, n, A, y, t);
  for (int j = 0; j < n; j++)
    printf("%a\n", y[j]);
  for (int i = 0; i < m; i++)
    printf("%a\n", t[i]);
  return 0;
}
