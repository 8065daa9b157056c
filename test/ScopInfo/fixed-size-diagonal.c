// Diagonal accesses of fixed-size arrays: the coefficient of the flat offset (1025 for
// A[i][i] in rows of 1024) is matched against the dimension strides, so the counter
// lands in both dimensions and the assumption bounds n by the row length. Before, the
// offset stayed whole in the last dimension (A[0][1025i]), assumed to stay in the
// first row: only n <= 1 passed the run-time check.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s

double A[1024][1024], B[1024][1024], C[1024][1024];

void diagonal(int n) {
  for (int i = 0; i < n; i++)
    A[i][i] = B[i][i + 1] + 1.0;
}

// CHECK-LABEL: polyrust-scops: function 'diagonal'
// CHECK: Assumed context: [n] -> {  : -2147483648 <= n <= 1023 }
// CHECK: in-bounds: [n] -> { S0[i0] : -1 <= i0 <= 1022 } (subscript of B within its dimension: 0 <= i0 + 1 < 1024 in B[i0, i0 + 1])
// The rows of a global are bounded by its size too.
// CHECK-NEXT: in-bounds: [n] -> { S0[i0] : 0 <= i0 <= 1023 } (subscript of B within its dimension: 0 <= i0 < 1024 in B[i0, i0 + 1])
// CHECK-NEXT: in-bounds: [n] -> { S0[i0] : 0 <= i0 <= 1023 } (subscript of A within its dimension: 0 <= i0 < 1024 in A[i0, i0])
// CHECK: Read: [n] -> { S0[i0] -> B[i0, 1 + i0] }
// CHECK-NEXT: MustWrite: [n] -> { S0[i0] -> A[i0, i0] }

void anti_diagonal(int n) {
  for (int i = 0; i < n; i++)
    C[i][1023 - i] = 2.0 * C[i][1023 - i];
}

// 1023*i + 1023 is one row down and one column back per step.
// CHECK-LABEL: polyrust-scops: function 'anti_diagonal'
// CHECK: Assumed context: [n] -> {  : -2147483648 <= n <= 1024 }
// CHECK: in-bounds: [n] -> { S0[i0] : 0 <= i0 <= 1023 } (subscript of C within its dimension: 0 <= -i0 + 1023 < 1024 in C[i0, -i0 + 1023])
// CHECK: Read: [n] -> { S0[i0] -> C[i0, 1023 - i0] }

void shifted_under_condition(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (j > 0)
        B[i][j] = A[i][j - 1];
}

// The condition skips j = 0, so j - 1 keeps its negative offset (not j + 1023 in the
// row before).
// CHECK-LABEL: polyrust-scops: function 'shifted_under_condition'
// CHECK: Assumed context: [n] -> {  : -2147483648 <= n <= 1024 }
// CHECK: Read: [n] -> { S0[i0, i1] -> A[i0, -1 + i1] }
// CHECK-NEXT: MustWrite: [n] -> { S0[i0, i1] -> B[i0, i1] }
