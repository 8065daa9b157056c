// KERNEL: conv1d_rows
// CATEGORY: stencil
// SIZES: test=0,1,6,7,8,33,65,130 bench=4000
// DESCRIPTION: repeated 7-tap constant-filter 1-D convolution along the rows of an n x n float signal batch, restrict-qualified heap pointers, ping-pong passes
#include "harness.h"

#define PASSES 16

static const float taps[7] = {0.0625f, 0.125f, 0.1875f, 0.25f, 0.1875f, 0.125f, 0.0625f};

/* One pass: valid convolution of every row of src into dst (3 cells at
 * each row end are copied unchanged). */
static void conv_rows(int rows, int len, float *restrict dst, const float *restrict src)
{
    for (int r = 0; r < rows; r++) {
        for (int i = 0; i < len && i < 3; i++)
            dst[r * len + i] = src[r * len + i];
        for (int i = 3; i < len - 3; i++) {
            float s = 0.0f;
            for (int t = 0; t < 7; t++)
                s += taps[t] * src[r * len + i - 3 + t];
            dst[r * len + i] = s;
        }
        for (int i = len - 3 > 3 ? len - 3 : 3; i < len; i++)
            dst[r * len + i] = src[r * len + i];
    }
}

static __attribute__((noinline)) void smooth_rows(int rows, int len, int passes,
                                                  float *restrict a, float *restrict b)
{
    for (int p = 0; p < passes; p++) {
        conv_rows(rows, len, b, a);
        conv_rows(rows, len, a, b);
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4000);
    pr_size_limit(n, 20000, "int index range");
    float *a = pr_alloc((size_t)n * n, sizeof *a);
    float *b = pr_alloc((size_t)n * n, sizeof *b);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < n; i++)
            a[r * n + i] = pr_initf(r, i, n) * 16.0f;

    pr_timer_start();
    smooth_rows(n, n, PASSES, a, b);
    pr_timer_stop();

    pr_check_f2("a", a, n, n, n);
    pr_check_f2("b", b, n, n, n);
    free(a);
    free(b);
    return 0;
}
