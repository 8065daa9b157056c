/* polyrust's min-plus closure kernel: the in-place all-pairs shortest-path nest
 *
 *   for k < n: for i < n: for j < n: p[i][j] = min(p[i][j], p[i][k] + p[k][j])
 *
 * on 32-bit ints, blocked over k as blocked Floyd-Warshall algorithms are: per block
 * of BLOCK steps, the diagonal block first (in the nest's own order), then the rows and
 * the columns of the block, then every other element from those panels alone, kept in
 * registers across the block's steps (`transform::closure` recognises the nest,
 * `codegen::closure` calls this).
 *
 * Why the bytes are the nest's: while no step k starts with p[k][k] < 0, step k changes
 * neither row k nor column k, so the nest computes, after each step, the least length
 * of the walks between two vertices through the vertices passed so far (there is no
 * negative cycle among them); every value the blocked order makes is the length of such
 * a walk and is at most the nest's value at the same step, so after a block both hold
 * the same least lengths. Integer sums are exact (the nest's `add nsw` cannot
 * overflow, and the blocked sums lie between two of the nest's values). The diagonal
 * block is computed in the nest's order from the values the nest has at the block's
 * start, so it sees each p[k][k] exactly as the nest does: when one is negative (a
 * negative cycle) the diagonal block is restored from its copy and the nest's own
 * order runs every step left, from the block's first.
 */

#define BLOCK 64

typedef long idx;

static inline int least(int a, int b) { return a < b ? a : b; }

/* The nest's own order, steps k0 to n - 1. */
static void in_order(idx n, int *p, idx s, idx k0) {
  for (idx k = k0; k < n; k++)
    for (idx i = 0; i < n; i++) {
      int *row = p + i * s;
      const int *rk = p + k * s;
      for (idx j = 0; j < n; j++)
        row[j] = least(row[j], row[k] + rk[j]);
    }
}

/* Steps k0 to k0 + w - 1 on the diagonal block, in the nest's order; 0 when a step
 * starts with a negative diagonal element (the block is then partly done). */
static int diagonal(int *p, idx s, idx k0, idx w) {
  for (idx k = k0; k < k0 + w; k++) {
    if (p[k * s + k] < 0)
      return 0;
    for (idx i = k0; i < k0 + w; i++) {
      int *row = p + i * s;
      const int *rk = p + k * s;
      for (idx j = k0; j < k0 + w; j++)
        row[j] = least(row[j], row[k] + rk[j]);
    }
  }
  return 1;
}

/* The block's rows, columns j0 to j1 - 1: step by step, row k of the panel as the
 * earlier steps left it. */
static void rows_of_block(int *p, idx s, idx k0, idx w, idx j0, idx j1) {
  for (idx k = k0; k < k0 + w; k++)
    for (idx i = k0; i < k0 + w; i++) {
      int *row = p + i * s;
      const int *rk = p + k * s;
      int c = row[k];
      for (idx j = j0; j < j1; j++)
        row[j] = least(row[j], c + rk[j]);
    }
}

/* Row i's elements in the block's columns, from the finished diagonal block, step by
 * step; row[k] is read once per step (step k leaves it: p[k][k] >= 0). */
static void columns_of_block(int *p, idx s, idx k0, idx w, idx i) {
  int *row = p + i * s;
  for (idx k = k0; k < k0 + w; k++) {
    const int *rk = p + k * s;
    int c = row[k];
    for (idx j = k0; j < k0 + w; j++)
      row[j] = least(row[j], c + rk[j]);
  }
}

/* Row i's BLOCK elements from column j0, through the block's finished panels, the
 * elements kept in registers across the steps. */
static void full_tile_row(int *restrict row, const int *restrict panel, const int *restrict via,
                          idx s, idx w) {
  int acc[BLOCK];
  for (idx j = 0; j < BLOCK; j++)
    acc[j] = row[j];
  for (idx k = 0; k < w; k++) {
    int c = via[k];
    const int *rk = panel + k * s;
    for (idx j = 0; j < BLOCK; j++)
      acc[j] = least(acc[j], c + rk[j]);
  }
  for (idx j = 0; j < BLOCK; j++)
    row[j] = acc[j];
}

/* The same for fewer columns (the last tile). */
static void part_tile_row(int *restrict row, const int *restrict panel, const int *restrict via,
                          idx s, idx w, idx width) {
  for (idx k = 0; k < w; k++) {
    int c = via[k];
    const int *rk = panel + k * s;
    for (idx j = 0; j < width; j++)
      row[j] = least(row[j], c + rk[j]);
  }
}

/* Every element outside the block's rows and columns, through the finished panels
 * (the block's columns are one tile of columns: k0 is a multiple of BLOCK). */
static void others(idx n, int *p, idx s, idx k0, idx w) {
  for (idx j0 = 0; j0 < n; j0 += BLOCK) {
    if (j0 == k0)
      continue;
    idx width = n - j0 < BLOCK ? n - j0 : BLOCK;
    for (idx i = 0; i < n; i++) {
      if (i >= k0 && i < k0 + w)
        continue;
      int *row = p + i * s;
      if (width == BLOCK)
        full_tile_row(row + j0, p + k0 * s + j0, row + k0, s, w);
      else
        part_tile_row(row + j0, p + k0 * s + j0, row + k0, s, w, width);
    }
  }
}

/* The nest on the n x n ints from p, rows s ints apart. */
void polyrust_min_plus_closure_i32(idx n, int *p, idx s) {
  int saved[BLOCK * BLOCK];
  for (idx k0 = 0; k0 < n; k0 += BLOCK) {
    idx w = n - k0 < BLOCK ? n - k0 : BLOCK;
    for (idx i = 0; i < w; i++)
      for (idx j = 0; j < w; j++)
        saved[i * BLOCK + j] = p[(k0 + i) * s + k0 + j];
    if (!diagonal(p, s, k0, w)) {
      for (idx i = 0; i < w; i++)
        for (idx j = 0; j < w; j++)
          p[(k0 + i) * s + k0 + j] = saved[i * BLOCK + j];
      in_order(n, p, s, k0);
      return;
    }
    for (idx j0 = 0; j0 < n; j0 += BLOCK)
      if (j0 != k0)
        rows_of_block(p, s, k0, w, j0, j0 + BLOCK < n ? j0 + BLOCK : n);
    for (idx i = 0; i < n; i++)
      if (i < k0 || i >= k0 + w)
        columns_of_block(p, s, k0, w, i);
    others(n, p, s, k0, w);
  }
}
