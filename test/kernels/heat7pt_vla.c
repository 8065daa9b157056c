// KERNEL: heat7pt_vla
// CATEGORY: stencil
// SIZES: test=0,1,2,7,20,33,41 bench=200
// DESCRIPTION: time-iterated explicit 3-D heat equation, 7-point stencil on an (n+2)^3 grid with a fixed halo, ping-pong between two grids, C99 VLA parameters
#include "harness.h"

#ifndef TSTEPS
#define TSTEPS 20
#endif

/* Grids have g = n + 2 points per dimension; the outer layer is the
 * boundary and is never written.  Two half-steps per time step. */
static __attribute__((noinline)) void heat3d(int g, int tsteps, double a[g][g][g], double b[g][g][g])
{
    const double kap = 0.125;
    for (int t = 0; t < tsteps; t++) {
        for (int i = 1; i < g - 1; i++)
            for (int j = 1; j < g - 1; j++)
                for (int k = 1; k < g - 1; k++)
                    b[i][j][k] = a[i][j][k] +
                                 kap * (a[i - 1][j][k] + a[i + 1][j][k] + a[i][j - 1][k] +
                                        a[i][j + 1][k] + a[i][j][k - 1] + a[i][j][k + 1] -
                                        6.0 * a[i][j][k]);
        for (int i = 1; i < g - 1; i++)
            for (int j = 1; j < g - 1; j++)
                for (int k = 1; k < g - 1; k++)
                    a[i][j][k] = b[i][j][k] +
                                 kap * (b[i - 1][j][k] + b[i + 1][j][k] + b[i][j - 1][k] +
                                        b[i][j + 1][k] + b[i][j][k - 1] + b[i][j][k + 1] -
                                        6.0 * b[i][j][k]);
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 200);
    pr_size_limit(n, 1000, "int index range");
    int g = n + 2; /* always >= 2, so the VLA bounds are positive */
    size_t cells = (size_t)g * g * g;
    double *a = pr_alloc(cells, sizeof *a);
    double *b = pr_alloc(cells, sizeof *b);
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++)
            for (int k = 0; k < g; k++) {
                size_t p = ((size_t)i * g + j) * g + k;
                int edge = i == 0 || j == 0 || k == 0 || i == g - 1 || j == g - 1 || k == g - 1;
                a[p] = edge ? 1.0 : pr_init(i * g + j, k, n) * 2.0;
                b[p] = a[p];
            }

    pr_timer_start();
    heat3d(g, TSTEPS, (double (*)[g][g])a, (double (*)[g][g])b);
    pr_timer_stop();

    pr_check_d2("a", a, (long)g * g, g, g);
    pr_check_d2("b", b, (long)g * g, g, g);
    free(a);
    free(b);
    return 0;
}
