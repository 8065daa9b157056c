// The batched product as PolyBench's doitgen writes it is recognised (a product per r,
// written back into A through sum); nests that look alike but are not that product
// are not: A written in the same p loop that reads it (a dependence through A), a
// different row of A read than the one written, sum not reset per row. The caches are
// given so that the blocks do not depend on the host.
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -S | %FileCheck %s --check-prefix=IR

void doitgen(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np],
             double sum[np]) {
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
// CHECK-LABEL: polyrust-ast: function 'doitgen'
// CHECK: New code of doitgen{{.*}} (batched matrix product A[r][q][p] = sum[p] = sum over s of A[r][q][s] * C4[s][p] (a product per r, written back into A): packed, blocks 126 x 256, micro-kernel 6 x 8, bit-exact):
// CHECK-NEXT: polyrust_product_batched_f64(M = ((nr - 1) + 1) batches of ((nq - 1) + 1) every (nq * np), N = ((np - 1) + 1), K = ((np - 1) + 1), A = A, np, 1, B = C4, np, 1, C = A, np, 1, mc = 126, kc = 256, fused = 1, sum = sum)
// IR-LABEL: define {{.*}}void @doitgen(
// IR: polyrust.check:
// IR-NOT: __cpu_model
// IR: call void @polyrust_product_batched_f64(i64 {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}}, ptr %A, i64 {{.*}}, i64 {{.*}}, i64 1, ptr %C4, i64 {{.*}}, i64 1, ptr %sum, i64 1, i64 126, i64 256, i64 1, i64 0, i64 {{.*}})

// A[r][q][p] is written in the p loop that reads A[r][q][s] for later p: not a product.
void in_one_loop(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np],
                 double sum[np]) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++)
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
        A[r][q][p] = sum[p];
      }
}
// CHECK-LABEL: polyrust-ast: function 'in_one_loop'
// CHECK-NOT: batched matrix product
// CHECK-LABEL: polyrust-ast: function 'next_row'

// The row read is the next one, not the one written.
void next_row(int nr, int nq, int np, double A[nr][nq + 1][np], double C4[np][np],
              double sum[np]) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q + 1][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}
// CHECK-NOT: batched matrix product
// CHECK-LABEL: polyrust-ast: function 'accumulated'

// sum is not reset: each row's sums carry the previous row's.
void accumulated(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np],
                 double sum[np]) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++)
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}
// CHECK-NOT: batched matrix product
