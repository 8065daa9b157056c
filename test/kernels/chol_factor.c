// KERNEL: chol_factor
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1600
// DESCRIPTION: in-place Cholesky factorisation A = L*L^T (column-by-column, sqrt on the diagonal) of a diagonally dominant SPD matrix, heap array
#include <math.h>
#include "harness.h"

/* Overwrites the lower triangle (including the diagonal) of the n x n
 * row-major matrix A with L; the strict upper triangle is not touched. */
static __attribute__((noinline)) void cholesky_inplace(int n, double *A)
{
    for (int j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (int k = 0; k < j; k++)
            d -= A[j * n + k] * A[j * n + k];
        double ljj = sqrt(d);
        A[j * n + j] = ljj;
        for (int i = j + 1; i < n; i++) {
            double s = A[i * n + j];
            for (int k = 0; k < j; k++)
                s -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = s / ljj;
        }
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1600);
    pr_size_limit(n, 20000, "int index range");
    double *A = pr_alloc((size_t)n * n, sizeof *A);
    /* symmetric, strictly diagonally dominant, positive diagonal => SPD */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int lo = i < j ? i : j, hi = i < j ? j : i;
            A[i * n + j] = i == j ? 2.0 * n + pr_init_pos(i, i, n) : pr_init(lo, hi, n);
        }

    pr_timer_start();
    cholesky_inplace(n, A);
    pr_timer_stop();

    pr_check_d2("A", A, n, n, n);
    free(A);
    return 0;
}
