// What the model accepts beyond plain nests, each in its own function:
// quasi-affine subscripts and bounds, unsigned loop counters, math calls, a
// data-dependent if (its write becomes a may-write) and a scalar reduction. (A loop
// bound loaded inside the region is in invariant-load.ll.)
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s
#include <math.h>

double A[1024], B[1024];

void quasi_affine(int n) {
  for (int i = 0; i < n; i++)
    A[i] = B[i / 2] + B[i < 100 ? i : 100];
}
// CHECK-LABEL: polyrust-scops: function 'quasi_affine'
// B[i / 2] and B[min(i, 100)]:
// CHECK: Read: [n] -> { S0[i0] -> B[o0] : -1 + i0 <= 2o0 <= i0 }
// CHECK: Read: [n] -> { S0[i0] -> B[100] : i0 >= 100; S0[i0] -> B[i0] : i0 <= 99 }
// CHECK: MustWrite: [n] -> { S0[i0] -> A[i0] }

void unsigned_counter(unsigned n) {
  for (unsigned i = 0; i < n; i++)
    A[i] = 2.0 * B[i];
}
// CHECK-LABEL: polyrust-scops: function 'unsigned_counter'
// CHECK: Domain: [n] -> { S0[i0] : {{.*}}i0 {{.*}}n
// CHECK: MustWrite: [n] -> { S0[i0] -> A[i0] }

void math_call(int n) {
  for (int i = 0; i < n; i++)
    A[i] = sqrt(B[i]) + fabs(B[i]);
}
// CHECK-LABEL: polyrust-scops: function 'math_call'
// CHECK: MustWrite: [n] -> { S0[i0] -> A[i0] }

void data_dependent_if(int n) {
  for (int i = 0; i < n; i++)
    if (B[i] > 0.5)
      A[i] = B[i];
}
// CHECK-LABEL: polyrust-scops: function 'data_dependent_if'
// CHECK: Read: [n] -> { S0[i0] -> B[i0] }
// CHECK: MayWrite: [n] -> { S0[i0] -> A[i0] }

double reduction(int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += A[i] * B[i];
  return s;
}
// CHECK-LABEL: polyrust-scops: function 'reduction'
// CHECK: double {{.*}}__phi (scalar)
// CHECK: Read: [n] -> { S{{[0-9]}}[i0] -> {{.*}}__phi[] }
// CHECK: MustWrite: [n] -> { S{{[0-9]}}[i0] -> {{.*}}__phi[] }
