// Three loop nests for the optimization record: one optimized, one left unchanged by
// the cost model, one not modelled.
#define N 1024
double A[N][N], B[N][N];
void opaque(double *);

void columns(int n) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      A[i][j] = 2.0 * B[i][j];
}

void rows(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = 2.0 * B[i][j];
}

void calls(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      opaque(&A[i][j]);
}
