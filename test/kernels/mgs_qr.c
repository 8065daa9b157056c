// KERNEL: mgs_qr
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=800
// DESCRIPTION: modified Gram-Schmidt QR of an (n+n/8) x n matrix (column norms with sqrt, zero-norm guard, column-wise strided access), heap arrays
#include <math.h>
#include "harness.h"

/* A (m x n) is consumed; Q (m x n) gets orthonormal columns, R (n x n) is
 * upper triangular with A = Q*R.  All three are disjoint allocations. */
static __attribute__((noinline)) void mgs(int m, int n, double *A, double *Q, double *R)
{
    for (int k = 0; k < n; k++) {
        double s = 0.0;
        for (int i = 0; i < m; i++)
            s += A[i * n + k] * A[i * n + k];
        double nrm = sqrt(s);
        R[k * n + k] = nrm;
        double inv = nrm > 0.0 ? 1.0 / nrm : 0.0;
        for (int i = 0; i < m; i++)
            Q[i * n + k] = A[i * n + k] * inv;
        for (int j = k + 1; j < n; j++) {
            double d = 0.0;
            for (int i = 0; i < m; i++)
                d += Q[i * n + k] * A[i * n + j];
            R[k * n + j] = d;
            for (int i = 0; i < m; i++)
                A[i * n + j] -= Q[i * n + k] * d;
        }
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 800);
    pr_size_limit(n, 16000, "int index range");
    int m = n + n / 8;
    double *A = pr_alloc((size_t)m * n, sizeof *A);
    double *Q = pr_alloc((size_t)m * n, sizeof *Q);
    double *R = pr_alloc((size_t)n * n, sizeof *R);
    /* the top n x n block is strictly diagonally dominant => full column rank */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = pr_init(i, j, n) + (i == j ? 2.0 * n : 0.0);

    pr_timer_start();
    mgs(m, n, A, Q, R);
    pr_timer_stop();

    pr_check_d2("Q", Q, m, n, n);
    pr_check_d2("R", R, n, n, n);
    pr_check_d2("A", A, m, n, n);
    free(A);
    free(Q);
    free(R);
    return 0;
}
