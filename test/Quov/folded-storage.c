// QUOV storage allocation: a temporary the function owns (malloc'd and freed in it,
// used only in the region) is stored folded to the cells the schedule needs live at
// once, checked against the schedule; the folded buffer is made in the check block
// (a failed allocation runs the original code) and freed where the new code ends.
// Outputs are the unfolded program's, bit for bit.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/folded -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -S -emit-llvm -o - | %FileCheck %s --check-prefix=IR
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-quov=false -c %s -o /dev/null \
// RUN:   -Rpass=polyrust 2>&1 | %FileCheck %s --check-prefix=OFF --allow-empty
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 3 4 5 17 100 1000 > %t/plain.out
// RUN: %t/folded 3 4 5 17 100 1000 > %t/folded.out
// RUN: cmp %t/plain.out %t/folded.out

#include <stdio.h>
#include <stdlib.h>

// Every time step kept, rows w >= n apart: two rows are live at once.
__attribute__((noinline)) void heat(int n, int w, int steps, const double *in, double *out) {
  double *u = malloc(sizeof(double) * (size_t)(steps + 1) * (size_t)w);
  if (!u)
    return;
  for (int i = 0; i < n; i++)
    u[i] = 2.0 * in[i];
  for (int t = 0; t < steps; t++) {
    u[(long)(t + 1) * w] = u[(long)t * w];
    for (int i = 1; i < n - 1; i++)
      u[(long)(t + 1) * w + i] =
          u[(long)t * w + i] + 0.25 * (u[(long)t * w + i - 1] - 2.0 * u[(long)t * w + i] +
                                       u[(long)t * w + i + 1]);
    u[(long)(t + 1) * w + n - 1] = u[(long)t * w + n - 1];
  }
  for (int i = 0; i < n; i++)
    out[i] = 0.5 * u[(long)steps * w + i];
  free(u);
}
// CHECK: folded-storage.c:[[@LINE-14]]:3: remark: region in heat at {{.*}} optimized ({{.*}}temporary u stored as u[i0 mod 2][i1] (its writer's shortest QUOV is [1, 1]; the fold follows the array's own dimensions instead): 2 indices of dimension 0), behind a run-time check
// OFF-NOT: stored as

// Each row reads the two before it: two rows again (the QUOV of the rows is [2, 0]).
// (A plain copy in or out would be a memcpy outside the loops, which reads the table
// after the region: the table would keep its storage.)
__attribute__((noinline)) void rows(int n, int m, const double *first, double *out) {
  double *f = malloc(sizeof(double) * (size_t)n * 64);
  if (!f)
    return;
  for (int j = 0; j < 64; j++) {
    f[j] = first[j] + 1.0;
    f[64 + j] = first[j] * 0.5;
  }
  for (int i = 2; i < n; i++)
    for (int j = 0; j < 64; j++)
      f[i * 64 + j] = f[(i - 2) * 64 + j] * 0.25 + f[(i - 1) * 64 + j];
  for (int j = 0; j < 64; j++)
    out[j] = f[(n - 1) * 64 + j] + 1.0;
  free(f);
}
// CHECK: folded-storage.c:[[@LINE-11]]:3: remark: region in rows at {{.*}} optimized ({{.*}}temporary f stored as f[i0 mod 2][i1] (shortest QUOV [2, 0]): 2 indices of dimension 0), behind a run-time check

// A chain of temporaries: the squares are read a whole loop later (they keep their
// storage); the running sum, a recurrence, is read in the iteration that writes it and
// by the next one: one cell.
__attribute__((noinline)) void running(int n, const double *in, double *out) {
  double *sq = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  double *sum = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!sq || !sum)
    return;
  for (int i = 0; i < n; i++)
    sq[i] = in[i] * in[i];
  sum[0] = sq[0];
  out[0] = sum[0];
  for (int i = 1; i < n; i++) {
    sum[i] = sum[i - 1] + sq[i];
    out[i] = sum[i] / (double)(i + 1);
  }
  free(sq);
  free(sum);
}
// CHECK: folded-storage.c:[[@LINE-11]]:3: remark: temporary sq keeps its storage: no fold of sq saves memory under this schedule
// CHECK: folded-storage.c:[[@LINE-12]]:3: remark: region in running at {{.*}} optimized ({{.*}}temporary sum stored as one sum element (shortest QUOV [1]): 1 index of dimension 0), behind a run-time check

// A table whose values are read after the region keeps its storage.
__attribute__((noinline)) double *kept(int n, const double *in) {
  double *k = malloc(sizeof(double) * (size_t)n * 2);
  if (!k)
    return 0;
  for (int i = 0; i < n; i++)
    k[i] = in[i] * 3.0;
  for (int i = 0; i < n; i++)
    k[n + i] = k[i] + 1.0;
  return k;
}
// CHECK-NOT: temporary k stored

// The folded buffer (its own malloc after the function's), freed on both paths: where
// the check sends the program down the original code, and after the new code.
// IR-LABEL: define {{.*}} @heat(
// IR: call noalias ptr @malloc(i64 noundef
// IR: %[[BUF:[0-9]+]] = tail call ptr @malloc(i64 %
// IR: call void @free(ptr %[[BUF]])
// IR: call void @free(ptr %[[BUF]])

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    double *in = calloc((size_t)n + 64, sizeof(double));
    double *out = calloc((size_t)n + 64, sizeof(double));
    for (int i = 0; i < n + 64; i++)
      in[i] = (double)((i * 37) % 101) / 7.0;
    heat(n, n + 3, 50, in, out);
    for (int i = 0; i < n; i++)
      printf("%a\n", out[i]);
    rows(n, 64, in, out);
    for (int j = 0; j < 64; j++)
      printf("%a\n", out[j]);
    running(n, in, out);
    for (int i = 0; i < n; i++)
      printf("%a\n", out[i]);
    double *k = kept(n, in);
    for (int i = 0; i < 2 * n; i++)
      printf("%a\n", k[i]);
    free(k);
    free(in);
    free(out);
  }
  return 0;
}
