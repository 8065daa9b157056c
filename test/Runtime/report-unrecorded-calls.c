// A loop that calls functions whose accesses are not recorded (rand, printf) gets no
// verdict: the report says so, as the compiler's remark does, and claims neither
// parallelism nor a permutable band for it or the loops around it. (Issue 35, item 3.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t > /dev/null
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// CHECK-LABEL: `fill` at
// CHECK:       - permutable bands: none
// CHECK-NEXT:  suggestion:** nothing is claimed about loops i, j: they make calls whose accesses were not recorded
// CHECK:       | i | {{.*}} | not known: calls not recorded (rand) | – |
// CHECK-NEXT:  | j | {{.*}} | not known: calls not recorded (rand) | – |

// A libm call that only writes errno leaves the loop's verdict alone.
// CHECK-LABEL: `roots` at
// CHECK:       | i | {{.*}} | yes | – |

// CHECK-LABEL: `show` at
// CHECK:       suggestion:** nothing is claimed about loop i: it makes calls whose accesses were not recorded
// CHECK-NOT:   is parallel
// CHECK:       | i | {{.*}} | not known: calls not recorded (printf) | – |

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 20
int a[N][N];
double r[N];

__attribute__((noinline)) void fill(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = rand() % 10;
}

__attribute__((noinline)) void show(int n) {
  for (int i = 0; i < n; i++)
    printf("%d ", a[i][0]);
  printf("\n");
}

__attribute__((noinline)) void roots(void) {
  for (int i = 0; i < N; i++)
    r[i] = sqrt((double)a[i][1] - 3.0);
}

int main(void) {
  fill();
  show(N);
  roots();
  printf("%f\n", r[4]);
  return 0;
}
