// A region that starts with a loop guarded in the function's first block, after the
// `malloc` of the table the loops fill (`u = malloc(..); if (n > 0) for ...`): the
// region can only start at the guard, which also holds the call. The call and what
// comes before the branch are moved into a block of their own, and the region takes
// in the copy loop, so that the table is the region's own and is stored folded.
// Before, the region began after the copy loop and the table kept its storage (its
// first row was written outside the region).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/folded -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 3 4 5 17 100 1000 2000 > %t/plain.out
// RUN: %t/folded 3 4 5 17 100 1000 2000 > %t/folded.out
// RUN: cmp %t/plain.out %t/folded.out
// Instrumented for accesses, the guard keeps its work (every nest is instrumented, none
// optimized; t's nest said at its line or, past the plain copy before it, its header):
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/p.json \
// RUN:   -mllvm -polyrust-instrument=accesses -c %s -o /dev/null -Rpass-analysis=polyrust 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=ACCESSES
// ACCESSES: guarded-first-loop.c:28:3: remark: loop nest instrumented: its 1 loop and 2 memory accesses
// ACCESSES: guarded-first-loop.c:{{30:3|32:5}}: remark: loop nest instrumented: its 2 loops

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void heat(int n, int w, int steps, const double *in, double *out) {
  double *u = malloc(sizeof(double) * (size_t)(steps + 1) * (size_t)w);
  for (int i = 0; i < n; i++)
    u[i] = 2.0 * in[i];
  for (int t = 0; t < steps; t++) {
    u[(long)(t + 1) * w] = u[(long)t * w];
    for (int i = 1; i < n - 1; i++)
      u[(long)(t + 1) * w + i] = (u[(long)t * w + i - 1] + u[(long)t * w + i] +
                                  u[(long)t * w + i + 1]) * (1.0 / 3.0);
    u[(long)(t + 1) * w + n - 1] = u[(long)t * w + n - 1];
  }
  for (int i = 0; i < n; i++)
    out[i] = 0.5 * u[(long)steps * w + i];
  free(u);
}
// CHECK: guarded-first-loop.c:28:3: remark: SCoP begins here.
// CHECK: guarded-first-loop.c:39:3: remark: SCoP ends here.
// CHECK: guarded-first-loop.c:28:3: remark: region in heat at {{.*}} optimized ({{.*}}temporary u stored as u[i0 mod 2][i1]

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    double *in = calloc((size_t)n + 64, sizeof(double));
    double *out = calloc((size_t)n + 64, sizeof(double));
    for (int i = 0; i < n + 64; i++)
      in[i] = (double)((i * 37) % 101) / 7.0;
    heat(n, n + 3, 70, in, out);
    for (int i = 0; i < n; i++)
      printf("%a\n", out[i]);
    free(in);
    free(out);
  }
  return 0;
}
