// y = A x for an n-by-m matrix stored by rows.
void matvec(int n, int m, const double *A, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < m; j++)
      s += A[i * m + j] * x[j];
    y[i] = s;
  }
}

// Scales every element of v.
void scale(int n, double *v, double f) {
  for (int i = 0; i < n; i++)
    v[i] *= f;
}

// C += A B^T for n-by-n matrices stored by rows: a product polyrust replaces (the
// matrix-vector product above stays as -O3 compiles it at the baseline target), so
// that objects built with and without the plugin differ.
void gram(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++)
        s += A[i * n + k] * B[j * n + k];
      C[i * n + j] += s;
    }
}
