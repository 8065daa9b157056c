// A statement that updates two arrays along its rows, bicg's `s[j] += r[i] * A[i][j];
// q[i] += A[i][j] * p[j]`: its rows are interleaved by the chain rule even at the
// default target (no FMA), where a matrix-vector product alone stays in order
// (chain-matvec-rows.c): the interleaved rows also share the row update's elements
// (PolyBench bicg: 4.9x of -O3 so, 1.0x in order). Outputs as -O3's.
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust \
// RUN:   -mllvm -polyrust-l1-cache=32K -mllvm -polyrust-l2-cache=1M \
// RUN:   -mllvm -polyrust-simd-width=256 -c %s -o /dev/null 2>&1 | %FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 %s -o %t/plain
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/optimized
// RUN: %t/plain 37 45 > %t/plain.out && %t/optimized 37 45 > %t/optimized.out
// RUN: cmp %t/plain.out %t/optimized.out
// CHECK: remark: region in bicg at {{.*}} optimized (innermost loop tiled by 16 (it carries a dependence: short chains of dependent iterations overlap), outermost loop by 8
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void bicg(int m, int n, double A[restrict n][m],
                                    double *restrict s, double *restrict q,
                                    double *restrict p, double *restrict r) {
  for (int i = 0; i < m; i++)
    s[i] = 0;
  for (int i = 0; i < n; i++) {
    q[i] = 0.0;
    for (int j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 2 ? atoi(argv[1]) : 37, m = argc > 2 ? atoi(argv[2]) : 45;
  double(*A)[m] = malloc(sizeof(double) * n * m);
  double *s = malloc(sizeof(double) * m), *q = malloc(sizeof(double) * n);
  double *p = malloc(sizeof(double) * m), *r = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = ((i * 5 + j * 3) % 13) / 13.0 - 0.4;
  for (int j = 0; j < m; j++)
    p[j] = (j % 7) * 0.3;
  for (int i = 0; i < n; i++)
    r[i] = (i % 5) * 0.2 - 0.5;
  bicg(m, n, A, s, q, p, r);
  for (int j = 0; j < m; j++)
    printf("%a\n", s[j]);
  for (int i = 0; i < n; i++)
    printf("%a\n", q[i]);
  return 0;
}
