// Every region of a function can be rewritten: the pass rewrites one, tags the loops it
// generated and the original loops it keeps as fallback with "polyrust.handled", and
// runs again with fresh analyses until no region is left to rewrite. Tagged loops are
// never rewritten again, not even by a second run of the pass.
// RUN: %o3ir -g %s -o %t.ll
// RUN: %opt %loadpolyrust -passes=polyrust,verify -pass-remarks=polyrust \
// RUN:   -pass-remarks-analysis=polyrust -S %t.ll -o %t.out.ll 2>&1 | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=IR < %t.out.ll
// RUN: %opt %loadpolyrust -passes=polyrust,polyrust,verify -pass-remarks=polyrust \
// RUN:   -disable-output %t.ll 2>&1 | %FileCheck %s --check-prefix=TWICE

#define N 1024
double A[N][N], B[N][N];
void opaque(void);

void two(int n) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      A[i][j] = 2.0 * B[i][j];
  opaque();
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      B[i][j] = A[i][j] + 1.0;
}
// Each region is reported once, decided once.
// CHECK: remark: {{.*}}regions-per-function.c:17:3: SCoP begins here.
// CHECK: remark: {{.*}}regions-per-function.c:21:3: SCoP begins here.
// CHECK: remark: {{.*}}regions-per-function.c:17:3: region in two at regions-per-function.c:17 optimized (loops reordered: 2 strided accesses in innermost loops -> 0), behind a run-time check
// CHECK-NEXT: remark: {{.*}}regions-per-function.c:21:3: region in two at regions-per-function.c:21 optimized (loops reordered: 2 strided accesses in innermost loops -> 0), behind a run-time check
// CHECK-NOT: remark

// IR-LABEL: define {{.*}}@two(
// IR: polyrust.check
// IR: polyrust.check
// IR-DAG: !{!"polyrust.handled"}

// TWICE-COUNT-2: region in two at {{.*}} optimized
// TWICE-NOT: optimized
