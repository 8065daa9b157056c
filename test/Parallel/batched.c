// With -fopenmp, the batched product (PolyBench's doitgen) runs on OpenMP threads as
// the other products do: its R * Q rows of A (r major) are dealt to the dispatcher's
// threads in blocks of 6, the kernel told its first and last rows; it makes the rows of
// one r (or of several, when those of successive r follow each other) as one product,
// and a call on no rows after the threads join leaves `sum`. The outputs (A and sum) are
// -O3's bytes with 1, 2 and 3 threads, at the default threshold and with every product
// forking (-polyrust-parallel-min-work=0), on row counts neither the blocks nor the
// threads divide, with rows of successive r apart (short_rows: q stops short of A's
// rows) and caches given small (blocks of rows and of s several per thread).
// REQUIRES: libomp, avx2-fma
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -march=native -fopenmp -fpass-plugin=%plugin -fno-discard-value-names \
// RUN:   -S -emit-llvm -o - %s -Rpass=polyrust -Rpass-missed=polyrust 2>%t/remarks \
// RUN:   | %FileCheck %s
// RUN: %FileCheck --check-prefix=REMARK %s < %t/remarks
// RUN: %clang -O3 -march=native -fpass-plugin=%plugin -S -emit-llvm -o - %s \
// RUN:   | %FileCheck --check-prefix=OFF %s
// RUN: %clang -O3 -march=native %s -o %t/plain
// RUN: %clang -O3 -march=native -fopenmp -fpass-plugin=%plugin %s -o %t/poly
// RUN: %clang -O3 -march=native -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-parallel-min-work=0 \
// RUN:   -mllvm -polyrust-l1-cache=4K -mllvm -polyrust-l2-cache=32K %s -o %t/always
// RUN: %t/plain 5 13 37 3 7 20 1 1 9 4 50 33 2 3 5 > %t/expected
// RUN: env OMP_NUM_THREADS=1 %t/poly 5 13 37 3 7 20 1 1 9 4 50 33 2 3 5 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=2 %t/poly 5 13 37 3 7 20 1 1 9 4 50 33 2 3 5 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=3 %t/poly 5 13 37 3 7 20 1 1 9 4 50 33 2 3 5 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=1 %t/always 5 13 37 3 7 20 1 1 9 4 50 33 2 3 5 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=2 %t/always 5 13 37 3 7 20 1 1 9 4 50 33 2 3 5 | cmp - %t/expected
// RUN: env OMP_NUM_THREADS=3 %t/always 5 13 37 3 7 20 1 1 9 4 50 33 2 3 5 | cmp - %t/expected

// REMARK: remark: region in doitgen at {{.*}} optimized (batched matrix product
// REMARK: remark: region in doitgen at {{.*}}: the product runs in parallel on OpenMP threads, each on its own rows of C in blocks of 6
// REMARK: remark: region in short_rows at {{.*}} optimized (batched matrix product
// REMARK: remark: region in short_rows at {{.*}}: the product runs in parallel on OpenMP threads
// REMARK-NOT: stays on one thread

// The dispatcher takes the blocks of R * Q rows; each call gets rows 6 * first to
// min(6 * end, R * Q) as its last two arguments, A not offset.
// CHECK-LABEL: define {{.*}}void @doitgen(
// CHECK: call void @polyrust.dispatch{{[.0-9]*}}(i64 0, i64 0, i64 %[[TOTAL:[0-9a-z.]+]],
// Once the threads have joined, one call on no rows (first = last = R * Q) leaves
// `sum`: no thread's call does, for one short of memory makes its rows through `sum`.
// CHECK-NEXT: call void @polyrust_product_batched_f64({{.*}}, ptr %sum, {{.*}}, i64 %[[TOTAL]], i64 %[[TOTAL]])
// CHECK-LABEL: define internal void @doitgen.polyrust.parallel(
// CHECK-SAME: i64 %polyrust.first, i64 %polyrust.end, i64 %[[ROWS:[0-9]+]],
// CHECK: %[[ROW:[0-9]+]] = mul i64 %polyrust.first, 6
// CHECK-NEXT: %[[AFTER:[0-9]+]] = mul i64 %polyrust.end, 6
// CHECK-NEXT: %[[LAST:[0-9]+]] = {{.*}}call i64 @llvm.smin.i64(i64 %[[ROWS]], i64 %[[AFTER]])
// CHECK-NEXT: call void @polyrust_product_batched_f64({{.*}}, ptr %A, {{.*}}, i64 %[[ROW]], i64 %[[LAST]])
// Without -fopenmp, one call with every row.
// OFF-LABEL: define {{.*}}void @doitgen(
// OFF: call void @polyrust_product_batched_f64({{.*}}, i64 0, i64 %{{[0-9a-z.]+}})
// OFF-NOT: polyrust.dispatch

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void doitgen(int nr, int nq, int np, double A[nr][nq][np],
                                       double C4[np][np], double sum[np]) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}

/* Rows of A that q does not reach: A is nr x (nq + 2) x np, rows of r apart. */
__attribute__((noinline)) void short_rows(int nr, int nq, int np, double A[nr][nq + 2][np],
                                          double C4[np][np], double sum[np]) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}

static double value(long x) { return (double)((x * 7919 % 1009) - 504) / 97.0; }

#define RUN(kernel, rows)                                                               \
  {                                                                                    \
    double *A = malloc(sizeof(double) * (nr * (rows) * np + 1));                       \
    double *C4 = malloc(sizeof(double) * (np * np + 1));                               \
    double *sum = malloc(sizeof(double) * (np + 1));                                   \
    for (long x = 0; x < (long)nr * (rows) * np; x++)                                  \
      A[x] = value(x);                                                                 \
    for (long x = 0; x < (long)np * np; x++)                                           \
      C4[x] = value(3 * x + 1);                                                        \
    for (long x = 0; x < np; x++)                                                      \
      sum[x] = value(x + 5);                                                           \
    kernel(nr, nq, np, (void *)A, (void *)C4, sum);                                    \
    for (long x = 0; x < (long)nr * (rows) * np; x++)                                  \
      printf("%a\n", A[x]);                                                            \
    for (long x = 0; x < np; x++)                                                      \
      printf("sum %a\n", sum[x]);                                                      \
    free(A);                                                                           \
    free(C4);                                                                          \
    free(sum);                                                                         \
  }

int main(int argc, char **argv) {
  for (int at = 1; at + 2 < argc; at += 3) {
    int nr = atoi(argv[at]), nq = atoi(argv[at + 1]), np = atoi(argv[at + 2]);
    printf("sizes %d %d %d\n", nr, nq, np);
    RUN(doitgen, nq)
    RUN(short_rows, nq + 2)
  }
  return 0;
}
