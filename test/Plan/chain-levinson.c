// A Levinson-Durbin recurrence (PolyBench durbin's shape): each step's dot product
// (`sum += r[k - i - 1] * y[i]`, one chain of dependent additions) needs the y the
// step before updated with its alpha, which needs that step's sum: the steps are one
// chain, and without reassociation no order of its iterations runs faster than -O3's
// (the update loops already overlap it). The region is modelled and left as it is;
// the outputs are -O3's.
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust \
// RUN:   -c %s -o /dev/null 2>&1 | %FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 %s -o %t/plain
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/new
// RUN: %t/plain 1 2 7 8 9 17 64 96 > %t/plain.out
// RUN: %t/new 1 2 7 8 9 17 64 96 > %t/new.out
// RUN: cmp %t/plain.out %t/new.out
// CHECK: remark: region in levinson at {{.*}} left unchanged: S1 loses reuse in loop 1, but no band of 3 of its loops can be tiled without skewing
#include <stdio.h>
#include <stdlib.h>
#define N 96

__attribute__((noinline)) void levinson(int n, double *r, double *y) {
  double z[N];
  double alpha = -r[0], beta = 1.0, sum;
  y[0] = -r[0];
  for (int k = 1; k < n; k++) {
    beta = (1 - alpha * alpha) * beta;
    sum = 0.0;
    for (int i = 0; i < k; i++)
      sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / beta;
    for (int i = 0; i < k; i++)
      z[i] = y[i] + alpha * y[k - i - 1];
    for (int i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha;
  }
}

int main(int argc, char **argv) {
  static double r[N], y[N];
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    for (int i = 0; i < n; i++)
      r[i] = (n + 1 - i) / (n * 200.0 + 1);
    levinson(n, r, y);
    for (int i = 0; i < n; i++)
      printf("%a\n", y[i]);
  }
  return 0;
}
