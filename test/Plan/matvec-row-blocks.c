// Matrix-vector passes over the same rows are fused by blocks of 8 rows, so that each
// block streams from memory once (transform/row_blocks.rs): a dot product per row
// (its chain along the columns, not vectorized without reassociation) interleaves the
// block's rows in steps of 16 columns, a row update (contiguous along the row) walks
// each row of the block with the column innermost.
// - atax: `t[i] = A[i] . x` then `y += A[i] * t[i]`, in one row loop;
// - mvt: `x1 = A y1` and `x2 = A^T y2` in two nests, the second reading A by columns:
//   in the fused order it walks A's rows too, each x2[j] still summed over the rows in
//   increasing order;
// - refused: the next row's dot product reads what the previous row's update wrote
//   (`y[j]`), which the fused order would read too early (the dependence check says
//   so); and a single dot product is the chain rule's (no second pass to fuse).
// The machine is given so that the sizes do not depend on the host.
//
// RUN: %o3ir -fno-discard-value-names %s > %t.ll
// RUN: %opt %loadpolyrust -passes='function(print<polyrust-ast>),polyrust' \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -polyrust-simd-width=256 \
// RUN:   -pass-remarks=polyrust -pass-remarks-missed=polyrust -disable-output %t.ll 2>&1 \
// RUN:   | %FileCheck %s
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %clang -O3 %s -o %t.d/plain && %t.d/plain 1 7 8 9 17 40 > %t.d/plain.out
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t.d/new && %t.d/new 1 7 8 9 17 40 > %t.d/new.out
// RUN: cmp %t.d/plain.out %t.d/new.out
// RUN: %clang -O3 -fpass-plugin=%plugin -Rpass=polyrust -c %s -o /dev/null 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=REMARK
// Under OpenMP threads the passes keep their own parallel loops (a block's loops would
// fork once per row):
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-parallel=true -Rpass=polyrust -c %s \
// RUN:   -o /dev/null 2>&1 | %FileCheck %s --check-prefix=THREADS

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void atax(int m, int n, double A[restrict m][n],
                                    const double *restrict x, double *restrict y,
                                    double *restrict t) {
  for (int i = 0; i < m; i++) {
    t[i] = 0.0;
    for (int j = 0; j < n; j++)
      t[i] = t[i] + A[i][j] * x[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * t[i];
  }
}
// CHECK-LABEL: polyrust-ast: function 'atax'
// CHECK: New AST of atax{{.*}} (matrix passes fused by blocks of 8 rows, each block read once from memory: S1 interleaves the rows' dependent chains in steps of 16 columns, S2 walks each row contiguously):
// CHECK-NEXT: for (int c0 = 0; c0 < m; c0 += 8) {
// CHECK-NEXT:   for (int c3 = c0; c3 <= min(m - 1, c0 + 7); c3 += 1)
// CHECK-NEXT:     S0(c3);
// CHECK-NEXT:   for (int c2 = 0; c2 < n; c2 += 16)
// CHECK-NEXT:     for (int c3 = c0; c3 <= min(m - 1, c0 + 7); c3 += 1)
// CHECK-NEXT:       for (int c4 = c2; c4 <= min(n - 1, c2 + 15); c4 += 1)
// CHECK-NEXT:         S1(c3, c4);
// CHECK-NEXT:   for (int c2 = c0; c2 <= min(m - 1, c0 + 7); c2 += 1)
// CHECK-NEXT:     for (int c3 = 0; c3 < n; c3 += 1)
// CHECK-NEXT:       S2(c2, c3);

__attribute__((noinline)) void mvt(int n, double A[restrict n][n], double *restrict x1,
                                   double *restrict x2, const double *restrict y1,
                                   const double *restrict y2) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x1[i] = x1[i] + A[i][j] * y1[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x2[i] = x2[i] + A[j][i] * y2[j];
}
// CHECK-LABEL: polyrust-ast: function 'mvt'
// CHECK: New AST of mvt{{.*}} (matrix passes fused by blocks of 8 rows, each block read once from memory: S0 interleaves the rows' dependent chains in steps of 16 columns, S1 walks each row contiguously):
// CHECK:   for (int c2 = c0; c2 <= min(n - 1, c0 + 7); c2 += 1)
// CHECK-NEXT:     for (int c3 = 0; c3 < n; c3 += 1)
// CHECK-NEXT:       S1(c3, c2);

// The second row's dot product reads y[j], which the first row's update wrote. (Not
// run below: the chain rule's tiles of this nest give other results than -O3, a bug of
// its own outside the fusion, reported in issue 34's note.)
__attribute__((noinline)) void feedback(int m, int n, double A[restrict m][n],
                                        double *restrict y, double *restrict t) {
  for (int i = 0; i < m; i++) {
    t[i] = 0.0;
    for (int j = 0; j < n; j++)
      t[i] = t[i] + A[i][j] * y[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * t[i];
  }
}
// CHECK-LABEL: polyrust-ast: function 'feedback'
// CHECK-NOT: matrix passes fused
// CHECK-LABEL: polyrust-ast: function 'main'
// CHECK: remark: {{.*}} region in atax {{.*}} optimized (matrix passes fused by blocks of 8 rows{{.*}}), behind a run-time check
// CHECK: remark: {{.*}} region in mvt {{.*}} optimized (matrix passes fused by blocks of 8 rows{{.*}}), behind a run-time check
// CHECK-NOT: region in feedback {{.*}} matrix passes fused

// REMARK: remark: region in atax {{.*}} optimized (matrix passes fused by blocks of 8 rows
// REMARK: remark: region in mvt {{.*}} optimized (matrix passes fused by blocks of 8 rows
// REMARK-NOT: region in feedback {{.*}} matrix passes fused
// THREADS: remark: region in atax {{.*}} optimized
// THREADS-NOT: matrix passes fused

static double checksum(int n, const double *v) {
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += v[k] * (double)(k % 7 + 1);
  return s;
}

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]), m = n + 3;
    double *A = malloc(sizeof *A * (size_t)m * (size_t)(n + 3));
    double *v[6];
    for (int k = 0; k < 6; k++)
      v[k] = malloc(sizeof(double) * (size_t)(m + n + 3));
    for (int k = 0; k < m * (n + 3); k++)
      A[k] = (double)((k * 37) % 101) / 101.0 - 0.5;
    for (int k = 0; k < m + n + 3; k++)
      for (int l = 0; l < 6; l++)
        v[l][k] = (double)((k * (11 + l)) % 13) / 13.0 - 0.3;
    atax(m, n, (double (*)[n])A, v[0], v[1], v[2]);
    printf("atax %d %a %a\n", n, checksum(n, v[1]), checksum(m, v[2]));
    mvt(n + 3, (double (*)[n + 3])A, v[3], v[4], v[0], v[5]);
    printf("mvt %d %a %a\n", n, checksum(n + 3, v[3]), checksum(n + 3, v[4]));
    free(A);
    for (int k = 0; k < 6; k++)
      free(v[k]);
  }
  return 0;
}
