// KERNEL: camera_pipe_like
// CATEGORY: image
// SIZES: test=0,1,2,3,4,5,6,7,8,9,33,65,130 bench=4096
// DESCRIPTION: raw-to-RGB camera pipeline on a 10-bit RGGB Bayer mosaic (uint16): hot-pixel suppression against same-colour neighbours, deinterleave into four quarter planes, demosaic by neighbour averages (one nest per colour, stride-2 writes), white balance and colour matrix, tone curve through a 1024-entry lookup table on the stack into interleaved uint8 RGB; every stage a temporary malloc'd in the kernel
#include "harness.h"

#ifndef ROUNDS
#define ROUNDS 3
#endif

#define BLACK 64.0f
#define WHITE 1023

static void *alloc_bytes(size_t count, size_t size)
{
    size_t bytes = count * size;
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    return p;
}

/* raw: h x w mosaic, (even, even) red, (even, odd) and (odd, even) green,
 * (odd, odd) blue.  rgb: h x w x 3; pixels outside the demosaiced interior
 * (2 pixels from the border of the largest even-sized sub-image) are 0. */
static __attribute__((noinline)) void camera_pipe(int h, int w, const uint16_t *raw, uint8_t *rgb)
{
    int qh = h / 2, qw = w / 2; /* 2x2 quads */
    int oh = 2 * qh, ow = 2 * qw;
    uint16_t *dn = alloc_bytes((size_t)h * w, sizeof *dn);
    uint16_t *pr = alloc_bytes((size_t)qh * qw, sizeof *pr);
    uint16_t *pgr = alloc_bytes((size_t)qh * qw, sizeof *pgr);
    uint16_t *pgb = alloc_bytes((size_t)qh * qw, sizeof *pgb);
    uint16_t *pb = alloc_bytes((size_t)qh * qw, sizeof *pb);
    float *red = alloc_bytes((size_t)oh * ow, sizeof *red);
    float *green = alloc_bytes((size_t)oh * ow, sizeof *green);
    float *blue = alloc_bytes((size_t)oh * ow, sizeof *blue);
    float *cr = alloc_bytes((size_t)oh * ow, sizeof *cr);
    float *cg = alloc_bytes((size_t)oh * ow, sizeof *cg);
    float *cb = alloc_bytes((size_t)oh * ow, sizeof *cb);
    uint8_t curve[WHITE + 1];

    /* tone curve 1 - (1 - t)^3 on t = v / 1023, rounded to 8 bits */
    for (int v = 0; v <= WHITE; v++) {
        float t = 1.0f - (float)v * (1.0f / WHITE);
        curve[v] = (uint8_t)(255.0f * (1.0f - t * t * t) + 0.5f);
    }

    /* hot-pixel suppression: clamp to the range of the four same-colour
     * neighbours two pixels away; the 2-pixel border is copied */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            dn[y * w + x] = raw[y * w + x];
    for (int y = 2; y < h - 2; y++)
        for (int x = 2; x < w - 2; x++) {
            int c = raw[y * w + x];
            int n = raw[(y - 2) * w + x], s = raw[(y + 2) * w + x];
            int e = raw[y * w + x + 2], o = raw[y * w + x - 2];
            int hi = n > s ? n : s, lo = n < s ? n : s;
            hi = e > hi ? e : hi;
            hi = o > hi ? o : hi;
            lo = e < lo ? e : lo;
            lo = o < lo ? o : lo;
            dn[y * w + x] = (uint16_t)(c > hi ? hi : c < lo ? lo : c);
        }

    /* deinterleave */
    for (int y = 0; y < qh; y++)
        for (int x = 0; x < qw; x++) {
            pr[y * qw + x] = dn[(2 * y) * w + 2 * x];
            pgr[y * qw + x] = dn[(2 * y) * w + 2 * x + 1];
            pgb[y * qw + x] = dn[(2 * y + 1) * w + 2 * x];
            pb[y * qw + x] = dn[(2 * y + 1) * w + 2 * x + 1];
        }

    /* demosaic, interior quads: each output colour by averaging the nearest
     * samples of that colour */
    for (int y = 1; y < qh - 1; y++)
        for (int x = 1; x < qw - 1; x++) {
            red[(2 * y) * ow + 2 * x] = pr[y * qw + x];
            red[(2 * y) * ow + 2 * x + 1] = 0.5f * (pr[y * qw + x] + pr[y * qw + x + 1]);
            red[(2 * y + 1) * ow + 2 * x] = 0.5f * (pr[y * qw + x] + pr[(y + 1) * qw + x]);
            red[(2 * y + 1) * ow + 2 * x + 1] =
                0.25f * (pr[y * qw + x] + pr[y * qw + x + 1] + pr[(y + 1) * qw + x] + pr[(y + 1) * qw + x + 1]);
        }
    for (int y = 1; y < qh - 1; y++)
        for (int x = 1; x < qw - 1; x++) {
            green[(2 * y) * ow + 2 * x] =
                0.25f * (pgr[y * qw + x] + pgr[y * qw + x - 1] + pgb[y * qw + x] + pgb[(y - 1) * qw + x]);
            green[(2 * y) * ow + 2 * x + 1] = pgr[y * qw + x];
            green[(2 * y + 1) * ow + 2 * x] = pgb[y * qw + x];
            green[(2 * y + 1) * ow + 2 * x + 1] =
                0.25f * (pgr[y * qw + x] + pgr[(y + 1) * qw + x] + pgb[y * qw + x] + pgb[y * qw + x + 1]);
        }
    for (int y = 1; y < qh - 1; y++)
        for (int x = 1; x < qw - 1; x++) {
            blue[(2 * y) * ow + 2 * x] =
                0.25f * (pb[y * qw + x] + pb[(y - 1) * qw + x] + pb[y * qw + x - 1] + pb[(y - 1) * qw + x - 1]);
            blue[(2 * y) * ow + 2 * x + 1] = 0.5f * (pb[y * qw + x] + pb[(y - 1) * qw + x]);
            blue[(2 * y + 1) * ow + 2 * x] = 0.5f * (pb[y * qw + x] + pb[y * qw + x - 1]);
            blue[(2 * y + 1) * ow + 2 * x + 1] = pb[y * qw + x];
        }

    /* black level, white balance and colour matrix */
    for (int y = 2; y < oh - 2; y++)
        for (int x = 2; x < ow - 2; x++) {
            float r = (red[y * ow + x] - BLACK) * 1.9f;
            float g = green[y * ow + x] - BLACK;
            float b = (blue[y * ow + x] - BLACK) * 1.6f;
            cr[y * ow + x] = 1.6f * r - 0.4f * g - 0.2f * b;
            cg[y * ow + x] = -0.3f * r + 1.5f * g - 0.2f * b;
            cb[y * ow + x] = 0.1f * r - 0.6f * g + 1.5f * b;
        }

    /* tone curve into interleaved 8-bit RGB */
    memset(rgb, 0, (size_t)h * w * 3);
    for (int y = 2; y < oh - 2; y++)
        for (int x = 2; x < ow - 2; x++) {
            float r = cr[y * ow + x], g = cg[y * ow + x], b = cb[y * ow + x];
            r = r < 0.0f ? 0.0f : r > (float)WHITE ? (float)WHITE : r;
            g = g < 0.0f ? 0.0f : g > (float)WHITE ? (float)WHITE : g;
            b = b < 0.0f ? 0.0f : b > (float)WHITE ? (float)WHITE : b;
            rgb[(y * w + x) * 3] = curve[(int)r];
            rgb[(y * w + x) * 3 + 1] = curve[(int)g];
            rgb[(y * w + x) * 3 + 2] = curve[(int)b];
        }

    free(dn);
    free(pr);
    free(pgr);
    free(pgb);
    free(pb);
    free(red);
    free(green);
    free(blue);
    free(cr);
    free(cg);
    free(cb);
}

/* Checksums of an 8-bit array in the format of pr_check_i2. */
static void check_u8(const char *name, const uint8_t *a, long count)
{
    long long sum = 0, wsum = 0;
    for (long k = 0; k < count; k++) {
        sum += a[k];
        wsum += (long long)(k % 7 + 1) * a[k];
    }
    printf("%s %lld %lld\n", name, sum, wsum);
    printf("%s samples", name);
    if (count == 0)
        printf(" (empty)");
    else {
        long idx[4] = {0, count / 3, count / 7 * 5 + count % 7 * 5 / 7, count - 1};
        for (int s = 0; s < 4; s++)
            printf(" %d", a[idx[s]]);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4096);
    pr_size_limit(n, 16384, "int index range");
    int h = n, w = n;
    uint16_t *raw = pr_alloc((size_t)h * w, sizeof *raw);
    uint8_t *rgb = pr_alloc((size_t)h * w * 3, 1);
    /* a scene of coloured patches and ramps, sampled through the mosaic,
     * with sensor noise and about one hot pixel in 500 */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int ch = (y % 2) + (x % 2); /* 0 red, 1 green, 2 blue */
            int patch = (y / 48 * 7 + x / 64 * 3 + ch * 5) % 11;
            int v = 64 + patch * 70 + (x + 2 * y) % 97 + pr_init_int(y, x, n, -12, 12);
            if (pr_hash(y, x, n, 9u) % 500u == 0u)
                v = WHITE;
            raw[y * w + x] = (uint16_t)(v < 0 ? 0 : v > WHITE ? WHITE : v);
        }
    /* the kernel writes all of rgb (memset plus interior) */

    pr_timer_start();
    for (int r = 0; r < ROUNDS; r++)
        camera_pipe(h, w, raw, rgb);
    pr_timer_stop();

    check_u8("rgb", rgb, (long)h * w * 3);
    free(raw);
    free(rgb);
    return 0;
}
