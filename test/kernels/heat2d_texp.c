// KERNEL: heat2d_texp
// CATEGORY: stencil
// SIZES: test=0,1,2,3,5,8,33,100 bench=512
// DESCRIPTION: explicit 2-D heat equation written time-expanded: every time step's plane U[t][y][x] kept in one (STEPS+1) x MAXN x (MAXN+8) table (fixed planes and pitch, n <= MAXN used) malloc'd and freed in the kernel, borders held fixed, values scaled by 2 in and out (exact), the last plane copied out; double heap arrays
#include "harness.h"

#ifndef STEPS
#define STEPS 100
#endif
#define MAXN 512
#define PITCH (MAXN + 8)
#define PLANE ((long)MAXN * PITCH)

/* 3 <= n <= MAXN */
static __attribute__((noinline)) void heat2d(int n, int steps, const double *in, double *out)
{
    double *u = malloc(sizeof(double) * (size_t)(steps + 1) * (size_t)PLANE);
    if (u == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            u[y * PITCH + x] = 2.0 * in[(long)y * n + x];
    for (int t = 0; t < steps; t++) {
        for (int x = 0; x < n; x++) {
            u[(t + 1) * PLANE + x] = u[t * PLANE + x];
            u[(t + 1) * PLANE + (long)(n - 1) * PITCH + x] = u[t * PLANE + (long)(n - 1) * PITCH + x];
        }
        for (int y = 1; y < n - 1; y++) {
            u[(t + 1) * PLANE + (long)y * PITCH] = u[t * PLANE + (long)y * PITCH];
            for (int x = 1; x < n - 1; x++)
                u[(t + 1) * PLANE + (long)y * PITCH + x] =
                    0.2 * (u[t * PLANE + (long)y * PITCH + x] + u[t * PLANE + (long)(y - 1) * PITCH + x] +
                           u[t * PLANE + (long)(y + 1) * PITCH + x] + u[t * PLANE + (long)y * PITCH + x - 1] +
                           u[t * PLANE + (long)y * PITCH + x + 1]);
            u[(t + 1) * PLANE + (long)y * PITCH + n - 1] = u[t * PLANE + (long)y * PITCH + n - 1];
        }
    }
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            out[(long)y * n + x] = 0.5 * u[steps * PLANE + (long)y * PITCH + x];
    free(u);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, MAXN);
    pr_size_limit(n, MAXN, "the table's fixed planes");
    double *in = pr_alloc((size_t)n * n + 1, sizeof *in);
    double *out = pr_alloc((size_t)n * n + 1, sizeof *out);
    for (int i = 0; i < n * n; i++)
        in[i] = pr_init(i / (n > 0 ? n : 1), i % (n > 0 ? n : 1), n) * 100.0;

    pr_timer_start();
    if (n >= 3)
        heat2d(n, STEPS, in, out);
    else
        for (int i = 0; i < n * n; i++)
            out[i] = in[i];
    pr_timer_stop();

    pr_check_d2("out", out, n, n, n);
    free(in);
    free(out);
    return 0;
}
