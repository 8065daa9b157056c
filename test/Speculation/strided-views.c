// Two-run profile-guided speculation on strided views (strides known only at run
// time, as array libraries pass them): the first compile instruments the product,
// a run records its strides, the second compile specializes it for the unit inner
// strides the run showed. Run with those strides and with others (a transposed view,
// which must take the original loops): the output is byte-identical to -O3's.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/run-%%p.json \
// RUN:   %s -o %t/instrumented %rtlib -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=GEN
// RUN: %t/instrumented 96 0 > %t/instrumented.out
// RUN: %t/instrumented 64 0 >> %t/instrumented.out
// RUN: %polyrust-prof merge -o %t/prog.polyprof %t/run-*.json
// RUN: %polyrust-prof show %t/prog.polyprof | %FileCheck %s --check-prefix=SHOW
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/prog.polyprof \
// RUN:   %s -o %t/specialized -Rpass=polyrust -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=USE
// The check compares exactly the unit strides sa1, sb1, sc1 (arguments 3, 6, 9): any
// other stride takes the original loops.
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/prog.polyprof \
// RUN:   %s -S -emit-llvm -o - | %FileCheck %s --check-prefix=IR
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 96 0 > %t/plain.out
// RUN: %t/plain 64 0 >> %t/plain.out
// RUN: cmp %t/plain.out %t/instrumented.out
// RUN: %t/specialized 96 0 > %t/specialized.out
// RUN: %t/specialized 64 0 >> %t/specialized.out
// RUN: cmp %t/plain.out %t/specialized.out
// Strides the profile never saw: the run-time check sends them to the original loops.
// RUN: %t/plain 80 1 > %t/plain-other.out
// RUN: %t/specialized 80 1 > %t/specialized-other.out
// RUN: cmp %t/plain-other.out %t/specialized-other.out
//
// GEN: strided-views.c:[[@LINE+23]]:3: remark: loop nest instrumented: each entry records {{.*}}sa1{{.*}} for profile-guided specialization
// IR-LABEL: define {{.*}}void @mm_view(
// IR-DAG: icmp eq i64 %3, 1
// IR-DAG: icmp eq i64 %6, 1
// IR-DAG: icmp eq i64 %9, 1
// IR-NOT: icmp eq i64 %{{[258]}}, {{[0-9]+}}
// IR-LABEL: define {{.*}} @main(
// SHOW: mm_view
// SHOW: entries
// SHOW: region mm_view:{{.*}}#trips
// SHOW-NEXT: entered 4 times
// SHOW-NEXT: values:
// SHOW-NEXT: iterations of the outermost loop  min 64, max 96
// USE: strided-views.c:[[@LINE+10]]:3: remark: loop nest specialized for {{.*}}= 1{{.*}}; other values run the original loops
// USE: strided-views.c:[[@LINE+9]]:3: remark: region in mm_view at strided-views.c:[[@LINE+9]] optimized ({{.*}}), behind a run-time check that also compares {{.*}} = 1{{.*}} (from the profile)

#include <stdio.h>
#include <stdlib.h>

/* C = A * B on views: element (r, c) of X is X[r * sx0 + c * sx1]. */
__attribute__((noinline)) void mm_view(int n, const double *A, long sa0, long sa1,
                                       const double *B, long sb0, long sb1, double *C,
                                       long sc0, long sc1) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i * sc0 + j * sc1] += A[i * sa0 + k * sa1] * B[k * sb0 + j * sb1];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int transposed = argc > 2 ? atoi(argv[2]) : 0;
  double *A = malloc(sizeof(double) * n * n);
  double *B = malloc(sizeof(double) * n * n);
  double *C = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n * n; i++) {
    A[i] = (double)((i * 7) % 13) / 7.0;
    B[i] = (double)((i * 5) % 11) / 3.0;
  }
  /* B read as a transposed view in the second mode: other strides. */
  long sb0 = transposed ? 1 : n, sb1 = transposed ? n : 1;
  for (int rep = 0; rep < 2; rep++)
    mm_view(n, A, n, 1, B, sb0, sb1, C, n, 1);
  double sum = 0;
  for (int i = 0; i < n * n; i++)
    sum += C[i] * (double)(i % 17);
  printf("%d %d %.17g %.17g\n", n, transposed, sum, C[n * n - 1]);
  free(A);
  free(B);
  free(C);
  return 0;
}
