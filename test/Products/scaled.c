// The product as dgemm and PolyBench write it (C scaled by beta, or set to 0, before
// C += alpha * A * B, j or k innermost; syrk's lower triangle of C; syr2k's two
// products per step) calls the kernel's scaled variant: its sums start
// at C * beta (start = 1), C (0) or +0.0 (2), A's elements packed as alpha * A. The
// caches are given so that the blocks do not depend on the host.
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -S | %FileCheck %s --check-prefix=IR

void gemm(int ni, int nj, int nk, double alpha, double beta, double C[restrict ni][nj],
          const double A[restrict ni][nk], const double B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
// CHECK-LABEL: polyrust-ast: function 'gemm'
// CHECK: New code of gemm{{.*}} (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed, blocks 126 x 256, micro-kernel 6 x 8, bit-exact):
// CHECK-NEXT: polyrust_product_scaled_f64(M = {{.*}}, A = A, nk, 1, B = B, nj, 1, C = C, nj, 1, mc = 126, kc = 256, fused = 1, start = 1, scale A = 1, lower = 0)
// IR-LABEL: define {{.*}}void @gemm(
// IR: call void @polyrust_product_scaled_f64(i64 {{.*}}, ptr %A, {{.*}}, ptr %B, {{.*}}, ptr %C, {{.*}}, i64 126, i64 256, i64 1, i64 1, double %beta, i64 1, double %alpha, i64 0)

// k innermost: C's element in a register across k, starting at C * beta.
void k_innermost(int ni, int nj, int nk, double alpha, double beta,
                 double C[restrict ni][nj], const double A[restrict ni][nk],
                 const double B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
// CHECK-LABEL: polyrust-ast: function 'k_innermost'
// CHECK: (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed
// CHECK-NEXT: polyrust_product_scaled_f64({{.*}}, start = 1, scale A = 1, lower = 0)
// IR-LABEL: define {{.*}}void @k_innermost(
// IR: call void @polyrust_product_scaled_f64({{.*}}, i64 1, double %beta, i64 1, double %alpha, i64 0)

// syrk: C's lower triangle, A times its own transpose (one array read twice: alpha
// scales the element read with i, A[i][k], as the loop does).
void syrk(int n, int m, double alpha, double beta, double C[restrict n][n],
          const double A[restrict n][m]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
// CHECK-LABEL: polyrust-ast: function 'syrk'
// CHECK: (matrix product C[i][j] += alpha * A[i][k] * A[j][k] (B transposed, lower triangle of C, beta-scaled C): packed
// CHECK-NEXT: polyrust_product_scaled_f64({{.*}}A = A, m, 1, B = A, 1, m, C = C, n, 1, {{.*}}, start = 1, scale A = 1, lower = 1)
// IR-LABEL: define {{.*}}void @syrk(
// IR: call void @polyrust_product_scaled_f64({{.*}}, i64 1, double %beta, i64 1, double %alpha, i64 1)

// alpha scaling the element read with j: (alpha * A[j][k]) * A[i][k] is not the
// kernel's (alpha * A[i][k]) * A[j][k].
void syrk_other_factor(int n, int m, double alpha, double C[restrict n][n],
                       const double A[restrict n][m]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[j][k] * A[i][k];
}
// CHECK-LABEL: polyrust-ast: function 'syrk_other_factor'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'upper'

// The upper triangle (j >= i) is not the lower one.
void upper(int n, int m, double alpha, double beta, double C[restrict n][n],
           const double A[restrict n][m]) {
  for (int i = 0; i < n; i++) {
    for (int j = i; j < n; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = i; j < n; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
// CHECK-NOT: matrix product

// syr2k: two products per step, C + fmuladd(alpha * A[j][k], B[i][k], (alpha * B[j][k])
// * A[i][k]): the two-term kernel, its B-side operands (bits 1 and 3) scaled.
void syr2k(int n, int m, double alpha, double beta, double C[restrict n][n],
           const double A[restrict n][m], const double B[restrict n][m]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
}
// CHECK-LABEL: polyrust-ast: function 'syr2k'
// CHECK: (matrix product C[i][j] += alpha * A[j][k] * B[i][k] + alpha * B[j][k] * A[i][k] (two products per step, lower triangle of C, beta-scaled C): packed
// CHECK-NEXT: polyrust_product_two_terms_f64({{.*}}A = B, m, 1, B = A, 1, m, A2 = A, m, 1, B2 = B, 1, m, C = C, n, 1, {{.*}}, start = 1, scaled = 10, lower = 1)
// IR-LABEL: define {{.*}}void @syr2k(
// IR: call void @polyrust_product_two_terms_f64({{.*}}, i64 1, double %beta, double %alpha, i64 10, i64 1)

// Two products whose second pairs two rows (A[i][k] * B[i][k]): not a product of a row
// and a column.
void two_rows(int n, int m, double C[restrict n][n], const double A[restrict n][m],
              const double B[restrict n][m]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += A[j][k] * B[i][k] + B[i][k] * A[i][k];
}
// CHECK-LABEL: polyrust-ast: function 'two_rows'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'zeroed'

// C set to +0.0 first, no alpha (the products of 3mm).
void zeroed(int ni, int nj, int nk, double C[restrict ni][nj],
            const double A[restrict ni][nk], const double B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] = 0.0;
      for (int k = 0; k < nk; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}
// CHECK: (matrix product C[i][j] += A[i][k] * B[k][j] (C set to 0 first): packed
// CHECK-NEXT: polyrust_product_scaled_f64({{.*}}, start = 2, scale A = 0, lower = 0)
// IR-LABEL: define {{.*}}void @zeroed(
// IR: call void @polyrust_product_scaled_f64({{.*}}, i64 2, double 1.000000e+00, i64 0, double 1.000000e+00, i64 0)

// C set to -0.0 first: a sum from -0.0 is not a sum from +0.0 (-0.0 + -0.0 is -0.0).
void negative_zero(int ni, int nj, int nk, double C[restrict ni][nj],
                   const double A[restrict ni][nk], const double B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] = -0.0;
      for (int k = 0; k < nk; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}
// CHECK-LABEL: polyrust-ast: function 'negative_zero'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'alpha_only'

// alpha alone, j innermost: C updated in place.
void alpha_only(int ni, int nj, int nk, double alpha, double C[restrict ni][nj],
                const double A[restrict ni][nk], const double B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
}
// CHECK: (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (C updated in place): packed
// CHECK-NEXT: polyrust_product_scaled_f64({{.*}}, start = 0, scale A = 1, lower = 0)

// Not the product: beta applied after the update, alpha made in the loop, B's element
// scaled instead of A's (alpha * B[k][j] is not the loop's first product of A's).
void scaled_after(int ni, int nj, int nk, double alpha, double beta,
                  double C[restrict ni][nj], const double A[restrict ni][nk],
                  const double B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++) {
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
  }
}
// CHECK-LABEL: polyrust-ast: function 'scaled_after'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'alpha_in_loop'

void alpha_in_loop(int ni, int nj, int nk, double C[restrict ni][nj],
                   const double A[restrict ni][nk], const double B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += (double)k * A[i][k] * B[k][j];
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'b_scaled'

void b_scaled(int ni, int nj, int nk, double alpha, double C[restrict ni][nj],
              const double A[restrict ni][nk], const double B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += A[i][k] * (alpha * B[k][j]);
}
// CHECK-NOT: matrix product

// C read as a factor: a dependence through C, not a product.
void reads_c(int n, double alpha, double beta, double C[restrict n][n],
             const double A[restrict n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      C[i][j] *= beta;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += alpha * A[i][k] * C[k][j];
  }
}
// CHECK-LABEL: polyrust-ast: function 'reads_c'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'strided'

// B read with a stride of 2 along j: not packed.
void strided(int ni, int nj, int nk, double alpha, double beta, double C[restrict ni][nj],
             const double A[restrict ni][nk], const double B[restrict nk][2 * nj]) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][2 * j];
  }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'may_alias'

// Without restrict the arrays may overlap: the call runs behind the run-time check that
// their ranges do not, the loops stay for when they do.
void may_alias(int n, double alpha, double beta, double C[n][n], double A[n][n],
               double B[n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      C[i][j] *= beta;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
// CHECK: (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed
// IR-LABEL: define {{.*}}void @may_alias(
// IR: call double @llvm.fmuladd.f64(
// IR: polyrust.check:
// IR: polyrust.start:
// IR-NEXT: call void @polyrust_product_scaled_f64(
