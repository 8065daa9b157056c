// A value computed in front of a loop from arrays the region never writes
// (`ax = alpha[k] * X[k][i]`) is recomputed in the loop that reads it
// (detect/forward.rs): the nest of rank-1 updates becomes one statement whose three
// loops are tiled, and the program prints what -O3 prints, bit for bit, by default and
// with every region generated (-polyrust-force-codegen), where the value also has to
// be recomputed correctly in the original order.
// RUN: %clang -O3 -w %s -o %t.o3
// RUN: %clang -O3 -w %s -o %t.poly -fpass-plugin=%plugin -Rpass=polyrust 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=REMARK
// RUN: %clang -O3 -g -w -c %s -o /dev/null -fpass-plugin=%plugin -Rpass-analysis=polyrust 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=ANALYSIS
// RUN: %clang -O3 -w %s -o %t.forced -fpass-plugin=%plugin -mllvm -polyrust-force-codegen
// RUN: %t.o3 1 9 > %t.expected && %t.poly 1 9 > %t.got && diff %t.expected %t.got
// RUN: %t.o3 37 9 > %t.expected && %t.poly 37 9 > %t.got && diff %t.expected %t.got
// RUN: %t.forced 37 9 > %t.got && diff %t.expected %t.got
// RUN: %t.o3 300 5 > %t.expected && %t.poly 300 5 > %t.got && diff %t.expected %t.got
// RUN: %t.forced 300 5 > %t.got && diff %t.expected %t.got
#include <stdio.h>
#include <stdlib.h>

#define UPDATES 9 /* the most; argv[2] says how many, so clang cannot unroll k */

static __attribute__((noinline)) void rank1(int n, int m, float *A, const float *X,
                                            const float *Y, const float *alpha) {
  for (int k = 0; k < m; k++)
    for (int i = 0; i < n; i++) {
      float ax = alpha[k] * X[k * n + i];
      for (int j = 0; j < n; j++)
        A[i * n + j] += ax * Y[k * n + j];
    }
}
// ANALYSIS: forwarded-values.c:27:27: remark: ax is recomputed where it is read, from arrays the region does not write, so the loops around it can be reordered
// REMARK: forwarded-values.c:25:3: remark: region in rank1 at forwarded-values.c:25 optimized ({{.*}}tiled{{.*}}), behind a run-time check

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 37;
  int m = argc > 2 ? atoi(argv[2]) : UPDATES;
  if (m > UPDATES)
    m = UPDATES;
  float *A = malloc(sizeof(float) * n * n);
  float *X = malloc(sizeof(float) * n * UPDATES);
  float *Y = malloc(sizeof(float) * n * UPDATES);
  float alpha[UPDATES];
  for (int k = 0; k < UPDATES; k++) {
    alpha[k] = 0.25f + 0.125f * k;
    for (int i = 0; i < n; i++) {
      X[k * n + i] = (float)((i * 7 + k * 3) % 17) / 9.0f;
      Y[k * n + i] = (float)((i * 5 + k * 11) % 13) / 7.0f;
    }
  }
  for (int i = 0; i < n * n; i++)
    A[i] = (float)(i % 23) / 3.0f;
  rank1(n, m, A, X, Y, alpha);
  double sum = 0.0;
  for (int i = 0; i < n * n; i++)
    sum += A[i] * (double)((i % 7) + 1);
  printf("%.17g %.9g %.9g\n", sum, A[0], A[n * n - 1]);
  for (int i = 0; i < n; i += 1 + n / 8)
    printf("%a\n", A[i * n + (i * 3) % n]);
  free(A);
  free(X);
  free(Y);
  return 0;
}
