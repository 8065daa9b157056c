// Data-dependent conditions around loops (detect/control.rs `guarded_subregion`,
// detect/guarded.rs): the statements under the branch keep their own loops and may or
// may not run. Their writes are may-writes, the elements the condition reads are reads
// of each of them, and the condition is recomputed where they run, so it needs no
// statement of its own.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s

// The reference BLAS dgemm: `temp` is recomputed from b too, so one statement remains,
// three loops deep, reading the tested element of b in every instance.
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
// CHECK-LABEL: polyrust-scops: function 'dgemm_nn'
// CHECK:      Arrays:
// CHECK-NEXT:   double b[*][ldb] (8 bytes)
// CHECK-NEXT:   double a[*][lda] (8 bytes)
// CHECK-NEXT:   double c[*][ldc] (8 bytes)
// CHECK-NEXT: Alias groups:
// CHECK-NEXT:   { b, a, c }
// CHECK-NEXT: Statements:
// CHECK-NEXT:   S0 (%for.body14.us.us.us)
// CHECK-NEXT:     Domain: [n, k, m, ldb, lda, ldc] -> { S0[i0, i1, i2] : 0 <= i0 < n and 0 <= i1 < k and 0 <= i2 < m }
// CHECK-NEXT:     Schedule:
// CHECK-NEXT:     Read: [n, k, m, ldb, lda, ldc] -> { S0[i0, i1, i2] -> b[i0, i1] }
// CHECK-NEXT:     Read: [n, k, m, ldb, lda, ldc] -> { S0[i0, i1, i2] -> a[i1, i2] }
// CHECK-NEXT:     Read: [n, k, m, ldb, lda, ldc] -> { S0[i0, i1, i2] -> c[i0, i2] }
// CHECK-NEXT:     MayWrite: [n, k, m, ldb, lda, ldc] -> { S0[i0, i1, i2] -> c[i0, i2] }
// CHECK-NEXT:   Schedule tree:

// An if/else with a loop on each side: both loops are statements that may run, each
// reading the tested element. The weight read by the first loop is recomputed there
// too (detect/forward.rs, for a value its block uses only in the test), so the test's
// block is no statement and no scalar remains.
void two_ways(int n, const double *restrict w, double (*restrict y)[n],
              const double (*restrict z)[n]) {
  for (int i = 0; i < n; i++) {
    if (w[i] > 0.)
      for (int j = 0; j < n; j++)
        y[i][j] += w[i] * z[j][i];
    else
      for (int j = 0; j < n; j++)
        y[i][j] -= z[j][i];
  }
}
// CHECK-LABEL: polyrust-scops: function 'two_ways'
// CHECK:      Arrays:
// CHECK-NEXT:   double w[*] (8 bytes)
// CHECK-NEXT:   double z[*][n] (8 bytes)
// CHECK-NEXT:   double y[*][n] (8 bytes)
// CHECK-NEXT: Alias groups: none
// CHECK-NEXT: Statements:
// CHECK-NEXT:   S0 (%for.body20.us.us)
// CHECK-NEXT:     Domain: [n] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < n }
// CHECK-NEXT:     Schedule:
// CHECK-NEXT:     Read: [n] -> { S0[i0, i1] -> w[i0] }
// CHECK-NEXT:     Read: [n] -> { S0[i0, i1] -> z[i1, i0] }
// CHECK-NEXT:     Read: [n] -> { S0[i0, i1] -> y[i0, i1] }
// CHECK-NEXT:     MayWrite: [n] -> { S0[i0, i1] -> y[i0, i1] }
// CHECK-NEXT:   S1 (%for.body5.us.us)
// CHECK-NEXT:     Domain: [n] -> { S1[i0, i1] : 0 <= i0 < n and 0 <= i1 < n }
// CHECK-NEXT:     Schedule:
// CHECK-NEXT:     Read: [n] -> { S1[i0, i1] -> w[i0] }
// CHECK-NEXT:     Read: [n] -> { S1[i0, i1] -> z[i1, i0] }
// CHECK-NEXT:     Read: [n] -> { S1[i0, i1] -> y[i0, i1] }
// CHECK-NEXT:     MayWrite: [n] -> { S1[i0, i1] -> y[i0, i1] }
// CHECK-NEXT:   Schedule tree:

// darknet's gemm_bin: the tested element of A is used by the test alone, so its own
// access goes (the test's block is no statement); A stays an array of the region
// through the copies of that read in each statement under the branch, and is in the
// alias group (a char pointer may point into C).
void gemm_bin(int M, int N, int K, char *A, int lda, float *B, int ldb, float *C,
              int ldc) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      char a = A[i * lda + k];
      if (a)
        for (int j = 0; j < N; ++j)
          C[i * ldc + j] += B[k * ldb + j];
      else
        for (int j = 0; j < N; ++j)
          C[i * ldc + j] -= B[k * ldb + j];
    }
}
// CHECK-LABEL: polyrust-scops: function 'gemm_bin'
// CHECK:      Arrays:
// CHECK-NEXT:   i8 A[*][lda] (1 bytes)
// CHECK-NEXT:   float B[*][ldb] (4 bytes)
// CHECK-NEXT:   float C[*][ldc] (4 bytes)
// CHECK-NEXT: Alias groups:
// CHECK-NEXT:   { A, B, C }
// CHECK-NEXT: Statements:
// CHECK-NEXT:   S0 (%for.body8.us.us.us.us.us)
// CHECK-NEXT:     Domain: [M, K, N, lda, ldb, ldc] -> { S0[i0, i1, i2] : 0 <= i0 < M and 0 <= i1 < K and 0 <= i2 < N }
// CHECK-NEXT:     Schedule:
// CHECK-NEXT:     Read: [M, K, N, lda, ldb, ldc] -> { S0[i0, i1, i2] -> A[i0, i1] }   ; {{.*}} = load i8
// CHECK-NEXT:     Read: [M, K, N, lda, ldb, ldc] -> { S0[i0, i1, i2] -> B[i1, i2] }   ; {{.*}} = load float
// CHECK-NEXT:     Read: [M, K, N, lda, ldb, ldc] -> { S0[i0, i1, i2] -> C[i0, i2] }
// CHECK-NEXT:     MayWrite: [M, K, N, lda, ldb, ldc] -> { S0[i0, i1, i2] -> C[i0, i2] }
// CHECK-NEXT:   S1 (%for.body22.us.us.us.us.us)
// CHECK-NEXT:     Domain: [M, K, N, lda, ldb, ldc] -> { S1[i0, i1, i2] : 0 <= i0 < M and 0 <= i1 < K and 0 <= i2 < N }
// CHECK-NEXT:     Schedule:
// CHECK-NEXT:     Read: [M, K, N, lda, ldb, ldc] -> { S1[i0, i1, i2] -> A[i0, i1] }   ; {{.*}} = load i8
// CHECK-NEXT:     Read: [M, K, N, lda, ldb, ldc] -> { S1[i0, i1, i2] -> B[i1, i2] }   ; {{.*}} = load float
// CHECK-NEXT:     Read: [M, K, N, lda, ldb, ldc] -> { S1[i0, i1, i2] -> C[i0, i2] }
// CHECK-NEXT:     MayWrite: [M, K, N, lda, ldb, ldc] -> { S1[i0, i1, i2] -> C[i0, i2] }
// CHECK-NEXT:   Schedule tree:

// The condition reads c, which the loop under it writes: it cannot be recomputed
// where the loop's instances run, so the outer loop is not modelled, only the inner
// one (see ScopDetect/reject-reasons.c for the remark).
void reads_what_it_writes(int n, double (*restrict c)[n], const double *restrict a) {
  for (int j = 0; j < n; j++)
    if (c[j][0] != 0.)
      for (int i = 0; i < n; i++)
        c[j][i] += a[i];
}
// CHECK-LABEL: polyrust-scops: function 'reads_what_it_writes'
// CHECK:      Statements:
// CHECK-NEXT:   S0 (%for.body6.us)
// CHECK-NEXT:     Domain: [n, c_for_body_us] -> { S0[i0] : 0 <= i0 < n }
