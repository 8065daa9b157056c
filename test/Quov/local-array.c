// A local array (an alloca with lifetime markers) is memory the function owns: a
// time-expanded stencil kept in one is stored in two rows, the bytes before and after
// in the remark.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/folded -Rpass=polyrust 2>&1 \
// RUN:   | %FileCheck %s
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain > %t/plain.out
// RUN: %t/folded > %t/folded.out
// RUN: cmp %t/plain.out %t/folded.out

#include <stdio.h>
#include <stdlib.h>

#define T 64
#define N 4000

__attribute__((noinline)) void smooth(const double *in, double *out) {
  double u[T + 1][N];
  for (int i = 0; i < N; i++)
    u[0][i] = in[i] * 2.0;
  for (int t = 0; t < T; t++) {
    u[t + 1][0] = u[t][0];
    for (int i = 1; i < N - 1; i++)
      u[t + 1][i] = 0.25 * (u[t][i - 1] + 2.0 * u[t][i] + u[t][i + 1]);
    u[t + 1][N - 1] = u[t][N - 1];
  }
  for (int i = 0; i < N; i++)
    out[i] = u[T][i] * 0.5;
}
// CHECK: local-array.c:[[@LINE-11]]:3: remark: region in smooth at {{.*}} optimized ({{.*}}temporary u stored as u[i0 mod 2][i1] {{.*}}: 2 of 65 indices of dimension 0, 3.1% of its memory (62.5 KiB instead of 2.0 MiB)

int main(void) {
  double *in = calloc(N, sizeof(double));
  double *out = calloc(N, sizeof(double));
  for (int i = 0; i < N; i++)
    in[i] = (double)((i * 37) % 101) / 7.0;
  smooth(in, out);
  for (int i = 0; i < N; i++)
    printf("%a\n", out[i]);
  free(in);
  free(out);
  return 0;
}
