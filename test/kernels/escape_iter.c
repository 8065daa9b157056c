// KERNEL: escape_iter
// CATEGORY: irregular
// SIZES: test=0,1,2,7,33,65,130 bench=1400
// DESCRIPTION: escape-time iteration z = z^2 + c over an n x n grid of the complex plane with a data-dependent exit (break when |z|^2 > 4), int iteration counts and final |z|^2 in global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 2048
#endif
#define MAXIT 300

static int Count[NMAX][NMAX];
static double Mag[NMAX][NMAX];

static __attribute__((noinline)) void escape_time(int n, int maxit)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double cr = -2.0 + 2.5 * (double)j / (double)n;
            double ci = -1.25 + 2.5 * (double)i / (double)n;
            double zr = 0.0, zi = 0.0, m2 = 0.0;
            int k = 0;
            while (k < maxit) {
                double nr = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = nr;
                k++;
                m2 = zr * zr + zi * zi;
                if (m2 > 4.0)
                    break;
            }
            Count[i][j] = k;
            Mag[i][j] = m2;
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1400);
    pr_size_limit(n, NMAX, "NMAX");
    /* pre-fill the outputs with a sentinel (the kernel overwrites what it
     * defines); this also faults their pages in before the timed region */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            Count[i][j] = -1;
            Mag[i][j] = -1.0;
        }

    pr_timer_start();
    escape_time(n, MAXIT);
    pr_timer_stop();

    pr_check_i2("count", &Count[0][0], n, n, NMAX);
    pr_check_d2("mag", &Mag[0][0], n, n, NMAX);
    return 0;
}
