// Time tiling of iterated stencils (transform/time_tiling.rs): the time loop and the row
// loops form a band, the row loops skewed by the time loop (two per time step for a
// sweep with its copy-back, or two sweeps, one row back each), tiled 8 steps by 16 rows;
// innermost loops stay whole. A 1-D stencil's loop is cut into strips of 512 elements
// that play the rows. Statements outside the row loops take the place of the element
// they write (FDTD's boundary row `ey[0][j]`, its point source `hz[n / 2][n / 3]`). The value LLVM carries along a row in a phi is private to
// each row (deps/private.rs), so it does not forbid the skew. Outputs are compared with
// -O3's at sizes that do and do not fill whole tiles, with time steps that do not fill
// whole time tiles. A stencil whose innermost loop waits for its own previous iteration
// is refused with the reason (tiling-needs-skewing.c); with -polyrust-time-tiling=false
// no region is time-tiled.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=512K %s -o %t/tiled \
// RUN:   -Rpass=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-time-tiling=false -c %s \
// RUN:   -o /dev/null -Rpass=polyrust 2>&1 | %FileCheck %s --check-prefix=OFF --allow-empty
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 0 1 2 3 5 17 37 70 > %t/plain.out
// RUN: %t/tiled 0 1 2 3 5 17 37 70 > %t/tiled.out
// RUN: cmp %t/plain.out %t/tiled.out
// OFF-NOT: time-tiled

#include <stdio.h>
#include <stdlib.h>

// CHECK-DAG: time-tiling.c:[[@LINE+2]]:3: remark: region in jacobi at time-tiling.c:[[@LINE+2]] optimized (time-tiled: loop 2 skewed by 2 per time step (statements shifted by -1..0); tiles of 8x16 (time steps first), innermost loops whole: memory traffic estimated 4.0x lower), behind a run-time check
static __attribute__((noinline)) void jacobi(int n, int steps, double (*u)[n], double (*w)[n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        w[i][j] = 0.2 * (u[i][j] + u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] = w[i][j];
  }
}

// CHECK-DAG: time-tiling.c:[[@LINE+2]]:3: remark: region in smooth at time-tiling.c:[[@LINE+2]] optimized (time-tiled: loop 2 cut into strips of 512 and skewed by 1 strip per time step (statements shifted by -1..0); tiles of 8x8 (time steps first), innermost loops whole: memory traffic estimated 4.0x lower), behind a run-time check
static __attribute__((noinline)) void smooth(int n, int steps, double *a, double *b) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
    for (int i = 1; i < n - 1; i++)
      a[i] = 0.25 * b[i - 1] + 0.5 * b[i] + 0.25 * b[i + 1];
  }
}

// CHECK-DAG: time-tiling.c:[[@LINE+3]]:3: remark: region in fdtd at time-tiling.c:[[@LINE+3]] optimized (time-tiled: loop 2 skewed by 1 per time step; tiles of 8x16 (time steps first), innermost loops whole: memory traffic estimated 5.3x lower), behind a run-time check
static __attribute__((noinline)) void fdtd(int n, int steps, double (*ex)[n], double (*ey)[n],
                                           double (*hz)[n], const double *pulse) {
  for (int t = 0; t < steps; t++) {
    for (int j = 0; j < n; j++)
      ey[0][j] = pulse[t];
    for (int i = 1; i < n; i++)
      for (int j = 0; j < n; j++)
        ey[i][j] -= 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (int i = 0; i < n; i++)
      for (int j = 1; j < n; j++)
        ex[i][j] -= 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (int i = 0; i < n - 1; i++)
      for (int j = 0; j < n - 1; j++)
        hz[i][j] -= 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    hz[n / 2][n / 3] += pulse[t];
  }
}

// CHECK-DAG: time-tiling.c:[[@LINE+2]]:3: remark: region in heat at time-tiling.c:[[@LINE+2]] optimized (time-tiled: loop 2 skewed by 2 per time step (statements shifted by -1..0), loop 3 skewed by 2 per time step (statements shifted by -1..0); tiles of 8x16x16 (time steps first), innermost loops whole: memory traffic estimated 2.0x lower), behind a run-time check
static __attribute__((noinline)) void heat(int n, int steps, double (*a)[n][n], double (*b)[n][n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          b[i][j][k] = a[i][j][k] + 0.125 * (a[i - 1][j][k] + a[i + 1][j][k] + a[i][j - 1][k] +
                                             a[i][j + 1][k] + a[i][j][k - 1] + a[i][j][k + 1] -
                                             6.0 * a[i][j][k]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          a[i][j][k] = b[i][j][k] + 0.125 * (b[i - 1][j][k] + b[i + 1][j][k] + b[i][j - 1][k] +
                                             b[i][j + 1][k] + b[i][j][k - 1] + b[i][j][k + 1] -
                                             6.0 * b[i][j][k]);
  }
}

/// Both stencils on n x n (x n) grids for `steps` time steps; prints checksums.
static void run(int n, int steps) {
  double (*u)[n] = calloc((size_t)n * n + 1, sizeof(double));
  double (*w)[n] = calloc((size_t)n * n + 1, sizeof(double));
  double (*a)[n][n] = calloc((size_t)n * n * n + 1, sizeof(double));
  double (*b)[n][n] = calloc((size_t)n * n * n + 1, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      u[i][j] = (double)((i * 7 + j * 3) % 11);
      for (int k = 0; k < n; k++)
        a[i][j][k] = b[i][j][k] = (double)((i * 5 + j * 3 + k) % 13);
    }
  jacobi(n, steps, u, w);
  heat(n, steps, a, b);
  // A line of n * n * 3 elements: several strips, the last one partly filled.
  int line = n * n * 3;
  double *x = calloc((size_t)line + 1, sizeof(double));
  double *y = calloc((size_t)line + 1, sizeof(double));
  for (int i = 0; i < line; i++)
    x[i] = y[i] = (double)((i * 7) % 13);
  smooth(line, steps, x, y);
  double l = 0.0;
  for (int i = 0; i < line; i++)
    l += x[i] * (i % 17) + y[i];
  free(x), free(y);
  double (*ex)[n] = calloc((size_t)n * n + 1, sizeof(double));
  double (*ey)[n] = calloc((size_t)n * n + 1, sizeof(double));
  double (*hz)[n] = calloc((size_t)n * n + 1, sizeof(double));
  double *pulse = calloc((size_t)steps + 1, sizeof(double));
  for (int k = 0; k < steps; k++)
    pulse[k] = (double)(k % 5) - 2.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      ex[i][j] = (double)((i + 2 * j) % 7);
      ey[i][j] = (double)((3 * i + j) % 5);
      hz[i][j] = (double)((i * j) % 3);
    }
  fdtd(n, steps, ex, ey, hz, pulse);
  double f = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      f += ex[i][j] * (i + 1) + ey[i][j] * (j + 1) + hz[i][j];
  free(ex), free(ey), free(hz), free(pulse);
  double s = 0.0, h = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      s += u[i][j] * (i + 1) + w[i][j] * (j + 2);
      for (int k = 0; k < n; k++)
        h += a[i][j][k] * (k + 1) + b[i][j][k];
    }
  printf("%d %d %a %a %a %a\n", n, steps, s, h, l, f);
  free(u), free(w), free(a), free(b);
}

int main(int argc, char **argv) {
  // Eight and eleven steps: one whole time tile, and one and a part.
  for (int k = 1; k < argc; k++) {
    run(atoi(argv[k]), 8);
    run(atoi(argv[k]), 11);
  }
  return 0;
}
