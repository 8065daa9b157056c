// Independent recurrences interleaved (transform/sweeps.rs): a tridiagonal (Thomas)
// solve along every row, a forward sweep with a division per step and a backward
// sweep, is a chain of dependent steps per row; the rows are independent. -O3 runs one
// row's chain after the other, each step waiting for the division before; the plan
// strip-mines the rows by 8 and runs the 8 rows side by side inside each sweep, so the
// chains overlap. A time loop around it (as PolyBench's adi) keeps that order; rows
// that read the row before are left alone. Outputs are compared byte for byte with
// -O3 at sizes that do and do not divide by 8.
// The remarks come from clang's pipeline: the IR -O3 ends with (%o3ir) has the
// sweeps' loads of p[i][j - 1] forwarded from the stores before (LoopLoadElimination,
// after polyrust's place in the pipeline), a scalar carried from row to row.
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust \
// RUN:   -c %s -o /dev/null 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -c %s -o /dev/null 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=CHAINED
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/new
// RUN: %clang -O3 %s -o %t/plain
// RUN: %clang -O3 -march=native -fpass-plugin=%plugin %s -o %t/native-new
// RUN: %clang -O3 -march=native %s -o %t/native-plain
// RUN: %t/plain 1 7 8 17 64 101 > %t/plain.out
// RUN: %t/new 1 7 8 17 64 101 > %t/new.out
// RUN: cmp %t/plain.out %t/new.out
// RUN: %t/native-plain 1 7 8 17 64 101 > %t/native-plain.out
// RUN: %t/native-new 1 7 8 17 64 101 > %t/native-new.out
// RUN: cmp %t/native-plain.out %t/native-new.out

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void row_solves(int n, int m, double u[n][m],
                                          double p[n][m], double q[n][m],
                                          double x[n][m]) {
  for (int i = 0; i < n; i++) {
    p[i][0] = 0.0;
    q[i][0] = u[i][0];
    for (int j = 1; j < m; j++) {
      p[i][j] = -0.25 / (0.5 * p[i][j - 1] + 1.5);
      q[i][j] = (u[i][j] - 0.5 * q[i][j - 1]) / (0.5 * p[i][j - 1] + 1.5);
    }
    x[i][m - 1] = q[i][m - 1];
    for (int j = m - 2; j >= 0; j--)
      x[i][j] = p[i][j] * x[i][j + 1] + q[i][j];
  }
}
// CHECK: remark: region in row_solves at {{.*}}interleaved-sweeps.c:{{[0-9]+}} optimized (independent recurrences interleaved (the loop around each carries no dependence, its point loop runs innermost so that the chains overlap): S1, S3 run 8 iterations of their loop i0 side by side), behind a run-time check

// The solves repeated in steps, each step's right-hand side from the last solution.
__attribute__((noinline)) void stepped_solves(int steps, int n, int m,
                                              double u[n][m], double p[n][m],
                                              double q[n][m]) {
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++) {
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (int j = 1; j < m; j++) {
        p[i][j] = -0.25 / (0.5 * p[i][j - 1] + 1.5);
        q[i][j] = (u[i][j] - 0.5 * q[i][j - 1]) / (0.5 * p[i][j - 1] + 1.5);
      }
      u[i][m - 1] = q[i][m - 1];
      for (int j = m - 2; j >= 0; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
}
// CHECK: remark: region in stepped_solves at {{.*}}interleaved-sweeps.c:{{[0-9]+}} optimized (independent recurrences interleaved {{.*}}: S1, S3 run 8 iterations of their loop i1 side by side), behind a run-time check

// Each row's sweep reads the row before: the rows are not independent.
__attribute__((noinline)) void chained_rows(int n, int m, double p[n][m]) {
  for (int i = 1; i < n; i++)
    for (int j = 1; j < m; j++)
      p[i][j] = p[i - 1][j] / (0.5 * p[i][j - 1] + 1.5);
}
// CHECK: remark: region in chained_rows at {{.*}} left unchanged:
// CHAINED-NOT: region in chained_rows {{.*}} optimized

static double *matrix(int n, int m, int seed) {
  double *a = malloc(sizeof *a * (size_t)n * (size_t)m);
  for (int k = 0; k < n * m; k++)
    a[k] = (double)((k * 37 + seed) % 101) / 101.0 + 0.5;
  return a;
}

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]) + 2, m = atoi(argv[a]) + 3;
    double *u = matrix(n, m, 1), *p = matrix(n, m, 2), *q = matrix(n, m, 3);
    double *x = matrix(n, m, 4);
    row_solves(n, m, (double(*)[m])u, (double(*)[m])p, (double(*)[m])q,
               (double(*)[m])x);
    stepped_solves(3, n, m, (double(*)[m])u, (double(*)[m])p, (double(*)[m])q);
    chained_rows(n, m, (double(*)[m])q);
    for (int k = 0; k < n * m; k++)
      printf("%a %a %a\n", x[k], u[k], q[k]);
    free(u), free(p), free(q), free(x);
  }
  return 0;
}
