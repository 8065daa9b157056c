// KERNEL: matmul_chain
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=700
// DESCRIPTION: D = A*B*C in float as two chained products through a global temporary T = A*B, global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 800
#endif

static float A[NMAX][NMAX];
static float B[NMAX][NMAX];
static float C[NMAX][NMAX];
static float T[NMAX][NMAX];
static float D[NMAX][NMAX];

static __attribute__((noinline)) void chain(int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
            for (int k = 0; k < n; k++)
                s += A[i][k] * B[k][j];
            T[i][j] = s;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
            for (int k = 0; k < n; k++)
                s += T[i][k] * C[k][j];
            D[i][j] = s;
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 700);
    pr_size_limit(n, NMAX, "NMAX");
    /* pre-fill the outputs with a sentinel (the kernel overwrites what it
     * defines); this also faults their pages in before the timed region */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            T[i][j] = -1.0f;
            D[i][j] = -1.0f;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = pr_initf(i, j, n) * 0.5f;
            B[i][j] = pr_initf(i + 3, j + 1, n) * 0.5f;
            C[i][j] = pr_initf(j, i + 11, n) * 0.25f;
        }

    pr_timer_start();
    chain(n);
    pr_timer_stop();

    pr_check_f2("T", &T[0][0], n, n, NMAX);
    pr_check_f2("D", &D[0][0], n, n, NMAX);
    return 0;
}
