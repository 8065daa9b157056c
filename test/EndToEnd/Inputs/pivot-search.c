// Gaussian elimination with partial pivoting: the step loop searches its column for
// the largest element, returns early when that is zero (a singular matrix), swaps
// rows, then updates the trailing matrix. Sizes that divide no tile size, and
// matrices made singular by a zero column at the first, a middle and the last step.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int solve(int n, double *a, double *b, double *x) {
  for (int k = 0; k < n; k++) {
    double max = fabs(a[k * n + k]);
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(a[i * n + k]) > max) {
        max = fabs(a[i * n + k]);
        p = i;
      }
    if (max == 0.0)
      return k + 1;
    if (p != k) {
      for (int j = 0; j < n; j++) {
        double t = a[k * n + j];
        a[k * n + j] = a[p * n + j];
        a[p * n + j] = t;
      }
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    for (int i = k + 1; i < n; i++) {
      double f = a[i * n + k] / a[k * n + k];
      a[i * n + k] = f;
      for (int j = k + 1; j < n; j++)
        a[i * n + j] -= f * a[k * n + j];
      b[i] -= f * b[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < n; j++)
      s -= a[i * n + j] * x[j];
    x[i] = s / a[i * n + i];
  }
  return 0;
}

static void run(int n, int zero_column) {
  double *a = malloc(sizeof(double) * n * n);
  double *b = malloc(sizeof(double) * n);
  double *x = malloc(sizeof(double) * n);
  unsigned s = 12345u + (unsigned)n;
  for (int i = 0; i < n * n; i++) {
    s = s * 1103515245u + 12345u;
    a[i] = (double)((s >> 8) % 2001) / 1000.0 - 1.0;
  }
  for (int i = 0; i < n; i++) {
    b[i] = (double)(i % 7) - 3.0;
    x[i] = 0.0;
  }
  if (zero_column >= 0)
    for (int i = 0; i < n; i++)
      a[i * n + zero_column] = 0.0;
  int singular = solve(n, a, b, x);
  unsigned long h = 0;
  for (int i = 0; i < n * n; i++) {
    unsigned long u;
    memcpy(&u, &a[i], sizeof u);
    h = h * 31 + u;
  }
  for (int i = 0; i < n; i++) {
    unsigned long u;
    memcpy(&u, &x[i], sizeof u);
    h = h * 31 + u;
  }
  printf("n %d zero column %d: singular at step %d, hash %lx, x[0] %a\n", n, zero_column,
         singular, h, x[0]);
  free(a);
  free(b);
  free(x);
}

int main(void) {
  static const int sizes[] = {1, 2, 7, 33, 64, 100, 129};
  for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++)
    run(sizes[i], -1);
  run(50, 0);
  run(50, 23);
  run(129, 128);
  return 0;
}
