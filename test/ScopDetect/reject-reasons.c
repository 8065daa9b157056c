// Every loop nest detection leaves alone gets a -Rpass-missed=polyrust remark with its
// source location and the precise reason, in the source's terms (variable names from
// debug info, subscripts as written); all reasons that apply are reported, each once.
// LLVM's own text (IR, SCEVs) appears only under -polyrust-debug-remarks.
// RUN: %detect %s 2>&1 | %FileCheck %s --check-prefix=NOIR
// NOIR-NOT: {{%[0-9]|![0-9]|<nsw>|\{.*,\+,}}
// RUN: %detect -mllvm -polyrust-debug-remarks %s 2>&1 | %FileCheck %s --check-prefix=DEBUG
// DEBUG: remark: loop not modelled: non-affine subscript: read of C[idx[i]] [IR: byte offset {{.*}} in %{{[0-9]+}} = load double
// RUN: %detect %s 2>&1 | %FileCheck %s

double A[1000][1000], B[1000][1000], C[1000];
int idx[1000];
void opaque(double *);

void unknown_trip_count(double *restrict v, int n) {
  int i = 0;
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: loop trip count cannot be computed: loop at line [[@LINE+1]] [-Rpass-missed=polyrust]
  while (v[i] > 0.0 && i < n) {
    v[i] = -v[i];
    i++;
  }
}

void non_affine_bound(int n) {
  for (int i = 0; i < n; i++)
    // CHECK: reject-reasons.c:[[@LINE+1]]:5: remark: loop not modelled: non-affine loop bound: loop at line [[@LINE+1]]: a polynomial of degree 2 in i is not affine [-Rpass-missed=polyrust]
    for (int j = 0; j < i * i; j++)
      C[j % 1000] += 1.0;
}

void non_affine_subscript(int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: non-affine subscript: read of C[idx[i]] [-Rpass-missed=polyrust]
  for (int i = 0; i < n; i++)
    C[idx[i]] += 1.0;
}

void unknown_call(int n) {
  // CHECK: reject-reasons.c:[[@LINE+2]]:5: remark: loop not modelled: call to a function that may access memory: opaque [-Rpass-missed=polyrust]
  for (int i = 0; i < n; i++)
    opaque(&C[i]);
}
// Said once per place, not once per loop nest that contains the call.
// CHECK-NOT: may access memory: opaque

void volatile_access(volatile double *v, int n) {
  for (int i = 0; i < n; i++)
    // CHECK: reject-reasons.c:[[@LINE+1]]:10: remark: loop not modelled: volatile or atomic memory access: write of v[i] [-Rpass-missed=polyrust]
    v[i] = 0.0;
}

// The nest writes its row table too: rows at a fixed stride (`detect::rows`) cannot be
// checked for, and the rows' base pointers stay computed inside the nest.
void variant_base(double **rows, int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: base pointer is computed inside the loop nest: rows[i] for the write of rows[i][j] [-Rpass-missed=polyrust]
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      rows[i][j] = 1.0;
    rows[i] = 0;
  }
}

void multiple_exits(double *restrict v, int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: loop has more than one exit: loop at line [[@LINE+1]] is left from 2 places [-Rpass-missed=polyrust]
  for (int i = 0; i < n; i++) {
    if (v[i] < 0.0)
      break;
    v[i] = 1.0;
  }
}

void switch_in_loop(int *restrict v, int n) {
  for (int i = 0; i < n; i++) {
    // CHECK: reject-reasons.c:[[@LINE+1]]:5: remark: loop not modelled: unsupported control flow: switch [-Rpass-missed=polyrust]
    switch (v[i]) {
    case 0: v[i] = 7; break;
    case 1: v[i] = 3; break;
    case 5: v[i] = 9; break;
    default: v[i] = 2; break;
    }
  }
}

// A data-dependent branch around a loop is modelled when its condition can be tested
// again where the loop's instances run (ScopInfo/guarded-loops.c); this one reads v,
// which the loop writes.
void data_dependent_branch_around_loop(double *restrict v, int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: non-affine branch condition: branch at line [[@LINE+2]]: the condition around a loop needs the read of v[i], an array the region writes, so it cannot be tested again where the statements under it run [-Rpass-missed=polyrust]
  for (int i = 0; i < n; i++)
    if (v[i] > 0.0)
      for (int j = 0; j < n; j++)
        v[j] += 1.0;
}

void mixed_types(double *p, int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: memory accessed with elements of different sizes: p is accessed as double and float [-Rpass-missed=polyrust]
  for (int i = 0; i < n; i++)
    ((float *)p)[i] = (float)p[i + n];
}

int no_memory(int n) {
  int s = 0;
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: no memory access to optimize
  for (int i = 0; i < n; i++)
    s = s * 3 + i;
  return s;
}

// A call in an inner loop makes the outer nest and then the inner one fail: the call is
// reported once, not once per nest.
// RUN: %detect %s 2>&1 | %FileCheck %s --check-prefix=ONCE
void nested_call(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      // ONCE: reject-reasons.c:[[@LINE+1]]:7: remark: loop not modelled: call to a function that may access memory: opaque
      opaque(&A[i][j]);
}
// ONCE-NOT: memory: opaque
