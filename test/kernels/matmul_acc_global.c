// KERNEL: matmul_acc_global
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1000
// DESCRIPTION: C = alpha*A*B + beta*C on global fixed-size arrays (run-time n <= NMAX), i-j-k order with a scalar accumulator
#include "harness.h"

#ifndef NMAX
#define NMAX 1100
#endif

static double A[NMAX][NMAX];
static double B[NMAX][NMAX];
static double C[NMAX][NMAX];

static __attribute__((noinline)) void matmul_acc(int n, double alpha, double beta)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double acc = 0.0;
            for (int k = 0; k < n; k++)
                acc += A[i][k] * B[k][j];
            C[i][j] = alpha * acc + beta * C[i][j];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1000);
    pr_size_limit(n, NMAX, "NMAX");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = pr_init(i, j, n);
            B[i][j] = pr_init(j + 7, i, n);
            C[i][j] = pr_init_pos(i, j, n);
        }

    pr_timer_start();
    matmul_acc(n, 1.5, -0.75);
    pr_timer_stop();

    pr_check_d2("C", &C[0][0], n, n, NMAX);
    return 0;
}
