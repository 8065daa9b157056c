// Matrix products of floats are recognised as those of doubles are and call the
// kernel's float build (`_f32`: micro-kernel 6 x 16, two vectors of 8 floats per row;
// the same bytes per block, so twice the rows of A); the sums, alpha and beta are
// floats. Matrices of mixed types are not products. The caches are given so that the
// blocks do not depend on the host.
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -S | %FileCheck %s --check-prefix=IR
// RUN: %clang -O3 -g -mavx2 -mfma -c -o /dev/null -fpass-plugin=%plugin -Rpass=polyrust \
// RUN:   -Rpass-missed=polyrust -mllvm -polyrust-l1-cache=32K -mllvm -polyrust-l2-cache=512K \
// RUN:   %s 2>&1 | %FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: polyrust-ast: function 'dot_rows'
// CHECK: (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 252 x 256, micro-kernel 6 x 16, bit-exact):
// CHECK-NEXT: polyrust_product_f32(M = {{.*}}, mc = 252, kc = 256, fused = 1)
// IR-LABEL: define {{.*}}void @dot_rows(
// IR: call void @polyrust_product_f32(i64 {{.*}}, ptr %A, i64 {{.*}}, i64 1, ptr %B, i64 1, i64 {{.*}}, ptr %C, i64 {{.*}}, i64 1, i64 252, i64 256, i64 1)
// REMARK: remark: region in dot_rows at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 252 x 256, micro-kernel 6 x 16, bit-exact), behind a run-time check
void dot_rows(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
              float *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

// CHECK-LABEL: polyrust-ast: function 'in_c'
// CHECK: (matrix product C[i][j] += A[i][k] * B[k][j] (C kept in a register across k): packed, blocks 252 x 256, micro-kernel 6 x 16, bit-exact):
// CHECK-NEXT: polyrust_product_from_c_f32(
// IR-LABEL: define {{.*}}void @in_c(
// IR: call void @polyrust_product_from_c_f32(
void in_c(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
          int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * ldc + j] += A[i * lda + k] * B[k * ldb + j];
}

// The float alpha and beta are passed as they are; 1.0 where unused is a float.
// CHECK-LABEL: polyrust-ast: function 'gemm'
// CHECK: (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed, blocks 252 x 256, micro-kernel 6 x 16, bit-exact):
// CHECK-NEXT: polyrust_product_scaled_f32(
// IR-LABEL: define {{.*}}void @gemm(
// IR: call void @polyrust_product_scaled_f32({{.*}}, i64 252, i64 256, i64 1, i64 1, float %beta, i64 1, float %alpha, i64 0)
// IR-LABEL: define {{.*}}void @zeroed(
// IR: call void @polyrust_product_scaled_f32({{.*}}, i64 2, float 1.000000e+00, i64 0, float 1.000000e+00, i64 0)
void gemm(int n, float alpha, float beta, float C[n][n], float A[n][n], float B[n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      C[i][j] *= beta;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

void zeroed(int ni, int nj, int nk, float C[restrict ni][nj],
            const float A[restrict ni][nk], const float B[restrict nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] = 0.0f;
      for (int k = 0; k < nk; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}

// darknet's gemm_nt: each step multiplies alpha * A's element (the loop's first
// product, made when A is packed) by B's; in float and in double.
// CHECK-LABEL: polyrust-ast: function 'dot_alpha'
// CHECK: (matrix product C[i][j] += alpha * A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 252 x 256, micro-kernel 6 x 16, bit-exact):
// CHECK-NEXT: polyrust_product_alpha_f32({{.*}}, fused = 1, scale A = 1)
// CHECK-LABEL: polyrust-ast: function 'dot_alpha_f64'
// CHECK: (matrix product C[i][j] += alpha * A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 126 x 256, micro-kernel 6 x 8, bit-exact):
// CHECK-NEXT: polyrust_product_alpha_f64(
// IR-LABEL: define {{.*}}void @dot_alpha(
// IR: call void @polyrust_product_alpha_f32({{.*}}, i64 252, i64 256, i64 1, float %ALPHA)
// IR-LABEL: define {{.*}}void @dot_alpha_f64(
// IR: call void @polyrust_product_alpha_f64({{.*}}, i64 126, i64 256, i64 1, double %ALPHA)
// REMARK: remark: region in dot_alpha at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 252 x 256, micro-kernel 6 x 16, bit-exact)
void dot_alpha(int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb,
               float *C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0;
      for (int k = 0; k < K; ++k)
        sum += ALPHA * A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

void dot_alpha_f64(int M, int N, int K, double ALPHA, double *A, int lda, double *B,
                   int ldb, double *C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int k = 0; k < K; ++k)
        sum += ALPHA * A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

// alpha times B's element is not the kernel's (it packs alpha * A).
// CHECK-LABEL: polyrust-ast: function 'alpha_on_b'
// CHECK-NOT: matrix product
void alpha_on_b(int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb,
                float *C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0;
      for (int k = 0; k < K; ++k)
        sum += A[i * lda + k] * (ALPHA * B[j * ldb + k]);
      C[i * ldc + j] += sum;
    }
}

// Floats summed in a double, and a double matrix times a float one: the kernel is built
// for one element type, so neither is a product.
// CHECK-LABEL: polyrust-ast: function 'double_sum'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'mixed'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'end'
// REMARK-NOT: region in double_sum at {{.*}} optimized (matrix product
// REMARK-NOT: region in mixed at {{.*}} optimized (matrix product
void double_sum(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                float *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}

void mixed(int M, int N, int K, const double *A, int lda, const float *B, int ldb,
           double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * ldc + j] += A[i * lda + k] * B[k * ldb + j];
}

void end(int n, float *x) {
  for (int i = 0; i < n; i++)
    x[i] = 0;
}
