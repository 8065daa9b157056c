// Loops under data-dependent conditions, in the shapes of the reference BLAS level-3
// routines (column-major, `if (B(l,j) != 0.)` around the innermost loop) and of a
// per-row choice between two loops. Each kernel runs over inputs where the condition
// is always true, never true and mixed; main prints every result bit for bit.
#include <stdio.h>
#include <stdlib.h>

// C := alpha*A*B + C (dgemm, no transposes).
__attribute__((noinline)) void dgemm_nn(int m, int n, int k, double alpha,
                                        const double *a, int lda, const double *b,
                                        int ldb, double *c, int ldc) {
  for (int j = 0; j < n; j++)
    for (int l = 0; l < k; l++)
      if (b[l + j * ldb] != 0.) {
        double temp = alpha * b[l + j * ldb];
        for (int i = 0; i < m; i++)
          c[i + j * ldc] += temp * a[i + l * lda];
      }
}

// C := alpha*A*A' + C, lower triangle (dsyrk, no transpose).
__attribute__((noinline)) void dsyrk_ln(int n, int k, double alpha, const double *a,
                                        int lda, double *c, int ldc) {
  for (int j = 0; j < n; j++)
    for (int l = 0; l < k; l++)
      if (a[j + l * lda] != 0.) {
        double temp = alpha * a[j + l * lda];
        for (int i = j; i < n; i++)
          c[i + j * ldc] += temp * a[i + l * lda];
      }
}

// B := alpha*A*B, A upper triangular (dtrmm, left side): the condition reads B, which
// the loops write, so the nest stays as it is.
__attribute__((noinline)) void dtrmm_lu(int m, int n, double alpha, const double *a,
                                        int lda, double *b, int ldb) {
  for (int j = 0; j < n; j++)
    for (int k = 0; k < m; k++)
      if (b[k + j * ldb] != 0.) {
        double temp = alpha * b[k + j * ldb];
        for (int i = 0; i < k; i++)
          b[i + j * ldb] += temp * a[i + k * lda];
        b[k + j * ldb] = temp * a[k + k * lda];
      }
}

// Each row takes one of two loops by the sign of its weight.
__attribute__((noinline)) void two_ways(int n, const double *restrict w,
                                        double (*restrict y)[n],
                                        const double (*restrict z)[n]) {
  for (int i = 0; i < n; i++) {
    if (w[i] > 0.)
      for (int j = 0; j < n; j++)
        y[i][j] += w[i] * z[j][i];
    else
      for (int j = 0; j < n; j++)
        y[i][j] -= z[j][i];
  }
}

static unsigned seed = 12345;
static double next(void) {
  seed = seed * 1103515245u + 12345u;
  return (double)((seed >> 8) % 2001) / 1000.0 - 1.0;
}

// Fills x with values, zero (or negative, for two_ways) where the pattern says.
static void fill(double *x, int count, int pattern) {
  for (int i = 0; i < count; i++) {
    double v = next();
    if (pattern == 0)
      x[i] = v == 0. ? 0.5 : v; // condition always true
    else if (pattern == 1)
      x[i] = 0.;                // never true
    else
      x[i] = (i % 3 == 0) ? 0. : v; // mixed
  }
}

static void print(const char *what, int pattern, const double *x, int count) {
  double sum = 0.;
  for (int i = 0; i < count; i++)
    sum += x[i] * (double)(i % 7 + 1);
  printf("%s %d %a %a %a\n", what, pattern, sum, x[0], x[count - 1]);
}

int main(void) {
  enum { M = 37, N = 45, K = 41, LD = 50 };
  double *a = malloc(sizeof(double) * LD * LD), *b = malloc(sizeof(double) * LD * LD),
         *c = malloc(sizeof(double) * LD * LD);
  for (int pattern = 0; pattern < 3; pattern++) {
    fill(a, LD * LD, 0);
    fill(b, LD * LD, pattern);
    fill(c, LD * LD, 0);
    dgemm_nn(M, N, K, 1.5, a, LD, b, LD, c, LD);
    print("dgemm", pattern, c, LD * LD);
    fill(a, LD * LD, pattern);
    fill(c, LD * LD, 0);
    dsyrk_ln(N, K, -0.75, a, LD, c, LD);
    print("dsyrk", pattern, c, LD * LD);
    fill(a, LD * LD, 0);
    fill(b, LD * LD, pattern);
    dtrmm_lu(M, N, 2.0, a, LD, b, LD);
    print("dtrmm", pattern, b, LD * LD);
    fill(a, N, pattern);
    if (pattern == 1)
      for (int i = 0; i < N; i++)
        a[i] = -1.0 - a[i];
    fill(b, N * N, 0);
    fill(c, N * N, 0);
    two_ways(N, a, (double (*)[N])b, (const double (*)[N])c);
    print("two_ways", pattern, b, N * N);
  }
  free(a);
  free(b);
  free(c);
  return 0;
}
