// KERNEL: dot_norms
// CATEGORY: data-analysis
// SIZES: test=0,1,7,33,65,1000 bench=1000000
// DESCRIPTION: reductions over 24 heap vectors of length n: all pairwise dot products (Gram matrix), 2-norms (sqrt), 1-norms and max-abs; scalar accumulators
#include <math.h>
#include "harness.h"

#define NVEC 24

/* V holds NVEC vectors of length n, one per row.  G is NVEC x NVEC. */
static __attribute__((noinline)) void dots_and_norms(int nvec, int n, const double *V, double *G,
                                                     double *norm2, double *norm1, double *maxabs)
{
    for (int a = 0; a < nvec; a++)
        for (int b = a; b < nvec; b++) {
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += V[(long)a * n + i] * V[(long)b * n + i];
            G[a * nvec + b] = s;
            G[b * nvec + a] = s;
        }
    for (int a = 0; a < nvec; a++) {
        double s1 = 0.0, mx = 0.0;
        for (int i = 0; i < n; i++) {
            double x = fabs(V[(long)a * n + i]);
            s1 += x;
            if (x > mx)
                mx = x;
        }
        norm1[a] = s1;
        maxabs[a] = mx;
        norm2[a] = sqrt(G[a * nvec + a]);
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1000000);
    pr_size_limit(n, 50000000, "vector length");
    double *V = pr_alloc((size_t)NVEC * n, sizeof *V);
    double G[NVEC * NVEC], norm2[NVEC], norm1[NVEC], maxabs[NVEC];
    for (int a = 0; a < NVEC; a++)
        for (int i = 0; i < n; i++)
            V[(size_t)a * n + i] = pr_init(a, i, n) * (double)(a % 4 + 1);

    pr_timer_start();
    dots_and_norms(NVEC, n, V, G, norm2, norm1, maxabs);
    pr_timer_stop();

    pr_check_d2("gram", G, NVEC, NVEC, NVEC);
    pr_check_d("norm2", norm2, NVEC);
    pr_check_d("norm1", norm1, NVEC);
    pr_check_d("maxabs", maxabs, NVEC);
    free(V);
    return 0;
}
