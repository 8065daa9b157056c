// A nest instrumented for accesses is profiled as written: polyrust does not optimize
// it in the same compile, though it does without the instrumentation.
//
// RUN: %clang -O2 -S -emit-llvm -fpass-plugin=%plugin %s -o /dev/null -Rpass=polyrust 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=PLAIN
// RUN: %clang -O2 -S -emit-llvm -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s -o %t.ll -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
// RUN: %FileCheck %s --check-prefix=IR < %t.ll
//
// PLAIN: remark: region in matmul at {{.*}} optimized
//
// CHECK: remark: loop nest instrumented: its 3 loops and {{[0-9]+}} memory accesses report their iteration vectors (nest matmul:0:{{[0-9a-f]+}})
// CHECK-NOT: optimized
//
// One call in front of the nest: the loops were not versioned or copied (but for the
// instrumentation's plain copy, which counts its outermost iterations and is not
// optimized either).
// IR-COUNT-1: call i32 @polyrust_rt_nest_begin(
// IR-NOT: call i32 @polyrust_rt_nest_begin(

void matmul(int n, double A[n][n], double B[n][n], double C[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}
