// Operand-tree forwarding (detect/forward.rs): a value computed in front of a loop
// from arrays the region never writes is recomputed where the loop reads it, so it
// needs no scalar, and the loops around it can be reordered and tiled.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s

// `ax` reads alpha and X, which nothing in the region writes: one statement remains,
// reading both in every iteration of j, and no scalar.
void rank1(int n, int m, float *A, const float *X, const float *Y, const float *alpha) {
  for (int k = 0; k < m; k++)
    for (int i = 0; i < n; i++) {
      float ax = alpha[k] * X[k * n + i];
      for (int j = 0; j < n; j++)
        A[i * n + j] += ax * Y[k * n + j];
    }
}
// CHECK-LABEL: polyrust-scops: function 'rank1'
// CHECK:      Arrays:
// CHECK-NEXT:   float alpha[*] (4 bytes)
// CHECK-NEXT:   float X[*][n] (4 bytes)
// CHECK-NEXT:   float Y[*][n] (4 bytes)
// CHECK-NEXT:   float A[*][n] (4 bytes)
// CHECK-NEXT: Alias groups:
// CHECK:      Statements:
// CHECK-NEXT:   S0 (%for.body11.us.us)
// CHECK-NEXT:     Domain: [m, n] -> { S0[i0, i1, i2] : 0 <= i0 < m and 0 <= i1 < n and 0 <= i2 < n }
// CHECK-NEXT:     Schedule:
// CHECK-NEXT:     Read: [m, n] -> { S0[i0, i1, i2] -> alpha[i0] }
// CHECK-NEXT:     Read: [m, n] -> { S0[i0, i1, i2] -> X[i0, i1] }
// CHECK-NEXT:     Read: [m, n] -> { S0[i0, i1, i2] -> Y[i0, i2] }
// CHECK-NEXT:     Read: [m, n] -> { S0[i0, i1, i2] -> A[i1, i2] }
// CHECK-NEXT:     MustWrite: [m, n] -> { S0[i0, i1, i2] -> A[i1, i2] }
// CHECK-NEXT: Schedule tree:

// `t` reads X, which the j loop writes: recomputing it would read a newer X[i], so it
// stays a scalar written before the loop and read in it.
void operand_written(int n, double *X, double *Y) {
  for (int i = 0; i < n; i++) {
    double t = 2.0 * X[i];
    for (int j = 0; j < n; j++)
      X[j] += t * Y[j];
  }
}
// CHECK-LABEL: polyrust-scops: function 'operand_written'
// CHECK:        double mul_us__s (scalar)
// CHECK:        S0 (%for.body.us)
// CHECK:          Read: [n] -> { S0[i0] -> X[i0] }
// CHECK-NEXT:     MustWrite: [n] -> { S0[i0] -> mul_us__s[] }
// CHECK:        S1 (%for.body4.us)
// CHECK-NEXT:     Domain:
// CHECK-NEXT:     Schedule:
// CHECK-NEXT:     Read: [n] -> { S1[i0, i1] -> mul_us__s[] }

// `s` is also used after the loops (returned): it stays a scalar.
double used_after(int n, double *A, const double *X) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s = 3.0 * X[i];
    for (int j = 0; j < n; j++)
      A[i * n + j] += s;
  }
  return s;
}
// CHECK-LABEL: polyrust-scops: function 'used_after'
// CHECK:        (scalar)
// CHECK:        MustWrite: [n] -> { S0[i0] -> {{.*}}__s[] }
