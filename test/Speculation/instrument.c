// -polyrust-profile-generate gives each loop nest that only region-invariant values
// keep from being a region (here the run-time strides of a view) a call into the
// runtime at its entry, with a descriptor naming the nest and the values; nests that
// are regions already, and nests with other problems (an opaque call), get none.
//
// RUN: %clang -O2 -g -S -emit-llvm -fpass-plugin=%plugin \
// RUN:   -mllvm -polyrust-profile-generate=prog-%%p.json %s -o - -Rpass-analysis=polyrust \
// RUN:   -Rpass-missed=polyrust 2> %t.remarks | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// Without the option, nothing is instrumented.
// RUN: %clang -O2 -S -emit-llvm -fpass-plugin=%plugin %s -o - | %FileCheck %s --check-prefix=OFF
//
// CHECK-DAG: @polyrust.id{{[.0-9]*}} = private unnamed_addr constant [{{[0-9]+}} x i8] c"add_view:{{[0-9]+}}:{{[0-9a-f]+}}\00"
// CHECK-DAG: @polyrust.profile{{[.0-9]*}} = private unnamed_addr constant {{.*}} c"prog-%p.json\00"
// CHECK-DAG: @polyrust.value{{[.0-9]*}} = private unnamed_addr constant {{.*}} c"sa\00"
// CHECK-DAG: @polyrust.region{{[.0-9]*}} = private unnamed_addr constant { i32, i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, ptr } { i32 1, i32 {{[0-9]+}}, i32 0, i32 [[#ADD_LINE:]],
// CHECK-LABEL: define {{.*}}void @add_view(
// CHECK: call void @polyrust_rt_enter(ptr nonnull @polyrust.region{{[.0-9]*}}, ptr nonnull %{{[0-9a-z.]+}}, ptr null)
// CHECK-LABEL: define {{.*}}void @add_rows(
// CHECK-NOT: polyrust_rt_enter
// CHECK-LABEL: define {{.*}}void @add_view_call(
// CHECK-NOT: polyrust_rt_enter
// CHECK: declare void @polyrust_rt_enter(ptr, ptr, ptr)
//
// REMARK: instrument.c:[[@LINE+8]]:3: remark: loop nest instrumented: each entry records {{.*}}sa{{.*}} for profile-guided specialization (region add_view:0:{{[0-9a-f]+}})
// REMARK-NOT: remark: loop nest instrumented
//
// OFF-NOT: polyrust_rt_enter

void opaque(double);

void add_view(int n, int m, double *A, long sa, long sb, const double *B) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i * sa + j * sb] += B[i * m + j];
}

void add_rows(int n, int m, double *A, const double *B) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i * m + j] += B[i * m + j];
}

void add_view_call(int n, long sa, double *A) {
  for (int i = 0; i < n; i++) {
    A[i * sa * sa] += 1.0;
    opaque(A[i]);
  }
}
