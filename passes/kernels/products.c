/* The packed matrix product polyrust calls for a recognised dot-product nest
 *
 *   for (i < M) for (j < N) { sum = +0.0; for (k < K) sum = fma(A(i,k), B(k,j), sum);
 *                             C(i,j) = C(i,j) + sum; }
 *
 * (or `sum = sum + A(i,k) * B(k,j)`, rounded twice, when `fused` is 0),
 * with A(i,k) = A[i*rsa + k*csa], B(k,j) = B[k*rsb + j*csb], C(i,j) = C[i*rsc + j*csc].
 * Bit-exact with that loop: every sum starts at +0.0 and takes its products in k order,
 * each one fused (the loop's `llvm.fmuladd` on a target with FMA) or not, as the loop
 * does (the file is compiled with -ffp-contract=off); a sum split over
 * blocks of k is kept in a buffer between blocks, never rounded otherwise; C is added
 * to once, at the end. Only the order of the (i, j) pairs changes, and they are
 * independent.
 *
 * The BLIS structure: B packed once into panels of NR columns ([panel][k][NR], the
 * columns past N zero), A packed per block of mc rows and kc steps of k into panels of
 * MR rows ([panel][k][MR]), and an MR x NR micro-kernel holding its sums in 12 256-bit
 * vectors (NR is two vectors: 8 doubles, or 16 floats when built with POLYRUST_F32=1,
 * every element, sum, alpha and beta then a float, each operation rounded to float as
 * the float loop's are; symbols ending in _f32 instead of _f64). Built by passes/build.rs with clang -O3 into the LLVM IR the plugin
 * links into a module that calls it; the plugin gives it the caller's target
 * attributes. When a buffer cannot be allocated, the loop itself runs (same order of
 * operations).
 *
 * Built a second time with POLYRUST_SUMS_FROM_C=1 for the nest that keeps C itself in
 * a register across k (`for (k < K) C(i,j) = fma(A(i,k), B(k,j), C(i,j))`): each sum
 * starts at C's old element instead of +0.0 and is stored into C, not added. A
 * separate symbol, so that the dot-product kernel's code stays as it was.
 *
 * Built a third time with POLYRUST_SCALED=1 (and sums from C) for the products that
 * scale, as BLAS's dgemm and PolyBench write them:
 *
 *   C(i,j) = C(i,j) * beta;  for (k < K) C(i,j) = fma(alpha * A(i,k), B(k,j), C(i,j));
 *
 * (or `C(i,j) = +0.0` first, or nothing first; with or without alpha). Each sum starts
 * at C's element, C * beta or +0.0 (`start`), once, in the first block of k; A's
 * elements are packed as alpha * A(i,k) (`scale_a`), the very product the loop makes
 * before it multiplies by B(k,j), so the steps are the loop's.
 *
 * Built a fifth time with POLYRUST_ALPHA=1: the dot products with A packed as
 * alpha * A(i,k), for `sum += alpha * A(i,k) * B(k,j)` (darknet's gemm_nt). */
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef POLYRUST_F32
#define POLYRUST_F32 0
#endif
#if POLYRUST_F32
/* The element type, and a vector of it filling a 256-bit register. */
typedef float real;
#define LANES 8
#define SPLAT(a) {a, a, a, a, a, a, a, a}
#define SUFFIX(name) name##_f32
#define FMA __builtin_fmaf
#else
typedef double real;
#define LANES 4
#define SPLAT(a) {a, a, a, a}
#define SUFFIX(name) name##_f64
#define FMA __builtin_fma
#endif
typedef real v4 __attribute__((vector_size(32)));
/* The same vector at any address of a real (C's rows are not aligned). */
typedef real v4u __attribute__((vector_size(32), aligned(sizeof(real))));

#define MR 6
/* Two vectors per row of the micro-kernel. */
#define NR (2 * LANES)
#define TILE (MR * NR)

#ifndef POLYRUST_SUMS_FROM_C
#define POLYRUST_SUMS_FROM_C 0
#endif
#ifndef POLYRUST_SCALED
#define POLYRUST_SCALED 0
#endif
#ifndef POLYRUST_TWO_TERMS
#define POLYRUST_TWO_TERMS 0
#endif
#ifndef POLYRUST_ALPHA
#define POLYRUST_ALPHA 0
#endif
#ifndef POLYRUST_BATCHED
#define POLYRUST_BATCHED 0
#endif
#ifndef POLYRUST_SYMM
#define POLYRUST_SYMM 0
#endif
#if POLYRUST_SYMM
#define KERNEL_SYMBOL SUFFIX(polyrust_product_symm)
#elif POLYRUST_BATCHED
#define KERNEL_SYMBOL SUFFIX(polyrust_product_batched)
#elif POLYRUST_TWO_TERMS
#define KERNEL_SYMBOL SUFFIX(polyrust_product_two_terms)
#elif POLYRUST_SCALED
#define KERNEL_SYMBOL SUFFIX(polyrust_product_scaled)
#elif POLYRUST_SUMS_FROM_C
#define KERNEL_SYMBOL SUFFIX(polyrust_product_from_c)
#elif POLYRUST_ALPHA
#define KERNEL_SYMBOL SUFFIX(polyrust_product_alpha)
#else
#define KERNEL_SYMBOL SUFFIX(polyrust_product)
#endif

/* Where each sum starts, when sums are made from C: C's element, C's element times
 * beta, or +0.0 (C's element is overwritten). */
enum { START_C = 0, START_C_SCALED = 1, START_ZERO = 2 };

/* How the sums start and A is packed: the scaled variant's arguments, constants in
 * the other two builds. */
struct scaling {
  long start;
  real beta;
  long scale_a;
  real alpha;
  /* Non-zero: only C's lower triangle, j <= i, is the product's (syrk's C), with
   * C's first row given being row lower - 1 of the whole C (a thread's rows). */
  long lower;
  /* C is A itself, its rows (i) A's rows: each block of rows of A is packed whole
   * (every block of k) before any element of those rows of C is stored, so the
   * product may be made in place, but not by the loop as written (`product`). */
  long in_place;
};

/* A tile's diagonal offset when all of it is below the diagonal. */
#define BELOW LONG_MAX / 4

/* A buffer of n reals aligned to 64 bytes; *raw is what to free. */
static real *aligned_reals(size_t n, void **raw) {
  *raw = malloc(n * sizeof(real) + 64);
  if (!*raw)
    return NULL;
  uintptr_t p = ((uintptr_t)*raw + 63) & ~(uintptr_t)63;
  return (real *)p;
}

/* The loop as written, for when no buffer can be had. */
static void dot_loop(long M, long N, long K, const real *A, long rsa, long csa,
                     const real *B, long rsb, long csb, real *C, long rsc, long csc,
                     int fused, struct scaling s) {
  for (long i = 0; i < M; i++)
    for (long j = 0; j < N && (!s.lower || j <= i + s.lower - 1); j++) {
#if POLYRUST_SUMS_FROM_C
      real sum = s.start == START_ZERO ? 0.0 : C[i * rsc + j * csc];
      if (s.start == START_C_SCALED)
        sum = sum * s.beta;
#else
      real sum = 0.0;
#endif
      for (long k = 0; k < K; k++) {
        real a = A[i * rsa + k * csa], b = B[k * rsb + j * csb];
        if (s.scale_a)
          a = s.alpha * a;
        sum = fused ? FMA(a, b, sum) : sum + a * b;
      }
#if POLYRUST_SUMS_FROM_C
      C[i * rsc + j * csc] = sum;
#else
      C[i * rsc + j * csc] = C[i * rsc + j * csc] + sum;
#endif
    }
}

/* All of B in panels of NR columns: Bp[p][k][c] = B(k, p*NR + c), zero past N. */
static void pack_b(long N, long K, const real *B, long rsb, long csb, real *Bp) {
  long panels = (N + NR - 1) / NR;
  for (long p = 0; p < panels; p++) {
    real *out = Bp + (size_t)p * K * NR;
    long j0 = p * NR, nr = N - j0 < NR ? N - j0 : NR;
    if (rsb == 1 && nr == NR) {
      for (long k = 0; k < K; k++)
        for (long c = 0; c < NR; c++)
          out[k * NR + c] = B[k + (j0 + c) * csb];
      continue;
    }
    for (long k = 0; k < K; k++)
      for (long c = 0; c < NR; c++)
        out[k * NR + c] = c < nr ? B[k * rsb + (j0 + c) * csb] : 0.0;
  }
}

/* Rows i0 .. i0+mc-1, steps k0 .. k0+kc-1 of A in panels of MR rows:
 * Ap[p][k][r] = A(i0 + p*MR + r, k0 + k), zero past the block's rows. */
static void pack_a(long mc, long kc, const real *A, long rsa, long csa, long i0, long k0,
                   real *Ap, struct scaling s) {
  for (long p = 0; p * MR < mc; p++) {
    real *out = Ap + (size_t)p * kc * MR;
    long r0 = p * MR, mr = mc - r0 < MR ? mc - r0 : MR;
    for (long r = 0; r < MR; r++) {
      if (r >= mr) {
        for (long k = 0; k < kc; k++)
          out[k * MR + r] = 0.0;
        continue;
      }
      const real *row = A + (i0 + r0 + r) * rsa + k0 * csa;
      if (s.scale_a) {
        for (long k = 0; k < kc; k++)
          out[k * MR + r] = s.alpha * row[k * csa];
        continue;
      }
      for (long k = 0; k < kc; k++)
        out[k * MR + r] = row[k * csa];
    }
  }
}

/* One MR x NR tile over kc steps of k, its elements (r, c) with r < mr, c < nr and
 * c <= r + diag C's: the sums start at +0.0 (first block of k; as
 * `start` says when built for sums from C) or from the tile's buffer w; at the last block
 * they are added into (stored into) the mr x nr valid part of C, otherwise kept in w.
 * UPDATE(x, b, acc) is one step of a sum. */
#define MICRO_KERNEL(name, UPDATE)                                                        \
  static void name(long kc, const real *restrict ap, const real *restrict bp,         \
                   real *restrict w, int first, int last, real *C, long rsc, long csc, \
                   long mr, long nr, long diag, long start, real beta) {                \
    v4 acc[MR][2];                                                                        \
    if (first && POLYRUST_SUMS_FROM_C && start != START_ZERO)                             \
      load_tile(acc, C, rsc, csc, mr, nr, diag, start, beta);                             \
    else                                                                                  \
      _Pragma("unroll") for (int r = 0; r < MR; r++) {                                    \
      if (first) {                                                                        \
        acc[r][0] = (v4){};                                                               \
        acc[r][1] = (v4){};                                                               \
      } else {                                                                            \
        acc[r][0] = *(const v4 *)(w + r * NR);                                            \
        acc[r][1] = *(const v4 *)(w + r * NR + LANES);                                        \
      }                                                                                   \
    }                                                                                     \
    for (long k = 0; k < kc; k++) {                                                       \
      v4 b0 = *(const v4 *)(bp + k * NR), b1 = *(const v4 *)(bp + k * NR + LANES);            \
      _Pragma("unroll") for (int r = 0; r < MR; r++) {                                    \
        real a = ap[k * MR + r];                                                        \
        v4 x = SPLAT(a);                                                              \
        acc[r][0] = UPDATE(x, b0, acc[r][0]);                                             \
        acc[r][1] = UPDATE(x, b1, acc[r][1]);                                             \
      }                                                                                   \
    }                                                                                     \
    store_tile(acc, w, last, C, rsc, csc, mr, nr, diag);                                  \
  }

/* The sums of a tile starting at C's mr x nr valid part (zero elsewhere), times beta
 * for START_C_SCALED (the loop's `C(i,j) * beta`, rounded once). */
static inline void load_tile(v4 acc[MR][2], const real *C, long rsc, long csc, long mr,
                             long nr, long diag, long start, real beta) {
  if (mr == MR && nr == NR && diag >= NR - 1 && csc == 1) {
#pragma unroll
    for (int r = 0; r < MR; r++) {
      const v4u *row = (const v4u *)(C + r * rsc);
      acc[r][0] = row[0];
      acc[r][1] = row[1];
    }
  } else {
    real tile[MR][NR];
    for (long r = 0; r < MR; r++)
      for (long c = 0; c < NR; c++)
        tile[r][c] = r < mr && c < nr && c <= r + diag ? C[r * rsc + c * csc] : 0.0;
#pragma unroll
    for (int r = 0; r < MR; r++) {
      acc[r][0] = *(v4u *)&tile[r][0];
      acc[r][1] = *(v4u *)&tile[r][LANES];
    }
  }
  if (start != START_C_SCALED)
    return;
  v4 b = SPLAT(beta);
#pragma unroll
  for (int r = 0; r < MR; r++) {
    acc[r][0] = acc[r][0] * b;
    acc[r][1] = acc[r][1] * b;
  }
}
/* The sums of a tile into w (not the last block of k) or added into C. */
static inline void store_tile(v4 acc[MR][2], real *restrict w, int last, real *C,
                              long rsc, long csc, long mr, long nr, long diag) {
  if (!last) {
#pragma unroll
    for (int r = 0; r < MR; r++) {
      *(v4 *)(w + r * NR) = acc[r][0];
      *(v4 *)(w + r * NR + LANES) = acc[r][1];
    }
    return;
  }
  if (mr == MR && nr == NR && diag >= NR - 1 && csc == 1) {
#pragma unroll
    for (int r = 0; r < MR; r++) {
      v4u *row = (v4u *)(C + r * rsc);
#if POLYRUST_SUMS_FROM_C
      row[0] = acc[r][0];
      row[1] = acc[r][1];
#else
      row[0] = row[0] + acc[r][0];
      row[1] = row[1] + acc[r][1];
#endif
    }
    return;
  }
  real tile[MR][NR];
#pragma unroll
  for (int r = 0; r < MR; r++) {
    *(v4u *)&tile[r][0] = acc[r][0];
    *(v4u *)&tile[r][LANES] = acc[r][1];
  }
  for (long r = 0; r < mr; r++)
    for (long c = 0; c < nr && c <= r + diag; c++)
#if POLYRUST_SUMS_FROM_C
      C[r * rsc + c * csc] = tile[r][c];
#else
      C[r * rsc + c * csc] = C[r * rsc + c * csc] + tile[r][c];
#endif
}

#define FUSED(x, b, acc) __builtin_elementwise_fma(x, b, acc)
#define UNFUSED(x, b, acc) ((acc) + (x) * (b))
MICRO_KERNEL(micro_kernel_fused, FUSED)
MICRO_KERNEL(micro_kernel_unfused, UNFUSED)

/* C(i,j) += sum over k of A(i,k) * B(k,j), each sum as the loop above makes it (its
 * steps fused or not); blocks of mc rows of A (a multiple of MR) and kc steps of k.
 * Sizes of 0 or less: nothing (M, N), or C(i,j) + 0.0 (K), as the loop does (for sums
 * from C: C(i,j) as `start` makes it). */
static int product(long M, long N, long K, const real *A, long rsa, long csa,
                   const real *B, long rsb, long csb, real *C, long rsc, long csc,
                   long mc, long kc, long fused, struct scaling s) {
  if (M <= 0 || N <= 0)
    return 0;
  if (K <= 0) {
    if (POLYRUST_SUMS_FROM_C && s.start == START_C)
      return 0;
    dot_loop(M, N, 0, A, rsa, csa, B, rsb, csb, C, rsc, csc, 1, s);
    return 0;
  }
  mc = mc < MR ? MR : mc - mc % MR;
  if (mc > M)
    mc = (M + MR - 1) / MR * MR;
  if (kc < 1 || kc > K)
    kc = K;
  long panels = (N + NR - 1) / NR, row_panels = mc / MR;
  void *raw_b, *raw_a, *raw_w = NULL;
  real *Bp = aligned_reals((size_t)panels * K * NR, &raw_b);
  real *Ap = aligned_reals((size_t)mc * kc, &raw_a);
  real *W = kc < K ? aligned_reals((size_t)row_panels * panels * TILE, &raw_w) : NULL;
  if (!Bp || !Ap || (kc < K && !W)) {
    free(raw_b);
    free(raw_a);
    free(raw_w);
    if (s.in_place)
      return -1;
    dot_loop(M, N, K, A, rsa, csa, B, rsb, csb, C, rsc, csc, fused != 0, s);
    return 0;
  }
  pack_b(N, K, B, rsb, csb, Bp);
  for (long ic = 0; ic < M; ic += mc) {
    long mcb = M - ic < mc ? M - ic : mc;
    for (long pc = 0; pc < K; pc += kc) {
      long kcb = K - pc < kc ? K - pc : kc;
      int first = pc == 0, last = pc + kcb == K;
      pack_a(mcb, kcb, A, rsa, csa, ic, pc, Ap, s);
      for (long p = 0; p < panels; p++) {
        const real *bp = Bp + ((size_t)p * K + pc) * NR;
        long j0 = p * NR, nr = N - j0 < NR ? N - j0 : NR;
        for (long q = 0; q * MR < mcb; q++) {
          long i0 = ic + q * MR, mr = mcb - q * MR < MR ? mcb - q * MR : MR;
          long diag = s.lower ? i0 + s.lower - 1 - j0 : BELOW;
          if (diag < 1 - mr)
            continue; /* above the diagonal */
          real *w = W ? W + ((size_t)p * row_panels + q) * TILE : NULL;
          const real *ap = Ap + (size_t)q * kcb * MR;
          real *c = C + i0 * rsc + j0 * csc;
          if (fused)
            micro_kernel_fused(kcb, ap, bp, w, first, last, c, rsc, csc, mr, nr, diag,
                               s.start, s.beta);
          else
            micro_kernel_unfused(kcb, ap, bp, w, first, last, c, rsc, csc, mr, nr, diag,
                                 s.start, s.beta);
        }
      }
    }
  }
  free(raw_b);
  free(raw_a);
  free(raw_w);
  return 0;
}

#if POLYRUST_TWO_TERMS
/* Two products per step, as syr2k writes them:
 *
 *   C(i,j) = C(i,j) + fma(B(k,j), A(i,k), B2(k,j) * A2(i,k))
 *
 * (the first product fused where the loop's `llvm.fmuladd` is, the second rounded; both
 * rounded when `fused` is 0), each of the four operands scaled by alpha first where bit
 * 0 (A), 1 (B), 2 (A2) or 3 (B2) of `scaled` says, as the loop's `alpha * B[j][k]` is.
 * One step of a tile's sums. */
#define TWO_FUSED(b, a, b2, a2) __builtin_elementwise_fma(b, a, (b2) * (a2))
#define TWO_UNFUSED(b, a, b2, a2) ((b) * (a) + (b2) * (a2))
#define MICRO_KERNEL_TWO(name, TERM)                                                       \
  static void name(long kc, const real *restrict ap, const real *restrict ap2,         \
                   const real *restrict bp, const real *restrict bp2,                  \
                   real *restrict w, int first, int last, real *C, long rsc, long csc, \
                   long mr, long nr, long diag, long start, real beta) {                \
    v4 acc[MR][2];                                                                        \
    if (first && start != START_ZERO)                                                     \
      load_tile(acc, C, rsc, csc, mr, nr, diag, start, beta);                             \
    else                                                                                  \
      _Pragma("unroll") for (int r = 0; r < MR; r++) {                                    \
      if (first) {                                                                        \
        acc[r][0] = (v4){};                                                               \
        acc[r][1] = (v4){};                                                               \
      } else {                                                                            \
        acc[r][0] = *(const v4 *)(w + r * NR);                                            \
        acc[r][1] = *(const v4 *)(w + r * NR + LANES);                                        \
      }                                                                                   \
    }                                                                                     \
    for (long k = 0; k < kc; k++) {                                                       \
      v4 b0 = *(const v4 *)(bp + k * NR), b1 = *(const v4 *)(bp + k * NR + LANES);            \
      v4 c0 = *(const v4 *)(bp2 + k * NR), c1 = *(const v4 *)(bp2 + k * NR + LANES);          \
      _Pragma("unroll") for (int r = 0; r < MR; r++) {                                    \
        real a = ap[k * MR + r], a2 = ap2[k * MR + r];                                  \
        v4 x = SPLAT(a), x2 = SPLAT(a2);                                       \
        acc[r][0] = acc[r][0] + TERM(b0, x, c0, x2);                                      \
        acc[r][1] = acc[r][1] + TERM(b1, x, c1, x2);                                      \
      }                                                                                   \
    }                                                                                     \
    store_tile(acc, w, last, C, rsc, csc, mr, nr, diag);                                  \
  }
MICRO_KERNEL_TWO(two_terms_fused, TWO_FUSED)
MICRO_KERNEL_TWO(two_terms_unfused, TWO_UNFUSED)

/* An operand of the two-term product: its base and strides, scaled by alpha or not. */
struct operand {
  const real *base;
  long rs, cs;
  int scaled;
};

/* The loop as written, for when no buffer can be had. */
static void two_terms_loop(long M, long N, long K, struct operand a, struct operand b,
                           struct operand a2, struct operand b2, real *C, long rsc,
                           long csc, int fused, struct scaling s) {
#define ELEMENT(op, x, y) ((op).scaled ? s.alpha * (op).base[(x) * (op).rs + (y) * (op).cs] \
                                      : (op).base[(x) * (op).rs + (y) * (op).cs])
  for (long i = 0; i < M; i++)
    for (long j = 0; j < N && (!s.lower || j <= i + s.lower - 1); j++) {
      real sum = s.start == START_ZERO ? 0.0 : C[i * rsc + j * csc];
      if (s.start == START_C_SCALED)
        sum = sum * s.beta;
      for (long k = 0; k < K; k++) {
        real x = ELEMENT(b, k, j), y = ELEMENT(a, i, k);
        real x2 = ELEMENT(b2, k, j), y2 = ELEMENT(a2, i, k);
        sum = sum + (fused ? FMA(x, y, x2 * y2) : x * y + x2 * y2);
      }
      C[i * rsc + j * csc] = sum;
    }
#undef ELEMENT
}

/* All of an operand packed as B is (pack_b), times alpha where it is scaled. */
static void pack_b_scaled(long N, long K, struct operand b, real alpha, real *Bp) {
  pack_b(N, K, b.base, b.rs, b.cs, Bp);
  if (!b.scaled)
    return;
  size_t n = (size_t)((N + NR - 1) / NR) * K * NR;
  for (size_t x = 0; x < n; x++)
    Bp[x] = alpha * Bp[x];
}

/* `start`, beta, lower as for the scaled variant; A2 and B2 the second product's. */
void KERNEL_SYMBOL(long M, long N, long K, const real *A, long rsa, long csa,
                   const real *B, long rsb, long csb, const real *A2, long rsa2,
                   long csa2, const real *B2, long rsb2, long csb2, real *C, long rsc,
                   long csc, long mc, long kc, long fused, long start, real beta,
                   real alpha, long scaled, long lower) {
  struct scaling s = {start, beta, 0, alpha, lower};
  struct operand a = {A, rsa, csa, scaled & 1}, b = {B, rsb, csb, (scaled >> 1) & 1};
  struct operand a2 = {A2, rsa2, csa2, (scaled >> 2) & 1};
  struct operand b2 = {B2, rsb2, csb2, (scaled >> 3) & 1};
  if (M <= 0 || N <= 0)
    return;
  mc = mc < MR ? MR : mc - mc % MR;
  if (mc > M)
    mc = (M + MR - 1) / MR * MR;
  if (kc < 1 || kc > K)
    kc = K;
  long panels = (N + NR - 1) / NR, row_panels = mc / MR;
  void *raw[5] = {NULL, NULL, NULL, NULL, NULL};
  real *Bp = K > 0 ? aligned_reals((size_t)panels * K * NR, &raw[0]) : NULL;
  real *Bp2 = K > 0 ? aligned_reals((size_t)panels * K * NR, &raw[1]) : NULL;
  real *Ap = K > 0 ? aligned_reals((size_t)mc * kc, &raw[2]) : NULL;
  real *Ap2 = K > 0 ? aligned_reals((size_t)mc * kc, &raw[3]) : NULL;
  real *W = K > 0 && kc < K ? aligned_reals((size_t)row_panels * panels * TILE, &raw[4])
                              : NULL;
  if (K <= 0 || !Bp || !Bp2 || !Ap || !Ap2 || (kc < K && !W)) {
    for (int x = 0; x < 5; x++)
      free(raw[x]);
    two_terms_loop(M, N, K, a, b, a2, b2, C, rsc, csc, fused != 0, s);
    return;
  }
  pack_b_scaled(N, K, b, alpha, Bp);
  pack_b_scaled(N, K, b2, alpha, Bp2);
  struct scaling sa = s, sa2 = s;
  sa.scale_a = a.scaled;
  sa2.scale_a = a2.scaled;
  for (long ic = 0; ic < M; ic += mc) {
    long mcb = M - ic < mc ? M - ic : mc;
    for (long pc = 0; pc < K; pc += kc) {
      long kcb = K - pc < kc ? K - pc : kc;
      int first = pc == 0, last = pc + kcb == K;
      pack_a(mcb, kcb, A, rsa, csa, ic, pc, Ap, sa);
      pack_a(mcb, kcb, A2, rsa2, csa2, ic, pc, Ap2, sa2);
      for (long p = 0; p < panels; p++) {
        size_t at = ((size_t)p * K + pc) * NR;
        long j0 = p * NR, nr = N - j0 < NR ? N - j0 : NR;
        for (long q = 0; q * MR < mcb; q++) {
          long i0 = ic + q * MR, mr = mcb - q * MR < MR ? mcb - q * MR : MR;
          long diag = s.lower ? i0 + s.lower - 1 - j0 : BELOW;
          if (diag < 1 - mr)
            continue; /* above the diagonal */
          real *w = W ? W + ((size_t)p * row_panels + q) * TILE : NULL;
          size_t from = (size_t)q * kcb * MR;
          real *c = C + i0 * rsc + j0 * csc;
          if (fused)
            two_terms_fused(kcb, Ap + from, Ap2 + from, Bp + at, Bp2 + at, w, first, last,
                            c, rsc, csc, mr, nr, diag, s.start, s.beta);
          else
            two_terms_unfused(kcb, Ap + from, Ap2 + from, Bp + at, Bp2 + at, w, first,
                              last, c, rsc, csc, mr, nr, diag, s.start, s.beta);
        }
      }
    }
  }
  for (int x = 0; x < 5; x++)
    free(raw[x]);
}
#elif POLYRUST_BATCHED
/* The batched product as PolyBench's doitgen writes it, each row of A replaced by its
 * product with B through the vector `sum`:
 *
 *   for (r < R) for (q < Q) {
 *     for (p < N) { sum(p) = +0.0; for (s < K) sum(p) = fma(A(r,q,s), B(s,p), sum(p)); }
 *     for (p < N) A(r,q,p) = sum(p);
 *   }
 *
 * (steps rounded twice when `fused` is 0). The rows of one r (or all rows, when those
 * of successive r follow each other) are one packed product made in place, sums from
 * +0.0 (the loop's): each row is read whole before it is stored (`in_place`), and no
 * other row reads it after, as in the loop. Only the rows first to last - 1 of the
 * R * Q rows (r major) are made, so that threads may share them: a row's product is the
 * same whatever rows a call gets, and `sum` is left as the last row's by a call that
 * makes every row, or by the call with no rows at all (first = last = R * Q) the caller
 * makes once the threads have joined: a thread's call never writes `sum` last. Without
 * buffers, the loop as written, through `sum` when the call makes every row, else
 * through a buffer of its own (threads do not share `sum`), or, when there is no memory
 * for one, through `sum` one call at a time (`sum_taken`): the rows come out right
 * whatever `sum` holds meanwhile, and the call after the join leaves it right. */
static void batched_by_rows(long rows, long N, long K, real *Ar, long rsq, long csa,
                            const real *B, long rsb, long csb, real *scratch, long css,
                            long fused) {
  struct scaling by_row = {START_ZERO, 1.0, 0, 1.0, 0, 0};
  for (long q = 0; q < rows; q++) {
    dot_loop(1, N, K, Ar + q * rsq, rsq, csa, B, rsb, csb, scratch, 0, css, fused != 0, by_row);
    for (long p = 0; p < N; p++)
      Ar[q * rsq + p * csa] = scratch[p * css];
  }
}

/* Set while a call without a buffer of its own makes its rows through `sum`. */
static int sum_taken;

void KERNEL_SYMBOL(long R, long Q, long N, long K, real *A, long rsr, long rsq, long csa,
                   const real *B, long rsb, long csb, real *sum, long css, long mc,
                   long kc, long fused, long first, long last) {
  if (R <= 0 || Q <= 0 || N <= 0)
    return;
  struct scaling s = {START_ZERO, 1.0, 0, 1.0, 0, 1};
  long total = R * Q, contiguous = rsr == Q * rsq;
  if (first < 0)
    first = 0;
  if (last > total)
    last = total;
  int whole = first == 0 && last == total, finish = first == total && last == total;
  for (long row = first; row < last;) {
    long r = row / Q, q = row % Q;
    long rows = contiguous || last - row < Q - q ? last - row : Q - q;
    real *Ar = A + r * rsr + q * rsq;
    row += rows;
    if (product(rows, N, K, Ar, rsq, csa, B, rsb, csb, Ar, rsq, csa, mc, kc, fused, s) == 0)
      continue;
    void *raw = NULL;
    real *scratch = whole ? sum : (real *)malloc((size_t)N * sizeof(real));
    int taken = 0;
    if (!scratch) {
      /* No buffer at all: `sum`, which other threads' calls may want too. */
      while (__atomic_exchange_n(&sum_taken, 1, __ATOMIC_ACQUIRE))
        ;
      taken = 1;
      scratch = sum;
    } else if (!whole) {
      raw = scratch;
    }
    batched_by_rows(rows, N, K, Ar, rsq, csa, B, rsb, csb, scratch, scratch == sum ? css : 1,
                    fused);
    if (taken)
      __atomic_store_n(&sum_taken, 0, __ATOMIC_RELEASE);
    free(raw);
  }
  if (!whole && !finish)
    return;
  real *final = A + (R - 1) * rsr + (Q - 1) * rsq;
  for (long p = 0; p < N; p++)
    sum[p * css] = final[p * csa];
}
#elif POLYRUST_SYMM
/* The symmetric product as PolyBench's symm writes it (A's lower triangle read, C
 * M x N, B M x N):
 *
 *   for (i < M) for (j < N) {
 *     t = +0.0;
 *     for (k < i) { C(k,j) = fma(alpha * B(i,j), A(i,k), C(k,j)); t = fma(B(k,j), A(i,k), t); }
 *     C(i,j) = fma(alpha, t, fma(beta, C(i,j), (alpha * B(i,j)) * A(i,i)));
 *   }
 *
 * (each fma two roundings when `fused` is 0). Each element's operations keep their
 * order: t(i,j) is a dot product of row i of A's strict lower triangle with column j
 * of B, from +0.0 in k order; C(i,j) is set once, at i, from its old value and t(i,j),
 * and only then takes its updates from the rows i' > i, in increasing i' (the loop
 * writes C(k,j) only for k < i). So the kernel makes, in this order: every t (a
 * product whose k stops before the row's diagonal, kept in a buffer per block of
 * rows), C's rows set from them, then C(r,j) += sum over i > r of A(i,r) * (alpha *
 * B(i,j)) in increasing i (a product with A transposed whose k starts past the row's
 * diagonal, sums from C). A tile's steps outside its rows' ranges are skipped per row,
 * never padded with zeros (a zero product can change a -0.0 sum, or meet an infinity). */

/* One MR x NR tile over kc packed steps: row r takes step k only when k < d + r
 * (`above` 0: the steps before the row's diagonal, d the tile's first row minus the
 * block's first k) or k > d + r (`above` 1: the steps past it). Otherwise as
 * MICRO_KERNEL (sums stored into C). */
#define MICRO_KERNEL_TRIANGLE(name, UPDATE)                                               \
  static void name(long kc, const real *restrict ap, const real *restrict bp,         \
                   real *restrict w, int first, int last, real *C, long rsc, long csc, \
                   long mr, long nr, long d, int above, long start) {                  \
    v4 acc[MR][2];                                                                        \
    if (first && start != START_ZERO)                                                     \
      load_tile(acc, C, rsc, csc, mr, nr, BELOW, start, 1.0);                             \
    else                                                                                  \
      _Pragma("unroll") for (int r = 0; r < MR; r++) {                                    \
      if (first) {                                                                        \
        acc[r][0] = (v4){};                                                               \
        acc[r][1] = (v4){};                                                               \
      } else {                                                                            \
        acc[r][0] = *(const v4 *)(w + r * NR);                                            \
        acc[r][1] = *(const v4 *)(w + r * NR + LANES);                                    \
      }                                                                                   \
    }                                                                                     \
    long lo = above ? d + MR : 0, hi = above ? kc : d;                                    \
    long plo = above ? d + 1 : d, phi = above ? d + MR : d + MR - 1;                      \
    lo = lo < 0 ? 0 : lo > kc ? kc : lo;                                                  \
    hi = hi < lo ? lo : hi > kc ? kc : hi;                                                \
    plo = plo < 0 ? 0 : plo;                                                              \
    phi = phi > kc ? kc : phi;                                                            \
    if (above)                                                                            \
      for (long k = plo; k < phi; k++) {                                                  \
        v4 b0 = *(const v4 *)(bp + k * NR), b1 = *(const v4 *)(bp + k * NR + LANES);      \
        _Pragma("unroll") for (int r = 0; r < MR; r++) if (k > d + r) {                   \
          v4 x = SPLAT(ap[k * MR + r]);                                                   \
          acc[r][0] = UPDATE(x, b0, acc[r][0]);                                           \
          acc[r][1] = UPDATE(x, b1, acc[r][1]);                                           \
        }                                                                                 \
      }                                                                                   \
    for (long k = lo; k < hi; k++) {                                                      \
      v4 b0 = *(const v4 *)(bp + k * NR), b1 = *(const v4 *)(bp + k * NR + LANES);        \
      _Pragma("unroll") for (int r = 0; r < MR; r++) {                                    \
        real a = ap[k * MR + r];                                                          \
        v4 x = SPLAT(a);                                                                  \
        acc[r][0] = UPDATE(x, b0, acc[r][0]);                                             \
        acc[r][1] = UPDATE(x, b1, acc[r][1]);                                             \
      }                                                                                   \
    }                                                                                     \
    if (!above)                                                                           \
      for (long k = plo; k < phi; k++) {                                                  \
        v4 b0 = *(const v4 *)(bp + k * NR), b1 = *(const v4 *)(bp + k * NR + LANES);      \
        _Pragma("unroll") for (int r = 0; r < MR; r++) if (k < d + r) {                   \
          v4 x = SPLAT(ap[k * MR + r]);                                                   \
          acc[r][0] = UPDATE(x, b0, acc[r][0]);                                           \
          acc[r][1] = UPDATE(x, b1, acc[r][1]);                                           \
        }                                                                                 \
      }                                                                                   \
    store_tile(acc, w, last, C, rsc, csc, mr, nr, BELOW);                                 \
  }
MICRO_KERNEL_TRIANGLE(triangle_fused, FUSED)
MICRO_KERNEL_TRIANGLE(triangle_unfused, UNFUSED)

/* The buffers of the symmetric product: B packed whole, a block of A, the sums kept
 * between blocks of k, and t for a block of rows. */
struct symm_buffers {
  real *Bp, *Ap, *W, *T;
};

/* One block of rows ic .. ic+mcb-1 of a product whose row i takes the steps k < i
 * (`above` 0, sums from +0.0 into T, mcb x N) or i < k < K (`above` 1, sums from C
 * into C), A(i,k) = A[i*rsa + k*csa], B packed in bf. */
static void triangle_rows(long ic, long mcb, long N, long K, const real *A, long rsa,
                          long csa, struct symm_buffers bf, real *C, long rsc, long csc,
                          long kc, long fused, int above) {
  long panels = (N + NR - 1) / NR, row_panels = (mcb + MR - 1) / MR;
  /* The block's steps: below the diagonal, up to its last row's; past it, from its
   * first row's. At least one step below, so that every t is stored. */
  long k0 = above ? ic + 1 : 0, k1 = above ? K : ic + mcb - 1;
  if (!above && k1 < 1)
    k1 = 1;
  if (k1 > K)
    k1 = K;
  struct scaling plain = {START_C, 1.0, 0, 1.0, 0, 0};
  for (long pc = k0; pc < k1; pc += kc) {
    long kcb = k1 - pc < kc ? k1 - pc : kc;
    int first = pc == k0, last = pc + kcb == k1;
    pack_a(mcb, kcb, A, rsa, csa, ic, pc, bf.Ap, plain);
    for (long p = 0; p < panels; p++) {
      const real *bp = bf.Bp + ((size_t)p * K + pc) * NR;
      long j0 = p * NR, nr = N - j0 < NR ? N - j0 : NR;
      for (long q = 0; q < row_panels; q++) {
        long i0 = ic + q * MR, mr = mcb - q * MR < MR ? mcb - q * MR : MR;
        long d = i0 - pc;
        /* No step of this tile in this block, nor a start or an end to make. */
        int none = above ? pc + kcb <= i0 + 1 : pc >= i0 + mr - 1;
        if (none && !first && !last)
          continue;
        real *w = bf.W ? bf.W + ((size_t)p * row_panels + q) * TILE : NULL;
        const real *ap = bf.Ap + (size_t)q * kcb * MR;
        real *c = above ? C + i0 * rsc + j0 * csc : bf.T + (i0 - ic) * N + j0;
        long rs = above ? rsc : N, cs = above ? csc : 1;
        long start = above ? START_C : START_ZERO;
        if (fused)
          triangle_fused(kcb, ap, bp, w, first, last, c, rs, cs, mr, nr, d, above, start);
        else
          triangle_unfused(kcb, ap, bp, w, first, last, c, rs, cs, mr, nr, d, above,
                           start);
      }
    }
  }
}

/* C's rows ic .. ic+mcb-1 set from their t: fma(alpha, t, fma(beta, C, (alpha * B) *
 * A(i,i))), as the loop's last statement makes each. */
static void symm_rows(long ic, long mcb, long N, const real *A, long rsa, long csa,
                      const real *B, long rsb, long csb, real *C, long rsc, long csc,
                      const real *T, long fused, real alpha, real beta) {
  for (long i = ic; i < ic + mcb; i++) {
    real diagonal = A[i * rsa + i * csa];
    for (long j = 0; j < N; j++) {
      real *c = &C[i * rsc + j * csc];
      real x = alpha * B[i * rsb + j * csb] * diagonal, t = T[(i - ic) * N + j];
      real y = fused ? FMA(beta, *c, x) : beta * *c + x;
      *c = fused ? FMA(alpha, t, y) : y + alpha * t;
    }
  }
}

/* The loop as written, for when no buffer can be had. */
static void symm_loop(long M, long N, const real *A, long rsa, long csa, const real *B,
                      long rsb, long csb, real *C, long rsc, long csc, long fused,
                      real alpha, real beta) {
  for (long i = 0; i < M; i++)
    for (long j = 0; j < N; j++) {
      real t = 0.0, bij = alpha * B[i * rsb + j * csb];
      for (long k = 0; k < i; k++) {
        real a = A[i * rsa + k * csa], *c = &C[k * rsc + j * csc];
        *c = fused ? FMA(bij, a, *c) : *c + bij * a;
        real b = B[k * rsb + j * csb];
        t = fused ? FMA(b, a, t) : t + b * a;
      }
      real *c = &C[i * rsc + j * csc];
      real x = bij * A[i * rsa + i * csa];
      real y = fused ? FMA(beta, *c, x) : beta * *c + x;
      *c = fused ? FMA(alpha, t, y) : y + alpha * t;
    }
}

/* A is M x M (only its lower triangle read), B and C M x N. */
void KERNEL_SYMBOL(long M, long N, const real *A, long rsa, long csa, const real *B,
                   long rsb, long csb, real *C, long rsc, long csc, long mc, long kc,
                   long fused, real alpha, real beta) {
  if (M <= 0 || N <= 0)
    return;
  mc = mc < MR ? MR : mc - mc % MR;
  if (mc > M)
    mc = (M + MR - 1) / MR * MR;
  if (kc < 1 || kc > M)
    kc = M;
  long panels = (N + NR - 1) / NR, row_panels = mc / MR;
  void *raw[4] = {NULL, NULL, NULL, NULL};
  struct symm_buffers bf = {
      aligned_reals((size_t)panels * M * NR, &raw[0]),
      aligned_reals((size_t)mc * kc, &raw[1]),
      aligned_reals((size_t)row_panels * panels * TILE, &raw[2]),
      aligned_reals((size_t)mc * N, &raw[3]),
  };
  if (!bf.Bp || !bf.Ap || !bf.W || !bf.T) {
    for (int x = 0; x < 4; x++)
      free(raw[x]);
    symm_loop(M, N, A, rsa, csa, B, rsb, csb, C, rsc, csc, fused, alpha, beta);
    return;
  }
  pack_b(N, M, B, rsb, csb, bf.Bp);
  for (long ic = 0; ic < M; ic += mc) {
    long mcb = M - ic < mc ? M - ic : mc;
    triangle_rows(ic, mcb, N, M, A, rsa, csa, bf, C, rsc, csc, kc, fused, 0);
    symm_rows(ic, mcb, N, A, rsa, csa, B, rsb, csb, C, rsc, csc, bf.T, fused, alpha, beta);
  }
  /* The updates take alpha * B(i,j), the loop's own first product. */
  size_t packed = (size_t)panels * M * NR;
  for (size_t x = 0; x < packed; x++)
    bf.Bp[x] = alpha * bf.Bp[x];
  for (long ic = 0; ic < M; ic += mc) {
    long mcb = M - ic < mc ? M - ic : mc;
    /* A transposed: row r of the product is column r of A. */
    triangle_rows(ic, mcb, N, M, A, csa, rsa, bf, C, rsc, csc, kc, fused, 1);
  }
  for (int x = 0; x < 4; x++)
    free(raw[x]);
}
#elif POLYRUST_SCALED
/* `start` says where each sum starts (START_*), beta what C is scaled by
 * (START_C_SCALED); with scale_a non-zero, A's elements are alpha * A(i,k); with
 * lower non-zero only C(i,j) with j <= i + lower - 1 are made (the others are not
 * touched): C's first row is row lower - 1 of the triangle. */
void KERNEL_SYMBOL(long M, long N, long K, const real *A, long rsa, long csa,
                   const real *B, long rsb, long csb, real *C, long rsc, long csc,
                   long mc, long kc, long fused, long start, real beta, long scale_a,
                   real alpha, long lower) {
  struct scaling s = {start, beta, scale_a, alpha, lower};
  product(M, N, K, A, rsa, csa, B, rsb, csb, C, rsc, csc, mc, kc, fused, s);
}
#elif POLYRUST_ALPHA
/* The dot products with A's elements times alpha, packed as alpha * A(i,k): the loop's
 * own first product (`sum += alpha * A(i,k) * B(k,j)`). */
void KERNEL_SYMBOL(long M, long N, long K, const real *A, long rsa, long csa,
                   const real *B, long rsb, long csb, real *C, long rsc, long csc,
                   long mc, long kc, long fused, real alpha) {
  struct scaling s = {START_C, 1.0, 1, alpha, 0};
  product(M, N, K, A, rsa, csa, B, rsb, csb, C, rsc, csc, mc, kc, fused, s);
}
#else
void KERNEL_SYMBOL(long M, long N, long K, const real *A, long rsa, long csa,
                   const real *B, long rsb, long csb, real *C, long rsc, long csc,
                   long mc, long kc, long fused) {
  struct scaling s = {START_C, 1.0, 0, 1.0, 0};
  product(M, N, K, A, rsa, csa, B, rsb, csb, C, rsc, csc, mc, kc, fused, s);
}
#endif
