#include <stdio.h>
void matvec(int n, int m, const double *A, const double *x, double *y);
void scale(int n, double *v, double f);
int main(void) {
  double A[12], x[4] = {1, 2, 3, 4}, y[3];
  for (int k = 0; k < 12; k++)
    A[k] = k / 4 + k % 4; // rows 0..3, 1..4, 2..5
  matvec(3, 4, A, x, y);
  scale(3, y, 0.5);
  printf("matvec: %g %g %g\n", y[0], y[1], y[2]);
  return 0;
}
