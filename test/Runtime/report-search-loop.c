// A loop that leaves on a value it loads (a search: `while (keys[i] < key) i++`,
// a scan for a bad character) shows no dependence between its iterations, yet they
// cannot run in parallel as written: the compiler says so (a data exit fact), and the
// report calls the loop `no` with `its exit depends on keys (a search)`, where it
// said `yes` and suggested running its iterations in parallel. A counted loop over the
// same array stays parallel. (Issue 35, item 2: b+tree's insertion-point searches,
// lavaMD's isInteger.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t | %FileCheck %s --check-prefix=OUT
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// OUT: 600 1 2000

// CHECK-LABEL: `scale` at
// CHECK:       | i | {{[0-9]+}} | 1 | {{.*}} | yes | – |

// CHECK-LABEL: `insertion_point` at
// CHECK-NOT:   run its iterations in parallel
// CHECK:       | i | {{[0-9]+}} | 1 | {{.*}} | no | its exit depends on keys (a search) |

// CHECK-LABEL: `digits_only` at
// CHECK:       | {{.*}} | {{[0-9]+}} | 1 | {{.*}} | no | its exit depends on text (a search) |

#include <stdio.h>

__attribute__((noinline)) int insertion_point(const int *keys, int n, int key) {
  int i = 0;
  while (i < n && keys[i] < key)
    i++;
  return i;
}

__attribute__((noinline)) int digits_only(const char *text) {
  for (; *text != '\0'; text++)
    if (*text < '0' || *text > '9')
      return 0;
  return 1;
}

__attribute__((noinline)) void scale(int *keys, int n) {
  for (int i = 0; i < n; i++)
    keys[i] *= 2;
}

int main(void) {
  static int keys[1000];
  for (int i = 0; i < 1000; i++)
    keys[i] = i;
  scale(keys, 1000);
  printf("%d %d %d\n", insertion_point(keys, 1000, 1200), digits_only("0123456789"),
         keys[999] + 2);
  return 0;
}
