// A loop bound that is a maximum of sizes computed in 32 bits and then widened (LLVM's
// zext of smax(3, 2 * q - 2)): each operand is assumed not to wrap, and the nest is
// modelled. Before, it was rejected: "... may wrap before it is zero-extended".
// RUN: %detect %s 2>&1 | %FileCheck %s
// RUN: %clang -O3 %s -o %t.o3
// RUN: %clang -O3 %s -o %t.forced -fpass-plugin=%plugin -mllvm -polyrust-force-codegen
// RUN: bash -c 'for q in 0 1 2 3 4 9 40; do %t.o3 $q > %t.expected && %t.forced $q > %t.got && diff %t.expected %t.got || exit 1; done'
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void scale(int q, float *out, const float *in) {
  int n = 2 * q - 2 > 3 ? 2 * q - 2 : 3;
  // CHECK: max-extension.c:[[@LINE+1]]:3: remark: SCoP begins here.
  for (int y = 2; y < n - 2; y++)
    for (int x = 2; x < n - 2; x++)
      out[y * n + x] = 1.5f * in[y * n + x] + 0.25f;
}
// CHECK-NOT: may wrap before it is zero-extended

int main(int argc, char **argv) {
  int q = argc > 1 ? atoi(argv[1]) : 8;
  int n = 2 * q - 2 > 3 ? 2 * q - 2 : 3;
  float *in = calloc((size_t)n * n, sizeof *in), *out = calloc((size_t)n * n, sizeof *out);
  for (int i = 0; i < n * n; i++)
    in[i] = (float)(i % 17) / 3.0f;
  scale(q, out, in);
  double s = 0;
  for (int i = 0; i < n * n; i++)
    s += out[i] * (i % 5 + 1);
  printf("%d %.9g\n", n, s);
  free(in);
  free(out);
  return 0;
}
