// A matrix-vector product (llama2.c's matmul: `val += w[i * n + j] * x[j]`, floats
// and doubles) accumulates along j. Interleaving rows (j tiled by 16, 8 rows, so that
// the chains of neighbouring rows overlap) pays on rows read from cache (2x at 288 x
// 288), but a matrix streamed from memory is read as fast one row after the other,
// and faster than 8 rows in lockstep: llama2's 32000 x 288 classifier ran at 0.78-0.90x
// of -O3 interleaved (-O3 without FMA), matrices of 288 columns not in cache at
// 0.87-0.91x. Whether the rows come from cache, the cost model can only tell when the
// region runs again over the same arrays in a loop of its function: a function alone
// (called with another matrix each time) keeps its order; a nest re-run over the
// same matrix in a loop around it gets the interleaved rows. With fused multiply-adds
// (-mfma, as -march=native here) -O3's row after row waits 4 cycles a step, slower
// than the memory: interleaved rows were 1.3-1.4x faster from memory, 2-3x in cache,
// and every nest gets them. The machine is given (L2/L1 = 32) so that the
// sizes do not depend on the host.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=1M -polyrust-simd-width=256 \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: %o3ir -mfma -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=1M -polyrust-simd-width=256 \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=FMA
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust \
// RUN:   -mllvm -polyrust-l1-cache=32K -mllvm -polyrust-l2-cache=1M \
// RUN:   -mllvm -polyrust-simd-width=256 -c %s -o /dev/null 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=REMARK
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/new
// RUN: %clang -O3 %s -o %t/plain
// RUN: %clang -O3 -mfma -fpass-plugin=%plugin %s -o %t/fma-new
// RUN: %clang -O3 -mfma %s -o %t/fma-plain
// RUN: %t/plain 1 7 16 17 33 130 > %t/plain.out
// RUN: %t/new 1 7 16 17 33 130 > %t/new.out
// RUN: cmp %t/plain.out %t/new.out
// RUN: %t/fma-plain 1 7 16 17 33 130 > %t/fma-plain.out
// RUN: %t/fma-new 1 7 16 17 33 130 > %t/fma-new.out
// RUN: cmp %t/fma-plain.out %t/fma-new.out

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
// CHECK: matvec_f{{.*}} kept: its innermost loop accumulates into one element, and interleaving rows to overlap the chains pays only on rows read from cache or with fused multiply-adds; the region does not run again over the same arrays in a loop of its function
// REMARK: remark: region in matvec_f at {{.*}}chain-matvec-rows.c:{{[0-9]+}} left unchanged: its innermost loop accumulates into one element, and interleaving rows to overlap the chains pays only on rows read from cache or with fused multiply-adds

__attribute__((noinline)) void matvec_d(double *xout, const double *x,
                                        const double *w, int n, int d) {
  for (int i = 0; i < d; i++) {
    double val = 0.0;
    for (int j = 0; j < n; j++)
      val += w[i * n + j] * x[j];
    xout[i] = val;
  }
}
// FMA-LABEL: polyrust-ast: function 'matvec_f'
// FMA: New AST of matvec_f{{.*}} (innermost loop tiled by 16 (it carries a dependence: short chains of dependent iterations overlap), outermost loop by 8 (the chains that overlap)):
// FMA-NEXT: for (int c0 = 0; c0 < {{.*}}; c0 += 8)

// CHECK-LABEL: polyrust-ast: function 'matvec_d'
// CHECK: matvec_d{{.*}} kept: its innermost loop accumulates into one element

// Power steps: the same matrix each time round, normalized by a call the model
// cannot take in, so the nest is a region of two loops inside the loop over steps.
__attribute__((noinline)) float largest(const float *v, int d) {
  float m = 1.0f;
  for (int i = 0; i < d; i++)
    m = v[i] > m ? v[i] : (-v[i] > m ? -v[i] : m);
  return m;
}
__attribute__((noinline)) void power_steps(float *restrict xout,
                                           float *restrict x,
                                           const float *restrict w, int n,
                                           int steps) {
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) {
      float val = 0.0f;
      for (int j = 0; j < n; j++)
        val += w[i * n + j] * x[j];
      xout[i] = val;
    }
    float m = largest(xout, n);
    for (int i = 0; i < n; i++)
      x[i] = xout[i] / m;
  }
}
// FMA-LABEL: polyrust-ast: function 'matvec_d'
// FMA: New AST of matvec_d{{.*}} outermost loop by 8 (the chains that overlap)):

// CHECK-LABEL: polyrust-ast: function 'power_steps'
// CHECK: New AST of power_steps{{.*}} (innermost loop tiled by 16 (it carries a dependence: short chains of dependent iterations overlap), outermost loop by 8 (the chains that overlap)):
// CHECK-NEXT: for (int c0 = 0; c0 < {{.*}}; c0 += 8)
// CHECK-NEXT:   for (int c1 = 0; c1 < {{.*}}; c1 += 16)
// CHECK-NEXT:     for (int c2 = 0; c2 <= min(7, {{.*}}); c2 += 1) {

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
    // Three power steps on the first n x n rows of w.
    power_steps(t, x, w, n, 3);
    for (int k = 0; k < n; k++)
      sum += (double)x[k] * (k % 3 + 2) + (double)t[k];
    printf("%d %a\n", n, sum);
    free(w), free(x), free(o), free(wd), free(xd), free(od), free(t);
  }
  return 0;
}
