// The loop AST isl generates from a region's original schedule reproduces the source's
// loop structure: the first step of code generation.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
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
// CHECK-LABEL: polyrust-ast: function 'jacobi'
// CHECK-NEXT: AST of jacobi:{{.*}}:
// CHECK-NEXT: for (int c0 = 0; c0 < steps; c0 += 1) {
// CHECK-NEXT:   for (int c1 = 0; c1 < n - 2; c1 += 1)
// CHECK-NEXT:     for (int c2 = 0; c2 < n - 2; c2 += 1)
// CHECK-NEXT:       S0(c0, c1, c2);
// CHECK-NEXT:   for (int c1 = 0; c1 < n - 2; c1 += 1)
// CHECK-NEXT:     S1(c0, c1);
// CHECK-NEXT: }

void triangular(int n, double *restrict L, double *restrict x) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      x[i] -= L[i * n + j] * x[j];
}
// CHECK-LABEL: polyrust-ast: function 'triangular'
// CHECK: for (int c0 = {{[01]}}; c0 < n; c0 += 1)
// CHECK: for (int c1 = 0; c1 < {{c0|c0 - 1|-1 \+ c0}}; c1 += 1)
