// KERNEL: perm_gather_mm
// CATEGORY: irregular
// SIZES: test=0,1,7,33,65,130 bench=1000
// DESCRIPTION: matrix product with an indirectly indexed operand, C += A * B[perm[k]][:] (non-affine subscript loaded from memory), plus a scattered row-sum C[perm[i]][0] update, heap arrays
#include "harness.h"

static __attribute__((noinline)) void gather_matmul(int n, const int *perm, const double *A,
                                                    const double *B, double *C, double *rowsum)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            double a = A[i * n + k];
            const double *brow = &B[perm[k] * n];
            for (int j = 0; j < n; j++)
                C[i * n + j] += a * brow[j];
        }
    /* scatter: row sums of C, stored at permuted positions */
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += C[i * n + j];
        rowsum[perm[i]] = s;
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1000);
    pr_size_limit(n, 20000, "int index range");
    int *perm = pr_alloc((size_t)n, sizeof *perm);
    double *A = pr_alloc((size_t)n * n, sizeof *A);
    double *B = pr_alloc((size_t)n * n, sizeof *B);
    double *C = pr_alloc((size_t)n * n, sizeof *C);
    double *rowsum = pr_alloc((size_t)n, sizeof *rowsum);
    pr_permutation(perm, n, 777);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i * n + j] = pr_init(i, j, n);
            B[i * n + j] = pr_init(j, i + 31, n);
            C[i * n + j] = pr_init_pos(i, j, n);
        }

    pr_timer_start();
    gather_matmul(n, perm, A, B, C, rowsum);
    pr_timer_stop();

    pr_check_d2("C", C, n, n, n);
    pr_check_d("rowsum", rowsum, n);
    free(perm);
    free(A);
    free(B);
    free(C);
    free(rowsum);
    return 0;
}
