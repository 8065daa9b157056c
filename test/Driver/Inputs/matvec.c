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
