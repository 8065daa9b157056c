// KERNEL: matmul_ptr
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1100
// DESCRIPTION: C = A*B with rectangular heap matrices (n x n+1 times n+1 x n+2), flat i*m+j indexing, i-k-j loop order
#include "harness.h"

/* C (ni x nj) = A (ni x nk) * B (nk x nj).  The caller passes three
 * distinct allocations; nothing tells the compiler they are disjoint. */
static __attribute__((noinline)) void matmul(int ni, int nj, int nk, double *C,
                                             const double *A, const double *B)
{
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            C[i * nj + j] = 0.0;
        for (int k = 0; k < nk; k++) {
            double a = A[i * nk + k];
            for (int j = 0; j < nj; j++)
                C[i * nj + j] += a * B[k * nj + j];
        }
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1100);
    pr_size_limit(n, 20000, "int index range");
    int ni = n, nk = n + 1, nj = n + 2;
    double *A = pr_alloc((size_t)ni * nk, sizeof *A);
    double *B = pr_alloc((size_t)nk * nj, sizeof *B);
    double *C = pr_alloc((size_t)ni * nj, sizeof *C);
    for (int i = 0; i < ni; i++)
        for (int k = 0; k < nk; k++)
            A[i * nk + k] = pr_init(i, k, n);
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < nj; j++)
            B[k * nj + j] = pr_init(k + 1000, j, n);
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            C[i * nj + j] = 99.0; /* must be overwritten */

    pr_timer_start();
    matmul(ni, nj, nk, C, A, B);
    pr_timer_stop();

    pr_check_d2("C", C, ni, nj, nj);
    free(A);
    free(B);
    free(C);
    return 0;
}
