// Time tiles of a stencil run along a wavefront on OpenMP threads: the Jacobi sweep
// (5 points, copied back) is time-tiled, no tile loop is parallel, so the first tile
// loop becomes the sum of the two and the second forks (its tiles are diamonds, see
// diamond.c). Gauss-Seidel in place (each
// point reads its new left and upper neighbours) goes its own way. The program prints, with 1, 2 and 3 threads and every parallel
// loop forking (-polyrust-parallel-min-work=0), exactly what it prints at -O3; with
// -polyrust-parallel=false there is no wavefront.
// REQUIRES: libomp
// RUN: %clang -O3 %s -o %t.o3
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=256K \
// RUN:   -Rpass=polyrust -Rpass-analysis=polyrust %s -o %t.poly 2>&1 \
// RUN:   | %FileCheck --check-prefix=REMARK %s
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=256K \
// RUN:   -mllvm -polyrust-parallel-min-work=0 %s -o %t.always
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=256K \
// RUN:   -mllvm -polyrust-parallel=false -Rpass=polyrust -Rpass-analysis=polyrust %s \
// RUN:   -o %t.serial 2>&1 | %FileCheck --check-prefix=SERIAL %s
// RUN: %t.o3 > %t.expected
// RUN: env OMP_NUM_THREADS=1 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=2 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=3 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=1 %t.always | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=2 %t.always | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=3 %t.always | cmp - %t.expected
// RUN: %t.serial | cmp - %t.expected
// REMARK: remark: {{.*}}tiles run in parallel along a wavefront (tile loops 1 and 2 summed, weights 1x1): no tile loop of the band was parallel
// REMARK: region in jacobi {{.*}} optimized (time-tiled: {{.*}}; tiles run in parallel along a wavefront (tile loops 1 and 2 summed, weights 1x1))
// REMARK: region in jacobi {{.*}}: loop over c1 runs in parallel on OpenMP threads
// SERIAL-NOT: along a wavefront
// SERIAL: region in jacobi {{.*}} optimized (time-tiled: {{.*}} memory traffic estimated {{[0-9.]+}}x lower)
// SERIAL-NOT: along a wavefront

#include <stdio.h>

#define N 251
#define STEPS 23

static double A[N][N], B[N][N], G[N][N];

// Arrays as parameters, as PolyBench passes them.
void jacobi(int steps, int n, double a[n][n], double b[n][n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        b[i][j] = 0.2 * (a[i][j] + a[i][j - 1] + a[i][j + 1] + a[i + 1][j] + a[i - 1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        a[i][j] = 0.2 * (b[i][j] + b[i][j - 1] + b[i][j + 1] + b[i + 1][j] + b[i - 1][j]);
  }
}

// Gauss-Seidel in place: new values of the left and upper neighbours.
void seidel(int steps, int n, double g[n][n]) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        g[i][j] = 0.2 * (g[i][j] + g[i][j - 1] + g[i][j + 1] + g[i + 1][j] + g[i - 1][j]);
}

static void print(const char *name, int n, double m[n][n]) {
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
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * 5 + j * 3) % 17) / 17.0;
      B[i][j] = (double)((i + j * 7) % 11) / 11.0;
      G[i][j] = (double)((i * 3 + j) % 13) / 13.0;
    }
  jacobi(STEPS, N, A, B);
  seidel(STEPS, N, G);
  print("A", N, A);
  print("B", N, B);
  print("G", N, G);
  // Trip counts the tiles and threads do not divide.
  jacobi(STEPS - 10, N - 40, (double(*)[N - 40])A, (double(*)[N - 40])B);
  print("A", N, A);
  return 0;
}
