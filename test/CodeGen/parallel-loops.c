// Generated loops that carry no dependence (flow, anti or output, on arrays and on
// scalars) once the loops around them are fixed get llvm.loop.parallel_accesses, with
// every memory access of their statements in the loop's access group; loops that
// carry one do not. Every generated loop is tagged "polyrust.handled".
// RUN: %o3ir %s -o %t.ll
// RUN: %opt %loadpolyrust -passes='polyrust-function,verify' -S %t.ll -o - | %FileCheck %s

#define N 1024
double A[N][N], B[N][N];

// Interchanged; no dependence at all: both loops are parallel, and the accesses are in
// the groups of both.
void columns(int n) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      A[i][j] = 2.0 * B[i][j];
}
// CHECK-LABEL: define {{.*}}@columns(
// CHECK: load double, {{.*}} !llvm.access.group [[BOTH:![0-9]+]]
// CHECK: store double {{.*}} !llvm.access.group [[BOTH]]
// CHECK: br i1 %{{[0-9]+}}, label %polyrust.body{{[0-9]*}}, label %{{.*}}, !llvm.loop [[INNER:![0-9]+]]
// CHECK: br i1 %{{[0-9]+}}, label %polyrust.body{{[0-9]*}}, label %{{.*}}, !llvm.loop [[OUTER:![0-9]+]]

// Interchanged; the row loop (now outermost) carries A[i-1][j] -> A[i][j], the column
// loop inside it carries nothing.
void recurrence(int n) {
  for (int j = 0; j < n; j++)
    for (int i = 1; i < n; i++)
      A[i][j] = A[i - 1][j] + B[i][j];
}
// CHECK-LABEL: define {{.*}}@recurrence(
// CHECK: store double {{.*}} !llvm.access.group [[ONE:![0-9]+]]
// CHECK: br i1 %{{[0-9]+}}, label %polyrust.body{{[0-9]*}}, label %{{.*}}, !llvm.loop [[RINNER:![0-9]+]]
// CHECK: br i1 %{{[0-9]+}}, label %polyrust.body{{[0-9]*}}, label %{{.*}}, !llvm.loop [[ROUTER:![0-9]+]]

// CHECK-DAG: [[BOTH]] = !{[[G1:![0-9]+]], [[G2:![0-9]+]]}
// CHECK-DAG: [[HANDLED:![0-9]+]] = !{!"polyrust.handled"}
// CHECK-DAG: [[INNER]] = distinct !{[[INNER]], [[HANDLED]], [[PI:![0-9]+]]}
// CHECK-DAG: [[OUTER]] = distinct !{[[OUTER]], [[HANDLED]], [[PO:![0-9]+]]}
// CHECK-DAG: [[ONE]] = distinct !{}
// CHECK-DAG: [[RINNER]] = distinct !{[[RINNER]], [[HANDLED]], [[PR:![0-9]+]]}
// CHECK-DAG: [[PR]] = !{!"llvm.loop.parallel_accesses", [[ONE]]}
// CHECK-DAG: [[ROUTER]] = distinct !{[[ROUTER]], [[HANDLED]]}
