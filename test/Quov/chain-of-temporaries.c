// A chain of temporaries in a time loop: each step scales the table's row into a
// second table, whose neighbours give the next row. Time-tiled, both are stored in one
// row each: the scaled copy holds what the next row needs of the old one, so the row
// can be overwritten where it is. The copy is not recomputed where it is read (LLVM
// made two versions of its loop, so it has two writers), and the remark says so.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/folded -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 3 4 5 17 100 1000 > %t/plain.out
// RUN: %t/folded 3 4 5 17 100 1000 > %t/folded.out
// RUN: cmp %t/plain.out %t/folded.out

#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) void chain(int n, int w, int steps, const double *in, double *out) {
  double *u = malloc(sizeof(double) * (size_t)(steps + 1) * (size_t)w);
  double *a = malloc(sizeof(double) * (size_t)steps * (size_t)w);
  if (!u || !a)
    return;
  for (int i = 0; i < n; i++)
    u[i] = 2.0 * in[i];
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < n; i++)
      a[(long)t * w + i] = 0.5 * u[(long)t * w + i];
    u[(long)(t + 1) * w] = u[(long)t * w];
    for (int i = 1; i < n - 1; i++)
      u[(long)(t + 1) * w + i] = (a[(long)t * w + i - 1] + a[(long)t * w + i] + a[(long)t * w + i + 1]) * (2.0 / 3.0);
    u[(long)(t + 1) * w + n - 1] = u[(long)t * w + n - 1];
  }
  for (int i = 0; i < n; i++)
    out[i] = 0.5 * u[(long)steps * w + i];
  free(a);
  free(u);
}
// CHECK: chain-of-temporaries.c:[[@LINE-15]]:3: remark: temporary a is not recomputed where it is read: a is written by 2 accesses
// CHECK: chain-of-temporaries.c:[[@LINE-16]]:3: remark: region in chain at {{.*}} optimized (time-tiled: {{.*}}; temporary u stored as u[i1] {{.*}}; temporary a stored as a[i1]: 1 index of dimension 0)
int main(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    int n = atoi(argv[k]);
    double *in = calloc((size_t)n + 64, sizeof(double));
    double *out = calloc((size_t)n + 64, sizeof(double));
    for (int i = 0; i < n + 64; i++)
      in[i] = (double)((i * 37) % 101) / 7.0;
    chain(n, n + 3, 70, in, out);
    for (int i = 0; i < n; i++)
      printf("%a\n", out[i]);
    free(in); free(out);
  }
  return 0;
}
