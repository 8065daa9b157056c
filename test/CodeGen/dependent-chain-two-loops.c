// Two loops whose innermost one accumulates into one floating-point element (not
// vectorized: each iteration waits on the previous one) are tiled although the
// region has no third loop and keeps its reuse in cache: k by 16 and i by 8, the
// chains that overlap in the out-of-order window, not by L2/L1 (chol_factor, n = 1600,
// loaded machine: 1.53 s at -O3, 1.12 s with i by L2/L1 = 32, 0.77 s with i by 8). The accumulator `s` starts from
// A[i][j] and the statement after the loop overwrites that element; the loop's other
// reads of A (A[i][k] and A[j][k] with k < j < i) never reach it, so `s` is modelled as
// A[i][j] and the rows can be interleaved. Other two-loop regions keep the three-loop
// minimum: an integer sum (vectorized by LLVM) is left alone. The machine is given so
// that the sizes do not depend on the host.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-simd-width=256 \
// RUN:   -disable-output 2>&1 | %FileCheck %s

double sqrt(double);

// The j loop is not modelled (A[j][j] under sqrt is not affine in the model's terms):
// the region is the (i, k) nest, j a parameter.
void column(int n, double *restrict A) {
  for (int j = 0; j < n; j++) {
    double d = A[j * n + j];
    for (int k = 0; k < j; k++)
      d -= A[j * n + k] * A[j * n + k];
    double ljj = sqrt(d);
    A[j * n + j] = ljj;
    for (int i = j + 1; i < n; i++) {
      double s = A[i * n + j];
      for (int k = 0; k < j; k++)
        s -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = s / ljj;
    }
  }
}
// CHECK-LABEL: polyrust-ast: function 'column'
// CHECK: New AST of column{{.*}} (loops reordered: {{.*}}innermost loop tiled by 16 (it carries a dependence: short chains of dependent iterations overlap), outermost loop by 8 (the chains that overlap)):
// CHECK:   for (int c0 = 0; {{.*}}; c0 += 8) {
// CHECK-NEXT:  for (int c1 = 0; {{.*}}; c1 += 16)
// CHECK-NEXT:    for (int c2 = 0; c2 <= min(7, {{.*}}); c2 += 1)
// CHECK-NEXT:      for (int c3 = 0; c3 <= 15; c3 += 1)

void row_sums(int n, int m, long *restrict y, const long (*restrict A)[m]) {
  for (int i = 0; i < n; i++) {
    long s = 0;
    for (int k = 0; k < m; k++)
      s += A[i][k];
    y[i] = s;
  }
}
// CHECK-LABEL: polyrust-ast: function 'row_sums'
// CHECK: row_sums{{.*}} kept: no statement is 3 or more loops deep (nothing to tile)

// RUN: %detect %s 2>&1 | %FileCheck %s --check-prefix=DETECT
// DETECT: remark: s is modelled as the element of A it is loaded from or stored to
