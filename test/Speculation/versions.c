// One specialized version per hot tuple of values, dispatched by a chain of run-time
// checks: runs with plain views and with B read transposed each make half of the
// profile, so the second compile makes two versions (each keeps only the unit strides
// it needs); a third kind of call (A read every other column) matches neither and runs
// the original loops. Outputs are byte-identical to -O3's in all three modes, and a
// build that is specialized and instrumented at once counts, per check, how often it
// passed: each version runs exactly for its own calls, the original loops exactly for
// the third kind.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/run-%%p.json \
// RUN:   %s -o %t/instrumented %rtlib
// RUN: %t/instrumented 64 0 > %t/instrumented.out
// RUN: %t/instrumented 64 1 >> %t/instrumented.out
// RUN: %polyrust-prof merge -o %t/prog.polyprof %t/run-*.json
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/prog.polyprof \
// RUN:   %s -o %t/specialized -Rpass=polyrust -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=USE
// The chain: the first check compares sc1, sa1 and sb0 (arguments 9, 3, 5) with 1, the
// second, in front of the original loops, sc1, sa1 and sb1 (argument 6).
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/prog.polyprof \
// RUN:   %s -S -emit-llvm -o - | %FileCheck %s --check-prefix=IR
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 64 0 > %t/plain.out
// RUN: %t/plain 64 1 >> %t/plain.out
// RUN: cmp %t/plain.out %t/instrumented.out
// RUN: %t/plain 64 2 >> %t/plain.out
// RUN: %t/specialized 64 0 > %t/specialized.out
// RUN: %t/specialized 64 1 >> %t/specialized.out
// RUN: %t/specialized 64 2 >> %t/specialized.out
// RUN: cmp %t/plain.out %t/specialized.out
//
// Counting: each mode calls the kernel twice.
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/prog.polyprof \
// RUN:   -mllvm -polyrust-profile-generate=%t/count-%%p.json %s -o %t/counted %rtlib
// RUN: %t/counted 48 0 > %t/counted.out
// RUN: %t/counted 48 1 >> %t/counted.out
// RUN: %t/counted 48 2 >> %t/counted.out
// RUN: %polyrust-prof merge -o %t/count.polyprof %t/count-*.json
// RUN: %polyrust-prof show %t/count.polyprof | %FileCheck %s --check-prefix=COUNT
// RUN: %t/plain 48 0 > %t/plain48.out
// RUN: %t/plain 48 1 >> %t/plain48.out
// RUN: %t/plain 48 2 >> %t/plain48.out
// RUN: cmp %t/plain48.out %t/counted.out
//
// USE: versions.c:[[#LINE:]]:3: remark: loop nest specialized for sc1 = 1, sa1 = 1, sb0 = 1, the values of 50% of its 4 profiled entries (version 1 of 2)
// USE-SAME: other values run the other versions or the original loops
// USE: versions.c:[[#LINE]]:3: remark: region in mm_view at versions.c:[[#LINE]] optimized ({{.*}}), behind a run-time check that also compares sc1 = 1, sa1 = 1, sb0 = 1 (from the profile)
// USE: versions.c:[[#LINE]]:3: remark: loop nest specialized for sc1 = 1, sa1 = 1, sb1 = 1, the values of 50% of its 4 profiled entries (version 2 of 2)
// USE-SAME: other values run the original loops
// USE: versions.c:[[#LINE]]:3: remark: region in mm_view at versions.c:[[#LINE]] optimized ({{.*}}), behind a run-time check that also compares sc1 = 1, sa1 = 1, sb1 = 1 (from the profile)
//
// IR-LABEL: define {{.*}}void @mm_view(
// IR: icmp eq i64 %9, 1
// IR-NEXT: and i1
// IR-NEXT: icmp eq i64 %3, 1
// IR-NEXT: and i1
// IR-NEXT: icmp eq i64 %5, 1
// IR: icmp eq i64 %9, 1
// IR-NEXT: and i1
// IR-NEXT: icmp eq i64 %3, 1
// IR-NEXT: and i1
// IR-NEXT: icmp eq i64 %6, 1
// IR-NOT: icmp eq i64 %{{[0-9]}}, 1
// IR-LABEL: define {{.*}} @main(
//
// The first check sees every call and passes for the transposed ones; the second sees
// the rest and passes for the plain ones; the strided calls run the original loops.
// COUNT: profile {{.*}}: 2 regions
// COUNT-DAG: entered 6 times
// COUNT-DAG: run-time check of the optimized code: passed in 2 entries (33.3%), failed in 4 entries (66.7%)
// COUNT-DAG: entered 4 times
// COUNT-DAG: run-time check of the optimized code: passed in 2 entries (50.0%), failed in 2 entries (50.0%)

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

/* Mode 0: plain views; 1: B read transposed; 2: A every other column of a wider matrix. */
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int mode = argc > 2 ? atoi(argv[2]) : 0;
  double *A = malloc(sizeof(double) * 2 * n * n);
  double *B = malloc(sizeof(double) * n * n);
  double *C = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < 2 * n * n; i++)
    A[i] = (double)((i * 7) % 13) / 7.0;
  for (int i = 0; i < n * n; i++)
    B[i] = (double)((i * 5) % 11) / 3.0;
  long sa0 = mode == 2 ? 2 * n : n, sa1 = mode == 2 ? 2 : 1;
  long sb0 = mode == 1 ? 1 : n, sb1 = mode == 1 ? n : 1;
  for (int rep = 0; rep < 2; rep++)
    mm_view(n, A, sa0, sa1, B, sb0, sb1, C, n, 1);
  double sum = 0;
  for (int i = 0; i < n * n; i++)
    sum += C[i] * (double)(i % 17);
  printf("%d %d %.17g %.17g\n", n, mode, sum, C[n * n - 1]);
  free(A);
  free(B);
  free(C);
  return 0;
}
