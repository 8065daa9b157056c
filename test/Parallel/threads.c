// Kernels whose outermost parallel loop runs on OpenMP threads print, with 1, 2 and 3
// threads, exactly what they print at -O3 without polyrust: at the default fork
// threshold (the outer loop of the product forks, the inner loops of the transposed
// product are too short) and with every parallel loop forking
// (-polyrust-parallel-min-work=0), on trip counts the threads do not divide. The
// time-tiled stencil has no parallel loop: a scalar carried along its rows keeps its
// tiles off a wavefront (see wavefront.c). The triangular nests (rows of growing length;
// tiled in rank_update) take their iterations in chunks dealt back and forth, so every
// thread has its share of short and long rows.
// REQUIRES: libomp
// RUN: %clang -O3 %s -o %t.o3
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-products=false \
// RUN:   -Rpass=polyrust -Rpass-missed=polyrust %s -o %t.poly 2>&1 | %FileCheck --check-prefix=REMARK %s
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-products=false \
// RUN:   -mllvm -polyrust-parallel-min-work=0 %s -o %t.always
// RUN: %t.o3 > %t.expected
// RUN: env OMP_NUM_THREADS=1 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=2 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=3 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=1 %t.always | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=2 %t.always | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=3 %t.always | cmp - %t.expected
// REMARK-DAG: region in product {{.*}}: loop over c0 runs in parallel on OpenMP threads (when it has {{[0-9]+}} iterations or more
// REMARK-DAG: region in stencil {{.*}}: no loop runs on OpenMP threads: every loop carries a dependence
// REMARK-DAG: region in transposed {{.*}}: loop over c1 runs in parallel on OpenMP threads (when it has 32768 iterations or more
// REMARK-DAG: region in lower {{.*}}: loop over c0 runs in parallel on OpenMP threads (when it has 512 iterations or more and is not called from a parallel region), its iterations in chunks dealt to the threads back and forth
// REMARK-DAG: region in rank_update {{.*}}: loop over c0 runs in parallel on OpenMP threads {{.*}}, its iterations in chunks dealt to the threads back and forth

#include <stdio.h>

#define N 203
static double A[N][N], B[N][N], C[N][N], x[N], y[N];

void product(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}

void stencil(int steps, int n) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
}

void transposed(int n) {
  for (int j = 0; j < n; j++) {
    y[j] = 0;
    for (int i = 0; i < n; i++)
      y[j] += A[i][j] * x[i];
  }
}

void lower(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      C[i][j] = C[i][j] * 0.5 + A[j][i] * B[i][j];
}

void rank_update(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * A[j][k];
}

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = (double)(i % 9) / 9.0;
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * 5 + j) % 13) / 13.0;
      B[i][j] = (double)((i + j * 3) % 7) / 7.0;
      C[i][j] = 0;
    }
  }
  product(N);
  transposed(N);
  lower(N);
  rank_update(N);
  stencil(5, N);
  double sum = 0;
  for (int i = 0; i < N; i++) {
    sum += y[i] * (i + 1);
    for (int j = 0; j < N; j++)
      sum += C[i][j] * (j + 1) + A[i][j] * (i + 2);
  }
  printf("%.17g\n", sum);
  return 0;
}
