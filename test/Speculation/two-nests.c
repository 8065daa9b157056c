// Two candidate nests in one function: the second keeps its region id after the first
// is rewritten (ids count loops as the function was when the pass first saw it, not
// with the generated loops in front), so both compiles agree and both nests are
// specialized and optimized. Outputs are byte-identical to -O3's, also for strides the
// profile never saw.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/p.json \
// RUN:   %s -o %t/instrumented %rtlib -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=GEN
// RUN: %t/instrumented 64 0 > %t/instrumented.out
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/p.json %s \
// RUN:   -o %t/specialized -Rpass=polyrust -Rpass-missed=polyrust 2>&1 | %FileCheck %s --check-prefix=USE
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 64 0 > %t/plain.out
// RUN: cmp %t/plain.out %t/instrumented.out
// RUN: %t/plain 64 1 >> %t/plain.out
// RUN: %t/specialized 64 0 > %t/specialized.out
// RUN: %t/specialized 64 1 >> %t/specialized.out
// RUN: cmp %t/plain.out %t/specialized.out
//
// GEN: two-nests.c:{{[0-9]+}}:3: remark: loop nest instrumented: {{.*}}(region chain:0:{{[0-9a-f]+}})
// GEN: two-nests.c:{{[0-9]+}}:3: remark: loop nest instrumented: {{.*}}(region chain:3:{{[0-9a-f]+}})
// USE-NOT: NotProfiled
// USE-NOT: has no record of it
// USE: two-nests.c:{{[0-9]+}}:3: remark: region in chain at two-nests.c:{{[0-9]+}} optimized ({{.*}}), behind a run-time check that also compares s1 = 1, sa1 = 1, sb1 = 1 (from the profile)
// USE: two-nests.c:{{[0-9]+}}:3: remark: region in chain at two-nests.c:{{[0-9]+}} optimized ({{.*}}), behind a run-time check that also compares s1 = 1, sb1 = 1 (from the profile)
#include <stdio.h>
#include <stdlib.h>

/* Two products on views in one function: T = A * B, then C = T * B. */
__attribute__((noinline)) void chain(int n, const double *A, long sa0, long sa1, const double *B,
                                     long sb0, long sb1, double *T, double *C, long s0, long s1) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        T[i * s0 + j * s1] += A[i * sa0 + k * sa1] * B[k * sb0 + j * sb1];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i * s0 + j * s1] += T[i * s0 + k * s1] * B[k * sb0 + j * sb1];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int transposed = argc > 2 ? atoi(argv[2]) : 0;
  double *A = malloc(sizeof(double) * n * n), *B = malloc(sizeof(double) * n * n);
  double *T = calloc((size_t)n * n, sizeof(double)), *C = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n * n; i++) {
    A[i] = (double)((i * 7) % 13) / 7.0;
    B[i] = (double)((i * 5) % 11) / 3.0;
  }
  long sb0 = transposed ? 1 : n, sb1 = transposed ? n : 1;
  chain(n, A, n, 1, B, sb0, sb1, T, C, n, 1);
  double sum = 0;
  for (int i = 0; i < n * n; i++)
    sum += C[i] * (double)(i % 17);
  printf("%d %d %.17g\n", n, transposed, sum);
  return 0;
}
