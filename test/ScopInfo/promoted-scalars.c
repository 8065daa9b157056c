// Promoted scalars: values LLVM keeps in a register across a loop are modelled as
// accesses to the array element they come from, so the loops around them can be
// reordered (detect/promoted.rs).
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s

// C may alias A and B: GVN forwards C[i][j] from one iteration's store to the next
// load, so the element is loaded before the k loop, carried in a phi and stored in
// every iteration.
void mm_stored_in_loop(int n, double (*C)[n], double (*A)[n], double (*B)[n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}

// With restrict, LICM promotes the element: loaded before the loop, stored after it.
// Both become identities and leave the model; one statement remains.
void mm_stored_after(int n, double (*restrict C)[n], double (*restrict A)[n],
                     double (*restrict B)[n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}

// An accumulator that starts from 0 and is stored after its loop, then mirrored: the
// element is written with 0 before the loop, updated in it, and read after it for
// the mirrored store.
void gram(int n, int m, double (*restrict G)[m], double (*restrict X)[m]) {
  for (int a = 0; a < m; a++)
    for (int b = a; b < m; b++) {
      double s = 0.0;
      for (int i = 0; i < n; i++)
        s += X[i][a] * X[i][b];
      G[a][b] = s;
      G[b][a] = s;
    }
}

// The store after the loop is conditional: the element may keep its old value, so
// the accumulator stays a scalar.
void conditional_store(int n, double (*restrict C)[n], double (*restrict A)[n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++)
        s += A[i][k] * A[j][k];
      if (s > 1.0)
        C[i][j] = s;
    }
}

// The last value is used after the loop nest: it stays a scalar, written in the loop
// and read by no statement of the region (the code after the region reads its last
// value, which the output dependences keep last).
double used_after(int n, double (*restrict C)[n], double (*restrict A)[n]) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      s = C[i][j];
      for (int k = 0; k < n; k++)
        s += A[i][k];
      C[i][j] = s;
    }
  return s;
}

// The element is overwritten after the loop with a value computed from the
// accumulator: its old contents are dead, so the accumulator lives there.
void gram_scaled(int n, int m, double d, double (*restrict G)[m], double (*restrict X)[m]) {
  for (int a = 0; a < m; a++)
    for (int b = a; b < m; b++) {
      double s = 0.0;
      for (int i = 0; i < n; i++)
        s += X[i][a] * X[i][b];
      G[a][b] = s / d;
      G[b][a] = G[a][b];
    }
}

// The element's old contents are read after the loop: the accumulator cannot live
// there.
void rank_k_update(int n, int m, double (*restrict C)[n], double (*restrict A)[m]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0.0;
      for (int k = 0; k < m; k++)
        s += A[i][k] * A[j][k];
      C[i][j] = 0.5 * C[i][j] + s;
    }
}

// The accumulator is stored, then read by a later loop (Gram-Schmidt's projection):
// the later loop reads the element, which holds the value from the store on.
void project_out(int m, int n, double (*restrict A)[n], double (*restrict Q)[n],
                 double (*restrict R)[n]) {
  for (int j = 1; j < n; j++) {
    double d = 0.0;
    for (int i = 0; i < m; i++)
      d += Q[i][0] * A[i][j];
    R[0][j] = d;
    for (int i = 0; i < m; i++)
      A[i][j] -= Q[i][0] * d;
  }
}

// The accumulator starts from the constant S0 also stores into its element, and (sum
// may alias A and C) is stored in every iteration (PolyBench's doitgen): the element
// holds the chain's value from S0 on, so the chain lives there too.
void sums_stored_in_loop(int n, double *sum, double (*A)[n], double (*C)[n]) {
  for (int r = 0; r < n; r++)
    for (int p = 0; p < n; p++) {
      sum[p] = 0.0;
      for (int s = 0; s < n; s++)
        sum[p] += A[r][s] * C[s][p];
    }
}

// CHECK-LABEL: polyrust-scops: function 'mm_stored_in_loop'
// CHECK: Arrays:
// CHECK-NEXT: double C[*][n]
// CHECK-NEXT: double A[*][n]
// CHECK-NEXT: double B[*][n]
// CHECK-NEXT: Alias groups:
// CHECK: Statements:
// CHECK-NEXT: S0 (%for.body8.us.us)
// CHECK: Read: [n] -> { S0[i0, i1, i2] -> C[i0, i1] }   ; %{{.*}} = phi double {{.*}} (promoted scalar, kept in memory)
// CHECK-NEXT: Read: [n] -> { S0[i0, i1, i2] -> A[i0, i2] }
// CHECK-NEXT: Read: [n] -> { S0[i0, i1, i2] -> B[i2, i1] }
// CHECK-NEXT: MustWrite: [n] -> { S0[i0, i1, i2] -> C[i0, i1] }   ; store double
// CHECK-NOT: S1 (

// CHECK-LABEL: polyrust-scops: function 'mm_stored_after'
// CHECK: Arrays:
// CHECK-NEXT: double C[*][n]
// CHECK-NEXT: double A[*][n]
// CHECK-NEXT: double B[*][n]
// CHECK-NEXT: Alias groups: none
// CHECK: Statements:
// CHECK-NEXT: S0 (%for.body8.us.us)
// CHECK: Read: [n] -> { S0[i0, i1, i2] -> C[i0, i1] }   ; %{{.*}} = phi double {{.*}} (promoted scalar, kept in memory)
// CHECK-NEXT: Read: [n] -> { S0[i0, i1, i2] -> A[i0, i2] }
// CHECK-NEXT: Read: [n] -> { S0[i0, i1, i2] -> B[i2, i1] }
// CHECK-NEXT: MustWrite: [n] -> { S0[i0, i1, i2] -> C[i0, i1] }   ; %{{.*}} = phi double {{.*}} (promoted scalar, kept in memory)
// CHECK-NOT: S1 (

// CHECK-LABEL: polyrust-scops: function 'gram'
// CHECK: Arrays:
// CHECK-NEXT: double X[*][m]
// CHECK-NEXT: double G[*][m]
// CHECK-NEXT: Alias groups: none
// CHECK: S0 (%for.cond5.preheader.us.us)
// CHECK: MustWrite: [m, n] -> { S0[i0, i1] -> G[i0, i0 + i1] }   ; %s.{{.*}} = phi double {{.*}} [ 0.000000e+00, {{.*}} (promoted scalar, kept in memory)
// CHECK: S1 (%for.body8.us.us)
// CHECK: Read: [m, n] -> { S1[i0, i1, i2] -> G[i0, i0 + i1] }
// CHECK-NEXT: Read: [m, n] -> { S1[i0, i1, i2] -> X[i2, i0] }
// CHECK-NEXT: Read: [m, n] -> { S1[i0, i1, i2] -> X[i2, i0 + i1] }
// CHECK-NEXT: MustWrite: [m, n] -> { S1[i0, i1, i2] -> G[i0, i0 + i1] }
// CHECK: S2 (%for.cond5.for.cond.cleanup7_crit_edge.us.us)
// CHECK: Read: [m, n] -> { S2[i0, i1] -> G[i0, i0 + i1] }
// CHECK-NEXT: MustWrite: [m, n] -> { S2[i0, i1] -> G[i0 + i1, i0] }
// CHECK-NEXT: Schedule tree:

// CHECK-LABEL: polyrust-scops: function 'conditional_store'
// CHECK: Arrays:
// CHECK: double s_{{.*}}__phi (scalar)
// CHECK: MayWrite: [n] -> { S2[i0, i1] -> C[i0, i1] }

// CHECK-LABEL: polyrust-scops: function 'used_after'
// CHECK: Arrays:
// CHECK: double s_{{.*}}__phi (scalar)
// CHECK: MustWrite: [n] -> { S1[i0, i1, i2] -> add_us_us__s[] }
// CHECK-NOT: S3 (
// CHECK: Schedule tree:

// CHECK-LABEL: polyrust-scops: function 'gram_scaled'
// CHECK-NOT: (scalar)
// CHECK: MustWrite: [m, n] -> { S0[i0, i1] -> G[i0, i0 + i1] }   ; %s.{{.*}} = phi double
// CHECK: S2 (
// CHECK: Read: [m, n] -> { S2[i0, i1] -> G[i0, i0 + i1] }   ; %{{.*}} = tail call double @llvm.fmuladd.f64({{.*}} (promoted scalar, kept in memory)
// CHECK-NEXT: MustWrite: [m, n] -> { S2[i0, i1] -> G[i0, i0 + i1] }   ; store double %div
// CHECK-NEXT: MustWrite: [m, n] -> { S2[i0, i1] -> G[i0 + i1, i0] }   ; store double %div

// CHECK-LABEL: polyrust-scops: function 'rank_k_update'
// CHECK: double s_{{.*}}__phi (scalar)
// CHECK: Read: [n, m] -> { S2[i0, i1] -> C[i0, i1] }

// CHECK-LABEL: polyrust-scops: function 'project_out'
// CHECK-NOT: (scalar)
// CHECK: MustWrite: [n, m] -> { S0[i0] -> R[1 + i0] }   ; %d.{{.*}} = phi double
// CHECK: S1 (
// CHECK: Read: [n, m] -> { S1[i0, i1] -> R[1 + i0] }
// CHECK: MustWrite: [n, m] -> { S1[i0, i1] -> R[1 + i0] }
// CHECK: S2 (
// CHECK-NEXT: Domain:
// CHECK-NEXT: Schedule:
// CHECK-NEXT: Read: [n, m] -> { S2[i0, i1] -> R[1 + i0] }   ; {{.*}} (promoted scalar, kept in memory)
// CHECK-NEXT: Read: [n, m] -> { S2[i0, i1] -> Q[i1, 0] }
// CHECK-NEXT: Read: [n, m] -> { S2[i0, i1] -> A[i1, 1 + i0] }
// CHECK-NEXT: MustWrite: [n, m] -> { S2[i0, i1] -> A[i1, 1 + i0] }

// CHECK-LABEL: polyrust-scops: function 'sums_stored_in_loop'
// CHECK-NOT: __phi
// CHECK: MustWrite: [n] -> { S0[i0, i1] -> sum[i1] }   ; store double 0.0
// CHECK: S1 (
// CHECK: Read: [n] -> { S1[i0, i1, i2] -> sum[i1] }   ; {{.*}} = phi double {{.*}} (promoted scalar, kept in memory)
// CHECK: MustWrite: [n] -> { S1[i0, i1, i2] -> sum[i1] }   ; store double
