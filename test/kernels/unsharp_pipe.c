// KERNEL: unsharp_pipe
// CATEGORY: image
// SIZES: test=0,1,2,3,4,5,6,7,33,65,130 bench=4096
// DESCRIPTION: unsharp-mask pipeline on interior-only loops: 5-tap blur along x, blur along y, sharpen = in + w*(in - blur), threshold mask (keep in where |in - blur| is small), each stage into a temporary malloc'd and freed in the kernel; float heap images
#include "harness.h"

#ifndef ROUNDS
#define ROUNDS 6
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

/* Pixels within b of the image border are copied from in to out. */
static void copy_border(int h, int w, int b, const float *in, float *out)
{
    for (int y = 0; y < h; y++) {
        if (y < b || y >= h - b) {
            for (int x = 0; x < w; x++)
                out[y * w + x] = in[y * w + x];
        } else {
            for (int x = 0; x < w && x < b; x++)
                out[y * w + x] = in[y * w + x];
            for (int x = w - b > b ? w - b : b; x < w; x++)
                out[y * w + x] = in[y * w + x];
        }
    }
}

static __attribute__((noinline)) void unsharp(int h, int w, const float *in, float *out,
                                              float weight, float thresh)
{
    float *blurx = alloc_plane(h, w);
    float *blury = alloc_plane(h, w);
    float *sharp = alloc_plane(h, w);

    /* blur along x: every row, columns 2 .. w-3 */
    for (int y = 0; y < h; y++)
        for (int x = 2; x < w - 2; x++)
            blurx[y * w + x] = (in[y * w + x - 2] + 4.0f * in[y * w + x - 1] + 6.0f * in[y * w + x] +
                                4.0f * in[y * w + x + 1] + in[y * w + x + 2]) *
                               0.0625f;

    /* blur along y: rows 2 .. h-3 */
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++)
            blury[y * w + x] = (blurx[(y - 2) * w + x] + 4.0f * blurx[(y - 1) * w + x] +
                                6.0f * blurx[y * w + x] + 4.0f * blurx[(y + 1) * w + x] +
                                blurx[(y + 2) * w + x]) *
                               0.0625f;

    /* sharpen */
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++)
            sharp[y * w + x] = in[y * w + x] + weight * (in[y * w + x] - blury[y * w + x]);

    /* threshold mask: flat areas keep the input, edges get the clamped sharpened value */
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++) {
            float d = in[y * w + x] - blury[y * w + x];
            float s = sharp[y * w + x];
            s = s < 0.0f ? 0.0f : s;
            s = s > 1.0f ? 1.0f : s;
            out[y * w + x] = (d < thresh && d > -thresh) ? in[y * w + x] : s;
        }
    copy_border(h, w, 2, in, out);

    free(blurx);
    free(blury);
    free(sharp);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4096);
    pr_size_limit(n, 16384, "int index range");
    int h = n, w = n;
    float *in = pr_alloc((size_t)h * w, sizeof *in);
    float *out = pr_alloc((size_t)h * w, sizeof *out);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            in[y * w + x] = (float)(((y / 8 + x / 8) % 2) * 128 + pr_init_int(y, x, n, 0, 64)) / 255.0f;

    pr_timer_start();
    for (int r = 0; r < ROUNDS; r++)
        unsharp(h, w, in, out, 1.5f, 0.02f);
    pr_timer_stop();

    pr_check_f2("out", out, h, w, w);
    free(in);
    free(out);
    return 0;
}
