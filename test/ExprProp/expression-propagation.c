// Expression propagation: a temporary the function owns (malloc'd and freed in it, used
// only in the region) is no longer written; each read recomputes the producer's
// expression at the instance that wrote the value (cloned instruction by instruction:
// the bits are -O3's). LLVM carries two of the three reads of the stencil in phis from
// the iterations before; they are loads again before the region is modelled
// (rotated-loads.c).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/propagated -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-exprprop=false -c %s -o /dev/null \
// RUN:   -Rpass=polyrust -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=OFF
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 0 1 2 3 4 5 17 1000 > %t/plain.out
// RUN: %t/propagated 0 1 2 3 4 5 17 1000 > %t/propagated.out
// RUN: cmp %t/plain.out %t/propagated.out

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void smooth(int n, float *restrict out, const float *restrict in) {
  float *tmp = malloc(sizeof(float) * (n > 0 ? n : 1));
  for (int i = 0; i < n; i++)
    tmp[i] = in[i] * in[i] + 0.5f;
  for (int i = 1; i < n - 1; i++)
    out[i] = 0.25f * tmp[i - 1] + 0.5f * tmp[i] + 0.25f * tmp[i + 1];
  free(tmp);
}
// CHECK: expression-propagation.c:[[@LINE-6]]:3: remark: region in smooth at {{.*}} optimized (expression propagation: {{.*}} recomputed where it is read (3 reads), S0 and its stores removed; loops in their original order), behind a run-time check
// OFF: expression-propagation.c:[[@LINE-7]]:3: remark: {{.*}} could be recomputed where it is read (3 reads in {{.*}}): a candidate for expression propagation
// OFF-NOT: expression propagation:

// A chain: the second stage reads the first through LLVM's phis (the first stays: its
// values reach the phis), and is recomputed itself, phis and all (this crashed: a phi
// taken for a call). Nested recomputation (a producer inside another's) is exercised by
// the corpus's stencil_chain1d and unsharp_pipe.
__attribute__((noinline)) void chain(int n, const double *restrict in, double *restrict out) {
  double *s = malloc(sizeof(double) * (n > 0 ? n : 1));
  double *g = malloc(sizeof(double) * (n > 0 ? n : 1));
  for (int i = 1; i < n - 1; i++)
    s[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
  for (int i = 2; i < n - 2; i++)
    g[i] = 0.5 * (s[i + 1] - s[i - 1]);
  for (int i = 3; i < n - 3; i++)
    out[i] = s[i] + 0.3 * (g[i + 1] - g[i - 1]);
  free(s);
  free(g);
}
// CHECK: remark: region in chain at {{.*}} optimized (expression propagation: {{.*}} recomputed where it is read ({{[0-9]+}} reads), S{{[0-9]+}} and its stores removed

// Five stages, each reading three of the one before: the last recomputes 3^5 values
// of the first per output, nested five deep (measured at n = 16M: 0.17 s at -O3, 0.032
// s so), well under the bound on the instructions cloned.
__attribute__((noinline)) void deep(int n, float *restrict out, const float *restrict in) {
  size_t bytes = sizeof(float) * (n > 0 ? n : 1);
  float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *d = malloc(bytes),
        *e = malloc(bytes);
  for (int i = 0; i < n; i++) a[i] = in[i] * 0.5f + 1.0f;
  for (int i = 0; i < n - 4; i++) b[i] = a[i] + a[i + 4] * 0.5f + a[i + 2] * 0.25f;
  for (int i = 0; i < n - 8; i++) c[i] = b[i] + b[i + 4] * 0.5f + b[i + 2] * 0.25f;
  for (int i = 0; i < n - 12; i++) d[i] = c[i] + c[i + 4] * 0.5f + c[i + 2] * 0.25f;
  for (int i = 0; i < n - 16; i++) e[i] = d[i] + d[i + 4] * 0.5f + d[i + 2] * 0.25f;
  for (int i = 0; i < n - 20; i++) out[i] = e[i] + e[i + 4] * 0.5f + e[i + 2] * 0.25f;
  free(a);
  free(b);
  free(c);
  free(d);
  free(e);
}
// CHECK: remark: region in deep at {{.*}} optimized (expression propagation: {{[^;]*}} recomputed where it is read (3 reads), S0 and its stores removed; {{[^;]*}}; {{[^;]*}}; {{[^;]*}}; {{[^;]*}} recomputed where it is read (3 reads), S4 and its stores removed; loops in their original order)

// A global the caller reads afterwards: its stores stay, nothing is recomputed.
float shared[1024];
__attribute__((noinline)) void smooth_global(int n, float *restrict out, const float *restrict in) {
  for (int i = 0; i < n; i++)
    shared[i] = in[i] * in[i] + 0.5f;
  for (int i = 1; i < n - 1; i++)
    out[i] = 0.25f * shared[i - 1] + 0.5f * shared[i] + 0.25f * shared[i + 1];
}
// CHECK: expression-propagation.c:[[@LINE-5]]:3: remark: shared could be recomputed where it is read, but stays: it is not memory the function owns and reads only in the region

// A recurrence keeps its table (the paper's Fig. 7a); an operand overwritten before
// the read keeps the temporary (Fig. 7b).
__attribute__((noinline)) void recurrence(int n, float *restrict out) {
  float *t = malloc(sizeof(float) * (n > 2 ? n : 2));
  t[0] = 1.0f;
  t[1] = 1.0f;
  for (int i = 2; i < n; i++)
    t[i] = 0.5f * t[i - 1] + t[i - 2];
  for (int i = 0; i < n; i++)
    out[i] = t[i];
  free(t);
}
__attribute__((noinline)) void overwritten(int n, float *restrict a, float *restrict out) {
  float *t = malloc(sizeof(float) * (n > 0 ? n : 1));
  for (int i = 0; i < n; i++)
    t[i] = a[i] * 2.0f;
  for (int i = 0; i < n; i++) {
    a[i] = 0.0f;
    out[i] = t[i] + 1.0f;
  }
  free(t);
}
// CHECK-NOT: region in recurrence at {{.*}} optimized (expression propagation
// CHECK-NOT: region in overwritten at {{.*}} optimized (expression propagation

int main(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    int n = atoi(argv[k]);
    int m = n > 1024 ? 1024 : n;
    float *in = malloc(sizeof(float) * (n + 1)), *out = calloc(n + 1, sizeof(float));
    float *a = malloc(sizeof(float) * (n + 1));
    for (int i = 0; i < n; i++) {
      in[i] = (float)(i % 13) / 7.0f;
      a[i] = (float)(i % 5) - 1.5f;
    }
    double s = 0;
    smooth(n, out, in);
    for (int i = 0; i < n; i++) s += out[i] * (i % 7 + 1);
    double *din = malloc(sizeof(double) * (n + 1)), *dout = calloc(n + 1, sizeof(double));
    for (int i = 0; i < n; i++) din[i] = (double)(i % 11) / 3.0;
    chain(n, din, dout);
    for (int i = 0; i < n; i++) s += dout[i] * (i % 4 + 1);
    free(din);
    free(dout);
    deep(n, out, in);
    for (int i = 0; i < n; i++) s += out[i] * (i % 5 + 1);
    smooth_global(m, out, in);
    for (int i = 0; i < m; i++) s += out[i] * (i % 3 + 1) + shared[i];
    recurrence(n < 60 ? n : 60, out);
    for (int i = 0; i < (n < 60 ? n : 60); i++) s += out[i];
    overwritten(n, a, out);
    for (int i = 0; i < n; i++) s += out[i] + a[i];
    printf("%d %.9g\n", n, s);
    free(in);
    free(out);
    free(a);
  }
  return 0;
}
