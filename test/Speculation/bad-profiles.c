// -polyrust-profile-use with a profile that cannot be used (missing, empty, cut short,
// not a profile, another format version, hostile: deep nesting, out-of-range numbers)
// or recorded from another version of this source (an edit that keeps the lines, one
// that moves them): exactly one warning for the two nests, clang exits 0, and the
// program prints what plain -O3's prints.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain > %t/plain.out
// RUN: %clang -O2 -fpass-plugin=%plugin -mllvm -polyrust-profile-generate %s -o %t/instrumented %rtlib
// RUN: env POLYRUST_PROFILE_FILE=%t/run-%%p.json %t/instrumented > %t/instrumented.out
// RUN: cmp %t/plain.out %t/instrumented.out
// RUN: %polyrust-prof merge -o %t/real.polyprof %t/run-*.json
// The profile does specialize this source, so the stale cases below are stale only.
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/real.polyprof %s \
// RUN:   -o %t/real -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=REAL
// RUN: %t/real > %t/real.out
// RUN: cmp %t/plain.out %t/real.out
//
// RUN: touch %t/empty.json
// RUN: head -c 100 %t/real.polyprof > %t/truncated.json
// RUN: echo '{"hello": 1}' > %t/hello.json
// RUN: cp %S/../Runtime/Inputs/future.polyprof.json %t/future.json
// RUN: python3 -c "print('[' * 100000)" > %t/deep.json
// RUN: python3 -c "print('{\"format\": \"polyrust-profile\", \"version\": 1, \"regions\": ' + '[' * 100000)" > %t/deep-regions.json
// RUN: sed -e 's/"count": [0-9]*/"count": 1e999/' %t/real.polyprof > %t/huge-count.json
// RUN: sed -e 's/"entries": [0-9]*/"entries": 1e999/' %t/real.polyprof > %t/huge-entries.json
// RUN: echo '// an edit after the loops' > %t/edit.txt
// RUN: cat %s %t/edit.txt > %t/bad-profiles.c
// RUN: mkdir -p %t/moved && cat %t/edit.txt %s > %t/moved/bad-profiles.c
//
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/missing.json %s -o %t/missing 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=MISSING,ONCE
// RUN: %t/missing > %t/missing.out
// RUN: cmp %t/plain.out %t/missing.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/empty.json %s -o %t/empty 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=EMPTY,ONCE
// RUN: %t/empty > %t/empty.out
// RUN: cmp %t/plain.out %t/empty.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/truncated.json %s -o %t/truncated 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=TRUNCATED,ONCE
// RUN: %t/truncated > %t/truncated.out
// RUN: cmp %t/plain.out %t/truncated.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/hello.json %s -o %t/hello 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=HELLO,ONCE
// RUN: %t/hello > %t/hello.out
// RUN: cmp %t/plain.out %t/hello.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/future.json %s -o %t/future 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=FUTURE,ONCE
// RUN: %t/future > %t/future.out
// RUN: cmp %t/plain.out %t/future.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/deep.json %s -o %t/deep 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=DEEP,ONCE
// RUN: %t/deep > %t/deep.out
// RUN: cmp %t/plain.out %t/deep.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/deep-regions.json %s -o %t/deep-regions 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=DEEPREGIONS,ONCE
// RUN: %t/deep-regions > %t/deep-regions.out
// RUN: cmp %t/plain.out %t/deep-regions.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/huge-count.json %s -o %t/huge-count 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=HUGECOUNT,ONCE
// RUN: %t/huge-count > %t/huge-count.out
// RUN: cmp %t/plain.out %t/huge-count.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/huge-entries.json %s -o %t/huge-entries 2>&1 \
// RUN:   | %FileCheck %s --check-prefixes=HUGEENTRIES,ONCE
// RUN: %t/huge-entries > %t/huge-entries.out
// RUN: cmp %t/plain.out %t/huge-entries.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/real.polyprof %t/bad-profiles.c \
// RUN:   -o %t/stale -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefixes=STALE,ONCE
// RUN: %t/stale > %t/stale.out
// RUN: cmp %t/plain.out %t/stale.out
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-profile-use=%t/real.polyprof %t/moved/bad-profiles.c \
// RUN:   -o %t/moved/stale -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefixes=STALE,ONCE
// RUN: %t/moved/stale > %t/moved.out
// RUN: cmp %t/plain.out %t/moved.out
//
// REAL-COUNT-2: remark: loop nest specialized for
// MISSING: warning: polyrust: -polyrust-profile-use: cannot read profile '{{.*}}missing.json': No such file or directory {{.*}}; compiling without speculation
// EMPTY: warning: polyrust: -polyrust-profile-use: profile '{{.*}}empty.json' is not valid JSON (EOF while parsing a value {{.*}}; compiling without speculation
// TRUNCATED: warning: polyrust: -polyrust-profile-use: profile '{{.*}}truncated.json' is not valid JSON (EOF while parsing {{.*}}); it may be cut short{{.*}}; compiling without speculation
// HELLO: warning: polyrust: -polyrust-profile-use: '{{.*}}hello.json' is not a polyrust profile (no "format": "polyrust-profile"){{.*}}; compiling without speculation
// FUTURE: warning: polyrust: -polyrust-profile-use: profile '{{.*}}future.json' was written by another version of polyrust (format 7, this one reads 1 to 2); regenerate it{{.*}}; compiling without speculation
// DEEP: warning: polyrust: -polyrust-profile-use: '{{.*}}deep.json' is not a polyrust profile {{.*}}; compiling without speculation
// DEEPREGIONS: warning: polyrust: -polyrust-profile-use: profile '{{.*}}deep-regions.json' is not valid JSON ({{.*}}); {{.*}}compiling without speculation
// HUGECOUNT: warning: polyrust: -polyrust-profile-use: profile '{{.*}}huge-count.json' is not valid JSON (number out of range {{.*}}); {{.*}}compiling without speculation
// HUGEENTRIES: warning: polyrust: -polyrust-profile-use: profile '{{.*}}huge-entries.json' is not valid JSON (number out of range {{.*}}); {{.*}}compiling without speculation
// STALE: warning: polyrust: -polyrust-profile-use: {{.*}}real.polyprof was recorded from another version of {{.*}}bad-profiles.c; regenerate it {{.*}}; loop nests of this file are compiled without speculation
// STALE-NOT: remark: loop nest specialized
// ONCE-NOT: warning:
// ONCE: 1 warning generated.
// ONCE-NOT: warning

#include <stdio.h>
#include <stdlib.h>

/* Two nests that strided views keep from being regions: one warning for both. */
__attribute__((noinline)) void mm_view(int n, const double *A, long sa0, long sa1,
                                       const double *B, long sb0, long sb1, double *C,
                                       long sc0, long sc1) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i * sc0 + j * sc1] += A[i * sa0 + k * sa1] * B[k * sb0 + j * sb1];
}

__attribute__((noinline)) void add_view(int n, double *C, long s0, long s1, const double *A) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      C[i * s0 + j * s1] += A[i * n + j];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 48;
  double *A = malloc(sizeof(double) * n * n);
  double *B = malloc(sizeof(double) * n * n);
  double *C = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n * n; i++) {
    A[i] = (double)((i * 7) % 13) / 7.0;
    B[i] = (double)((i * 5) % 11) / 3.0;
  }
  mm_view(n, A, n, 1, B, n, 1, C, n, 1);
  add_view(n, C, n, 1, A);
  double sum = 0;
  for (int i = 0; i < n * n; i++)
    sum += C[i] * (double)(i % 17);
  printf("%d %.17g %.17g\n", n, sum, C[n * n - 1]);
  free(A);
  free(B);
  free(C);
  return 0;
}
