// Two dot products per row over two matrices and one vector, summed (`t[i] += A[i][j]
// * x[j]; y[i] += B[i][j] * x[j]; y[i] = alpha * t[i] + beta * y[i]`): two dependent
// chains per row, latency-bound at -O3. Fused by blocks of 8 rows, the 8 rows' chains
// are interleaved. Detection must see where the sums live for that: in `in_memory`
// the loop updates t[i] and y[i] in memory and GVN hands y[i]'s last value to the
// statement after the loop in a phi, which is a read of y[i] (ScopInfo/stored-phis.c;
// as a scalar it kept the rows in order); in `in_registers` both sums are promoted,
// and the store after the loop of the one (`t[i] = t`) is not where the other lives.
// Outputs as -O3's at sizes that do not divide the blocks, with and without FMA.
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust \
// RUN:   -c %s -o /dev/null 2>&1 | %FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 %s -o %t/plain
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/new
// RUN: %clang -O3 -mfma %s -o %t/fma-plain
// RUN: %clang -O3 -mfma -fpass-plugin=%plugin %s -o %t/fma-new
// RUN: %t/plain 1 2 7 8 9 17 40 > %t/plain.out
// RUN: %t/new 1 2 7 8 9 17 40 > %t/new.out
// RUN: cmp %t/plain.out %t/new.out
// RUN: %t/fma-plain 1 2 7 8 9 17 40 > %t/fma-plain.out
// RUN: %t/fma-new 1 2 7 8 9 17 40 > %t/fma-new.out
// RUN: cmp %t/fma-plain.out %t/fma-new.out
// CHECK: remark: region in in_memory at {{.*}} optimized (matrix passes fused by blocks of 8 rows, each block read once from memory: S1 interleaves the rows' dependent chains in steps of 16 columns)
// CHECK: remark: region in in_registers at {{.*}} optimized (matrix passes fused by blocks of 8 rows, each block read once from memory: S1 interleaves the rows' dependent chains in steps of 16 columns)
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void in_memory(int n, double alpha, double beta, double *A,
                                         double *B, double *t, double *x, double *y) {
  for (int i = 0; i < n; i++) {
    t[i] = 0.0;
    y[i] = 0.0;
    for (int j = 0; j < n; j++) {
      t[i] = A[i * n + j] * x[j] + t[i];
      y[i] = B[i * n + j] * x[j] + y[i];
    }
    y[i] = alpha * t[i] + beta * y[i];
  }
}

__attribute__((noinline)) void in_registers(int n, double alpha, double beta,
                                            double A[restrict n][n], double B[restrict n][n],
                                            double *restrict t, double *restrict x,
                                            double *restrict y) {
  for (int i = 0; i < n; i++) {
    t[i] = 0.0;
    y[i] = 0.0;
    for (int j = 0; j < n; j++) {
      t[i] = A[i][j] * x[j] + t[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * t[i] + beta * y[i];
  }
}

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    double *A = malloc(sizeof(double) * n * n), *B = malloc(sizeof(double) * n * n);
    double *t = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    double *y = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
      x[i] = (i % 9) * 0.125 - 0.4;
      for (int j = 0; j < n; j++) {
        A[i * n + j] = ((i * 7 + j * 3) % 13) / 13.0 - 0.3;
        B[i * n + j] = ((i * 2 + j * 5) % 17) / 17.0 - 0.55;
      }
    }
    in_memory(n, 1.5, 1.2, A, B, t, x, y);
    for (int i = 0; i < n; i++)
      printf("%a %a\n", t[i], y[i]);
    in_registers(n, 0.7, -1.3, (double(*)[n])A, (double(*)[n])B, t, x, y);
    for (int i = 0; i < n; i++)
      printf("%a %a\n", t[i], y[i]);
    free(A), free(B), free(t), free(x), free(y);
  }
  return 0;
}
