// Register tiling: after cache tiling, the point loops outside the vectorized innermost
// loop are unrolled and jammed into it, so that each vector loaded there is used by
// several copies from a register (B[k][j] by the copies of i, C[i][j] by the copies of
// k). The copies' live vectors take at most half the target's vector registers: 4x4
// with AVX-512's 32 and with SSE's 16. Full register tiles carry no condition; partial
// ones at the edges keep theirs.
// The machine's caches are given so that the sizes do not depend on the host; the packed
// product (test/Products), which takes such nests even on the baseline target, is off.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -mattr=+avx512f -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-products=false -disable-output 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=AVX512
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-products=false -disable-output 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=SSE
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -polyrust-register-tiling=false -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-products=false \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=OFF
// The copies' loads and stores carry the run-time check's alias scopes: without them
// LLVM reloads B after each store to C, and the copies gain nothing.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust -S \
// RUN:   -polyrust-l1-cache=48K -polyrust-l2-cache=1M -polyrust-products=false | %FileCheck %s --check-prefix=IR
// Outputs are those of -O3, for sizes the factors and tiles divide and do not.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-products=false %s -o %t/jammed -Rpass=polyrust 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=REMARK
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 1 3 4 37 64 101 > %t/plain.out
// RUN: %t/jammed 1 3 4 37 64 101 > %t/jammed.out
// RUN: cmp %t/plain.out %t/jammed.out

#include <stdio.h>
#include <stdlib.h>

// The textbook order: LICM keeps C[i][j] in a register across k before polyrust runs.
__attribute__((noinline)) void product(int n, double (*C)[n], double (*A)[n],
                                       double (*B)[n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}
// AVX512-LABEL: polyrust-ast: function 'product'
// AVX512: New AST of product{{.*}}; register tiles of 4x4 copies around the innermost loop (32 vector registers): memory traffic estimated {{[0-9.]+}}x lower):
// AVX512:      for (int c5 = 0; c5 <= min({{.*}}); c5 += 1) {
// AVX512-NEXT:   S0(c0 + 4 * c3, c2 + c5, c1 + 4 * c4);
// AVX512-NEXT:   S0(c0 + 4 * c3, c2 + c5, c1 + 4 * c4 + 1);
// AVX512-NEXT:   S0(c0 + 4 * c3, c2 + c5, c1 + 4 * c4 + 2);
// AVX512-NEXT:   S0(c0 + 4 * c3, c2 + c5, c1 + 4 * c4 + 3);
// AVX512-NEXT:   S0(c0 + 4 * c3 + 1, c2 + c5, c1 + 4 * c4);
// AVX512:        S0(c0 + 4 * c3 + 3, c2 + c5, c1 + 4 * c4 + 3);
// AVX512-NEXT: }
// The partial register tiles, apart.
// AVX512:      if (
// SSE-LABEL: polyrust-ast: function 'product'
// SSE: New AST of product{{.*}}; register tiles of 4x4 copies around the innermost loop (16 vector registers): memory traffic estimated {{[0-9.]+}}x lower):
// SSE:      for (int c5 = 0; c5 <= min({{.*}}); c5 += 1) {
// SSE-NEXT:   S0(c0 + 4 * c3, c2 + c5, c1 + 4 * c4);
// OFF-LABEL: polyrust-ast: function 'product'
// OFF: New AST of product
// OFF-NOT: register tiles
// OFF: polyrust-ast: function 'main'
// IR-LABEL: define {{.*}}@product(
// IR:       %polyrust.promoted = load double, ptr [[CP:%[^,]*]], align 8, !alias.scope [[CS:![0-9]+]], !noalias [[CN:![0-9]+]], !llvm.access.group
// IR:       [[B0:%[0-9]+]] = load double, ptr %{{.*}}, align 8, !tbaa !{{[0-9]+}}, !alias.scope [[BS:![0-9]+]], !noalias
// IR:       store double %{{.*}}, ptr [[CP]], align 8, !alias.scope [[CS]], !noalias [[CN]]
// The next copy of i uses the element of B already loaded.
// IR:       %polyrust.promoted{{[0-9]+}} = load double
// IR-NOT:   !tbaa
// IR:       call double @llvm.fmuladd.f64(double %{{.*}}, double [[B0]], double %polyrust.promoted{{[0-9]+}})
// IR-DAG:   [[CS]] = !{[[C:![0-9]+]]}
// IR-DAG:   [[BS]] = !{[[B:![0-9]+]]}
// IR-DAG:   [[CN]] = !{{.*}}[[B]]
// IR-DAG:   [[C]] = distinct !{[[C]], [[DOMAIN:![0-9]+]]}
// IR-DAG:   [[B]] = distinct !{[[B]], [[DOMAIN]]}
// IR-DAG:   [[DOMAIN]] = distinct !{[[DOMAIN]], !"polyrust"}
// REMARK: remark: region in product at {{.*}} optimized ({{.*}}register tiles of 4x4 copies around the innermost loop

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    double (*A)[n] = malloc(sizeof(double) * n * n);
    double (*B)[n] = malloc(sizeof(double) * n * n);
    double (*C)[n] = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        A[i][j] = (double)((i * 7 + j * 3) % 11) / 7.0;
        B[i][j] = (double)((i * 5 + j) % 13) / 3.0;
        C[i][j] = (double)(i - j) / 9.0;
      }
    product(n, C, A, B);
    double sum = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        sum += C[i][j] * (double)(i + 2 * j + 1);
    printf("n=%d %.17g %.17g\n", n, sum, n > 0 ? C[n - 1][n / 2] : 0.0);
    free(A);
    free(B);
    free(C);
  }
  return 0;
}
