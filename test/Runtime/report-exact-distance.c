// Each `b` reads and writes only acc[b], under a guard on data, so the dependence's
// points scatter and its folding gives up to a box. Its distance along `b` is 0 on
// every point and stays exact (per-component widening): `b` is parallel, as the
// source says; `i` and `k`, whose components vary, carry it. (Issue 35, item 4.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t > /dev/null
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// CHECK-LABEL: `search` at
// CHECK:       gave up folding: load acc@[[#]], store acc@[[#]]
// CHECK:       | b | {{.*}} | yes | – |
// CHECK-NEXT:  | i | {{.*}} | no | store acc@[[#]] → load acc@[[#]] |
// CHECK-NEXT:  | k | {{.*}} | no | store acc@[[#]] → load acc@[[#]] |
// CHECK:       | store acc@[[#]] → load acc@[[#]] | (b, i, k) | (0, *, *) |

#include <stdio.h>

#define B 40
unsigned key[97];
long acc[B];

__attribute__((noinline)) void search(int nb, int h, int t) {
  for (int b = 0; b < nb; b++)
    for (int i = 0; i < h; i++)
      for (int k = 0; k < t; k++)
        if (key[(b * 7 + i * 3 + k) % 97] & 1)
          acc[b] = acc[b] * 3 + k;
}

int main(void) {
  unsigned s = 12345;
  for (int i = 0; i < 97; i++) {
    s = s * 1103515245u + 12345u;
    key[i] = s >> 16;
  }
  search(B, 6, 16);
  long sum = 0;
  for (int b = 0; b < B; b++)
    sum += acc[b];
  printf("%ld\n", sum);
  return 0;
}
