// Concurrent-start (diamond) tiles on OpenMP threads: the time tiles of a 2-D Jacobi
// sweep (two arrays, each step a sweep into the other) are tiled along y (the skewed
// rows) and a * t - y instead, so that every tile of the
// first time steps is on the first diagonal of the wavefront; rows updated in place
// (each row reads the new row above it) keep the pipelined start, and the remark says
// why. The 1-D Jacobi sweep keeps its time tiles of strips in order (no wavefront:
// slower on one thread). The program prints, with 1, 2 and 3 threads and every parallel loop forking
// (-polyrust-parallel-min-work=0), exactly what it prints at -O3.
// REQUIRES: libomp
// RUN: %clang -O3 %s -o %t.o3
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=256K \
// RUN:   -Rpass=polyrust -Rpass-analysis=polyrust %s -o %t.poly 2>&1 \
// RUN:   | %FileCheck --check-prefix=REMARK %s
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=256K \
// RUN:   -mllvm -polyrust-parallel-min-work=0 %s -o %t.always
// RUN: %t.o3 > %t.expected
// RUN: env OMP_NUM_THREADS=1 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=2 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=3 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=1 %t.always | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=2 %t.always | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=3 %t.always | cmp - %t.expected
// REMARK: region in jacobi1d {{.*}} optimized (time-tiled: loop 2 cut into strips of 512 {{.*}} memory traffic estimated {{[0-9.]+}}x lower), behind
// REMARK: remark: tiled in diamonds along (y, 4t - y), y the skewed loop 2, 23x23 (as many points as the 8x16 time tiles): concurrent start, {{.*}}; diamonds, since every dependence runs forward or stays along both y and 4t - y
// REMARK: region in jacobi2d {{.*}} optimized (time-tiled: loop 2 skewed by 2 per time step {{.*}}; tiled in diamonds along (y, 4t - y), {{.*}} weights 1x1))
// REMARK: region in jacobi2d {{.*}}: loop over c1 runs in parallel on OpenMP threads
// REMARK: remark: tiles run in parallel along a wavefront (tile loops 1 and 2 summed, weights 2x1): {{.*}}; the tiles start one after another (no diamonds: a dependence runs forward along the rows within a time step, as an update in place does)
// REMARK: region in rows_in_place {{.*}} optimized (time-tiled: loop 2 skewed by 1 per time step; {{.*}}; tiles run in parallel along a wavefront (tile loops 1 and 2 summed, weights 2x1))
// REMARK: region in rows_in_place {{.*}}: loop over c1 runs in parallel on OpenMP threads

#include <stdio.h>

#define N1 40000
#define STEPS1 37
#define N 251
#define STEPS 23

static double X[N1], Y[N1];
static double A[N][N], B[N][N], G[N][N];

// PolyBench's 1-D Jacobi: two arrays, each step a sweep into the other.
void jacobi1d(int steps, int n, double a[n], double b[n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
    for (int i = 1; i < n - 1; i++)
      a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
  }
}

// PolyBench's 2-D Jacobi.
void jacobi2d(int steps, int n, double a[n][n], double b[n][n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        b[i][j] = 0.2 * (a[i][j] + a[i][j - 1] + a[i][j + 1] + a[i + 1][j] + a[i - 1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        a[i][j] = 0.2 * (b[i][j] + b[i][j - 1] + b[i][j + 1] + b[i + 1][j] + b[i - 1][j]);
  }
}

// In place along the rows: each row reads the new value of the row above.
void rows_in_place(int steps, int n, double g[n][n]) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 0; j < n; j++)
        g[i][j] = 0.25 * (g[i - 1][j] + 2.0 * g[i][j] + g[i + 1][j]);
}

static void print1(const char *name, int n, double *v) {
  double sum = 0;
  for (int i = 0; i < n; i++) {
    sum += v[i] * (1 + i % 7);
    if (i % 997 == 0)
      printf("%s[%d] = %.17g\n", name, i, v[i]);
  }
  printf("%s sum %.17g\n", name, sum);
}

static void print2(const char *name, int n, double m[n][n]) {
  double sum = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      sum += m[i][j] * (1 + (i * 7 + j) % 5);
      if ((i * n + j) % 97 == 0)
        printf("%s[%d][%d] = %.17g\n", name, i, j, m[i][j]);
    }
  printf("%s sum %.17g\n", name, sum);
}

int main(void) {
  for (int i = 0; i < N1; i++) {
    X[i] = (double)((i * 5) % 17) / 17.0;
    Y[i] = (double)((i * 7) % 11) / 11.0;
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * 5 + j * 3) % 17) / 17.0;
      B[i][j] = (double)((i + j * 7) % 11) / 11.0;
      G[i][j] = (double)((i * 3 + j) % 13) / 13.0;
    }
  jacobi1d(STEPS1, N1, X, Y);
  jacobi2d(STEPS, N, A, B);
  rows_in_place(STEPS, N, G);
  print1("X", N1, X);
  print1("Y", N1, Y);
  print2("A", N, A);
  print2("B", N, B);
  print2("G", N, G);
  // Trip counts the tiles and threads do not divide.
  jacobi1d(STEPS1 - 10, N1 - 1234, X, Y);
  jacobi2d(STEPS - 10, N - 40, (double(*)[N - 40])A, (double(*)[N - 40])B);
  print1("X", N1, X);
  print2("A", N, A);
  return 0;
}
