// KERNEL: stencil_chain1d
// CATEGORY: stencil
// SIZES: test=0,1,2,3,5,7,8,9,10,33,65,1000 bench=16777216
// DESCRIPTION: 1-D chain of four 3-point stages through three temporaries malloc'd and freed in the kernel: smoothing, central difference, a diffusion step that reads both earlier stages (a DAG, not only a chain), 3-point mean; interior-only loops; double heap arrays
#include "harness.h"

#ifndef ROUNDS
#define ROUNDS 4
#endif

static double *alloc_vec(long n)
{
    size_t bytes = (size_t)n * sizeof(double);
    double *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    return p;
}

/* out is defined for 4 <= i < n-4; the rest is not written. */
static __attribute__((noinline)) void chain4(int n, const double *in, double *out)
{
    double *smooth = alloc_vec(n);
    double *grad = alloc_vec(n);
    double *diff = alloc_vec(n);

    for (int i = 1; i < n - 1; i++)
        smooth[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
    for (int i = 2; i < n - 2; i++)
        grad[i] = 0.5 * (smooth[i + 1] - smooth[i - 1]);
    for (int i = 3; i < n - 3; i++)
        diff[i] = smooth[i] + 0.3 * (grad[i + 1] - grad[i - 1]);
    for (int i = 4; i < n - 4; i++)
        out[i] = (diff[i - 1] + diff[i] + diff[i + 1]) / 3.0;

    free(smooth);
    free(grad);
    free(diff);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 16777216);
    pr_size_limit(n, 1000000000, "int index range");
    double *in = pr_alloc((size_t)n, sizeof *in);
    double *out = pr_alloc((size_t)n, sizeof *out); /* zero: the ends stay 0 */
    for (int i = 0; i < n; i++)
        in[i] = pr_init(i, 0, n) * 8.0 + (double)(i % 1000) / 64.0;

    pr_timer_start();
    for (int r = 0; r < ROUNDS; r++)
        chain4(n, in, out);
    pr_timer_stop();

    pr_check_d("out", out, n);
    free(in);
    free(out);
    return 0;
}
