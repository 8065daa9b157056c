// KERNEL: alias_overlap
// CATEGORY: irregular
// SIZES: test=0,1,2,7,33,65,130 bench=2600
// DESCRIPTION: one pointer kernel dst = f(src, dst) called with disjoint arrays and with overlapping ones (dst = src+1, src-1, src+m, src itself); exercises run-time alias checks, results defined by sequential C semantics
#include "harness.h"

#define REPS 8

/* Reads src[i*m + j] and src[i*m + j + 1] and dst[i*m + j]; the caller
 * guarantees n*m + 1 readable elements at src and n*m at dst, but the
 * two ranges may overlap in any way. */
static __attribute__((noinline)) void blend(int n, int m, double *dst, const double *src)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            dst[i * m + j] = 0.5 * src[i * m + j] + 0.25 * src[i * m + j + 1] + 0.125 * dst[i * m + j];
}

static void fill(double *p, long count, long n, int salt)
{
    for (long k = 0; k < count; k++)
        p[k] = pr_init(k, salt, n) * 4.0;
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 2600);
    pr_size_limit(n, 20000, "int index range");
    int m = n + 1;
    long nm = (long)n * m;
    long pad = m + 8;                 /* room for every shifted view */
    long total = nm + 2 * pad;
    double *buf = pr_alloc((size_t)total, sizeof *buf);
    double *other = pr_alloc((size_t)total, sizeof *other);
    double *base = buf + pad;         /* src of the overlapping calls */
    struct {
        const char *name;
        double *dst;
        const double *src;
    } cases[5] = {
        {"disjoint", base, other + pad},
        {"dst_eq_src_plus1", base + 1, base},
        {"dst_eq_src_minus1", base - 1, base},
        {"dst_eq_src_plus_row", base + m, base},
        {"dst_eq_src", base, base},
    };
    double elapsed = 0.0;
    for (int c = 0; c < 5; c++) {
        fill(buf, total, n, 1);
        fill(other, total, n, 2);
        pr_timer_start();
        for (int r = 0; r < REPS; r++)
            blend(n, m, cases[c].dst, cases[c].src);
        elapsed += pr_timer_elapsed(); /* one kernel-time line for all cases */
        pr_check_d(cases[c].name, buf, total);
    }
    pr_timer_report(elapsed);
    free(buf);
    free(other);
    return 0;
}
