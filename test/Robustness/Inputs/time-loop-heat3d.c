// A 3-D heat step (two arrays updated in turn) in a time loop, in a function called once
// with its sizes: clang propagates them, so the region has large constant bounds.
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) void heat(int steps, int n, double a[n][n][n], double b[n][n][n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          b[i][j][k] = 0.125 * (a[i + 1][j][k] - 2.0 * a[i][j][k] + a[i - 1][j][k]) +
                       0.125 * (a[i][j + 1][k] - 2.0 * a[i][j][k] + a[i][j - 1][k]) +
                       0.125 * (a[i][j][k + 1] - 2.0 * a[i][j][k] + a[i][j][k - 1]) + a[i][j][k];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          a[i][j][k] = 0.125 * (b[i + 1][j][k] - 2.0 * b[i][j][k] + b[i - 1][j][k]) +
                       0.125 * (b[i][j + 1][k] - 2.0 * b[i][j][k] + b[i][j - 1][k]) +
                       0.125 * (b[i][j][k + 1] - 2.0 * b[i][j][k] + b[i][j][k - 1]) + b[i][j][k];
  }
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 500;
#ifdef PARAMETRIC
  int N = argc > 2 ? atoi(argv[2]) : 120;
#else
  enum { N = 120 };
#endif
  double (*a)[N][N] = malloc(sizeof(double[N][N][N]));
  double (*b)[N][N] = malloc(sizeof(double[N][N][N]));
  if (!a || !b)
    return 1;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        a[i][j][k] = b[i][j][k] = (double)(i + j + (N - k)) * 10 / N;
  heat(steps, N, a, b);
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        sum += a[i][j][k];
  printf("%.6e\n", sum);
  return 0;
}
