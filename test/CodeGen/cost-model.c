// The cost model accepts a new schedule only when it helps on one thread: a loop order
// that makes the innermost loop walk memory contiguously is taken; skewed schedules
// (time tiling of a stencil) and nests whose innermost loop is already contiguous are
// left alone, each with a remark saying why.
// RUN: %detect -Rpass=polyrust %s 2>&1 | %FileCheck %s
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-ast>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=AST
// RUN: %o3ir %s | %opt %loadpolyrust -passes='print<polyrust-ast>' -polyrust-codegen=false \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=NOCODEGEN

#define N 1024
double A[N][N], B[N][N];

// Column by column over row-major arrays: interchanged.
void columns(int n) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      A[i][j] = 2.0 * B[i][j];
}
// CHECK: cost-model.c:[[@LINE-4]]:3: remark: region in columns at cost-model.c:[[@LINE-4]] optimized (loops reordered: 2 strided accesses in innermost loops -> 0), behind a run-time check [-Rpass=polyrust]
// AST-LABEL: polyrust-ast: function 'columns'
// AST: New AST of columns{{.*}}(loops reordered: 2 strided accesses in innermost loops -> 0):
// AST-NEXT: for (int c0 = 0; c0 < n; c0 += 1)
// AST-NEXT:   for (int c1 = 0; c1 < n; c1 += 1)
// AST-NEXT:     S0(c1, c0);

// Row by row: already contiguous, nothing to gain.
void rows(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = 2.0 * B[i][j];
}
// CHECK: cost-model.c:[[@LINE-4]]:3: remark: region in rows at cost-model.c:[[@LINE-4]] left unchanged: no statement is 3 or more loops deep (nothing to tile), and no loop order would make a strided innermost access contiguous (nothing to reorder)
// AST-LABEL: polyrust-ast: function 'rows'
// AST: rows{{.*}} kept: no statement is 3 or more loops deep

// A time-iterated 1-D stencil: two loops deep and unit-stride, it gains nothing from a
// new loop order or ordinary tiles, but its time loop loses reuse: it gets time tiles,
// its loop cut into strips (transform/time_tiling.rs; see time-tiling.c).
void smooth(int n, double *a, double *b) {
  for (int t = 0; t < 100; t++) {
    for (int i = 1; i < n - 1; i++)
      b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
    for (int i = 1; i < n - 1; i++)
      a[i] = 0.25 * b[i - 1] + 0.5 * b[i] + 0.25 * b[i + 1];
  }
}
// CHECK: cost-model.c:[[@LINE-7]]:3: remark: region in smooth at cost-model.c:[[@LINE-7]] optimized (time-tiled: loop 2 cut into strips of 512

// The diagonal A[i][i], one linear offset 1025 * i, is split into both dimensions
// (assuming n <= 1024); one loop, nothing to reorder.
void diagonal(int n) {
  for (int i = 0; i < n; i++)
    A[i][i] = 1.0;
}
// CHECK: cost-model.c:[[@LINE-3]]:3: remark: region in diagonal at cost-model.c:[[@LINE-3]] left unchanged: no statement is 3 or more loops deep (nothing to tile), and no loop order would make a strided innermost access contiguous (nothing to reorder)

// Rows of 16 hold the j loop only while m <= 16: the run-time check would send every
// real problem size to the original code. The column walk could gain from a new loop
// order, so the remark is about the assumption, which it names.
double T[N][16];
void narrow_rows(int n, int m) {
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++)
      T[i][j] = 1.0;
}
// CHECK: cost-model.c:[[@LINE-4]]:3: remark: region in narrow_rows at cost-model.c:[[@LINE-4]] left unchanged: the model's assumptions fail whenever every parameter is 32 or more, so the run-time check would send real problem sizes to the original code: in-bounds of S0: subscript of T within its dimension: 0 <= i0 < 16 in T[i1, i0] at {{.*}}cost-model.c:[[@LINE-2]]:15

// NOCODEGEN-NOT: New AST
// NOCODEGEN-NOT: kept:
// AST-LABEL: polyrust-ast: function 'smooth'
// AST: New AST of smooth{{.*}} (time-tiled: loop 2 cut into strips of 512
