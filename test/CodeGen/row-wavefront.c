// Rows along a wavefront (transform/row_wavefront.rs): an iterated in-place sweep whose
// innermost loop waits for its own previous iteration (Gauss-Seidel: u[i][j] reads
// u[i][j - 1], written one iteration before) runs at the latency of that chain. The
// values LLVM carries along the row in phis (the stored u[i][j - 1], the loads of the
// array it writes, one phi passing its value to the next) become loads again
// (detect/rotated.rs), and the innermost loop is skewed by the row loop, w = k * i + j
// (k = 2 for 9 points, 1 for 5), with 16 rows at a time: the new innermost loop runs
// over rows whose chains are independent. Each element's sum keeps its order of
// additions, so outputs are compared byte for byte with -O3's at sizes whose rows do
// and do not fill whole groups of 16, with and without a time loop long enough for
// several sweeps, for the default target and the host's (-march=native). A 1-D Jacobi sweep pair (two arrays) has no such chain: it is
// time-tiled as before. With -polyrust-tiling=none no region gets the wavefront.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/wave -Rpass=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin -march=native %s -o %t/native
// RUN: %clang -O3 -march=native %s -o %t/plain-native
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-tiling=none -c %s \
// RUN:   -o /dev/null -Rpass=polyrust 2>&1 | %FileCheck %s --check-prefix=OFF --allow-empty
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 0 1 2 3 4 17 18 37 70 > %t/plain.out
// RUN: %t/wave 0 1 2 3 4 17 18 37 70 > %t/wave.out
// RUN: cmp %t/plain.out %t/wave.out
// RUN: %t/plain-native 0 1 2 3 4 17 18 37 70 > %t/plain-native.out
// RUN: %t/native 0 1 2 3 4 17 18 37 70 > %t/native.out
// RUN: cmp %t/plain-native.out %t/native.out
// OFF-NOT: rows interleaved

#include <stdio.h>
#include <stdlib.h>

// CHECK-DAG: row-wavefront.c:[[@LINE+3]]:3: remark: region in seidel9 at row-wavefront.c:[[@LINE+3]] optimized (rows interleaved: loop 3, which waits for its own previous iteration, skewed by 2 per row of loop 2, 16 rows' chains at a time), behind a run-time check
#define N9 70
static __attribute__((noinline)) void seidel9(int steps, int n, double A[N9][N9]) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] +
                   A[i][j + 1] + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) /
                  9.0;
}

// CHECK-DAG: row-wavefront.c:[[@LINE+2]]:3: remark: region in seidel5 at row-wavefront.c:[[@LINE+2]] optimized (rows interleaved: loop 3, which waits for its own previous iteration, skewed by 1 per row of loop 2, 16 rows' chains at a time), behind a run-time check
static __attribute__((noinline)) void seidel5(int steps, int n, double (*u)[n]) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] = 0.2 * (u[i - 1][j] + u[i][j - 1] + u[i][j] + u[i][j + 1] + u[i + 1][j]);
}

// CHECK-DAG: row-wavefront.c:[[@LINE+2]]:3: remark: region in flat9 at row-wavefront.c:[[@LINE+2]] optimized (rows interleaved: loop 3, which waits for its own previous iteration, skewed by 2 per row of loop 2, 16 rows' chains at a time), behind a run-time check
static __attribute__((noinline)) void flat9(int steps, int n, double *u) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        double s = u[(i - 1) * n + j - 1] + u[(i - 1) * n + j] + u[(i - 1) * n + j + 1] +
                   u[i * n + j - 1] + u[i * n + j] + u[i * n + j + 1] +
                   u[(i + 1) * n + j - 1] + u[(i + 1) * n + j] + u[(i + 1) * n + j + 1];
        u[i * n + j] = s / 9.0;
      }
}

// CHECK-DAG: row-wavefront.c:[[@LINE+2]]:3: remark: region in jacobi1d at row-wavefront.c:[[@LINE+2]] optimized (time-tiled: loop 2 cut into strips
static __attribute__((noinline)) void jacobi1d(int steps, int n, double *a, double *b) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
    for (int i = 1; i < n - 1; i++)
      a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
  }
}

/// Every kernel on n x n grids (n * n * 3 elements for the line) for `steps` steps;
/// prints the grids' checksums.
static void run(int n, int steps) {
  double (*a9)[N9] = calloc((size_t)N9 * N9, sizeof(double));
  double (*u)[n] = calloc((size_t)n * n + 1, sizeof(double));
  double *f = calloc((size_t)n * n + 1, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      a9[i][j] = (double)((i * 7 + j * 3) % 11) / 3.0;
      u[i][j] = (double)((i * 5 + j * 2) % 13) / 7.0;
      f[i * n + j] = (double)((i + j * 3) % 17) / 5.0;
    }
  seidel9(steps, n, a9);
  seidel5(steps, n, u);
  flat9(steps, n, f);
  int line = n * n * 3;
  double *x = calloc((size_t)line + 1, sizeof(double));
  double *y = calloc((size_t)line + 1, sizeof(double));
  for (int i = 0; i < line; i++)
    x[i] = y[i] = (double)((i * 7) % 13) / 3.0;
  jacobi1d(steps, line, x, y);
  double s9 = 0.0, s5 = 0.0, sf = 0.0, l = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      s9 += a9[i][j] * (i + 1) + j;
      s5 += u[i][j] * (j + 1);
      sf += f[i * n + j] * (i + 2);
    }
  for (int i = 0; i < line; i++)
    l += x[i] * (i % 17) + y[i];
  printf("%d %d %a %a %a %a\n", n, steps, s9, s5, sf, l);
  // One row in full, where a wrong order would show first.
  if (n > 2)
    for (int j = 0; j < n; j++)
      printf("%a %a\n", a9[n / 2][j], u[n / 2][j]);
  free(a9), free(u), free(f), free(x), free(y);
}

int main(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    int n = atoi(argv[k]);
    if (n > N9)
      n = N9;
    run(n, 1);
    run(n, 7);
  }
  return 0;
}
