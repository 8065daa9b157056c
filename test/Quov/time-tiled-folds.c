// QUOV under time tiles: a time-expanded 1-D stencil between a copy-in loop and a
// copy-out loop is time-tiled (the loops before and after keep their order around the
// tiles) and its table is stored in two rows, checked against the tiled schedule; the
// outputs are the unfolded program's for tile sizes that do and do not divide the
// problem. A 2-D one whose top and bottom boundary rows are copied in one loop of their
// own: time tiles would overwrite a rotating copy of the bottom row before the last row
// reads it, so no fold holds under them, and the loops keep their order so that the
// table is folded (its memory is what the region moves most of). A 1-D one whose ends
// are held at their first values, read from the first row at every step: index-set
// splitting gives that row a copy of its own, and the other rows rotate in two.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/tiled -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/fixed -Rpass=polyrust \
// RUN:   -mllvm -polyrust-tiling=fixed -mllvm -polyrust-tile-sizes=2,1000 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=FIXED
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/small -mllvm -polyrust-tiling=fixed \
// RUN:   -mllvm -polyrust-tile-sizes=1,1
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 3 4 5 17 100 150 1000 1537 > %t/plain.out
// RUN: %t/tiled 3 4 5 17 100 150 1000 1537 > %t/tiled.out
// RUN: cmp %t/plain.out %t/tiled.out
// RUN: %t/fixed 3 4 5 17 100 150 1000 1537 > %t/fixed.out
// RUN: cmp %t/plain.out %t/fixed.out
// RUN: %t/small 3 4 5 17 100 150 1000 1537 > %t/small.out
// RUN: cmp %t/plain.out %t/small.out

#include <stdio.h>
#include <stdlib.h>

// Rows w >= n elements apart.
__attribute__((noinline)) void heat(int n, int w, int steps, const double *in, double *out) {
  double *u = malloc(sizeof(double) * (size_t)(steps + 1) * (size_t)w);
  if (!u)
    return;
  for (int i = 0; i < n; i++)
    u[i] = 2.0 * in[i];
  for (int t = 0; t < steps; t++) {
    u[(long)(t + 1) * w] = u[(long)t * w];
    for (int i = 1; i < n - 1; i++)
      u[(long)(t + 1) * w + i] = (u[(long)t * w + i - 1] + u[(long)t * w + i] +
                                  u[(long)t * w + i + 1]) * (1.0 / 3.0);
    u[(long)(t + 1) * w + n - 1] = u[(long)t * w + n - 1];
  }
  for (int i = 0; i < n; i++)
    out[i] = 0.5 * u[(long)steps * w + i];
  free(u);
}
// CHECK: time-tiled-folds.c:[[@LINE-13]]:3: remark: region in heat at {{.*}} optimized (time-tiled: loop 2 cut into strips of 512 and skewed by 1 strip per time step; tiles of 8x8 {{.*}}; temporary u stored as u[i0 mod 2][i1]
// FIXED: time-tiled-folds.c:[[@LINE-14]]:3: remark: region in heat at {{.*}} optimized (time-tiled: {{.*}} tiles of 2x1000 {{.*}}; temporary u stored as u[i0 mod 2][i1]

__attribute__((noinline)) void held(int n, int w, int steps, const double *in, double *out) {
  double *u = malloc(sizeof(double) * (size_t)(steps + 1) * (size_t)w);
  if (!u)
    return;
  for (int i = 0; i < n; i++)
    u[i] = 2.0 * in[i];
  for (int t = 0; t < steps; t++) {
    u[(long)(t + 1) * w] = u[0];
    for (int i = 1; i < n - 1; i++)
      u[(long)(t + 1) * w + i] = (u[(long)t * w + i - 1] + u[(long)t * w + i] +
                                  u[(long)t * w + i + 1]) * (1.0 / 3.0);
    u[(long)(t + 1) * w + n - 1] = u[n - 1];
  }
  for (int i = 0; i < n; i++)
    out[i] = 0.5 * u[(long)steps * w + i];
  free(u);
}
// CHECK: time-tiled-folds.c:[[@LINE-13]]:3: remark: region in held at {{.*}} optimized (time-tiled: {{.*}}; temporary u stored as u[i0 == 0 ? 2 : i0 mod 2][i1]
// FIXED: time-tiled-folds.c:[[@LINE-14]]:3: remark: region in held at {{.*}} optimized (time-tiled: {{.*}} tiles of 2x1000 {{.*}}; temporary u stored as u[i0 == 0 ? 2 : i0 mod 2][i1]

#define M 400
__attribute__((noinline)) void heat2d(int n, int steps, const double *in, double *out) {
  double (*u)[M][M] = malloc(sizeof(double) * (size_t)(steps + 1) * M * M);
  if (!u)
    return;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++)
      u[0][y][x] = 2.0 * in[y * n + x];
  for (int t = 0; t < steps; t++) {
    for (int x = 0; x < n; x++) {
      u[t + 1][0][x] = u[t][0][x];
      u[t + 1][n - 1][x] = u[t][n - 1][x];
    }
    for (int y = 1; y < n - 1; y++) {
      u[t + 1][y][0] = u[t][y][0];
      for (int x = 1; x < n - 1; x++)
        u[t + 1][y][x] = 0.25 * (u[t][y - 1][x] + u[t][y + 1][x] + u[t][y][x - 1] +
                                 u[t][y][x + 1]);
      u[t + 1][y][n - 1] = u[t][y][n - 1];
    }
  }
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++)
      out[y * n + x] = 0.5 * u[steps][y][x];
  free(u);
}
// CHECK: time-tiled-folds.c:[[@LINE-21]]:3: remark: loops kept in their original order: the new schedule (time-tiled: {{.*}}) would keep temporary u whole, which the original order stores folded
// CHECK: time-tiled-folds.c:[[@LINE-22]]:3: remark: region in heat2d at {{.*}} optimized (loops in their original order; temporary u stored as u[i0 mod 2][i1][i2]

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    double *in = calloc((size_t)n * n + 64, sizeof(double));
    double *out = calloc((size_t)n * n + 64, sizeof(double));
    for (int i = 0; i < n * n + 64; i++)
      in[i] = (double)((i * 37) % 101) / 7.0;
    heat(n, n + 3, 70, in, out);
    for (int i = 0; i < n; i++)
      printf("%a\n", out[i]);
    held(n, n + 5, 70, in, out);
    for (int i = 0; i < n; i++)
      printf("%a\n", out[i]);
    if (n <= M) {
      heat2d(n, 30, in, out);
      for (int i = 0; i < n * n; i++)
        printf("%a\n", out[i]);
    }
    free(in);
    free(out);
  }
  return 0;
}
