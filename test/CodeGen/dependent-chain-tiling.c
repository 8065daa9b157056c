// SICA tiles the vectorized (innermost, dependence-free) loop of a band to fill L1.
// When the innermost loop carries a dependence instead, as the reduction over k of
// P[i][j] += G[i][k] * X[j][k] (both operands contiguous in k, so k stays innermost),
// nothing is vectorized and each iteration waits on the previous one: that loop is
// tiled by 16, so that the out-of-order window overlaps the short chains of successive
// (i, j) (gram_restrict's product: 0.35 s untiled, as -O3, 0.12 s so). A product whose
// innermost loop is parallel keeps SICA's L1 tile. The machine is given so that the
// sizes do not depend on the host; products are left to the loop transformations (the
// packed kernel takes them otherwise, even on the baseline target: test/Products).
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-simd-width=256 -polyrust-products=false \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// Generated code keeps P[i][j] in its element (loaded and stored in every iteration of
// k); after the rewrite, LICM holds it in a register across the k loop again, as it
// was in the original (3.5x slower otherwise).
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust -S \
// RUN:   -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-simd-width=256 -polyrust-products=false \
// RUN:   | %FileCheck %s --check-prefix=IR

void product_transposed(int n, int m, double (*restrict P)[n], const double (*restrict G)[m],
                        const double (*restrict X)[m]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < m; k++)
        P[i][j] += G[i][k] * X[j][k];
}
// CHECK-LABEL: polyrust-ast: function 'product_transposed'
// CHECK: New AST of product_transposed{{.*}} (innermost loop tiled by 16 (it carries a dependence: short chains of dependent iterations overlap), outermost loop by 21, loop 2 by {{[0-9]+}} so that its tiles stay in L2):
// CHECK:            for (int c5 = 0; c5 <= min(15, m - c2 - 1); c5 += 1)
// CHECK-NEXT:         S0(c0 + c3, c1 + c4, c2 + c5);

// IR-LABEL: define {{.*}}@product_transposed(
// IR:         [[ACC:%.*]] = phi double [ %{{.*}}.promoted, %{{.*}} ], [ [[SUM:%.*]], %polyrust.body{{[0-9]+}} ]
// IR-NOT:     store
// IR:         [[SUM]] = tail call double @llvm.fmuladd.f64(double %{{.*}}, double %{{.*}}, double [[ACC]])
// IR-NOT:     store
// IR:         br i1 %{{.*}}, label %{{.*}}, label %polyrust.body{{[0-9]+}}
// IR:         store double

void product(int n, double (*restrict C)[n], const double (*restrict A)[n],
             const double (*restrict B)[n]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += A[i][k] * B[k][j];
}
// CHECK-LABEL: polyrust-ast: function 'product'
// CHECK: New AST of product{{.*}} (vectorized loop tiled by {{[0-9]+}}, outermost loop by 21
