// KERNEL: lu_nopivot_vla
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1500
// DESCRIPTION: in-place LU factorisation without pivoting (right-looking k-i-j form) of a diagonally dominant matrix, C99 VLA parameter
#include "harness.h"

static __attribute__((noinline)) void lu_inplace(int n, double A[n][n])
{
    for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++) {
            double l = A[i][k] / A[k][k];
            A[i][k] = l;
            for (int j = k + 1; j < n; j++)
                A[i][j] -= l * A[k][j];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1500);
    pr_size_limit(n, 20000, "int index range");
    double *a = pr_alloc((size_t)n * n, sizeof *a);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = i == j ? 2.0 * n + 1.0 + pr_init_pos(i, j, n) : pr_init(i, j, n);

    pr_timer_start();
    if (n > 0) /* a VLA bound must be positive */
        lu_inplace(n, (double (*)[n])a);
    pr_timer_stop();

    pr_check_d2("LU", a, n, n, n);
    free(a);
    return 0;
}
