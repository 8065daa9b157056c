// On x86-64's baseline target (plain -O3, no -march), a matrix product is still the
// packed kernel's: its assembly (built for AVX2 and FMA with the plugin, local to the
// object: no .globl) put in the module's inline assembly, called only
// when the CPU has both (a test of __cpu_model in the region's run-time check), the
// original loops otherwise. The loop's fmuladd is a multiply and an add on this target,
// so are the kernel's steps (fused = 0), whatever the CPU could do. The caches are given
// so that the blocks do not depend on the host.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes='print<polyrust-ast>' -polyrust-l1-cache=32K -polyrust-l2-cache=512K \
// RUN:   -disable-output 2>&1 | %FileCheck %s
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -S | %FileCheck %s --check-prefix=IR
// A target with SSE4.2 but no AVX (x86-64-v2) is tested the same way.
// RUN: %o3ir -march=x86-64-v2 -fno-discard-value-names %s | %opt %loadpolyrust \
// RUN:   -passes=polyrust -polyrust-l1-cache=32K -polyrust-l2-cache=512K -S \
// RUN:   | %FileCheck %s --check-prefix=IR
// With AVX2 and FMA in the target, no test of the CPU: the kernel takes the caller's
// target attributes.
// RUN: %o3ir -mavx2 -mfma -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust \
// RUN:   -polyrust-l1-cache=32K -polyrust-l2-cache=512K -S | %FileCheck %s --check-prefix=AVX2
// On a target other than x86-64 Linux (here FreeBSD) the kernel's IR is linked in
// instead, with AVX2 and FMA added to its own target features.
// RUN: %o3ir --target=x86_64-unknown-freebsd -fno-discard-value-names %s \
// RUN:   | %opt %loadpolyrust -passes=polyrust -polyrust-l1-cache=32K \
// RUN:   -polyrust-l2-cache=512K -S | %FileCheck %s --check-prefix=LINKED
// The remark, from clang, says what the CPU needs.
// RUN: %clang -O3 -g -c -o /dev/null -fpass-plugin=%plugin -Rpass=polyrust \
// RUN:   -mllvm -polyrust-l1-cache=32K -mllvm -polyrust-l2-cache=512K %s 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=REMARK

void gemm(int ni, int nj, int nk, double alpha, double beta, double C[ni][nj],
          double A[ni][nk], double B[nk][nj]) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
// CHECK-LABEL: polyrust-ast: function 'gemm'
// CHECK: New code of gemm{{.*}} (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed, blocks 126 x 256, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact, needs AVX2 and FMA at run time, original loops otherwise):
// CHECK-NEXT: polyrust_product_scaled_f64({{.*}}fused = 0{{.*}}) if the CPU has AVX2 and FMA

// IR: module asm "# polyrust kernel products_scaled"
// IR-NOT: globl
// IR: module asm "polyrust_product_scaled_f64:
// IR-NOT: globl
// IR: module asm "\09.popsection"
// IR-NOT: globl
// IR-LABEL: define {{.*}}void @gemm(
// IR: polyrust.check:
// IR: call void @__cpu_indicator_init()
// IR: %[[FEATURES:.*]] = load i32, ptr getelementptr inbounds {{(nuw )?}}(i8, ptr @__cpu_model, i64 12)
// IR: %[[AVX2_FMA:.*]] = and i32 %[[FEATURES]], 17408
// IR: %[[HAS:.*]] = icmp eq i32 %[[AVX2_FMA]], 17408
// IR: %[[OK:.*]] = and i1 %{{.*}}, %[[HAS]]
// IR: br i1 %[[OK]], label %polyrust.start
// IR: call void @polyrust_product_scaled_f64({{.*}}, i64 126, i64 256, i64 0,
// IR-NOT: define {{.*}}@polyrust_product_scaled_f64
// IR: declare hidden void @polyrust_product_scaled_f64(

// LINKED-NOT: module asm
// LINKED: call void @polyrust_product_scaled_f64({{.*}}, i64 126, i64 256, i64 0,
// LINKED: define internal void @polyrust_product_scaled_f64({{.*}}) {{.*}}#[[KERNEL:[0-9]+]]
// LINKED: attributes #[[KERNEL]] = { {{.*}}"polyrust-kernel"{{.*}}"target-features"="{{.*}},+avx2,+fma"

// AVX2-LABEL: define {{.*}}void @gemm(
// AVX2-NOT: __cpu_model
// AVX2: call void @polyrust_product_scaled_f64({{.*}}, i64 126, i64 256, i64 1,
// AVX2-NOT: __cpu_model

// REMARK: remark: region in gemm at {{.*}} optimized (matrix product C[i][j] += alpha * A[i][k] * B[k][j] (beta-scaled C): packed, blocks 126 x 256, micro-kernel 6 x 8 (products rounded before they are added, as written), bit-exact, needs AVX2 and FMA at run time, original loops otherwise), behind a run-time check
