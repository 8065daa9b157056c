// Row-pointer arrays (`double **G; Gi = G[i]; Gi[j] = ... G[i-1][j]`): every row's base
// pointer is loaded from a table inside the nest, which detection alone rejects ("base
// pointer is computed inside the loop nest"). The nest is versioned: a copy computes the
// rows as one allocation cut at a fixed stride (the first row's pointer and the stride,
// loaded once in front of it, become parameters), and the run-time check loops over
// the rows the region uses (each table entry must hold its row at that stride) and
// keeps the table apart from every array written; when it fails, the original runs.
// RUN: %detect -Rpass=polyrust %s 2>&1 | %FileCheck %s --check-prefix=REMARK
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fno-discard-value-names -fpass-plugin=%plugin -mllvm -polyrust-export=%t/model -c %s -o /dev/null
// RUN: cat %t/model/sor_*.json | %FileCheck %s --check-prefix=MODEL
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust-function \
// RUN:   -polyrust-force-codegen -S -o %t/forced.ll
// RUN: %FileCheck %s --check-prefix=IR < %t/forced.ll
// RUN: %opt -passes=verify -disable-output %t/forced.ll

// SciMark's SOR sweep: GVN carries G[i+1] of one iteration into the next as G[i] (a
// phi), and G[i-1], G[i+1] are loads; all three are rows of the one table G.
// REMARK: row-pointers.c:[[@LINE+5]]:3: remark: the loop nest reads its rows' pointers from G: a copy of the nest computes them as rows of one allocation at a fixed stride, and runs when the run-time check finds every row it uses there and the table apart from every array the nest writes
// REMARK: row-pointers.c:[[@LINE+4]]:3: remark: SCoP begins here.
// REMARK-NOT: loop not modelled
void sor(int M, int N, double omega, double **G, int iters) {
  double o4 = omega * 0.25, om = 1.0 - omega;
  for (int p = 0; p < iters; p++)
    for (int i = 1; i < M - 1; i++) {
      double *Gi = G[i], *Gim1 = G[i - 1], *Gip1 = G[i + 1];
      for (int j = 1; j < N - 1; j++)
        Gi[j] = o4 * (Gim1[j] + Gip1[j] + Gi[j - 1] + Gi[j + 1]) + om * Gi[j];
    }
}
// The copy's parameters include the first row's pointer and the stride.
// MODEL: "name": "sor:polyrust.hoisted",
// MODEL: "params": [
// MODEL-DAG: "polyrust_rows_base"
// MODEL-DAG: "polyrust_rows_stride"
// MODEL: ],

// A matrix product over three tables is tiled like one over plain arrays.
// REMARK: row-pointers.c:[[@LINE+3]]:3: remark: the loop nest reads its rows' pointers from {{.*}}A{{.*}}: a copy
// REMARK: remark: region in product at row-pointers.c:[[@LINE+2]] optimized
void product(int n, double **C, double **A, double **B) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}

// The nest also writes the table (a row swap): the check could never pass, so it is
// not versioned and stays rejected.
// REMARK-NOT: remark: the loop nest reads its rows' pointers
// REMARK: row-pointers.c:[[@LINE+2]]:3: remark: loop not modelled: base pointer is computed inside the loop nest
void swap_and_scale(int n, double **A) {
  for (int i = 1; i < n; i++) {
    double *t = A[i];
    A[i] = A[i - 1];
    A[i - 1] = t;
    for (int j = 0; j < n; j++)
      A[i][j] *= 2.0;
  }
}

// A row pointer that is also stored (not only used to address its row) is not computed.
// REMARK-NOT: remark: the loop nest reads its rows' pointers
// REMARK: row-pointers.c:[[@LINE+2]]:3: remark: loop not modelled: base pointer is computed inside the loop nest
void keep_last(int n, double **A, double **last) {
  for (int i = 0; i < n; i++) {
    double *Ai = A[i];
    *last = Ai;
    for (int j = 0; j < n; j++)
      Ai[j] += 1.0;
  }
}

// The versioning in front of the sweep: the first row's pointer and the next one are
// loaded once, the stride is their distance; the check calls the loop over the rows,
// and a failing check runs the original nest.
// IR-LABEL: define {{.*}}@sor(
// IR: %polyrust.rows.base = {{.*}}ptr
// IR: %polyrust.rows.next = load ptr
// IR: ashr i64 %{{.*}}, 3, !polyrust.rows.stride
// IR: br i1 true, label %{{.*}}, label %[[ORIGINAL:[^,]+]], !polyrust.hoisted
// IR: polyrust.check:
// IR: call i1 @polyrust.rows_at_stride(i1 %{{.*}}, ptr {{.*}}, i64 %{{.*}}, i64 %{{.*}}, ptr %polyrust.rows.base, i64 %{{.*}})
// IR-NEXT: br i1 %{{.*}}, label %polyrust.start, label %polyrust.hoisted.fallback
// IR: polyrust.hoisted.fallback:
// IR-NEXT: br i1 true, label %[[ORIGINAL]], label %polyrust.hoisted
// The loop over the rows: each table entry against the first row plus k rows.
// IR-LABEL: define internal i1 @polyrust.rows_at_stride(i1 %0, ptr %1, i64 %2, i64 %3, ptr %4, i64 %5)
// IR: %k = phi i64
// IR: load ptr
// IR: mul i64 %k, %5
// IR: icmp eq ptr
