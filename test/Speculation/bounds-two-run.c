// A nest whose inner trip count is loaded inside it (`j < len[i]`): detection rejects
// it (non-affine loop bound). The folded access profile shows the inner loop ran the
// same number of iterations in every outer iteration, so the second compile loads the
// bound of the first outer iteration in front of the nest, checks in a loop that every
// outer iteration loads that value, and models the nest with the bound as a parameter;
// the original loops run when one row differs. Outputs are byte-identical to -O3's for
// the profiled input, for another width (the speculation is not on the constant), and
// for rows of different lengths (the fallback). A profile in which the rows differed
// speculates nothing and says why; a profile of another version of the source warns.
// L2 is fixed at 256K: the nest's reuse (about 520 KB) fits in half of the 2 MiB L2 some
// hosts have, where the region has nothing to gain and is left unchanged.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate=%t/p.json \
// RUN:   -mllvm -polyrust-instrument=accesses %s -o %t/instrumented %rtlib
// RUN: %t/instrumented 40 30 > %t/instrumented.out
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/p.json %s \
// RUN:   -mllvm -polyrust-l2-cache=256K \
// RUN:   -o %t/speculated -Rpass=polyrust -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=USE
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 40 30 > %t/plain.out
// RUN: cmp %t/plain.out %t/instrumented.out
// RUN: %t/plain 40 17 >> %t/plain.out
// RUN: %t/plain 40 30 5 >> %t/plain.out
// RUN: %t/plain 1 30 >> %t/plain.out
// RUN: %t/speculated 40 30 > %t/speculated.out
// RUN: %t/speculated 40 17 >> %t/speculated.out
// RUN: %t/speculated 40 30 5 >> %t/speculated.out
// RUN: %t/speculated 1 30 >> %t/speculated.out
// RUN: cmp %t/plain.out %t/speculated.out
//
// The check loop in front of the nest, its result in the region's run-time check, and
// the original loops behind it.
// RUN: %clang -O3 -fno-discard-value-names -S -emit-llvm -fpass-plugin=%plugin \
// RUN:   -mllvm -polyrust-profile-use=%t/p.json -mllvm -polyrust-l2-cache=256K %s -o %t/speculated.ll
// RUN: %FileCheck %s --check-prefix=IR < %t/speculated.ll
// RUN: %FileCheck %s --check-prefix=FALLBACK < %t/speculated.ll
//
// A profile where row 5 was shorter: nothing to speculate, and a remark says why.
// RUN: env POLYRUST_PROFILE_FILE=%t/uneven.json %t/instrumented 40 30 5 > /dev/null
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/uneven.json %s \
// RUN:   -S -emit-llvm -o /dev/null -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=UNEVEN
//
// Another version of the source: a warning, no speculation.
// RUN: sed 's/Each row i/Each row  i/' %s > %t/edited.c
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/p.json %t/edited.c \
// RUN:   -S -emit-llvm -o %t/edited.ll -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=STALE
// RUN: %FileCheck %s --check-prefix=NOCHECK < %t/edited.ll
//
// USE: bounds-two-run.c:[[@LINE+33]]:3: remark: loop nest speculated on its loaded bound: in the profiled run ({{.*}}p.json) the loop at line [[@LINE+34]] ran 30 iterations in every outer iteration, so len[i] is taken to be the value the first outer iteration loads; a check loop in front of the nest compares len[i] in every outer iteration, and the original loops run if one differs
// USE: bounds-two-run.c:[[@LINE+32]]:3: remark: region in rows at bounds-two-run.c:[[@LINE+32]] optimized ({{.*}}), behind a run-time check that also compares len[i] in every outer iteration with its first value (from the profile)
//
// IR-LABEL: define {{.*}} @rows(
// IR: [[FIRST:%[0-9]+]] = load i32, ptr %len
// IR-NEXT: br label %polyrust.bound.compare
// IR: polyrust.bound.compare:
// IR-NEXT: %polyrust.bound.k = phi i64 [ 0, %{{[A-Za-z0-9.]+}} ], [ {{%[0-9]+}}, %polyrust.bound.compare ]
// IR: [[ROW:%[0-9]+]] = load i32, ptr
// IR-NEXT: [[SAME:%[0-9]+]] = icmp eq i32 [[ROW]], [[FIRST]]
// IR: br i1 {{%[0-9]+}}, label %polyrust.bound.compare, label %polyrust.check
// IR: polyrust.check:
// IR: and i1 {{%[0-9]+}}, [[SAME]]
// IR-NEXT: br i1 {{%[0-9]+}}, label %polyrust.start, label %polyrust.bound.fallback
// IR: polyrust.start:
// The original loops behind the check, themselves optimized as without speculation
// (the inner loops, one row at a time).
// FALLBACK: polyrust.bound.fallback:{{.*}}preds = %polyrust.check
// FALLBACK: br label %for.cond1.preheader
//
// UNEVEN: remark: loop nest not speculated from the folded profile ({{.*}}uneven.json): the loop at line [[@LINE+14]]: its iteration count changed from one outer iteration to another
// UNEVEN-NOT: speculated on its loaded bound
//
// STALE: warning: polyrust: -polyrust-profile-use: {{.*}}p.json was recorded from another version of {{.*}}bounds-two-run.c; regenerate it
// STALE-NOT: speculated on its loaded bound
// NOCHECK-NOT: polyrust.bound

#include <stdio.h>
#include <stdlib.h>

/* Each row i of C gets len[i] columns: C[i][j] = sum_k A[i][k] * B[j][k]. */
__attribute__((noinline)) void rows(int n, int m, const int *len, double C[][256],
                                    const double A[][256], const double B[][256]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < len[i]; j++) {
      double s = 0;
      for (int k = 0; k < m; k++)
        s += A[i][k] * B[j][k];
      C[i][j] = s;
    }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 40;
  int width = argc > 2 ? atoi(argv[2]) : 30;
  int odd = argc > 3 ? atoi(argv[3]) : -1;
  int m = 256;
  int *len = malloc(sizeof(int) * n);
  double(*A)[256] = malloc(sizeof(double) * 256 * n);
  double(*B)[256] = malloc(sizeof(double) * 256 * 256);
  double(*C)[256] = calloc(n, sizeof(double) * 256);
  for (int i = 0; i < n; i++) {
    len[i] = i == odd ? width / 2 : width;
    for (int k = 0; k < m; k++)
      A[i][k] = (double)((i * 7 + k) % 11) / 8.0;
  }
  for (int j = 0; j < 256; j++)
    for (int k = 0; k < m; k++)
      B[j][k] = (double)((j * 3 + k * 5) % 13) / 16.0;
  rows(n, m, len, C, A, B);
  double sum = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 256; j++)
      sum += C[i][j] * (double)((i + j) % 5);
  printf("%.6f\n", sum);
  return 0;
}
