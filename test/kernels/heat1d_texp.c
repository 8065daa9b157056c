// KERNEL: heat1d_texp
// CATEGORY: stencil
// SIZES: test=0,1,2,3,5,8,33,100,1000 bench=524288
// DESCRIPTION: explicit 1-D heat equation written time-expanded, as a textbook derivation states it: every time step's row U[t][i] kept in one (STEPS+1) x w table (w = n + 8, a padded pitch) malloc'd and freed in the kernel (values scaled by 2 on the way in and out, exact), ends held fixed, the last row copied out; double heap arrays
#include "harness.h"

#ifndef STEPS
#define STEPS 128
#endif

/* n >= 3; rows of the table are w >= n elements apart (a padded pitch). */
static __attribute__((noinline)) void heat(int n, int w, int steps, const double *in, double *out)
{
    double *u = malloc((size_t)(steps + 1) * (size_t)w * sizeof(double));
    if (u == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    /* In units of half a degree (exact: a power of two), back at the end. */
    for (int i = 0; i < n; i++)
        u[i] = 2.0 * in[i];
    for (int t = 0; t < steps; t++) {
        u[(long)(t + 1) * w] = u[(long)t * w];
        for (int i = 1; i < n - 1; i++)
            u[(long)(t + 1) * w + i] = u[(long)t * w + i] +
                                       0.25 * (u[(long)t * w + i - 1] - 2.0 * u[(long)t * w + i] +
                                               u[(long)t * w + i + 1]);
        u[(long)(t + 1) * w + n - 1] = u[(long)t * w + n - 1];
    }
    for (int i = 0; i < n; i++)
        out[i] = 0.5 * u[(long)steps * w + i];
    free(u);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 524288);
    pr_size_limit(n, 100000000, "table size");
    double *in = pr_alloc((size_t)n, sizeof *in);
    double *out = pr_alloc((size_t)n, sizeof *out);
    for (int i = 0; i < n; i++)
        in[i] = pr_init(i, 0, n) * 100.0;

    pr_timer_start();
    if (n >= 3)
        heat(n, n + 8, STEPS, in, out);
    else
        for (int i = 0; i < n; i++)
            out[i] = in[i];
    pr_timer_stop();

    pr_check_d("out", out, n);
    free(in);
    free(out);
    return 0;
}
