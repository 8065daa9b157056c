// A matrix-vector product (llama2.c's matmul: `val += w[i * n + j] * x[j]`, floats
// and doubles) accumulates along j: the chain rule tiles j by 16 so that the chains of
// neighbouring rows overlap. The rows interleaved are the chains that keep the adders
// busy (8), not an L2 tile of rows: 32 rows walked in lockstep, one cache line each per
// chain tile, made 288 x 32000 floats (llama2's classifier, read from memory) 2.8x
// slower than -O3; 8 rows are within 0.9x there and 2x faster at 288 x 288 and 4096 x
// 4096. The machine is given (L2/L1 = 32) so that the sizes do not depend on the host.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=1M -polyrust-simd-width=256 \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/new
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 1 7 16 17 33 130 > %t/plain.out
// RUN: %t/new 1 7 16 17 33 130 > %t/new.out
// RUN: cmp %t/plain.out %t/new.out

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void matvec_f(float *xout, const float *x,
                                        const float *w, int n, int d) {
  for (int i = 0; i < d; i++) {
    float val = 0.0f;
    for (int j = 0; j < n; j++)
      val += w[i * n + j] * x[j];
    xout[i] = val;
  }
}
// CHECK-LABEL: polyrust-ast: function 'matvec_f'
// CHECK: New AST of matvec_f{{.*}} (innermost loop tiled by 16 (it carries a dependence: short chains of dependent iterations overlap), outermost loop by 8 (the chains that overlap)):
// CHECK-NEXT: for (int c0 = 0; c0 < {{.*}}; c0 += 8) {
// CHECK-NEXT:   for (int c1 = 0; c1 < {{.*}}; c1 += 16)
// CHECK-NEXT:     for (int c2 = 0; c2 <= min(7, {{.*}}); c2 += 1) {

__attribute__((noinline)) void matvec_d(double *xout, const double *x,
                                        const double *w, int n, int d) {
  for (int i = 0; i < d; i++) {
    double val = 0.0;
    for (int j = 0; j < n; j++)
      val += w[i * n + j] * x[j];
    xout[i] = val;
  }
}
// CHECK-LABEL: polyrust-ast: function 'matvec_d'
// CHECK: New AST of matvec_d{{.*}} outermost loop by 8 (the chains that overlap)):
// CHECK-NEXT: for (int c0 = 0; c0 < {{.*}}; c0 += 8) {

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]), d = 2 * n + 3;
    float *w = malloc(sizeof *w * (size_t)n * (size_t)d);
    float *x = malloc(sizeof *x * (size_t)n), *o = malloc(sizeof *o * (size_t)d);
    double *wd = malloc(sizeof *wd * (size_t)n * (size_t)d);
    double *xd = malloc(sizeof *xd * (size_t)n), *od = malloc(sizeof *od * (size_t)d);
    float *t = malloc(sizeof *t * (size_t)n);
    for (int k = 0; k < n * d; k++)
      w[k] = wd[k] = (float)((k * 37) % 101) / 101.0f - 0.5f;
    for (int k = 0; k < n; k++)
      x[k] = xd[k] = (float)((k * 11) % 13) / 13.0f;
    matvec_f(o, x, w, n, d);
    matvec_d(od, xd, wd, n, d);
    // The rows against the columns too (n rows of d).
    matvec_f(t, o, w, d, n);
    double sum = 0;
    for (int k = 0; k < d; k++)
      sum += (double)o[k] * (k % 7 + 1) + od[k] * (k % 5 + 1);
    for (int k = 0; k < n; k++)
      sum += (double)t[k] * (k % 3 + 1);
    printf("%d %a\n", n, sum);
    free(w), free(x), free(o), free(wd), free(xd), free(od), free(t);
  }
  return 0;
}
