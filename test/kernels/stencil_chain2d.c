// KERNEL: stencil_chain2d
// CATEGORY: stencil
// SIZES: test=0,1,2,3,5,6,7,8,33,65,130 bench=4096
// DESCRIPTION: chain of three different 5-point stencils (smoothing, sharpening, averaging) through two temporaries malloc'd and freed in the kernel, each stage one pixel further from the border (interior-only loops); float heap images
#include "harness.h"

#ifndef ROUNDS
#define ROUNDS 8
#endif

static float *alloc_plane(long h, long w)
{
    size_t bytes = (size_t)h * (size_t)w * sizeof(float);
    float *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    return p;
}

/* out is defined for 3 <= y < h-3, 3 <= x < w-3; the rest is not written. */
static __attribute__((noinline)) void chain3(int h, int w, const float *in, float *out)
{
    float *t1 = alloc_plane(h, w);
    float *t2 = alloc_plane(h, w);

    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++)
            t1[y * w + x] = 0.5f * in[y * w + x] +
                            0.125f * (in[(y - 1) * w + x] + in[(y + 1) * w + x] + in[y * w + x - 1] + in[y * w + x + 1]);
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++)
            t2[y * w + x] = 1.8f * t1[y * w + x] -
                            0.2f * (t1[(y - 1) * w + x] + t1[(y + 1) * w + x] + t1[y * w + x - 1] + t1[y * w + x + 1]);
    for (int y = 3; y < h - 3; y++)
        for (int x = 3; x < w - 3; x++)
            out[y * w + x] = (t2[(y - 1) * w + x] + t2[y * w + x - 1] + t2[y * w + x] + t2[y * w + x + 1] +
                              t2[(y + 1) * w + x]) *
                             0.2f;

    free(t1);
    free(t2);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4096);
    pr_size_limit(n, 16384, "int index range");
    int h = n, w = n;
    float *in = pr_alloc((size_t)h * w, sizeof *in);
    float *out = pr_alloc((size_t)h * w, sizeof *out); /* zero: the border stays 0 */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            in[y * w + x] = pr_initf(y, x, n) * 4.0f;

    pr_timer_start();
    for (int r = 0; r < ROUNDS; r++)
        chain3(h, w, in, out);
    pr_timer_stop();

    pr_check_f2("out", out, h, w, w);
    free(in);
    free(out);
    return 0;
}
