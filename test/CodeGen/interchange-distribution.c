// Where isl's schedule gains nothing, the original order with one statement's loops
// interchanged so that its innermost loop is contiguous, the statements it shared
// loops with distributed into loops of their own (transform/interchange.rs). The
// accumulator lives in G[a][b] (detect/promoted.rs), which is what makes the
// interchange legal without reassociating the sums.
// RUN: %detect -Rpass=polyrust %s 2>&1 | %FileCheck %s
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=AST

// Column pairs of a row-major X: the i loop walks X with a stride of m.
void gram(int n, int m, double (*restrict G)[m], double (*restrict X)[m]) {
  for (int a = 0; a < m; a++)
    for (int b = a; b < m; b++) {
      double s = 0.0;
      for (int i = 0; i < n; i++)
        s += X[i][a] * X[i][b];
      G[a][b] = s;
    }
}
// CHECK: interchange-distribution.c:{{[0-9]+}}:{{[0-9]+}}: remark: s is modelled as the element of G it is loaded from or stored to, so the loops around it can be reordered
// CHECK: interchange-distribution.c:[[@LINE-9]]:3: remark: region in gram at interchange-distribution.c:[[@LINE-9]] optimized (loops interchanged (loop 2 of S1 moved innermost): 2 strided accesses in innermost loops -> 0), behind a run-time check [-Rpass=polyrust]
// The store after the loop is an identity in the memory form and is gone; the zero
// goes into G[a][b] in a loop of its own.
// AST-LABEL: polyrust-ast: function 'gram'
// AST: New AST of gram{{.*}}(loops interchanged (loop 2 of S1 moved innermost): 2 strided accesses in innermost loops -> 0):
// AST-NEXT: for (int c1 = 0; c1 < m; c1 += 1) {
// AST-NEXT:   for (int c3 = 0; c3 < m - c1; c3 += 1)
// AST-NEXT:     S0(c1, c3);
// AST-NEXT:   for (int c3 = 0; c3 < n; c3 += 1)
// AST-NEXT:     for (int c5 = 0; c5 < m - c1; c5 += 1)
// AST-NEXT:       S1(c1, c5, c3);
// AST-NEXT: }

// The element's old contents are read after the loop: the accumulator stays a scalar,
// which every iteration of the three loops reads and writes, so nothing moves.
void scaled_update(int n, int m, double (*restrict C)[n], double (*restrict A)[m]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0.0;
      for (int k = 0; k < m; k++)
        s += A[i][k] * A[j][k];
      C[i][j] = 0.5 * C[i][j] + s;
    }
}
// CHECK: interchange-distribution.c:[[@LINE-8]]:3: remark: region in scaled_update at interchange-distribution.c:[[@LINE-8]] left unchanged: S1 loses reuse in loop 1, but no band of 3 of its loops can be tiled without skewing: in each, a dependence goes backwards in some loop whatever their order and the statements' shifts (polyrust skews loops only to tile the time loop of iterated stencils) [-Rpass-missed=polyrust]
