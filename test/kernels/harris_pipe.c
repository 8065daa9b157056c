// KERNEL: harris_pipe
// CATEGORY: image
// SIZES: test=0,1,2,3,4,5,6,7,33,65,130 bench=4096
// DESCRIPTION: Harris corner response: grayscale from interleaved uint8 RGB, Sobel Ix and Iy, products Ixx Iyy Ixy, 3x3 box sums, det - k*trace^2; each of the nine stages into a float temporary malloc'd and freed in the kernel, interior-only loops
#include "harness.h"

#ifndef ROUNDS
#define ROUNDS 3
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

/* rgb: h x w pixels, 3 interleaved channels; resp: h x w, zero within 2
 * pixels of the border. */
static __attribute__((noinline)) void harris(int h, int w, const uint8_t *rgb, float *resp, float k)
{
    float *gray = alloc_plane(h, w);
    float *ix = alloc_plane(h, w), *iy = alloc_plane(h, w);
    float *ixx = alloc_plane(h, w), *iyy = alloc_plane(h, w), *ixy = alloc_plane(h, w);
    float *sxx = alloc_plane(h, w), *syy = alloc_plane(h, w), *sxy = alloc_plane(h, w);

    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            gray[y * w + x] = (0.299f * rgb[(y * w + x) * 3] + 0.587f * rgb[(y * w + x) * 3 + 1] +
                               0.114f * rgb[(y * w + x) * 3 + 2]) *
                              (1.0f / 255.0f);

    /* Sobel gradients, scaled by 1/8 */
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++)
            ix[y * w + x] = ((gray[(y - 1) * w + x + 1] - gray[(y - 1) * w + x - 1]) +
                             2.0f * (gray[y * w + x + 1] - gray[y * w + x - 1]) +
                             (gray[(y + 1) * w + x + 1] - gray[(y + 1) * w + x - 1])) *
                            0.125f;
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++)
            iy[y * w + x] = ((gray[(y + 1) * w + x - 1] - gray[(y - 1) * w + x - 1]) +
                             2.0f * (gray[(y + 1) * w + x] - gray[(y - 1) * w + x]) +
                             (gray[(y + 1) * w + x + 1] - gray[(y - 1) * w + x + 1])) *
                            0.125f;

    /* structure tensor entries */
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++)
            ixx[y * w + x] = ix[y * w + x] * ix[y * w + x];
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++)
            iyy[y * w + x] = iy[y * w + x] * iy[y * w + x];
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++)
            ixy[y * w + x] = ix[y * w + x] * iy[y * w + x];

    /* 3x3 box sums */
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++)
            sxx[y * w + x] = ixx[(y - 1) * w + x - 1] + ixx[(y - 1) * w + x] + ixx[(y - 1) * w + x + 1] +
                             ixx[y * w + x - 1] + ixx[y * w + x] + ixx[y * w + x + 1] +
                             ixx[(y + 1) * w + x - 1] + ixx[(y + 1) * w + x] + ixx[(y + 1) * w + x + 1];
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++)
            syy[y * w + x] = iyy[(y - 1) * w + x - 1] + iyy[(y - 1) * w + x] + iyy[(y - 1) * w + x + 1] +
                             iyy[y * w + x - 1] + iyy[y * w + x] + iyy[y * w + x + 1] +
                             iyy[(y + 1) * w + x - 1] + iyy[(y + 1) * w + x] + iyy[(y + 1) * w + x + 1];
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++)
            sxy[y * w + x] = ixy[(y - 1) * w + x - 1] + ixy[(y - 1) * w + x] + ixy[(y - 1) * w + x + 1] +
                             ixy[y * w + x - 1] + ixy[y * w + x] + ixy[y * w + x + 1] +
                             ixy[(y + 1) * w + x - 1] + ixy[(y + 1) * w + x] + ixy[(y + 1) * w + x + 1];

    /* response */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            resp[y * w + x] = 0.0f;
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++) {
            float det = sxx[y * w + x] * syy[y * w + x] - sxy[y * w + x] * sxy[y * w + x];
            float trace = sxx[y * w + x] + syy[y * w + x];
            resp[y * w + x] = det - k * trace * trace;
        }

    free(gray);
    free(ix);
    free(iy);
    free(ixx);
    free(iyy);
    free(ixy);
    free(sxx);
    free(syy);
    free(sxy);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4096);
    pr_size_limit(n, 16384, "int index range");
    int h = n, w = n;
    uint8_t *rgb = pr_alloc((size_t)h * w * 3, 1);
    float *resp = pr_alloc((size_t)h * w, sizeof *resp);
    /* bright and dark rectangles (corners) with per-channel noise */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                int base = ((y / 24 + x / 40) % 3) * 70 + ((y / 56) % 2) * 40 + c * 10;
                rgb[(y * w + x) * 3 + c] = (uint8_t)(base + pr_init_int(y, x * 3 + c, n, 0, 35));
            }

    pr_timer_start();
    for (int r = 0; r < ROUNDS; r++)
        harris(h, w, rgb, resp, 0.04f);
    pr_timer_stop();

    pr_check_f2("resp", resp, h, w, w);
    free(rgb);
    free(resp);
    return 0;
}
