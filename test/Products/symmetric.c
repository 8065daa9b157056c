// The symmetric product as PolyBench's symm writes it (A's lower triangle read, C set
// from beta * C, B's diagonal term and alpha times a dot product, then updated from the
// rows below) calls the kernel's symmetric variant, once. Look-alikes whose order of
// operations on C the kernel would not keep stay loops. The caches are given so that
// the blocks do not depend on the host.
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -S | %FileCheck %s --check-prefix=IR
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=BASELINE

void symm(int m, int n, double alpha, double beta, double C[restrict m][n],
          const double A[restrict m][m], const double B[restrict m][n]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}
// CHECK-LABEL: polyrust-ast: function 'symm'
// CHECK: New code of symm{{.*}} (symmetric matrix product C[i][j] = beta * C[i][j] + alpha * sum over k of A[i][k] * B[k][j] (A symmetric, its lower triangle read: the rows' sums below the diagonal, then the updates from above it, each element's in the loop's order): packed, blocks 126 x 256, micro-kernel 6 x 8, bit-exact):
// CHECK-NEXT: polyrust_product_symm_f64(M = {{.*}}, N = {{.*}}, A = A, m, 1, B = B, n, 1, C = C, n, 1, mc = 126, kc = 256, fused = 1, alpha, beta)
// IR-LABEL: define {{.*}}void @symm(
// IR: call void @polyrust_product_symm_f64(i64 {{.*}}, i64 {{.*}}, ptr %A, {{.*}}, ptr %B, {{.*}}, ptr %C, {{.*}}, i64 126, i64 256, i64 1, double %alpha, double %beta)
// Without FMA: each multiply-add rounded twice, the kernel behind a test of the CPU.
// BASELINE-LABEL: polyrust-ast: function 'symm'
// BASELINE: (symmetric matrix product {{.*}} (products rounded before they are added, as written), bit-exact, needs AVX2 and FMA at run time, original loops otherwise):
// BASELINE-NEXT: polyrust_product_symm_f64({{.*}}, fused = 0, alpha, beta) if the CPU has AVX2 and FMA

// k up to i: the k loop updates C[i][j] before the last statement scales it, a
// dependence through C the kernel's order (C set first, then updated) would break.
void through_diagonal(int m, int n, double alpha, double beta, double C[restrict m][n],
                      const double A[restrict m][m], const double B[restrict m][n]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double temp2 = 0;
      for (int k = 0; k <= i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}
// CHECK-LABEL: polyrust-ast: function 'through_diagonal'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'sums_of_c'

// The dot product reads C, which the same k loop updates: a dependence through C.
void sums_of_c(int m, int n, double alpha, double beta, double C[restrict m][n],
               const double A[restrict m][m], const double B[restrict m][n]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += C[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'upper_rows'

// The updates read A above the diagonal (A[k][i]): not the lower triangle's row i.
void upper_rows(int m, int n, double alpha, double beta, double C[restrict m][n],
                const double A[restrict m][m], const double B[restrict m][n]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[k][i];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'scaled_twice'

// The sum scaled by beta instead of alpha: not symm's last statement.
void scaled_twice(int m, int n, double alpha, double beta, double C[restrict m][n],
                  const double A[restrict m][m], const double B[restrict m][n]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + beta * temp2;
    }
}
// CHECK-NOT: matrix product
