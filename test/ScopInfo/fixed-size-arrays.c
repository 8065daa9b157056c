// Global fixed-size arrays keep their declared shape (from the GEP types), a time loop
// around two nests is one region, and the copy loop LLVM turned into memcpy is a range
// access. Values are named with -fno-discard-value-names so parameters read as in C.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s

#define N 512
double U[N][N], W[N][N];

void jacobi(int n, int steps) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        W[i][j] = 0.25 * (U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        U[i][j] = W[i][j];
  }
}

// CHECK-LABEL: polyrust-scops: function 'jacobi'
// CHECK: Parameters: [steps, n]
// CHECK: Context: [steps, n] -> {  : -2147483648 <= steps <= 2147483647 and -2147483648 <= n <= 2147483647 }
// Keeping the stencil's subscripts inside a row of 512 needs n <= 512: checked at run time.
// CHECK: Assumed context: {{.*}}((steps > 0 and n <= 512) or steps <= 0)
// CHECK: in-bounds: [steps, n] -> { S0[i0, i1, i2] : -2 <= i2 <= 509 } (subscript of U within its dimension: 0 <= i2 + 2 < 512 in U[i1 + 1, i2 + 2])
// CHECK: Arrays:
// CHECK-NEXT: double U[*][512] (8 bytes)
// CHECK-NEXT: double W[*][512] (8 bytes)
// CHECK: S0 (%for.body9.us.us.us)
// CHECK-NEXT: Domain: [steps, n] -> { S0[i0, i1, i2] : 0 <= i0 < steps and 0 <= i1 <= -3 + n and 0 <= i2 <= -3 + n }
// CHECK-NEXT: Schedule: [steps, n] -> { S0[i0, i1, i2] -> [0, i0, 1, i1, 1, i2, 0] }
// CHECK-NEXT: Read: [steps, n] -> { S0[i0, i1, i2] -> U[i1, 1 + i2] }
// CHECK-NEXT: Read: [steps, n] -> { S0[i0, i1, i2] -> U[2 + i1, 1 + i2] }
// CHECK-NEXT: Read: [steps, n] -> { S0[i0, i1, i2] -> U[1 + i1, i2] }
// CHECK-NEXT: Read: [steps, n] -> { S0[i0, i1, i2] -> U[1 + i1, 2 + i2] }
// CHECK-NEXT: MustWrite: [steps, n] -> { S0[i0, i1, i2] -> W[1 + i1, 1 + i2] }
// The copy loop became one memcpy per row: a range of the row's n - 2 inner elements.
// CHECK: S1 (%for.cond44.preheader.us.us.us)
// CHECK-NEXT: Domain: [steps, n] -> { S1[i0, i1] : 0 <= i0 < steps and 0 <= i1 <= -3 + n }
// CHECK-NEXT: Schedule: [steps, n] -> { S1[i0, i1] -> [0, i0, 2, i1, 0, 0, 0] }
// CHECK-NEXT: MustWrite: [steps, n] -> { S1[i0, i1] -> U[1 + i1, o] : 0 < o <= -2 + n }   ; {{.*}}@llvm.memcpy
// CHECK-NEXT: Read: [steps, n] -> { S1[i0, i1] -> W[1 + i1, o] : 0 < o <= -2 + n }   ; {{.*}}@llvm.memcpy
// CHECK: Schedule tree:
