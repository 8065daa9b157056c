// Left-looking factorizations update an element in a loop that may not run (`k < j`
// with j = 0), then divide it: `for k < j: a[i][j] -= a[i][k] * a[k][j]; a[i][j] /=
// a[j][j]`. LLVM keeps a[i][j] in a register across the k loop, and after it a phi
// merges that value with the element's where the loop is skipped: GVN loads the
// element on the edge around the loop (`%.pre`, where j == 0), or, with `w =
// a[i][j]` before the loop, the merged value is w's start. Both are the element's
// contents, so the chain is kept in the element (detect/promoted.rs): no scalar is
// left, and the division reads the element. In clang's pipeline the loop's exit block
// holds the LCSSA copy the merging phi reads (second RUN, after loop-simplify and
// lcssa): it only forwards the chain and leaves the model. There, w's loop gets a
// preheader of its own, so w's start comes from a block before the chain's first
// statement, and w stays a scalar (not handled yet).
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefixes=CHECK,W
// RUN: %o3ir -fno-discard-value-names %s | %opt -passes='loop-simplify,lcssa' -S \
// RUN:   | %opt %loadpolyrust -passes='print<polyrust-scops>' -disable-output 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=CHECK,LCSSA
// The programs print the same bytes with and without polyrust, at sizes where the
// loops run zero, one and many times.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 %s -o %t/plain -lm
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/optimized -lm
// RUN: %t/plain 1 > %t/plain.1 && %t/optimized 1 > %t/optimized.1 && cmp %t/plain.1 %t/optimized.1
// RUN: %t/plain 2 > %t/plain.2 && %t/optimized 2 > %t/optimized.2 && cmp %t/plain.2 %t/optimized.2
// RUN: %t/plain 7 > %t/plain.7 && %t/optimized 7 > %t/optimized.7 && cmp %t/plain.7 %t/optimized.7
// RUN: %t/plain 61 > %t/plain.61 && %t/optimized 61 > %t/optimized.61 && cmp %t/plain.61 %t/optimized.61
// RUN: %t/plain 130 > %t/plain.130 && %t/optimized 130 > %t/optimized.130 && cmp %t/plain.130 %t/optimized.130

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void lu(int n, double (*restrict a)[n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        a[i][j] -= a[i][k] * a[k][j];
      a[i][j] /= a[j][j];
    }
    for (int j = i; j < n; j++)
      for (int k = 0; k < i; k++)
        a[i][j] -= a[i][k] * a[k][j];
  }
}
// CHECK-LABEL: Scop lu:
// CHECK-NOT:     (scalar)
// CHECK:       Statements:
// CHECK-NOT:     (scalar)
// CHECK:         Domain: [n] -> { [[DIV:S[0-9]+]][i0, i1] : i0 < n and 0 <= i1 < i0 }
// CHECK-NEXT:    Schedule:
// CHECK-NEXT:    Read: [n] -> { [[DIV]][i0, i1] -> a[i0, i1] }   ; {{.*}} = phi double [ %.pre, {{.*}} (promoted scalar, kept in memory)
// CHECK:       Schedule tree:

// Rows of a fixed length (a[j][k] with a row index that is not the outermost counter
// does not delinearize in a VLA).
#define COLUMNS 160
__attribute__((noinline)) void cholesky(int n, double (*restrict a)[COLUMNS]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        a[i][j] -= a[i][k] * a[j][k];
      a[i][j] /= a[j][j];
    }
    for (int k = 0; k < i; k++)
      a[i][i] -= a[i][k] * a[i][k];
    a[i][i] = sqrt(a[i][i]);
  }
}
// CHECK-LABEL: Scop cholesky:
// CHECK-NOT:     (scalar)
// CHECK:       Statements:
// CHECK-NOT:     (scalar)
// CHECK:         Read: [n] -> { [[DIV:S[0-9]+]][i0, i1] -> a[i0, i1] }   ; {{.*}} = phi double [ %.pre, {{.*}} (promoted scalar, kept in memory)
// CHECK:         Read: [n] -> { [[ROOT:S[0-9]+]][i0] -> a[i0, i0] }   ; {{.*}} = phi double [ %.pre{{[0-9]+}}, {{.*}} (promoted scalar, kept in memory)
// CHECK:       Schedule tree:

__attribute__((noinline)) void lu_with_w(int n, double (*restrict a)[n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      double w = a[i][j];
      for (int k = 0; k < j; k++)
        w -= a[i][k] * a[k][j];
      a[i][j] = w / a[j][j];
    }
    for (int j = i; j < n; j++) {
      double w = a[i][j];
      for (int k = 0; k < i; k++)
        w -= a[i][k] * a[k][j];
      a[i][j] = w;
    }
  }
}
// CHECK-LABEL: Scop lu_with_w:
// W-NOT:         (scalar)
// W:           Statements:
// W-NOT:         (scalar)
// W:             Read: [n] -> { [[DIV:S[0-9]+]][i0, i1] -> a[i0, i1] }   ; %w.0.lcssa = phi {{.*}} (promoted scalar, kept in memory)
// LCSSA:         double w_0_lcssa__phi (scalar)
// CHECK:       Schedule tree:

// A symmetric positive definite matrix of size n, filled the same way every run.
static void fill(int n, double (*a)[n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[i][j] = (i == j ? n + 1.0 : 0.0) + 1.0 / (1.0 + i + j);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  if (n < 1 || n > COLUMNS)
    return 1;
  double (*a)[n] = malloc(sizeof(double) * n * n);
  double (*b)[COLUMNS] = malloc(sizeof(double) * n * COLUMNS);
  if (!a || !b)
    return 1;
  void (*kernels[])(int, double (*restrict)[n]) = {lu, lu_with_w};
  for (int v = 0; v < 2; v++) {
    fill(n, a);
    kernels[v](n, a);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        printf("%a\n", a[i][j]);
  }
  fill(n, a);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      b[i][j] = a[i][j];
  cholesky(n, b);
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      printf("%a\n", b[i][j]);
  free(a);
  free(b);
  return 0;
}
