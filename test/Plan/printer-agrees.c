// The printer shows the plan the pass carries out, also where the outcome came from a
// step back or from a choice made after the scheduling stage's decision: the plan is
// printed (print<polyrust-ast>) and then carried out (polyrust) in one pipeline, and
// the description the printer shows is the one the pass's remark says.
//
// - product: its register tiles' loop AST needs more than the (lowered) operation
//   bound, so the plan steps back and tiles without them;
// - heat2d: time tiles would keep the table whole, which the original order folds, so
//   the loops keep their order and the table is stored in two rows;
// - chain: recomputing its two temporaries would clone more instructions per output
//   than the stages cost fused, so propagation is refused and the three stages fuse,
//   with both temporaries in three rows.
//
// RUN: %o3ir %s > %t.ll
// RUN: %opt %loadpolyrust -passes='function(print<polyrust-ast>),polyrust' \
// RUN:   -polyrust-max-operations=200000 -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-products=false \
// RUN:   -pass-remarks=polyrust -pass-remarks-analysis=polyrust -disable-output %t.ll 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=LOW
// RUN: %opt %loadpolyrust -passes='function(print<polyrust-ast>),polyrust' \
// RUN:   -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-products=false -pass-remarks=polyrust \
// RUN:   -pass-remarks-analysis=polyrust -disable-output %t.ll 2>&1 | %FileCheck %s
// RUN: %clang -O3 %s -o %t.plain && %t.plain > %t.plain.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-max-operations=200000 %s -o %t.opt
// RUN: %t.opt > %t.opt.out && cmp %t.plain.out %t.opt.out

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void product(int n, double *restrict c, const double *restrict a,
                                       const double *restrict b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        c[i * n + j] += a[i * n + k] * b[k * n + j];
}

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

static float *plane(int h, int w) {
  float *p = malloc(sizeof(float) * (size_t)h * (size_t)w);
  if (!p)
    exit(3);
  return p;
}

__attribute__((noinline)) void chain(int h, int w, const float *in, float *out) {
  float *t1 = plane(h, w);
  float *t2 = plane(h, w);
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      t1[y * w + x] = 0.5f * in[y * w + x] + 0.125f * (in[(y - 1) * w + x] + in[(y + 1) * w + x] +
                                                      in[y * w + x - 1] + in[y * w + x + 1]);
  for (int y = 2; y < h - 2; y++)
    for (int x = 2; x < w - 2; x++)
      t2[y * w + x] = 1.8f * t1[y * w + x] - 0.2f * (t1[(y - 1) * w + x] + t1[(y + 1) * w + x] +
                                                    t1[y * w + x - 1] + t1[y * w + x + 1]);
  for (int y = 3; y < h - 3; y++)
    for (int x = 3; x < w - 3; x++)
      out[y * w + x] = (t2[(y - 1) * w + x] + t2[y * w + x - 1] + t2[y * w + x] +
                        t2[y * w + x + 1] + t2[(y + 1) * w + x]) * 0.2f;
  free(t1);
  free(t2);
}

// LOW-LABEL: polyrust-ast: function 'product'
// LOW: product:{{.*}} steps back: register tiles dropped: their loop AST needs more than isl's operation bound
// LOW-NEXT: New AST of product:{{[^ ]*}} ([[PRODUCT:.*tiled by.*]]):
// LOW: region in product at {{.*}} optimized ([[PRODUCT]]), behind a run-time check
// LOW-NOT: register tiles of

// Under the whole bound, product has register tiles, in the printer and in the pass.
// CHECK-LABEL: polyrust-ast: function 'product'
// CHECK-NOT: steps back
// CHECK: New AST of product:{{[^ ]*}} ([[TILED:.*register tiles of.*]]):
// CHECK-LABEL: polyrust-ast: function 'heat2d'
// CHECK: New AST of heat2d:{{[^ ]*}} ([[HEAT2D:loops in their original order; temporary u stored as u\[i0 mod 2\].*]]):
// CHECK-LABEL: polyrust-ast: function 'chain'
// CHECK: New AST of chain:{{[^ ]*}} ([[CHAIN:3 loop nests fused into one outer loop.*temporary t1 stored as t1\[i0 mod 3\]\[i1\].*]]):
// CHECK: region in product at {{.*}} optimized ([[TILED]]), behind a run-time check
// CHECK: remark: {{.*}}loops kept in their original order: the new schedule (time-tiled{{.*}}) would keep temporary u whole
// CHECK: region in heat2d at {{.*}} optimized ([[HEAT2D]]), behind a run-time check
// CHECK: remark: {{.*}}t1, p are not recomputed where they are read {{.*}}: the stages fuse instead
// CHECK: region in chain at {{.*}} optimized ([[CHAIN]]), behind a run-time check

int main(void) {
  int n = 61;
  double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
  double *c = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n * n; i++) {
    a[i] = (i % 17) * 0.25 - 1.0;
    b[i] = (i % 13) * 0.5 - 2.0;
  }
  product(n, c, a, b);
  double s = 0;
  for (int i = 0; i < n * n; i++)
    s += c[i] * (i % 7);
  printf("product %.12g\n", s);

  int m = 37, steps = 9;
  double *in = malloc(sizeof(double) * m * m);
  double *out = malloc(sizeof(double) * m * m);
  for (int i = 0; i < m * m; i++)
    in[i] = (i * 7 % 23) * 0.5;
  heat2d(m, steps, in, out);
  s = 0;
  for (int i = 0; i < m * m; i++)
    s += out[i] * (i % 5);
  printf("heat2d %.12g\n", s);

  int h = 40, w = 37;
  float *fin = malloc(sizeof(float) * h * w), *fout = calloc((size_t)h * w, sizeof(float));
  for (int i = 0; i < h * w; i++)
    fin[i] = (float)(i * 5 % 19) * 0.25f;
  chain(h, w, fin, fout);
  double f = 0;
  for (int i = 0; i < h * w; i++)
    f += fout[i] * (i % 3);
  printf("chain %.9g\n", f);
  free(a), free(b), free(c), free(in), free(out), free(fin), free(fout);
  return 0;
}
