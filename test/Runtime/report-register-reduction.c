// A sum kept in a register across the inner loop leaves no dependence in memory for
// the run to see: the report takes it from the compiler (the profile's static
// section) and calls the loop a reduction, never parallel, and does not say it
// vectorizes. (Issue 35, item 1.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// The matrix product's C[i][j], which LLVM keeps in a register across k.
// CHECK-LABEL: `product` at
// CHECK:       | i | {{.*}} | yes | – |
// CHECK-NEXT:  | j | {{.*}} | yes | – |
// CHECK-NEXT:  | k | {{.*}} | reduction (C in a register) | C (a + reduction in a register) |

// CHECK-LABEL: `layer` at {{.*}}report-register-reduction.c:[[#LINE:]] in layer
// CHECK:       suggestion:** loop j is parallel: run its iterations in parallel; loop k is a reduction into sum: run it in parallel only as a reduction
// CHECK-NOT:   vectorizes
// CHECK:       | j | [[#LINE]] | 1 | 32 | yes | – |
// CHECK-NEXT:  | k | [[#LINE+2]] | 2 | 2048 | reduction (sum in a register) | sum (a + reduction in a register) |

// A running sum stored in every iteration is a scan: not parallel, and no reduction.
// CHECK-LABEL: `prefix` at
// CHECK:       | i | {{.*}} | no | s (carried in a register to the next iteration) |

#include <math.h>
#include <stdio.h>

#define N 64
#define M 32
float conn[N][M], l1[N], l2[M];
double A[16][16], B[16][16], C[16][16], x[N], out[N];

__attribute__((noinline)) void layer(void) {
  for (int j = 0; j < M; j++) {
    float sum = 0;
    for (int k = 0; k < N; k++)
      sum += conn[k][j] * l1[k];
    l2[j] = 1.0f / (1.0f + expf(-sum));
  }
}

__attribute__((noinline)) void product(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}

__attribute__((noinline)) void prefix(int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i];
    out[i] = s;
  }
}

int main(void) {
  for (int k = 0; k < N; k++) {
    l1[k] = k * 0.01f;
    x[k] = k;
    for (int j = 0; j < M; j++)
      conn[k][j] = (k + j) * 0.001f;
  }
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++)
      A[i][j] = B[j][i] = i + j;
  layer();
  product(16);
  prefix(N);
  printf("%f %f %f\n", l2[3], C[2][3], out[9]);
  return 0;
}
