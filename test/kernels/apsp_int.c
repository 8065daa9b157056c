// KERNEL: apsp_int
// CATEGORY: dynamic-programming
// SIZES: test=0,1,2,7,33,65,130 bench=1000
// DESCRIPTION: Floyd-Warshall all-pairs shortest paths on int edge weights with an "infinity" that cannot overflow, global fixed-size array
#include "harness.h"

#ifndef NMAX
#define NMAX 1200
#endif

#define INF (1 << 28) /* INF + INF still fits in an int */

static int Dist[NMAX][NMAX];

static __attribute__((noinline)) void floyd_warshall(int n)
{
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++) {
            int dik = Dist[i][k];
            for (int j = 0; j < n; j++) {
                int via = dik + Dist[k][j];
                if (via < Dist[i][j])
                    Dist[i][j] = via;
            }
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1000);
    pr_size_limit(n, NMAX, "NMAX");
    /* roughly 1 in 6 ordered pairs has a direct edge of weight 1..20,
     * plus a ring i -> i+1 so every node is reachable from every other */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int w = INF;
            if (i == j)
                w = 0;
            else if (j == (i + 1) % n)
                w = pr_init_int(i, j, n, 30, 60);
            else if (pr_init_int(j, i, n, 0, 5) == 0)
                w = pr_init_int(i, j, n, 1, 20);
            Dist[i][j] = w;
        }

    pr_timer_start();
    floyd_warshall(n);
    pr_timer_stop();

    pr_check_i2("dist", &Dist[0][0], n, n, NMAX);
    return 0;
}
