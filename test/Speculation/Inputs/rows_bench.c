/* Benchmark of the speculated loaded bound (bounds-two-run.c): rows whose length is
 * read from len[] (CSR-like row lengths that happen to be equal), each row a product
 * C[i][j] = sum_k A[i][k] * B[k][j] with B walked down its columns. Usage:
 * rows_bench [n [width [odd_row]]]; prints a checksum on stdout, the kernel's time on
 * stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 1024
static double A[N][N], B[N][N], C[N][N];
static int len[N];

__attribute__((noinline)) void rows(int n, int m) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < len[i]; j++) {
      double s = 0;
      for (int k = 0; k < m; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : N;
  int width = argc > 2 ? atoi(argv[2]) : N;
  int odd = argc > 3 ? atoi(argv[3]) : -1;
  if (n > N || width > N || n < 0 || width < 0)
    return 1;
  for (int i = 0; i < n; i++) {
    len[i] = i == odd ? width / 2 : width;
    for (int k = 0; k < N; k++) {
      A[i][k] = (double)((i * 7 + k) % 11) / 8.0;
      B[i][k] = (double)((i * 3 + k * 5) % 13) / 16.0;
    }
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rows(n, n);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sum = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < N; j++)
      sum += C[i][j] * (double)((i + j) % 5);
  printf("%.6f\n", sum);
  fprintf(stderr, "%.4f\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
  return 0;
}
