// KERNEL: pyramid_pipe
// CATEGORY: image
// SIZES: test=0,1,2,3,4,5,7,9,15,17,33,65,130 bench=4096
// DESCRIPTION: Laplacian-pyramid detail enhancement: 4-level Gaussian pyramid (2x decimation by a separable clamped [1 2 1]/4 filter, x pass into a temporary), then coarse to fine: linear 2x upsampling (quasi-affine x/2, (x+1)/2 subscripts) of the Gaussian and of the reconstruction, Laplacian band, boosted recombination; level loop over malloc'd levels with run-time sizes; float heap images
#include "harness.h"

#ifndef ROUNDS
#define ROUNDS 6
#endif

#define LEVELS 4

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

/* dst (h2 x w2, h2 = (h+1)/2, w2 = (w+1)/2) = src (h x w) filtered by
 * [1 2 1] / 4 along each axis (border pixels repeated) at even positions;
 * tmp (h x w2) holds the x pass. */
static void downsample(int h, int w, const float *src, float *tmp, int h2, int w2, float *dst)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w2; x++) {
            int xl = 2 * x - 1 > 0 ? 2 * x - 1 : 0;
            int xr = 2 * x + 1 < w - 1 ? 2 * x + 1 : w - 1;
            tmp[y * w2 + x] = 0.25f * src[y * w + xl] + 0.5f * src[y * w + 2 * x] + 0.25f * src[y * w + xr];
        }
    for (int y = 0; y < h2; y++) {
        int yl = 2 * y - 1 > 0 ? 2 * y - 1 : 0;
        int yr = 2 * y + 1 < h - 1 ? 2 * y + 1 : h - 1;
        for (int x = 0; x < w2; x++)
            dst[y * w2 + x] = 0.25f * tmp[yl * w2 + x] + 0.5f * tmp[(2 * y) * w2 + x] + 0.25f * tmp[yr * w2 + x];
    }
}

/* dst (h x w) = linear 2x interpolation of src (h2 x w2): even positions
 * copy, odd positions average their two neighbours (the last one repeated);
 * tmp (h2 x w) holds the x pass. */
static void upsample(int h2, int w2, const float *src, float *tmp, int h, int w, float *dst)
{
    for (int y = 0; y < h2; y++)
        for (int x = 0; x < w; x++) {
            int xa = x / 2, xb = (x + 1) / 2 < w2 - 1 ? (x + 1) / 2 : w2 - 1;
            tmp[y * w + x] = 0.5f * (src[y * w2 + xa] + src[y * w2 + xb]);
        }
    for (int y = 0; y < h; y++) {
        int ya = y / 2, yb = (y + 1) / 2 < h2 - 1 ? (y + 1) / 2 : h2 - 1;
        for (int x = 0; x < w; x++)
            dst[y * w + x] = 0.5f * (tmp[ya * w + x] + tmp[yb * w + x]);
    }
}

static __attribute__((noinline)) void pyramid(int h, int w, const float *in, float *out)
{
    static const float boost[LEVELS - 1] = {0.75f, 0.5f, 0.25f};
    int hs[LEVELS], ws[LEVELS];
    const float *gauss[LEVELS];
    float *level[LEVELS]; /* Gaussian levels 1 .. LEVELS-1 (level 0 is in) */
    float *rec[LEVELS];   /* reconstruction of levels 1 .. LEVELS-2 (level 0 is out) */

    hs[0] = h;
    ws[0] = w;
    for (int k = 1; k < LEVELS; k++) {
        hs[k] = (hs[k - 1] + 1) / 2;
        ws[k] = (ws[k - 1] + 1) / 2;
    }
    float *tmp = alloc_plane(h, w);   /* x passes */
    float *upg = alloc_plane(h, w);   /* upsampled Gaussian of the level above */
    float *upr = alloc_plane(h, w);   /* upsampled reconstruction of the level above */
    float *lap = alloc_plane(h, w);   /* Laplacian band */

    gauss[0] = in;
    for (int k = 1; k < LEVELS; k++) {
        level[k] = alloc_plane(hs[k], ws[k]);
        downsample(hs[k - 1], ws[k - 1], gauss[k - 1], tmp, hs[k], ws[k], level[k]);
        gauss[k] = level[k];
    }

    rec[LEVELS - 1] = level[LEVELS - 1];
    for (int k = LEVELS - 2; k >= 0; k--) {
        int lh = hs[k], lw = ws[k];
        float *dst = k == 0 ? out : alloc_plane(lh, lw);
        upsample(hs[k + 1], ws[k + 1], gauss[k + 1], tmp, lh, lw, upg);
        for (int y = 0; y < lh; y++)
            for (int x = 0; x < lw; x++)
                lap[y * lw + x] = gauss[k][y * lw + x] - upg[y * lw + x];
        upsample(hs[k + 1], ws[k + 1], rec[k + 1], tmp, lh, lw, upr);
        for (int y = 0; y < lh; y++)
            for (int x = 0; x < lw; x++)
                dst[y * lw + x] = upr[y * lw + x] + (1.0f + boost[k]) * lap[y * lw + x];
        rec[k] = dst;
    }

    for (int k = 1; k < LEVELS - 1; k++)
        free(rec[k]);
    for (int k = 1; k < LEVELS; k++)
        free(level[k]);
    free(tmp);
    free(upg);
    free(upr);
    free(lap);
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
            in[y * w + x] = (float)(((y / 32 + x / 20) % 4) * 40 + pr_init_int(y, x, n, 0, 90)) / 255.0f;

    pr_timer_start();
    for (int r = 0; r < ROUNDS; r++)
        pyramid(h, w, in, out);
    pr_timer_stop();

    pr_check_f2("out", out, h, w, w);
    free(in);
    free(out);
    return 0;
}
