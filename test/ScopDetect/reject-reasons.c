// Every loop nest detection leaves alone gets a -Rpass-missed=polyrust remark with its
// source location and the precise reason; all reasons that apply are reported.
// RUN: %detect %s 2>&1 | %FileCheck %s

double A[1000][1000], B[1000][1000], C[1000];
int idx[1000];
void opaque(double *);

void unknown_trip_count(double *restrict v, int n) {
  int i = 0;
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: loop trip count cannot be computed
  while (v[i] > 0.0 && i < n) {
    v[i] = -v[i];
    i++;
  }
}

void non_affine_bound(int n) {
  for (int i = 0; i < n; i++)
    // CHECK: reject-reasons.c:[[@LINE+1]]:5: remark: loop not modelled: non-affine loop bound
    for (int j = 0; j < i * i; j++)
      C[j % 1000] += 1.0;
}

void non_affine_subscript(int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: non-affine subscript
  for (int i = 0; i < n; i++)
    C[idx[i]] += 1.0;
}

void unknown_call(int n) {
  // CHECK: reject-reasons.c:[[@LINE+2]]:5: remark: loop not modelled: call to a function that may access memory: opaque
  for (int i = 0; i < n; i++)
    opaque(&C[i]);
}

void volatile_access(volatile double *v, int n) {
  for (int i = 0; i < n; i++)
    // CHECK: reject-reasons.c:[[@LINE+1]]:10: remark: loop not modelled: volatile or atomic memory access
    v[i] = 0.0;
}

void variant_base(double **rows, int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: base pointer is computed inside the loop nest
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      rows[i][j] = 1.0;
}

void multiple_exits(double *restrict v, int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: loop has more than one exit
  for (int i = 0; i < n; i++) {
    if (v[i] < 0.0)
      break;
    v[i] = 1.0;
  }
}

void switch_in_loop(int *restrict v, int n) {
  for (int i = 0; i < n; i++) {
    // CHECK: reject-reasons.c:[[@LINE+1]]:5: remark: loop not modelled: unsupported control flow: Switch
    switch (v[i]) {
    case 0: v[i] = 7; break;
    case 1: v[i] = 3; break;
    case 5: v[i] = 9; break;
    default: v[i] = 2; break;
    }
  }
}

void data_dependent_branch_around_loop(double *restrict v, int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: non-affine branch condition: {{.*}}floating-point comparison
  for (int i = 0; i < n; i++)
    if (v[i] > 0.0)
      for (int j = 0; j < n; j++)
        v[j] += 1.0;
}

void mixed_types(double *p, int n) {
  // CHECK: reject-reasons.c:[[@LINE+1]]:3: remark: loop not modelled: memory accessed with elements of different sizes
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
