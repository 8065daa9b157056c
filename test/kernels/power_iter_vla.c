// KERNEL: power_iter_vla
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=6000
// DESCRIPTION: power iteration, repeated float matrix-vector product y = A*x plus normalisation (sqrtf), C99 VLA parameters
#include <math.h>
#include "harness.h"

#define ITERS 12

static __attribute__((noinline)) void power_iter(int n, int iters, float A[n][n],
                                                 float x[n], float y[n], float *lambda)
{
    for (int t = 0; t < iters; t++) {
        for (int i = 0; i < n; i++) {
            float s = 0.0f;
            for (int j = 0; j < n; j++)
                s += A[i][j] * x[j];
            y[i] = s;
        }
        float nrm2 = 0.0f;
        for (int i = 0; i < n; i++)
            nrm2 += y[i] * y[i];
        float nrm = sqrtf(nrm2);
        float inv = nrm > 0.0f ? 1.0f / nrm : 0.0f;
        for (int i = 0; i < n; i++)
            x[i] = y[i] * inv;
        *lambda = nrm;
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 6000);
    pr_size_limit(n, 20000, "int index range");
    float *a = pr_alloc((size_t)n * n, sizeof *a);
    float *x = pr_alloc((size_t)n, sizeof *x);
    float *y = pr_alloc((size_t)n, sizeof *y);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = pr_init_posf(i, j, n);
    for (int i = 0; i < n; i++)
        x[i] = 1.0f;
    float lambda = 0.0f;

    pr_timer_start();
    if (n > 0) /* a VLA bound must be positive */
        power_iter(n, ITERS, (float (*)[n])a, x, y, &lambda);
    pr_timer_stop();

    pr_check_f("x", x, n);
    pr_check_f("y", y, n);
    pr_check_scalar("lambda", (double)lambda);
    free(a);
    free(x);
    free(y);
    return 0;
}
