// A loop under a data-dependent condition (the reference BLAS dgemm's
// `if (B(l,j) != 0.)`, detect/guarded.rs) is generated with the condition tested
// again for each statement instance; where every instance of an innermost loop reads
// the same condition, the test is made once in front of that loop (once the loop is
// known to run, so it reads only elements the original reads), and the loop itself
// has no branch left to keep it from vectorizing. Register tiles, whose copies would
// each test their own condition inside the innermost loop, are not used.
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -c %s -o /dev/null 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=REMARK
// RUN: %clang -O3 -fno-discard-value-names -fpass-plugin=%plugin -mllvm -vectorize-loops=false \
// RUN:   -fno-unroll-loops -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s < %t.ll
// RUN: %opt -passes=verify -disable-output %t.ll

void dgemm_nn(int m, int n, int k, double alpha, const double *a, int lda,
              const double *b, int ldb, double *c, int ldc) {
  for (int j = 0; j < n; j++)
    for (int l = 0; l < k; l++)
      if (b[l + j * ldb] != 0.) {
        double temp = alpha * b[l + j * ldb];
        for (int i = 0; i < m; i++)
          c[i + j * ldc] += temp * a[i + l * lda];
      }
}
// The tiles, and no register tiles (they would be named between "L2" and ":").
// REMARK: remark: region in dgemm_nn at guarded-loops.c:{{[0-9]+}} optimized (vectorized loop tiled by {{[0-9]+}}, outermost loop by {{[0-9]+}}, loop 2 by {{[0-9]+}} so that its tiles stay in L2: memory traffic

// The test in front of the innermost loop of the new code: the element of b, loaded
// where the loop is entered, compared with zero; then the loop, without a comparison.
// CHECK-LABEL: define {{.*}}void @dgemm_nn(
// CHECK:      polyrust.entered:
// CHECK:        [[B:%[0-9]+]] = load double, ptr %scevgep
// CHECK-NEXT:   [[ZERO:%[0-9]+]] = fcmp oeq double [[B]], 0.000000e+00
// CHECK:      polyrust.body{{[0-9]+}}:
// CHECK-NOT:    fcmp
// CHECK:        call double @llvm.fmuladd.f64(
// CHECK-NOT:    fcmp
// CHECK:        br i1 %{{.*}}, label %polyrust.not.entered, label %polyrust.body{{[0-9]+}}
// CHECK-NEXT: }
