// Loops that only add (multiply, ...) into a scalar run on OpenMP threads with
// -polyrust-allow-reassociation: each thread takes one contiguous block of iterations
// into a private partial starting from the operator's identity (-0.0 for sums), and
// after the join the partials are added into the scalar in thread order. A thread count
// always prints the same bytes (two runs compared); sums of doubles and floats stay
// within rounding of -O3's, sums of integers are -O3's exactly (checked in the program
// against the same loops compiled without optimization). Without the option the loops
// stay serial and the remark says why. A call from inside the program's own parallel
// region runs serially (the dispatcher's omp_in_parallel()).
// REQUIRES: libomp
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fopenmp -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust \
// RUN:   -c -o /dev/null %s 2>&1 | %FileCheck --check-prefix=SERIAL %s
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-allow-reassociation \
// RUN:   -Rpass=polyrust %s -o %t/poly 2>&1 | %FileCheck --check-prefix=REMARK %s
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-allow-reassociation \
// RUN:   -fno-discard-value-names -S -emit-llvm -o - %s | %FileCheck %s
// RUN: %clang -O3 -fopenmp -fpass-plugin=%plugin -mllvm -polyrust-allow-reassociation \
// RUN:   -mllvm -polyrust-parallel-min-work=0 %s -o %t/always
// RUN: env OMP_NUM_THREADS=1 %t/poly > %t/poly.1.a
// RUN: env OMP_NUM_THREADS=1 %t/poly | cmp - %t/poly.1.a
// RUN: env OMP_NUM_THREADS=2 %t/poly > %t/poly.2.a
// RUN: env OMP_NUM_THREADS=2 %t/poly | cmp - %t/poly.2.a
// RUN: env OMP_NUM_THREADS=3 %t/poly > %t/poly.3.a
// RUN: env OMP_NUM_THREADS=3 %t/poly | cmp - %t/poly.3.a
// RUN: env OMP_NUM_THREADS=1 %t/always > %t/always.1.a
// RUN: env OMP_NUM_THREADS=1 %t/always | cmp - %t/always.1.a
// RUN: env OMP_NUM_THREADS=2 %t/always > %t/always.2.a
// RUN: env OMP_NUM_THREADS=2 %t/always | cmp - %t/always.2.a
// RUN: env OMP_NUM_THREADS=3 %t/always > %t/always.3.a
// RUN: env OMP_NUM_THREADS=3 %t/always | cmp - %t/always.3.a
// RUN: cat %t/poly.*.a %t/always.*.a | %FileCheck --check-prefix=OUT %s
// A thread count that splits the sums differently gives other bytes (the test can tell).
// RUN: not cmp %t/always.1.a %t/always.2.a

// SERIAL: remark: region in dot {{.*}} left unchanged: {{.*}}no loop can run on OpenMP threads: reduction into s: runs in parallel only with -polyrust-allow-reassociation
// REMARK: remark: region in dot {{.*}}: loop over c0 runs in parallel on OpenMP threads (when it has 32768 iterations or more and is not called from a parallel region), one block of iterations per thread, each thread adding into a partial result of its own, the partials combined in thread order after the threads join
// REMARK: remark: region in sum_float {{.*}}: loop over c0 runs in parallel
// REMARK: remark: region in sum_long {{.*}}: loop over c0 runs in parallel
// REMARK: remark: region in product {{.*}}: loop over c0 runs in parallel
// REMARK: remark: region in total {{.*}}: loop over c1 runs in parallel

// The caller hands the scalar's slot to the dispatcher.
// CHECK-LABEL: define {{.*}}double @dot(
// CHECK: store double 0.000000e+00, ptr %[[SLOT:polyrust[.a-z_0-9]+]]
// CHECK: call void @polyrust.dispatch(i64 0, i64 0, ptr {{.*}}%[[SLOT]],
// The loop itself: the slots are its own (the caller's or a thread's), so the sum is
// kept in a register from the first iteration to the last.
// CHECK-LABEL: define internal void @dot.polyrust.parallel(
// CHECK-SAME: i64 %polyrust.first, i64 %polyrust.end, ptr noalias %[[OWN:[a-z._0-9]+]],
// CHECK: load double, ptr %[[OWN]]
// CHECK: call double @llvm.fmuladd.f64
// CHECK-NOT: load double, ptr %[[OWN]]
// CHECK: store double %{{.*}}, ptr %[[OWN]]
// CHECK-NOT: load double, ptr %[[OWN]]
// CHECK: ret void
// The microtask: the thread's contiguous block of ceil(trips / threads) iterations, on
// private slots that start at -0.0; its partial goes to its element of the partials.
// CHECK-LABEL: define internal void @polyrust.microtask(
// CHECK: %[[THREAD:[0-9]+]] = sext i32 %{{[0-9]+}} to i64
// CHECK: %[[PRIVATE:polyrust.private]] = alloca double
// CHECK-NEXT: store double -0.000000e+00, ptr %[[PRIVATE]]
// CHECK: call void @dot.polyrust.parallel(i64 %{{[0-9]+}}, i64 %{{[0-9]+}}, ptr nonnull %[[PRIVATE]],
// CHECK: %[[PARTIALS:polyrust.partials]] = load ptr
// CHECK-NEXT: %[[PARTIAL:polyrust.partial]] = load double, ptr %[[PRIVATE]]
// CHECK-NEXT: %[[ELEMENT:[0-9]+]] = getelementptr inbounds double, ptr %[[PARTIALS]], i64 %[[THREAD]]
// CHECK-NEXT: store double %[[PARTIAL]], ptr %[[ELEMENT]]
// The dispatcher: on the calling thread, the loop in its order into the slot itself;
// else one partial per thread the team may have, all -0.0, the fork, and the partials
// added into the slot in thread order (k = 0, 1, ...), the result copied to the value
// the loop leaves.
// CHECK-LABEL: define internal void @polyrust.dispatch(
// CHECK: polyrust.serial:
// CHECK-NEXT: call void @dot.polyrust.parallel(i64 0, i64 %[[TRIPS:[0-9]+]], ptr %[[SCALAR:[0-9]+]],
// CHECK: polyrust.fork:
// CHECK: %[[MAX:[0-9]+]] = {{.*}}call i32 @omp_get_max_threads()
// CHECK: %[[ARRAY:polyrust.partials]] = alloca double, i64 %{{[0-9]+}}
// CHECK: store {{.*}}double -0.000000e+00{{.*}}, ptr
// CHECK: call void {{.*}}@__kmpc_fork_call(
// CHECK: load double, ptr %[[SCALAR]]
// CHECK: %polyrust.thread{{[0-9]+}} = phi i64 [ 0,
// CHECK: load double
// CHECK: fadd double
// CHECK: store double %{{.*}}, ptr %[[SCALAR]]
// CHECK: %polyrust.total = load double, ptr %[[SCALAR]]
// CHECK-NEXT: store double %polyrust.total, ptr

// OUT-NOT: WRONG
// OUT-COUNT-6: dot ok
// OUT-NOT: WRONG

#include <math.h>
#include <omp.h>
#include <stdio.h>

#define N 100003
#define R 301
#define C 40009
static double a[N], b[N];
static double M[R][C];
static float f[N];
static long v[N];

double dot(int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

float sum_float(int n) {
  float s = -0.0f;
  for (int i = 0; i < n; i++)
    s += f[i];
  return s;
}

long sum_long(int n) {
  long s = 7;
  for (int i = 0; i < n; i++)
    s += v[i] * 3;
  return s;
}

double product(int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p *= 1.0 + a[i] * 1e-6;
  return p;
}

double total(int r, int c) {
  double s = 0;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++)
      s += M[i][j];
  return s;
}

/* The loops again, left as written (polyrust does not touch optnone functions). */
__attribute__((optnone, noinline)) static double dot_ref(int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

__attribute__((optnone, noinline)) static float sum_float_ref(int n) {
  float s = -0.0f;
  for (int i = 0; i < n; i++)
    s += f[i];
  return s;
}

__attribute__((optnone, noinline)) static long sum_long_ref(int n) {
  long s = 7;
  for (int i = 0; i < n; i++)
    s += v[i] * 3;
  return s;
}

__attribute__((optnone, noinline)) static double product_ref(int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p *= 1.0 + a[i] * 1e-6;
  return p;
}

__attribute__((optnone, noinline)) static double total_ref(int r, int c) {
  double s = 0;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++)
      s += M[i][j];
  return s;
}

static void check(const char *name, double got, double expected, double tolerance) {
  int ok = fabs(got - expected) <= tolerance * fabs(expected);
  printf("%s %s %.17g\n", name, ok ? "ok" : "WRONG", got);
}

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = (double)((i * 7) % 101) / 7.0 - 3.0;
    b[i] = (double)((i * 3) % 37) / 3.0;
    f[i] = (float)((i * 5) % 17) / 9.0f;
    v[i] = (i * 13) % 29 - 14;
  }
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      M[i][j] = (double)((i * 5 + j) % 13) / 13.0;
  check("dot", dot(N), dot_ref(N), 1e-12);
  check("float", sum_float(N), sum_float_ref(N), 1e-3);
  long got = sum_long(N), expected = sum_long_ref(N);
  printf("long %s %ld\n", got == expected ? "ok" : "WRONG", got);
  check("product", product(N), product_ref(N), 1e-12);
  check("total", total(R, C), total_ref(R, C), 1e-12);
  check("short", dot(10), dot_ref(10), 0);
  /* Called from the program's own parallel region: every call serial, exact. */
  double inside[4] = {0, 0, 0, 0};
#pragma omp parallel num_threads(2)
  inside[omp_get_thread_num() & 3] = dot(N);
  check("nested", inside[0], dot_ref(N), 0);
  return 0;
}
