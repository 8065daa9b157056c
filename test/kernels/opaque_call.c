// KERNEL: opaque_call
// CATEGORY: irregular
// SIZES: test=0,1,2,7,33,65,130 bench=1000
// DESCRIPTION: matrix-product-like nest whose weights come from a noinline function with side effects on global state (call order matters), global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 1024
#endif

static double A[NMAX][NMAX];
static double C[NMAX][NMAX];

long g_calls;          /* side effect: number of calls */
unsigned g_state = 1u; /* side effect: order-dependent state */

/* External-looking function: not inlined, reads and writes globals, and
 * its result depends on the order in which it is called. */
__attribute__((noinline)) double opaque_weight(int i, int j)
{
    g_calls++;
    g_state = (g_state * 5u + (unsigned)(i ^ j) + 1u) & 1023u;
    return (double)(g_state & 15u) * 0.0625 - 0.5;
}

static __attribute__((noinline)) void weighted_product(int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double w = opaque_weight(i, j);
            for (int k = 0; k < n; k++)
                C[i][k] += w * A[j][k];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1000);
    pr_size_limit(n, NMAX, "NMAX");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = pr_init(i, j, n);
            C[i][j] = pr_init_pos(j, i, n);
        }

    pr_timer_start();
    weighted_product(n);
    pr_timer_stop();

    printf("calls %ld state %u\n", g_calls, g_state);
    pr_check_d2("C", &C[0][0], n, n, NMAX);
    return 0;
}
