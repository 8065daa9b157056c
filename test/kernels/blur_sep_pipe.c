// KERNEL: blur_sep_pipe
// CATEGORY: image
// SIZES: test=0,1,2,3,4,5,7,33,65,130 bench=4096
// DESCRIPTION: separable 5-tap binomial blur with clamped borders: horizontal pass into a temporary malloc'd and freed in the kernel, vertical pass into the output; float heap images, one pipeline call per round
#include "harness.h"

#ifndef ROUNDS
#define ROUNDS 8
#endif

#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

/* A temporary image as a real pipeline allocates it: plain malloc, pages
 * not touched in advance. */
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

/* out = B_y(B_x(in)) with B = [1 4 6 4 1] / 16; the image is extended by
 * repeating its border pixels. */
static __attribute__((noinline)) void blur_sep(int h, int w, const float *in, float *out)
{
    float *tmp = alloc_plane(h, w);

    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int xm2 = CLAMP(x - 2, 0, w - 1), xm1 = CLAMP(x - 1, 0, w - 1);
            int xp1 = CLAMP(x + 1, 0, w - 1), xp2 = CLAMP(x + 2, 0, w - 1);
            tmp[y * w + x] = (in[y * w + xm2] + 4.0f * in[y * w + xm1] + 6.0f * in[y * w + x] +
                              4.0f * in[y * w + xp1] + in[y * w + xp2]) *
                             0.0625f;
        }

    for (int y = 0; y < h; y++) {
        int ym2 = CLAMP(y - 2, 0, h - 1), ym1 = CLAMP(y - 1, 0, h - 1);
        int yp1 = CLAMP(y + 1, 0, h - 1), yp2 = CLAMP(y + 2, 0, h - 1);
        for (int x = 0; x < w; x++)
            out[y * w + x] = (tmp[ym2 * w + x] + 4.0f * tmp[ym1 * w + x] + 6.0f * tmp[y * w + x] +
                              4.0f * tmp[yp1 * w + x] + tmp[yp2 * w + x]) *
                             0.0625f;
    }

    free(tmp);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4096);
    pr_size_limit(n, 16384, "int index range");
    int h = n, w = n;
    float *in = pr_alloc((size_t)h * w, sizeof *in);
    float *out = pr_alloc((size_t)h * w, sizeof *out);
    /* 8-bit-like intensities normalised to [0, 1] (x / 255 rounds) */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            in[y * w + x] = (float)(((y / 16 + x / 16) % 2) * 96 + pr_init_int(y, x, n, 0, 159)) / 255.0f;

    pr_timer_start();
    for (int r = 0; r < ROUNDS; r++)
        blur_sep(h, w, in, out);
    pr_timer_stop();

    pr_check_f2("out", out, h, w, w);
    free(in);
    free(out);
    return 0;
}
