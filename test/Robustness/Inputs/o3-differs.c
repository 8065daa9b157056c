/* Not polyrust's: signed overflow makes clang -O0 and -O3 print different bytes, to
   show that scripts/fuzz --check reports and reduces a finding (fuzz-slice.test). */
#include <stdio.h>
#include <stdlib.h>
static __attribute__((noinline)) int kernel(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i;
  return s;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  printf("r %d\n", kernel(n));
  int k = n * 1000000000;
  if (k / 1000000000 != n)
    printf("wrapped\n");
  return 0;
}
// inputs (N M): 5 0
