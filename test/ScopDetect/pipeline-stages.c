// A pipeline of stages over interior-only loops is one region at -O3, as expression
// propagation needs it (before, each stage was a region of its own): LLVM jump-threads
// each stage's zero-trip guard to the end of the function (see stage-guards.ll and
// extended-sizes.ll for the IR). The generated code (the original schedule, forced)
// behind its run-time check prints what -O3 prints, also at the sizes where some
// guards fail and the region runs only its first stages, or none.
// RUN: %detect %s 2>&1 | %FileCheck %s
// RUN: %clang -O3 %s -o %t.o3
// RUN: %clang -O3 %s -o %t.forced -fpass-plugin=%plugin -mllvm -polyrust-force-codegen -Rpass=polyrust 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=FORCED
// RUN: %clang -O3 %s -o %t.poly -fpass-plugin=%plugin
// RUN: bash -c 'for s in "0 5" "1 5" "2 5" "3 5" "4 5" "5 5" "6 5" "7 5" "8 5" "9 5" "33 5" \
// RUN:   "7 1" "7 5" "7 6" "40 40"; do %t.o3 $s > %t.expected && %t.forced $s > %t.got \
// RUN:   && diff %t.expected %t.got && %t.poly $s > %t.got && diff %t.expected %t.got || exit 1; done'
#include <stdio.h>
#include <stdlib.h>

// CHECK: pipeline-stages.c:[[@LINE+5]]:3: remark: SCoP begins here.
// CHECK-NOT: SCoP begins here.
// CHECK: remark: SCoP ends here.
// CHECK-NOT: SCoP begins here.
__attribute__((noinline)) void stages(int h, int w, const float *in, float *t1, float *t2, float *out) {
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      t1[y * w + x] = 0.5f * in[y * w + x] + 0.125f * (in[(y - 1) * w + x] + in[(y + 1) * w + x] +
                                                      in[y * w + x - 1] + in[y * w + x + 1]);
  for (int y = 2; y < h - 2; y++)
    for (int x = 2; x < w - 2; x++)
      t2[y * w + x] = t1[(y - 1) * w + x] - t1[(y + 1) * w + x];
  for (int y = 3; y < h - 3; y++)
    for (int x = 3; x < w - 3; x++)
      out[y * w + x] = t2[y * w + x - 1] + t2[y * w + x + 1];
}
// FORCED: pipeline-stages.c:[[@LINE-11]]:3: remark: region in stages at pipeline-stages.c:[[@LINE-11]] optimized

int main(int argc, char **argv) {
  int h = argc > 1 ? atoi(argv[1]) : 9, w = argc > 2 ? atoi(argv[2]) : 9;
  size_t n = (size_t)(h > 0 ? h : 1) * (size_t)(w > 0 ? w : 1);
  float *in = malloc(n * sizeof *in), *t1 = calloc(n, sizeof *t1);
  float *t2 = calloc(n, sizeof *t2), *out = calloc(n, sizeof *out);
  for (size_t i = 0; i < n; i++)
    in[i] = (float)(i % 17) * 0.25f;
  stages(h, w, in, t1, t2, out);
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += out[i] * (double)(i % 7 + 1) + t1[i] + 3.0 * t2[i];
  printf("%d %d %.9g\n", h, w, sum);
  free(in), free(t1), free(t2), free(out);
  return 0;
}
