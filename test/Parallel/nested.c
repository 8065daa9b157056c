// A function polyrust runs on OpenMP threads, called from inside the program's own
// `#pragma omp parallel` region: there it runs on the calling thread
// (omp_in_parallel()), with no nested team and no deadlock, and prints what -O3 prints;
// called outside the region it forks. Every parallel loop forks from two iterations on
// here (-polyrust-parallel-min-work=0).
// REQUIRES: libomp
// RUN: %clang -O3 -fopenmp %s -o %t.o3
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-parallel-min-work=0 \
// RUN:   -Rpass=polyrust %s -o %t.poly 2>&1 | %FileCheck --check-prefix=REMARK %s
// RUN: env OMP_NUM_THREADS=2 %t.o3 > %t.expected
// RUN: env OMP_NUM_THREADS=1 timeout 60 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=2 timeout 60 %t.poly | cmp - %t.expected
// RUN: env OMP_NUM_THREADS=3 timeout 60 %t.poly | cmp - %t.expected
// REMARK: loop over c0 runs in parallel on OpenMP threads

#include <omp.h>
#include <stdio.h>

#define N 300
#define COPIES 4
static double A[COPIES][N][N], B[COPIES][N][N];

void blur(int n, double (*restrict a)[N], double (*restrict b)[N]) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
}

int main(void) {
  for (int c = 0; c < COPIES; c++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        A[c][i][j] = (double)((i * 7 + j * 3 + c) % 11) / 11.0;
  // Each thread of the program's own team blurs copies of its own.
#pragma omp parallel for schedule(static)
  for (int c = 0; c < COPIES; c++)
    blur(N, A[c], B[c]);
  // Outside the region the blur forks its own team.
  blur(N, B[0], A[0]);
  for (int c = 0; c < COPIES; c++) {
    double sum = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        sum += B[c][i][j] * (i + 1) + A[c][i][j] * (j + 1);
    printf("%d %.17g\n", c, sum);
  }
  return 0;
}
