// KERNEL: rank1_seq
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=4000
// DESCRIPTION: a sequence of 128 float rank-1 updates A += a_k * x_k * y_k^T on heap arrays (update index outermost; interchange/tiling opportunity)
#include "harness.h"

#define NUPD 128

/* A is n x n; X and Y hold one length-n vector per update.  The caller
 * passes disjoint allocations. */
static __attribute__((noinline)) void rank1_updates(int n, int nupd, float *A, const float *X,
                                                    const float *Y, const float *alpha)
{
    for (int k = 0; k < nupd; k++)
        for (int i = 0; i < n; i++) {
            float ax = alpha[k] * X[k * n + i];
            for (int j = 0; j < n; j++)
                A[i * n + j] += ax * Y[k * n + j];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4000);
    pr_size_limit(n, 20000, "int index range");
    float *A = pr_alloc((size_t)n * n, sizeof *A);
    float *X = pr_alloc((size_t)NUPD * n, sizeof *X);
    float *Y = pr_alloc((size_t)NUPD * n, sizeof *Y);
    float alpha[NUPD];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = pr_initf(i, j, n);
    for (int k = 0; k < NUPD; k++) {
        alpha[k] = 0.125f * (float)(k % 3 + 1);
        for (int i = 0; i < n; i++) {
            X[k * n + i] = pr_initf(k, i, n);
            Y[k * n + i] = pr_initf(i, k + 50, n);
        }
    }

    pr_timer_start();
    rank1_updates(n, NUPD, A, X, Y, alpha);
    pr_timer_stop();

    pr_check_f2("A", A, n, n, n);
    free(A);
    free(X);
    free(Y);
    return 0;
}
