// Specialization on a 32-bit size while an outer counter varies: the inner nests of
// an elimination on a flattened matrix (`a[i * size + j]`, `int size`) depend on the
// outer row `i` (different at every entry) and on `size` (the same): no tuple of
// values recurs, but `size` does, and the nest that needs it is specialized on it
// alone. (The first nest is modelled without it since a region may start at the guard
// in front of it, its work moved out: it is optimized in both compiles.) Runs on the
// profiled size and on another (the original loops) print what -O3 prints.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/p.json \
// RUN:   %s -o %t/instrumented %rtlib -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=GEN
// RUN: %t/instrumented 120 > %t/instrumented.out
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/p.json \
// RUN:   %s -o %t/specialized -Rpass=polyrust -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=USE
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 120 > %t/plain.out
// RUN: %t/plain 77 >> %t/plain.out
// RUN: %t/specialized 120 > %t/specialized.out
// RUN: %t/specialized 77 >> %t/specialized.out
// RUN: cmp %t/plain.out %t/specialized.out
// RUN: head -1 %t/plain.out | cmp - %t/instrumented.out
//
// GEN-COUNT-1: remark: loop nest instrumented: each entry records {{.*}}size
// USE: flat-size.c:{{[0-9]+}}:5: remark: loop nest specialized for size = 120, the values of 100% of its 118 profiled entries
// USE: remark: region in eliminate at flat-size.c:{{[0-9]+}} optimized ({{.*}}), behind a run-time check
// USE: remark: region in eliminate at flat-size.c:{{[0-9]+}} optimized ({{.*}}), behind a run-time check that also compares size = 120 (from the profile)

#include <stdio.h>
#include <stdlib.h>
/* Doolittle elimination on a flattened matrix with a 32-bit size. */
__attribute__((noinline)) void eliminate(float *a, int size) {
  for (int i = 0; i < size; i++) {
    for (int j = i; j < size; j++) {
      float sum = a[i * size + j];
      for (int k = 0; k < i; k++) sum -= a[i * size + k] * a[k * size + j];
      a[i * size + j] = sum;
    }
    for (int j = i + 1; j < size; j++) {
      float sum = a[j * size + i];
      for (int k = 0; k < i; k++) sum -= a[j * size + k] * a[k * size + i];
      a[j * size + i] = sum / a[i * size + i];
    }
  }
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  float *a = malloc(sizeof(float) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[i * n + j] = i == j ? (float)n : (float)((i * 3 + j * 7) % 10) / 10.0f;
  eliminate(a, n);
  double s = 0;
  for (int i = 0; i < n * n; i++) s += a[i] * (i % 13);
  printf("%d %.9g\n", n, s);
  free(a);
  return 0;
}
