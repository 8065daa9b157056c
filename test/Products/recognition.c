// Matrix products written as a dot product per element (the CPU GEMM of neural-network
// frameworks computing A * B^T) are recognised and replaced by a call of the packed
// product, on targets with AVX2 and FMA; look-alikes are not. The caches are given so
// that the blocks do not depend on the host.
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// Without AVX2 and FMA in the target (the loop's fmuladd is not fused), the product
// behind a test of the CPU, its steps unfused (test/Products/dispatch.c).
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=PLAIN
// With AVX2 but no FMA, the loop's fmuladd is a multiply and an add: so are the kernel's.
// RUN: %o3ir -mavx2 -mno-fma -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=NOFMA
// -polyrust-products=false leaves the shape to the loop transformations.
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-products=false -disable-output 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=OFF
// The new code: the check, then one call of the kernel, declared once, its assembly in
// the module's inline assembly once.
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -S | %FileCheck %s --check-prefix=IR
// The remark, from clang.
// RUN: %clang -O3 -g -mavx2 -mfma -c -o /dev/null -fpass-plugin=%plugin -Rpass=polyrust \
// RUN:   -mllvm -polyrust-l1-cache=32K -mllvm -polyrust-l2-cache=512K %s 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=REMARK

void dot_rows(int M, int N, int K, const double *A, int lda, const double *B, int ldb,
              double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + k];
      C[i * ldc + j] += sum;
    }
}
// CHECK-LABEL: polyrust-ast: function 'dot_rows'
// CHECK: New code of dot_rows{{.*}} (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 126 x 256, micro-kernel 6 x 8, bit-exact):
// CHECK-NEXT: polyrust_product_f64(M = {{.*}}, A = A, {{.*}}, 1, B = B, 1, {{.*}}, C = C, {{.*}}, 1, mc = 126, kc = 256, fused = 1)
// NOFMA-LABEL: polyrust-ast: function 'dot_rows'
// NOFMA: (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 126 x 256, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact):
// NOFMA-NEXT: fused = 0)
// PLAIN-LABEL: polyrust-ast: function 'dot_rows'
// PLAIN: (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 126 x 256, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact, needs AVX2 and FMA at run time, original loops otherwise):
// PLAIN-NEXT: fused = 0) if the CPU has AVX2 and FMA
// OFF-NOT: matrix product
// IR: module asm "# polyrust kernel products"
// IR-NOT: module asm "# polyrust kernel products"
// IR: module asm "# polyrust kernel products_f32"
// IR: module asm "# polyrust kernel products_from_c"
// IR-NOT: module asm "# polyrust kernel products"
// IR-LABEL: define {{.*}}void @dot_rows(
// IR: polyrust.check:
// IR: call void @polyrust_product_f64(i64 {{.*}}, ptr %A, i64 {{.*}}, i64 1, ptr %B, i64 1, i64 {{.*}}, ptr %C, i64 {{.*}}, i64 1, i64 126, i64 256, i64 1)
// The products that keep C in a register across k call the kernel's variant.
// IR: call void @polyrust_product_from_c_f64(
// IR-NOT: define {{.*}}@polyrust_product
// IR: declare hidden void @polyrust_product_f64(
// IR-NOT: declare {{.*}}@polyrust_product_f64
// IR: declare hidden void @polyrust_product_from_c_f64(
// IR-NOT: declare {{.*}}@polyrust_product_f64
// REMARK: remark: region in dot_rows at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element): packed, blocks 126 x 256, micro-kernel 6 x 8, bit-exact), behind a run-time check

// A second product in the same module calls the same kernel.
void dot_rows_again(int M, int N, int K, const double *A, const double *B, double *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * K + k] * B[j * K + k];
      C[i * N + j] += sum;
    }
}
// CHECK-LABEL: polyrust-ast: function 'dot_rows_again'
// CHECK: matrix product C[i][j] += A[i][k] * B[j][k]

// A transposed (its columns are the rows of the product), and two-dimensional arrays.
void columns(int M, int N, int K, const double *A, int lda, const double *B, int ldb,
             double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[k * lda + i] * B[k * ldb + j];
      C[i * ldc + j] += sum;
    }
}
// CHECK-LABEL: polyrust-ast: function 'columns'
// CHECK: matrix product C[i][j] += A[k][i] * B[k][j] (A transposed, a dot product per element)
// CHECK-NEXT: polyrust_product_f64(M = {{.*}}, A = A, 1, {{.*}}, B = B, {{.*}}, 1, C = C,

void two_d(int n, double C[n][n], double A[n][n], double B[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double sum = 0;
      for (int k = 0; k < n; k++)
        sum += A[i][k] * B[j][k];
      C[i][j] += sum;
    }
}
// CHECK-LABEL: polyrust-ast: function 'two_d'
// CHECK: matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, a dot product per element)

// C read in the k loop: a dependence through C.
void reads_c(int M, int N, int K, const double *A, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * K + k] * C[j * ldc + k];
      C[i * ldc + j] += sum;
    }
}
// CHECK-LABEL: polyrust-ast: function 'reads_c'
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'strided'

// B read with a stride of 2 along k.
void strided(int M, int N, int K, const double *A, int lda, const double *B, int ldb,
             double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[j * ldb + 2 * k];
      C[i * ldc + j] += sum;
    }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'floats'

// float: the kernel's float build (test/Products/float.c has more).
void floats(int M, int N, int K, const float *A, const float *B, float *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * K + k] * B[j * K + k];
      C[i * N + j] += sum;
    }
}
// CHECK: micro-kernel 6 x 16, bit-exact):
// CHECK-NEXT: polyrust_product_f32(
// CHECK-LABEL: polyrust-ast: function 'starts_at_minus_zero'

// A sum that starts at -0.0 (the kernel's start at +0.0 would change signs of zeros).
void starts_at_minus_zero(int M, int N, int K, const double *A, const double *B, double *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = -0.0;
      for (int k = 0; k < K; k++)
        sum += A[i * K + k] * B[j * K + k];
      C[i * N + j] += sum;
    }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'scaled'

// C's element gets alpha * sum: not the shape the kernel computes.
void scaled(int M, int N, int K, double alpha, const double *A, const double *B, double *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * K + k] * B[j * K + k];
      C[i * N + j] += alpha * sum;
    }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'in_c'

// C itself the accumulator, k innermost: LLVM keeps C's element in a register across k
// (stored back after the loop, C not aliasing A and B). The kernel's variant starts
// each sum at C's element and stores it.
void in_c(int M, int N, int K, const double *restrict A, const double *restrict B,
          double *restrict C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * N + j] += A[i * K + k] * B[k * N + j];
}
// CHECK: (matrix product C[i][j] += A[i][k] * B[k][j] (C kept in a register across k): packed, blocks 126 x 256, micro-kernel 6 x 8, bit-exact):
// CHECK-NEXT: polyrust_product_from_c_f64(M = {{.*}}, A = A, {{.*}}, 1, B = B, {{.*}}, 1, C = C, {{.*}}, 1, mc = 126, kc = 256, fused = 1)
// NOFMA-LABEL: polyrust-ast: function 'in_c'
// NOFMA: (matrix product C[i][j] += A[i][k] * B[k][j] (C kept in a register across k): packed, blocks 126 x 256, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact):
// REMARK: remark: region in in_c at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[k][j] (C kept in a register across k): packed, blocks 126 x 256, micro-kernel 6 x 8, bit-exact), behind a run-time check
// CHECK-LABEL: polyrust-ast: function 'in_c_transposed'

// A transposed, and C's element stored back in every step (A and B may alias C: the
// run-time check separates them).
void in_c_transposed(int M, int N, int K, const double *A, const double *B, double *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * N + j] += A[k * M + i] * B[k * N + j];
}
// CHECK: (matrix product C[i][j] += A[k][i] * B[k][j] (A transposed, C kept in a register across k): packed,
// CHECK-NEXT: polyrust_product_from_c_f64(M = {{.*}}, A = A, 1, {{.*}}, B = B, {{.*}}, 1, C = C,
// CHECK-LABEL: polyrust-ast: function 'in_c_two_d'

void in_c_two_d(int n, double C[n][n], double A[n][n], double B[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[j][k];
}
// CHECK: (matrix product C[i][j] += A[i][k] * B[j][k] (B transposed, C kept in a register across k): packed,
// CHECK-LABEL: polyrust-ast: function 'in_c_reads_c'

// C read as a factor too: a dependence through C.
void in_c_reads_c(int M, int N, int K, const double *A, double *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * N + j] += A[i * K + k] * C[k * N + j];
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'in_c_stores_in_loop'

// Another store in the k loop: C's element is loaded and stored in every step, not
// kept in a register.
void in_c_stores_in_loop(int M, int N, int K, const double *A, const double *B, double *C,
                         double *D) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++) {
        C[i * N + j] += A[i * K + k] * B[k * N + j];
        D[k] = 1.0;
      }
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'in_c_floats'

void in_c_floats(int M, int N, int K, const float *A, const float *B, float *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * N + j] += A[i * K + k] * B[k * N + j];
}
// CHECK: (C kept in a register across k): packed, blocks 252 x 256, micro-kernel 6 x 16, bit-exact):
// CHECK-NEXT: polyrust_product_from_c_f32(
// CHECK-LABEL: polyrust-ast: function 'in_c_reassociated'

// Fast-math flags (reassociation allowed): LLVM may reorder the loop's own additions.
void in_c_reassociated(int M, int N, int K, const double *A, const double *B, double *C) {
#pragma clang fp reassociate(on)
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * N + j] += A[i * K + k] * B[k * N + j];
}
// CHECK-NOT: matrix product
// CHECK-LABEL: polyrust-ast: function 'unfused'

// Products and sums kept apart (-ffp-contract=off): an fmul and an fadd, not fmuladd;
// the kernel's steps are unfused too.
#pragma clang fp contract(off)
void unfused(int M, int N, int K, const double *A, const double *B, double *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * K + k] * B[j * K + k];
      C[i * N + j] += sum;
    }
}
// CHECK: micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact):
// CHECK-NEXT: fused = 0)

// CHECK-LABEL: polyrust-ast: function 'in_c_unfused'
void in_c_unfused(int M, int N, int K, const double *A, const double *B, double *C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * N + j] += A[i * K + k] * B[k * N + j];
}
// CHECK: (matrix product C[i][j] += A[i][k] * B[k][j] (C kept in a register across k): packed, blocks 126 x 256, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact):
// CHECK-NEXT: polyrust_product_from_c_f64({{.*}}, fused = 0)
