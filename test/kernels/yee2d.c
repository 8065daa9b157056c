// KERNEL: yee2d
// CATEGORY: stencil
// SIZES: test=0,1,2,7,33,65,130 bench=2000
// DESCRIPTION: 2-D FDTD (Yee scheme, TE mode) updating staggered ex/ey/hz fields with a soft point source, perfectly conducting walls, global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 2048
#endif
#ifndef TSTEPS
#define TSTEPS 40
#endif

/* Hz lives at cell centres (n x n), Ex on horizontal edges (n x n+1),
 * Ey on vertical edges (n+1 x n).  Tangential E on the walls stays 0. */
static double Hz[NMAX][NMAX];
static double Ex[NMAX][NMAX + 1];
static double Ey[NMAX + 1][NMAX];
static double pulse[TSTEPS];

static __attribute__((noinline)) void fdtd_te(int n, int tsteps)
{
    const double ce = 0.5, ch = 0.5; /* (c dt / dx)^2 = 0.25 < 1/2: stable */
    for (int t = 0; t < tsteps; t++) {
        for (int i = 0; i < n; i++)
            for (int j = 1; j < n; j++)
                Ex[i][j] += ce * (Hz[i][j] - Hz[i][j - 1]);
        for (int i = 1; i < n; i++)
            for (int j = 0; j < n; j++)
                Ey[i][j] -= ce * (Hz[i][j] - Hz[i - 1][j]);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                Hz[i][j] += ch * (Ex[i][j + 1] - Ex[i][j] - Ey[i + 1][j] + Ey[i][j]);
        if (n > 0)
            Hz[n / 2][n / 3] += pulse[t];
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 2000);
    pr_size_limit(n, NMAX, "NMAX");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            Hz[i][j] = pr_init(i, j, n) * 0.25;
    for (int i = 0; i < n; i++)
        for (int j = 1; j < n; j++)
            Ex[i][j] = pr_init(i + 1, j, n) * 0.125;
    for (int i = 1; i < n; i++)
        for (int j = 0; j < n; j++)
            Ey[i][j] = pr_init(i, j + 2, n) * 0.125;
    for (int t = 0; t < TSTEPS; t++)
        pulse[t] = (double)((t * 5) % 9 - 4) * 0.5;

    pr_timer_start();
    fdtd_te(n, TSTEPS);
    pr_timer_stop();

    pr_check_d2("hz", &Hz[0][0], n, n, NMAX);
    pr_check_d2("ex", &Ex[0][0], n, n + 1, NMAX + 1);
    pr_check_d2("ey", &Ey[0][0], n + 1, n, NMAX);
    return 0;
}
