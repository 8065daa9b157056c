// A sum kept in a register whose partial values are also stored, each iteration, to
// one address (what OpenMP's `reduction(+: sum)` leaves in backprop's layer: the
// private copy in memory, which LLVM cannot keep out of the loop because the loads of
// conn's rows may alias it). Only the last value remains there, as after the loop:
// `k` is a reduction, not a recurrence. (Issue 35, item 1, on a public program.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// CHECK-LABEL: `layer` at
// CHECK:       | j | {{.*}} | yes | – |
// CHECK-NEXT:  | k | {{.*}} | reduction (sum in a register) | sum (a + reduction in a register) |

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void layer(float **conn, const float *l1, float *l2, float *last,
                                     int n1, int n2) {
  for (int j = 0; j < n2; j++) {
    float sum = 0;
    for (int k = 0; k < n1; k++) {
      sum += conn[k][j] * l1[k];
      *last = sum;
    }
    l2[j] = sum;
  }
}

int main(void) {
  int n1 = 17, n2 = 9;
  float **conn = malloc(n1 * sizeof *conn);
  float l1[17], l2[9], last = 0;
  for (int k = 0; k < n1; k++) {
    conn[k] = malloc(n2 * sizeof(float));
    l1[k] = k * 0.5f;
    for (int j = 0; j < n2; j++)
      conn[k][j] = (float)(k + j) / 8;
  }
  layer(conn, l1, l2, &last, n1, n2);
  printf("%.3f %.3f\n", l2[n2 - 1], last);
  return 0;
}
