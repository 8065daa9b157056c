// KERNEL: sym_rankk
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1200
// DESCRIPTION: symmetric rank-k update of the lower triangle, C = alpha*A*A^T + beta*C (triangular j <= i bound), global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 1300
#endif

static double A[NMAX][NMAX];
static double C[NMAX][NMAX];

static __attribute__((noinline)) void rankk_lower(int n, int m, double alpha, double beta)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = 0.0;
            for (int k = 0; k < m; k++)
                s += A[i][k] * A[j][k];
            C[i][j] = beta * C[i][j] + alpha * s;
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1200);
    pr_size_limit(n, NMAX, "NMAX");
    int m = n;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < m; k++)
            A[i][k] = pr_init(i, k, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            C[i][j] = pr_init_pos(i, j, n);

    pr_timer_start();
    rankk_lower(n, m, 0.5, 2.0);
    pr_timer_stop();

    pr_check_d2("C", &C[0][0], n, n, NMAX);
    return 0;
}
