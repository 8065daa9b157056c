// With -fopenmp, a matrix product's rows of C run on OpenMP threads: the kernel's call
// moves into a function of its own taking a block of rows (in blocks of 6, the
// micro-kernel's), and the dispatcher forks a team (__kmpc_fork_call) whose threads each
// call the kernel on their own contiguous rows, A and C offset to their first row; below
// 48 rows (8 blocks, weighed as a loop with two loops inside) or inside a parallel region
// the one call takes every row. Each element of C is computed by the same operations
// whatever rows a call gets (a lower triangle's as well, its rows cut by its work): the
// outputs are -O3's bytes with 1, 2 and 3 threads, at the default threshold and with
// every product forking (-polyrust-parallel-min-work=0), on
// row counts neither the blocks nor the threads divide, with caches given small so that
// blocks of k and of rows are several (sums kept between blocks of k, per thread).
// REQUIRES: libomp, avx2-fma
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -march=native -fopenmp -fpass-plugin=%plugin -fno-discard-value-names \
// RUN:   -S -emit-llvm -o - %s -Rpass=polyrust -Rpass-missed=polyrust 2>%t/remarks \
// RUN:   | %FileCheck %s
// RUN: %FileCheck --check-prefix=REMARK %s < %t/remarks
// Without -fopenmp, the one call of the kernel, as before.
// RUN: %clang -O3 -march=native -fpass-plugin=%plugin -S -emit-llvm -o - %s \
// RUN:   | %FileCheck --check-prefix=OFF %s
// RUN: %clang -O3 -march=native %s -o %t/plain
// RUN: %clang -O3 -march=native -fopenmp -fpass-plugin=%plugin %s -o %t/poly
// RUN: %clang -O3 -march=native -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-parallel-min-work=0 \
// RUN:   -mllvm -polyrust-l1-cache=4K -mllvm -polyrust-l2-cache=32K %s -o %t/always
// RUN: %t/plain 203 37 53 7 9 33 5 8 8 0 4 4 13 1 0 101 97 21 > %t/expected
// RUN: env OMP_NUM_THREADS=1 %t/poly 203 37 53 7 9 33 5 8 8 0 4 4 13 1 0 101 97 21 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=2 %t/poly 203 37 53 7 9 33 5 8 8 0 4 4 13 1 0 101 97 21 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=3 %t/poly 203 37 53 7 9 33 5 8 8 0 4 4 13 1 0 101 97 21 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=1 %t/always 203 37 53 7 9 33 5 8 8 0 4 4 13 1 0 101 97 21 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=2 %t/always 203 37 53 7 9 33 5 8 8 0 4 4 13 1 0 101 97 21 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=3 %t/always 203 37 53 7 9 33 5 8 8 0 4 4 13 1 0 101 97 21 | cmp - %t/expected

// REMARK: remark: region in dot at {{.*}} optimized (matrix product C[i][j] += A[i][k] * B[k][j] (a dot product per element)
// REMARK: remark: region in dot at {{.*}}: the product runs in parallel on OpenMP threads, each on its own rows of C in blocks of 6 (when C has 48 rows or more and the product is not called from a parallel region)
// REMARK: remark: region in in_c at {{.*}} optimized (matrix product C[i][j] += At[k][i] * B[k][j] (A transposed, C kept in a register across k)
// REMARK: remark: region in in_c at {{.*}}: the product runs in parallel on OpenMP threads
// REMARK: remark: region in scaled at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C)
// REMARK: remark: region in scaled at {{.*}}: the product runs in parallel on OpenMP threads
// A lower triangle's rows are cut so that each thread has as many of its elements; the
// kernel is told which row of C its first is.
// REMARK: remark: region in syrk at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * A[j][k] (B transposed, lower triangle of C, beta-scaled C)
// REMARK: remark: region in syrk at {{.*}}: the product runs in parallel on OpenMP threads, each on its own rows of C in blocks of 6 (when C has 48 rows or more and the product is not called from a parallel region), the rows cut so that each thread has as many elements of C's lower triangle
// REMARK: remark: region in syr2k at {{.*}} optimized (matrix product {{.*}} (two products per step, lower triangle of C, beta-scaled C)
// REMARK: remark: region in syr2k at {{.*}}: the product runs in parallel on OpenMP threads, {{.*}}, the rows cut so that each thread has as many elements of C's lower triangle

// The callers: a dispatcher each, the number of blocks of rows last.
// CHECK-LABEL: define {{.*}}void @dot(
// CHECK: call void @polyrust.dispatch(i64 0, i64 0, {{.*}}i64 %{{[^ )]+}})
// CHECK-LABEL: define {{.*}}void @in_c(
// CHECK: call void @polyrust.dispatch.{{[0-9]+}}(i64 0, i64 0,
// The call on blocks %first to %end: rows from 6 * first to min(6 * end, M), A and C
// offset by 6 * first rows (their row strides, in bytes).
// CHECK-LABEL: define internal void @dot.polyrust.parallel(
// CHECK-SAME: i64 %polyrust.first, i64 %polyrust.end, i64 %[[M:[0-9]+]], i64 %[[LDA:[0-9]+]], ptr %A, i64 %[[LDC:[0-9]+]], ptr %C,
// CHECK-NEXT: newFuncRoot:
// CHECK-NEXT: %[[ROW:[0-9]+]] = mul i64 %polyrust.first, 6
// CHECK-NEXT: %[[AFTER:[0-9]+]] = mul i64 %polyrust.end, 6
// CHECK-NEXT: %[[LAST:[0-9]+]] = {{.*}}call i64 @llvm.smin.i64(i64 %[[M]], i64 %[[AFTER]])
// CHECK-NEXT: %[[ROWS:[0-9]+]] = sub i64 %[[LAST]], %[[ROW]]
// CHECK-NEXT: %[[AE:[0-9]+]] = mul i64 %[[ROW]], %[[LDA]]
// CHECK-NEXT: %[[AB:[0-9]+]] = shl i64 %[[AE]], 3
// CHECK-NEXT: %[[APTR:[0-9]+]] = getelementptr inbounds i8, ptr %A, i64 %[[AB]]
// CHECK-NEXT: %[[CE:[0-9]+]] = mul i64 %[[ROW]], %[[LDC]]
// CHECK-NEXT: %[[CB:[0-9]+]] = shl i64 %[[CE]], 3
// CHECK-NEXT: %[[CPTR:[0-9]+]] = getelementptr inbounds i8, ptr %C, i64 %[[CB]]
// CHECK-NEXT: call void @polyrust_product_f64(i64 %[[ROWS]], i64 %{{[0-9]+}}, i64 %{{[0-9]+}}, ptr %[[APTR]], i64 %[[LDA]], i64 1, ptr %B, i64 %{{[0-9]+}}, i64 1, ptr %[[CPTR]], i64 %[[LDC]], i64 1,
// Each thread its block of the blocks of rows; the dispatcher forks from 8 blocks on,
// outside a parallel region, and otherwise makes the one call on every block.
// CHECK-LABEL: define internal void @polyrust.microtask(
// CHECK: call void @dot.polyrust.parallel(
// CHECK-LABEL: define internal void @polyrust.dispatch(
// CHECK: icmp slt i64 %{{.*}}, 8
// CHECK: call i32 @omp_in_parallel()
// CHECK: call void @dot.polyrust.parallel(i64 0, i64 %
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr nonnull @polyrust.omp.location, i32 1, ptr nonnull @polyrust.microtask,
// CHECK-LABEL: define internal void @in_c.polyrust.parallel(
// CHECK: call void @polyrust_product_from_c_f64(
// The triangle's block: its columns end at its last row (j <= i), and the kernel's last
// argument, `lower`, is 1 + the row of C its first row is.
// CHECK-LABEL: define internal void @syrk.polyrust.parallel(
// CHECK: %[[TROW:[0-9]+]] = mul i64 %polyrust.first, 6
// CHECK: %[[TLAST:[0-9]+]] = {{.*}}call i64 @llvm.smin.i64(
// CHECK: %[[LOWER:[0-9]+]] = {{or disjoint|add nuw nsw|add nsw|add}} i64 %[[TROW]], 1
// CHECK: %[[COLS:[0-9]+]] = {{.*}}call i64 @llvm.smin.i64(i64 %[[TLAST]], i64 %{{[0-9]+}})
// CHECK: call void @polyrust_product_scaled_f64(i64 %{{[0-9]+}}, i64 %[[COLS]], {{.*}}, i64 %[[LOWER]])
// Each thread's block of blocks from trips * sqrt(thread / threads) to the next's.
// CHECK-LABEL: define internal void @polyrust.microtask.{{[0-9]+}}(
// CHECK: call i32 @omp_get_thread_num()
// CHECK: call i32 @omp_get_num_threads()
// CHECK: call double @llvm.sqrt.f64(
// CHECK: fptosi double
// CHECK: call double @llvm.sqrt.f64(
// CHECK: call void @syrk.polyrust.parallel(

// OFF-LABEL: define {{.*}}void @dot(
// OFF-NOT: polyrust.dispatch
// OFF: call void @polyrust_product_f64(
// OFF-NOT: __kmpc_fork_call

#include <stdio.h>
#include <stdlib.h>

// products-float.test runs the same products in float.
#ifdef PRODUCTS_IN_FLOAT
#define double float
#endif

__attribute__((noinline)) void dot(int M, int N, int K, const double *A, int lda,
                                   const double *B, int ldb, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sum = 0;
      for (int k = 0; k < K; k++)
        sum += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] += sum;
    }
}

/* A transposed (K x M), C itself the accumulator. */
__attribute__((noinline)) void in_c(int M, int N, int K, const double *At, int ldat,
                                    const double *B, int ldb, double *C, int ldc) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        C[i * ldc + j] += At[k * ldat + i] * B[k * ldb + j];
}

/* PolyBench's gemm: C scaled by beta, then alpha * A * B added. */
__attribute__((noinline)) void scaled(int M, int N, int K, double alpha, double beta,
                                      const double *A, int lda, const double *B, int ldb,
                                      double *C, int ldc) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      C[i * ldc + j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++)
        C[i * ldc + j] += alpha * A[i * lda + k] * B[k * ldb + j];
  }
}

/* syrk: C's lower triangle, A times its transpose. */
__attribute__((noinline)) void syrk(int M, int K, double alpha, double beta, const double *A,
                                    int lda, double *C, int ldc) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j <= i; j++)
      C[i * ldc + j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j <= i; j++)
        C[i * ldc + j] += alpha * A[i * lda + k] * A[j * lda + k];
  }
}

/* syr2k: C's lower triangle, two products per step. */
__attribute__((noinline)) void syr2k(int M, int K, double alpha, double beta,
                                     const double *A, const double *B, int ld, double *C,
                                     int ldc) {
  for (int i = 0; i < M; i++) {
    for (int j = 0; j <= i; j++)
      C[i * ldc + j] *= beta;
    for (int k = 0; k < K; k++)
      for (int j = 0; j <= i; j++)
        C[i * ldc + j] += A[j * ld + k] * alpha * B[i * ld + k] + B[j * ld + k] * alpha * A[i * ld + k];
  }
}

/* Values of every sign and size, zeros of both signs among them. */
static double value(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  unsigned r = (*seed >> 8) & 0xffff;
  if (r % 11 == 0)
    return r % 2 ? -0.0 : 0.0;
  return ((double)r - 32768.0) / (r % 7 + 1) * 1e-3;
}

static double *filled(size_t n, unsigned *seed) {
  double *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++)
    x[i] = value(seed);
  return x;
}

int main(int argc, char **argv) {
  for (int a = 1; a + 2 < argc; a += 3) {
    int M = atoi(argv[a]), N = atoi(argv[a + 1]), K = atoi(argv[a + 2]);
    int m = M > 0 ? M : 1, n = N > 0 ? N : 1, k = K > 0 ? K : 1;
    int lda = k + 3, ldat = m + 1, ldb = n + 5, ldc = n + 2;
    unsigned seed = 7u * M + 13u * N + K;
    double *A = filled((size_t)m * lda, &seed), *At = filled((size_t)k * ldat, &seed);
    double *B = filled((size_t)k * ldb, &seed), *C = filled((size_t)m * ldc, &seed);
    dot(M, N, K, A, lda, B, ldb, C, ldc);
    printf("%d x %d x %d\n", M, N, K);
    for (size_t i = 0; i < (size_t)m * ldc; i++)
      printf("%a\n", C[i]);
    in_c(M, N, K, At, ldat, B, ldb, C, ldc);
    for (size_t i = 0; i < (size_t)m * ldc; i++)
      printf("%a\n", C[i]);
    scaled(M, N, K, 1.5, -0.75, A, lda, B, ldb, C, ldc);
    for (size_t i = 0; i < (size_t)m * ldc; i++)
      printf("%a\n", C[i]);
    /* The square M x min(M, N) part of C (ldc >= N + 2). */
    int s = M < N ? M : N;
    syrk(s, K, 0.5, 1.25, A, lda, C, ldc);
    for (size_t i = 0; i < (size_t)m * ldc; i++)
      printf("%a\n", C[i]);
    double *A2 = filled((size_t)m * lda, &seed);
    syr2k(s, K, -0.5, 0.75, A, A2, lda, C, ldc);
    for (size_t i = 0; i < (size_t)m * ldc; i++)
      printf("%a\n", C[i]);
    free(A2);
    free(A);
    free(At);
    free(B);
    free(C);
  }
  return 0;
}
