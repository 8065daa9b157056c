// A 2-D FDTD step (three fields, five statements) in a time loop, in a function called
// once with its sizes: clang propagates them, so the region has large constant bounds.
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) void fdtd(int steps, int nx, int ny, double ex[nx][ny], double ey[nx][ny],
                 double hz[nx][ny], const double *pulse) {
  for (int t = 0; t < steps; t++) {
    for (int j = 0; j < ny; j++)
      ey[0][j] = pulse[t];
    for (int i = 1; i < nx; i++)
      for (int j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (int i = 0; i < nx; i++)
      for (int j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (int i = 0; i < nx - 1; i++)
      for (int j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 500;
  enum { NX = 1000, NY = 1200 };
  double (*ex)[NY] = malloc(sizeof(double[NX][NY]));
  double (*ey)[NY] = malloc(sizeof(double[NX][NY]));
  double (*hz)[NY] = malloc(sizeof(double[NX][NY]));
  double *pulse = malloc(sizeof(double) * 500);
  if (!ex || !ey || !hz || !pulse || steps > 500)
    return 1;
  for (int t = 0; t < 500; t++)
    pulse[t] = t;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      ex[i][j] = (double)i * (j + 1) / NX;
      ey[i][j] = (double)i * (j + 2) / NY;
      hz[i][j] = (double)i * (j + 3) / NX;
    }
  fdtd(steps, NX, NY, ex, ey, hz, pulse);
  double sum = 0;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      sum += ex[i][j] + ey[i][j] + hz[i][j];
  printf("%.6e\n", sum);
  return 0;
}
