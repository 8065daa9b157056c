// Sizes and base pointers a nest reads from a struct its own stores may reach (the
// stores are of the fields' type, so alias analysis cannot keep them apart, and LLVM
// reloads the fields in every iteration): the nest is versioned, a copy reads the
// fields once in front of it, and the copy is modelled with the loaded values as
// parameters. The run-time check keeps every field apart from every array the region
// writes; when it fails (the dimensions lie inside the array filled), the original
// nest runs.
// RUN: %detect -Rpass=polyrust %s 2>&1 | %FileCheck %s --check-prefix=REMARK
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fno-discard-value-names -fpass-plugin=%plugin -mllvm -polyrust-export=%t/model -c %s -o /dev/null
// RUN: cat %t/model/fill_dims_*.json | %FileCheck %s --check-prefix=MODEL
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes=polyrust-function \
// RUN:   -polyrust-force-codegen -S -o %t/forced.ll
// RUN: %FileCheck %s --check-prefix=IR < %t/forced.ll
// RUN: %opt -passes=verify -disable-output %t/forced.ll
// RUN: %clang -O3 %s -o %t/plain -DMAIN
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/optimized -DMAIN
// RUN: %clang -O3 -fpass-plugin=%plugin -mllvm -polyrust-force-codegen %s -o %t/forced -DMAIN
// RUN: %t/plain > %t/plain.out
// RUN: %t/optimized > %t/optimized.out
// RUN: %t/forced > %t/forced.out
// RUN: cmp %t/plain.out %t/optimized.out
// RUN: cmp %t/plain.out %t/forced.out
// RUN: %FileCheck %s --check-prefix=OUT < %t/plain.out

typedef struct { long rows, cols; } Dims;
typedef struct { long rows, cols; long *data; } Mat;

// REMARK: hoisted-fields.c:[[@LINE+5]]:3: remark: the loop nest reads d at byte 8, *d from memory its own writes may reach: a copy of the nest reads them once, in front of it, and runs when the run-time check finds them apart from every array the nest writes
// REMARK: hoisted-fields.c:[[@LINE+4]]:3: remark: SCoP begins here.
// REMARK-NOT: loop not modelled
// REMARK: region in fill_dims at hoisted-fields.c:[[@LINE+2]]
__attribute__((noinline)) void fill_dims(const Dims *d, long *a) {
  for (long i = 0; i < d->rows; i++)
    for (long j = 0; j < d->cols; j++)
      a[i * d->cols + j] = i * 3 + j + 1;
}
// The copy's parameters are the two fields, loaded once.
// MODEL: "name": "fill_dims:polyrust.hoisted",
// MODEL: "params": [
// MODEL-NEXT: {{^ *"[^"]+",$}}
// MODEL-NEXT: {{^ *"[^"]+"$}}
// MODEL-NEXT: ],

// A matrix product over such matrices is tiled like one over plain arrays.
// REMARK: hoisted-fields.c:[[@LINE+3]]:3: remark: the loop nest reads
// REMARK: remark: region in product at hoisted-fields.c:[[@LINE+2]] optimized
__attribute__((noinline)) void product(Mat *c, const Mat *a, const Mat *b) {
  for (long i = 0; i < c->rows; i++)
    for (long j = 0; j < c->cols; j++)
      for (long k = 0; k < a->cols; k++)
        c->data[i * c->cols + j] += a->data[i * a->cols + k] * b->data[k * b->cols + j];
}

// The outer loop writes a field itself: it is not versioned and stays rejected for
// the count it reads; the inner loop, which only reads it, is.
// REMARK: hoisted-fields.c:[[@LINE+5]]:5: remark: the loop nest reads d at byte 8 from memory
// REMARK: hoisted-fields.c:[[@LINE+3]]:3: remark: loop not modelled: loop trip count cannot be computed: loop at line [[@LINE+3]]
// REMARK-NOT: remark: the loop nest reads
__attribute__((noinline)) void grow(Dims *d, long *a) {
  for (long i = 0; i < d->rows; i++) {
    for (long j = 0; j < d->cols; j++)
      a[i * d->cols + j] = j;
    d->cols = d->cols + 1;
  }
}

// A field read only under a condition the data decides is not loaded in front of the
// nest: `cfg` may be null when no element is positive.
typedef struct { long k; } Cfg;
__attribute__((noinline)) void add_where_positive(const Cfg *cfg, long *v, long n) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      if (v[i * n + j] > 0)
        v[i * n + j] += cfg->k;
}

// The versioning branch, then the check: each field against the range written; a
// failing check runs the original nest.
// IR-LABEL: define {{.*}}@fill_dims(
// IR: br i1 true, label %{{.*}}, label %[[ORIGINAL:[^,]+]], !polyrust.hoisted
// IR: polyrust.check:
// IR: %[[COLS:[0-9]+]] = ptrtoint ptr %cols to i64
// IR-NEXT: %[[END:[0-9]+]] = add i64 %[[COLS]], 8
// IR-NEXT: icmp sle i64 %[[END]],
// IR: br i1 %{{.*}}, label %polyrust.start, label %polyrust.hoisted.fallback
// IR: polyrust.hoisted.fallback:
// IR-NEXT: br i1 true, label %[[ORIGINAL]], label %polyrust.hoisted

#ifdef MAIN
#include <stdio.h>
#include <stdlib.h>

static unsigned long hash(const long *v, long n) {
  unsigned long s = 0;
  for (long i = 0; i < n; i++)
    s = s * 31 + (unsigned long)v[i];
  return s;
}

int main(void) {
  long n = 150;
  Mat a = {n, n + 3, malloc(sizeof(long) * n * (n + 3))};
  Mat b = {n + 3, n, malloc(sizeof(long) * n * (n + 3))};
  Mat c = {n, n, calloc(n * n, sizeof(long))};
  fill_dims((Dims *)&a, a.data);
  fill_dims((Dims *)&b, b.data);
  product(&c, &a, &b);
  printf("product %lu\n", hash(c.data, n * n));
  // The dimensions inside the array filled: the second row overwrites them.
  long *buf = calloc(4 * n * n, sizeof(long));
  Dims *inside = (Dims *)&buf[n + 5];
  inside->rows = 3;
  inside->cols = n;
  fill_dims(inside, buf);
  printf("inside %lu rows %ld cols %ld\n", hash(buf, 4 * n), inside->rows, inside->cols);
  Dims d = {4, 5};
  grow(&d, buf);
  printf("grow %lu cols %ld\n", hash(buf, 100), d.cols);
  long negative[16];
  for (int i = 0; i < 16; i++)
    negative[i] = -i;
  add_where_positive(0, negative, 4);
  printf("negative %lu\n", hash(negative, 16));
  return 0;
}
#endif
// The first row written overwrites rows and cols: the check failed, the original ran.
// OUT: inside {{[0-9]+}} rows 9 cols 10
