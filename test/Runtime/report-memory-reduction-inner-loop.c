// A sum over j kept in a register that the compiler also stores in every iteration
// (GVN forwards each store to the next iteration's load, so the load is left in front
// of j): the dependence from that store to the load, which the loop around carries
// (k: each box adds to the same forces), is the update fa[i] += ..., a reduction in
// memory, as lavaMD's home-box loop is. (Issue 35, item 2.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t | %FileCheck %s --check-prefix=OUT
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// OUT: 1512.0 -88.0

// CHECK-LABEL: `forces` at
// CHECK:       | k | {{[0-9]+}} | 1 | {{.*}} | reduction (fa in memory) | store fa@[[#]] → load fa{{.*}} (a reduction)
// CHECK-NEXT:  | i | {{[0-9]+}} | 2 | {{.*}} | yes | – |
// CHECK-NEXT:  | j | {{[0-9]+}} | 3 | {{.*}} | reduction (fa in a register) | fa (a + reduction in a register)

#include <stdio.h>

struct force {
  double v, x;
};

__attribute__((noinline)) void forces(struct force *fa, const double *q, int boxes, int n) {
  for (int k = 0; k < boxes; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        fa[i].v += q[k * n + j] * 0.5;
        fa[i].x += q[k * n + j] * (i - j);
      }
}

int main(void) {
  enum { BOXES = 4, N = 16 };
  static double q[BOXES * N];
  static struct force fa[N];
  for (int e = 0; e < BOXES * N; e++)
    q[e] = e % 7;
  forces(fa, q, BOXES, N);
  double v = 0, x = 0;
  for (int i = 0; i < N; i++) {
    v += fa[i].v;
    x += fa[i].x;
  }
  printf("%.1f %.1f\n", v, x);
  return 0;
}
