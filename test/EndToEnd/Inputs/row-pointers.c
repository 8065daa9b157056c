// The programs of row-pointers.test: row-pointer kernels (an SOR sweep in place, an LU-like
// update, a matrix product) over tables of rows at a fixed stride, of rows from separate
// allocations in shuffled order, and of rows whose table lies inside the matrix.
__attribute__((noinline)) void sor(int M, int N, double omega, double **G, int iters) {
  double o4 = omega * 0.25, om = 1.0 - omega;
  int Mm1 = M - 1, Nm1 = N - 1;
  for (int p = 0; p < iters; p++)
    for (int i = 1; i < Mm1; i++) {
      double *Gi = G[i], *Gim1 = G[i - 1], *Gip1 = G[i + 1];
      for (int j = 1; j < Nm1; j++)
        Gi[j] = o4 * (Gim1[j] + Gip1[j] + Gi[j - 1] + Gi[j + 1]) + om * Gi[j];
    }
}

__attribute__((noinline)) void lu_update(int n, double **A) {
  for (int j = 0; j < n - 1; j++) {
    double *Aj = A[j];
    for (int ii = j + 1; ii < n; ii++) {
      double *Aii = A[ii];
      double f = Aii[j] / Aj[j];
      for (int jj = j + 1; jj < n; jj++)
        Aii[jj] -= f * Aj[jj];
    }
  }
}

__attribute__((noinline)) void product(int n, double **C, double **A, double **B) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}


#include <stdio.h>
#include <stdlib.h>

static double **rows(int m, int n, int stride) {
  double *block = malloc(sizeof(double) * (size_t)m * stride);
  double **r = malloc(sizeof(double *) * m);
  for (int i = 0; i < m; i++)
    r[i] = block + (long)i * stride;
  return r;
}

// Rows from separate allocations, handed out in shuffled order.
static double **scattered(int m, int n) {
  double **r = malloc(sizeof(double *) * m);
  double **tmp = malloc(sizeof(double *) * m);
  for (int i = 0; i < m; i++)
    tmp[i] = malloc(sizeof(double) * n);
  for (int i = 0; i < m; i++)
    r[i] = tmp[(i * 7) % m];
  return r;
}

static void fill(double **a, int m, int n, int seed) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      a[i][j] = (double)((i * 7 + j * 13 + seed) % 17) / 17.0 + (i == j ? n : 0);
}

static double sum(double **a, int m, int n) {
  double s = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      s += a[i][j] * (1 + (i + j) % 3);
  return s;
}

static void run(const char *what, double **(*make)(int, int, int), int n, int stride) {
  double **g = make(n, n + 2, stride);
  fill(g, n, n + 2, 1);
  sor(n, n + 2, 1.25, g, 5);
  double **a = make(n, n, stride);
  fill(a, n, n, 2);
  lu_update(n, a);
  double **c = make(n, n, stride), **x = make(n, n, stride), **y = make(n, n, stride);
  fill(c, n, n, 3);
  fill(x, n, n, 4);
  fill(y, n, n, 5);
  product(n, c, x, y);
  printf("%s sor %.17g lu %.17g product %.17g\n", what, sum(g, n, n + 2), sum(a, n, n),
         sum(c, n, n));
}

static double **at_stride(int m, int n, int stride) { return rows(m, n, stride); }
static double **apart(int m, int n, int stride) { (void)stride; return scattered(m, n); }

int main(void) {
  run("stride", at_stride, 100, 104);
  run("tight", at_stride, 67, 69);
  run("scattered", apart, 100, 0);
  // In place: the table inside the matrix it points into (the check must fail).
  double *block = malloc(sizeof(double) * 64 * 80);
  double **inside = (double **)(block + 64 * 70);
  for (int i = 0; i < 64; i++)
    inside[i] = block + i * 70;
  fill(inside, 64, 70, 6);
  sor(64, 80, 1.25, inside, 3);
  printf("inside %.17g\n", sum(inside, 64, 64));
  return 0;
}

