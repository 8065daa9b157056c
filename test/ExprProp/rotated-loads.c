// Loads LLVM carries across iterations in phis (GVN's load PRE keeps one load of the
// 3-point stencil per iteration, the other two values come from the iterations before)
// are loads again in regions whose temporaries could be recomputed, so that a producer
// reading its input that way is recomputed where it is read (detect/rotated.rs). A phi
// of a computed value stays, and so does the temporary whose producer reads it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/propagated -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fno-discard-value-names -fpass-plugin=%plugin %s -S -emit-llvm -o - \
// RUN:   | %FileCheck %s --check-prefix=IR
// RUN: %clang -O3 -g -fno-discard-value-names -fpass-plugin=%plugin -mllvm -polyrust-exprprop=false \
// RUN:   %s -S -emit-llvm \
// RUN:   -o - | %FileCheck %s --check-prefix=OFF
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 0 1 2 3 4 5 6 7 8 9 17 1000 > %t/plain.out
// RUN: %t/propagated 0 1 2 3 4 5 6 7 8 9 17 1000 > %t/propagated.out
// RUN: cmp %t/plain.out %t/propagated.out

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void chain(int n, const double *in, double *out) {
  double *smooth = malloc(sizeof(double) * (n > 0 ? n : 1));
  double *grad = malloc(sizeof(double) * (n > 0 ? n : 1));
  for (int i = 1; i < n - 1; i++)
    smooth[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
  for (int i = 2; i < n - 2; i++)
    grad[i] = 0.5 * (smooth[i + 1] - smooth[i - 1]);
  for (int i = 3; i < n - 3; i++)
    out[i] = grad[i - 1] + grad[i] + grad[i + 1];
  free(smooth);
  free(grad);
}
// CHECK: rotated-loads.c:[[@LINE-9]]:3: remark: region in chain at {{.*}} optimized (expression propagation: smooth recomputed where it is read (2 reads), S0 and its stores removed; grad recomputed where it is read (3 reads), S1 and its stores removed
// IR-LABEL: define {{.*}} @chain(
// IR: %polyrust.unrotated = load double
// IR-LABEL: define {{.*}} @running(
// OFF-LABEL: define {{.*}} @chain(
// OFF-NOT: polyrust.unrotated
// OFF-LABEL: define {{.*}} @running(

// A phi that carries a computed value, not a load: the running value stays a scalar of
// the model, and tmp stays.
__attribute__((noinline)) void running(int n, const double *in, double *out) {
  double *tmp = malloc(sizeof(double) * (n > 0 ? n : 1));
  double r = 0.0;
  for (int i = 1; i < n - 1; i++) {
    r = 0.5 * r + in[i];
    tmp[i] = r + in[i + 1];
  }
  for (int i = 2; i < n - 2; i++)
    out[i] = tmp[i - 1] - tmp[i + 1];
  free(tmp);
}
// CHECK: rotated-loads.c:[[@LINE-8]]:3: remark: temporary tmp is not recomputed where it is read: S0 writes more than tmp
// CHECK-NOT: region in running at {{.*}} optimized (expression propagation

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    double *in = malloc(sizeof(double) * (n + 1));
    double *out = calloc(n + 1, sizeof(double));
    double *out2 = calloc(n + 1, sizeof(double));
    for (int i = 0; i < n; i++)
      in[i] = (i * 37 % 101) / 7.0 - 3.0;
    chain(n, in, out);
    running(n, in, out2);
    double s = 0, t = 0;
    for (int i = 0; i < n; i++) {
      s += out[i] * (i + 1);
      t += out2[i] * (i + 1) + in[i];
    }
    printf("%d %.17g %.17g\n", n, s, t);
    free(in);
    free(out);
    free(out2);
  }
  return 0;
}
