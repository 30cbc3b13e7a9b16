/* GridSample (opset 16 and 20, 2-D, fp32) as a decomposition around TOSA GATHER.
 *
 * X [N, C, H, W] becomes GATHER's values [N, H*W, C] (TRANSPOSE to NHWC, RESHAPE); the grid
 * [N, Ho, Wo, 2] becomes two coordinate columns [N, P, 1] (P = Ho*Wo). Each coordinate is
 * unnormalised with the float operations kern_grid_sample uses (align_corners 1: (g+1)/2 *
 * (len-1), else ((g+1)*len - 1)/2), then clamped into [0, len-1] (border) or to [-4, len+4]
 * (zeros: beyond it every tap reads 0, as in the CPU kernel) or reflected (below). A tap's
 * integral coordinates are clamped into the image (CLAMP ignoring NaN, so a NaN coordinate
 * still gathers a valid index; its weight keeps the NaN), flattened to y*W + x in f32 (exact: H*W <= 2^24, and
 * TOSA-1.0+FP has no int32 arithmetic beyond ADD/SUB/MUL) and CAST to the int32 indices
 * [N, P]; under zeros a tap outside the image is SELECTed to 0. Then
 *   linear:  FLOOR gives the corner, the fractions dx, dy the weights, and the four taps are
 *            combined as (1-dy)*((1-dx)*v00 + dx*v01) + dy*((1-dx)*v10 + dx*v11), the CPU
 *            kernel's order;
 *   nearest: the coordinate rounded half to even (FLOOR, and the fraction compared with 0.5:
 *            TOSA has no rounding operator), one tap, plus (x-x)+(y-y) so a NaN coordinate
 *            gives NaN as ONNX does;
 *   cubic:   the 4x4 taps around the corner, weighted by kern_grid_sample's A = -0.75
 *            polynomials of dx and dy, summed row by row in the kernel's order.
 * padding_mode reflection mirrors the coordinate and every tap into [lo, hi] (the image
 * edges, or the corner pixel centres with align_corners) as the kernel does, in f32.
 * Every float operation is the CPU kernel's, in its order, so the results are bit-identical
 * to the CPU executor's, except that under reflection a mirrored coordinate may differ by
 * its f32 rounding (the kernel reflects in double). The result [N, P, C] is RESHAPEd and
 * TRANSPOSEd back to [N, C, Ho, Wo]. Refused: other than 2 spatial dims, non-fp32 tensors. */
#include <string.h>

#include "lower/lower_extra.h"

typedef struct gs {
    lower_ctx *c;
    int64_t h, w;
    bool zeros, reflection, align;
    int values; /* X as [N, H*W, C] */
    int64_t n, p;
} gs;

static int k3(gs *s, double v) { return lx_fill(s->c, "gs_k", TOSAC_DT_F32, 3, v); }
static int op2(gs *s, tosa_op op, int a, int b)
{
    return lx_binary(s->c, op, a, b, TOSAC_DT_UNKNOWN, -1);
}
static int cmp(gs *s, tosa_op op, int a, int b)
{
    return lx_binary(s->c, op, a, b, TOSAC_DT_BOOL, -1);
}

/* CLAMP of an f32 tensor to [lo, hi]; nan_mode IGNORE maps NaN to lo. */
static int clampf(gs *s, int t, float lo, float hi, uint32_t nan_mode)
{
    if (t < 0)
        return -1;
    tosa_attr at;
    memset(&at, 0, sizeof at);
    at.nan_mode = nan_mode;
    memcpy(at.min_val, &lo, 4);
    memcpy(at.max_val, &hi, 4);
    at.n_min_val = at.n_max_val = 4;
    int64_t shape[TOSAC_MAX_RANK];
    int r = lower_rank(s->c, t);
    memcpy(shape, lower_shape(s->c, t), (size_t)r * sizeof *shape);
    int out = lower_tmp(s->c, "gs_clamp", TOSAC_DT_F32, r, shape);
    return out < 0 || lower_emit(s->c, TOSA_OP_CLAMP, &at, &t, 1, &out, 1) ? -1 : out;
}

/* kern_grid_sample's reflect(v, lo, hi): v mirrored into [lo, hi] as often as it takes
 * (outside by d: n = floor(d / span) mirrors, the rest r; even n counts from the edge it
 * crossed, odd from the other). d / span is d times the f32 reciprocal: where that rounds
 * across an integer, r is 0 or span instead of span or 0 with the other parity, the same
 * mirror edge either way, so integral taps still reflect exactly; a coordinate may differ
 * from the kernel's double arithmetic by f32 rounding. An infinite v gives lo as in the
 * kernel; NaN stays NaN. */
static int reflect(gs *s, int v, double lo, double hi)
{
    double span = hi - lo;
    if (span <= 0)
        return clampf(s, v, (float)lo, (float)lo, TOSA_NAN_PROPAGATE);
    int klo = k3(s, lo), khi = k3(s, hi), ks = k3(s, span);
    int below = cmp(s, TOSA_OP_GREATER, klo, v), above = cmp(s, TOSA_OP_GREATER, v, khi);
    int d = lx_select(s->c, below, op2(s, TOSA_OP_SUB, klo, v), op2(s, TOSA_OP_SUB, v, khi), -1);
    int n = lx_unary(s->c, TOSA_OP_FLOOR, op2(s, TOSA_OP_MUL, d, k3(s, 1.0 / span)),
                     TOSAC_DT_UNKNOWN, -1);
    int r = op2(s, TOSA_OP_SUB, d, op2(s, TOSA_OP_MUL, n, ks));
    int h = op2(s, TOSA_OP_MUL, n, k3(s, 0.5));
    int odd = cmp(s, TOSA_OP_GREATER, h, lx_unary(s->c, TOSA_OP_FLOOR, h, TOSAC_DT_UNKNOWN, -1));
    int from_lo = op2(s, TOSA_OP_LOGICAL_XOR, below, odd);
    int t = lx_select(s->c, from_lo, op2(s, TOSA_OP_ADD, klo, r), op2(s, TOSA_OP_SUB, khi, r), -1);
    t = lx_select(s->c, op2(s, TOSA_OP_LOGICAL_OR, below, above), t, v, -1);
    int inf = cmp(s, TOSA_OP_GREATER, lx_unary(s->c, TOSA_OP_ABS, v, TOSAC_DT_UNKNOWN, -1),
                  k3(s, 3.4028234663852886e38));
    return lx_select(s->c, inf, klo, t, -1);
}

/* The reflection bounds of an axis of length len: pixel centres (align_corners) or edges. */
static double refl_lo(const gs *s) { return s->align ? 0 : -0.5; }
static double refl_hi(const gs *s, int64_t len)
{
    return s->align ? (double)(len - 1) : (double)len - 0.5;
}

/* Grid component g [N, P, 1] as a pixel coordinate along an axis of length len. */
static int pixel(gs *s, int g, int64_t len, bool align)
{
    int t = op2(s, TOSA_OP_ADD, g, k3(s, 1));
    if (align)
        t = op2(s, TOSA_OP_MUL, op2(s, TOSA_OP_MUL, t, k3(s, 0.5)), k3(s, (double)(len - 1)));
    else
        t = op2(s, TOSA_OP_MUL,
                op2(s, TOSA_OP_SUB, op2(s, TOSA_OP_MUL, t, k3(s, (double)len)), k3(s, 1)),
                k3(s, 0.5));
    if (s->reflection) /* inside [lo, hi]: the kernel's [-4, len+4] clamp does nothing */
        return reflect(s, t, refl_lo(s), refl_hi(s, len));
    return s->zeros ? clampf(s, t, -4.0f, (float)len + 4.0f, TOSA_NAN_PROPAGATE)
                    : clampf(s, t, 0.0f, (float)(len - 1), TOSA_NAN_PROPAGATE);
}

/* An integral coordinate k (reflected first under reflection: the kernel reflects taps too,
 * and the reflection of an integer is one) clamped into [0, len-1]; *inside (zeros only)
 * whether it was. */
static int tap_coord(gs *s, int k, int64_t len, int *inside)
{
    if (s->reflection)
        k = reflect(s, k, refl_lo(s), refl_hi(s, len));
    int cl = clampf(s, k, 0.0f, (float)(len - 1), TOSA_NAN_IGNORE);
    *inside = s->zeros ? cmp(s, TOSA_OP_EQUAL, cl, k) : -1;
    return cl;
}

/* The row start of an integral y coordinate clamped into the image: cy * W. */
static int row_base(gs *s, int cy) { return op2(s, TOSA_OP_MUL, cy, k3(s, (double)s->w)); }

/* The values at (row base yb, column cx) [N, P, 1] as [N, P, C]; 0 where a coordinate was
 * outside (zeros). */
static int gather_tap(gs *s, int yb, int cx, int in_y, int in_x)
{
    lower_ctx *c = s->c;
    int idx = op2(s, TOSA_OP_ADD, yb, cx);
    int64_t is[2] = {s->n, s->p};
    idx = idx < 0 ? -1 : lower_reshape(c, idx, 2, is, -1);
    idx = lx_cast(c, idx, TOSAC_DT_I32, -1);
    if (idx < 0)
        return -1;
    int64_t gshape[3] = {s->n, s->p, lower_shape(c, s->values)[2]};
    int g = lower_tmp(c, "gs_tap", TOSAC_DT_F32, 3, gshape);
    int ins[2] = {s->values, idx};
    if (g < 0 || lower_emit(c, TOSA_OP_GATHER, NULL, ins, 2, &g, 1))
        return -1;
    if (!s->zeros)
        return g;
    int m = op2(s, TOSA_OP_LOGICAL_AND, in_y, in_x);
    return lx_select(c, m, g, k3(s, 0), -1);
}

/* x rounded half to even (x - floor(x) is exact for every float x that matters here). */
static int round_even(gs *s, int x)
{
    int r = lx_unary(s->c, TOSA_OP_FLOOR, x, TOSAC_DT_UNKNOWN, -1);
    int f = op2(s, TOSA_OP_SUB, x, r), half = k3(s, 0.5);
    int q = op2(s, TOSA_OP_MUL, r, half);
    int odd = cmp(s, TOSA_OP_GREATER, q, lx_unary(s->c, TOSA_OP_FLOOR, q, TOSAC_DT_UNKNOWN, -1));
    int up = op2(s, TOSA_OP_LOGICAL_OR, cmp(s, TOSA_OP_GREATER, f, half),
                 op2(s, TOSA_OP_LOGICAL_AND, cmp(s, TOSA_OP_EQUAL, f, half), odd));
    return op2(s, TOSA_OP_ADD, r, lx_select(s->c, up, k3(s, 1), k3(s, 0), -1));
}

/* The taps at floor(x) - lo .. floor(x) + hi on both axes: their values v[i][j] (row i,
 * column j) and the fractions dx, dy. */
static bool taps(gs *s, int px, int py, int lo, int cnt, int v[4][4], int *dx, int *dy)
{
    int fx = lx_unary(s->c, TOSA_OP_FLOOR, px, TOSAC_DT_UNKNOWN, -1);
    int fy = lx_unary(s->c, TOSA_OP_FLOOR, py, TOSAC_DT_UNKNOWN, -1);
    *dx = op2(s, TOSA_OP_SUB, px, fx);
    *dy = op2(s, TOSA_OP_SUB, py, fy);
    int cx[4], ix[4], yb[4], iy[4];
    for (int k = 0; k < cnt; k++) {
        int off = k - lo;
        int kx = off ? op2(s, TOSA_OP_ADD, fx, k3(s, off)) : fx;
        int ky = off ? op2(s, TOSA_OP_ADD, fy, k3(s, off)) : fy;
        cx[k] = tap_coord(s, kx, s->w, &ix[k]);
        yb[k] = row_base(s, tap_coord(s, ky, s->h, &iy[k]));
    }
    for (int i = 0; i < cnt; i++)
        for (int j = 0; j < cnt; j++)
            if ((v[i][j] = gather_tap(s, yb[i], cx[j], iy[i], ix[j])) < 0)
                return false;
    return *dx >= 0 && *dy >= 0;
}

static int linear(gs *s, int px, int py)
{
    int v[4][4], dx, dy, one = k3(s, 1);
    if (!taps(s, px, py, 0, 2, v, &dx, &dy))
        return -1;
    int ex = op2(s, TOSA_OP_SUB, one, dx), ey = op2(s, TOSA_OP_SUB, one, dy);
    int row[2];
    for (int i = 0; i < 2; i++)
        row[i] = op2(s, TOSA_OP_ADD, op2(s, TOSA_OP_MUL, ex, v[i][0]),
                     op2(s, TOSA_OP_MUL, dx, v[i][1]));
    return op2(s, TOSA_OP_ADD, op2(s, TOSA_OP_MUL, ey, row[0]), op2(s, TOSA_OP_MUL, dy, row[1]));
}

/* kern_grid_sample's cubic weights (A = -0.75) of fraction t, the same float operations. */
static void cubic_weights(gs *s, int t, int w[4])
{
    const double a = -0.75;
    int one = k3(s, 1);
    int x = op2(s, TOSA_OP_ADD, t, one);
    int p = op2(s, TOSA_OP_SUB, op2(s, TOSA_OP_MUL, k3(s, a), x), k3(s, 5 * a));
    p = op2(s, TOSA_OP_ADD, op2(s, TOSA_OP_MUL, p, x), k3(s, 8 * a));
    w[0] = op2(s, TOSA_OP_SUB, op2(s, TOSA_OP_MUL, p, x), k3(s, 4 * a));
    for (int k = 1; k < 3; k++) {
        x = k == 1 ? t : op2(s, TOSA_OP_SUB, one, t);
        p = op2(s, TOSA_OP_SUB, op2(s, TOSA_OP_MUL, k3(s, a + 2), x), k3(s, a + 3));
        p = op2(s, TOSA_OP_MUL, op2(s, TOSA_OP_MUL, p, x), x);
        w[k] = op2(s, TOSA_OP_ADD, p, one);
    }
    w[3] = op2(s, TOSA_OP_SUB, op2(s, TOSA_OP_SUB, op2(s, TOSA_OP_SUB, one, w[0]), w[1]), w[2]);
}

/* sum_i wy[i] * sum_j wx[j] * v[i][j] in the CPU kernel's order; its sums start from +0, so
 * a zero result is +0: the last ADD of +0 gives that (every other value is the same). */
static int cubic(gs *s, int px, int py)
{
    int v[4][4], dx, dy, wx[4], wy[4];
    if (!taps(s, px, py, 1, 4, v, &dx, &dy))
        return -1;
    cubic_weights(s, dx, wx);
    cubic_weights(s, dy, wy);
    int acc = -1;
    for (int i = 0; i < 4; i++) {
        int row = -1;
        for (int j = 0; j < 4; j++) {
            int t = op2(s, TOSA_OP_MUL, wx[j], v[i][j]);
            row = j ? op2(s, TOSA_OP_ADD, row, t) : t;
        }
        int t = op2(s, TOSA_OP_MUL, wy[i], row);
        acc = i ? op2(s, TOSA_OP_ADD, acc, t) : t;
    }
    return op2(s, TOSA_OP_ADD, acc, k3(s, 0));
}

static int nearest(gs *s, int px, int py)
{
    int ix, iy;
    int cx = tap_coord(s, round_even(s, px), s->w, &ix);
    int yb = row_base(s, tap_coord(s, round_even(s, py), s->h, &iy));
    int v = gather_tap(s, yb, cx, iy, ix);
    int nan = op2(s, TOSA_OP_ADD, op2(s, TOSA_OP_SUB, px, px), op2(s, TOSA_OP_SUB, py, py));
    return op2(s, TOSA_OP_ADD, v, nan);
}

/* The grid's component k (0: x, 1: y) as [N, P, 1]. */
static int component(gs *s, int g3, int k)
{
    int64_t start[3] = {0, 0, k}, size[3] = {s->n, s->p, 1};
    int st = lower_const_shape(s->c, "gs_start", 3, start);
    int sz = lower_const_shape(s->c, "gs_size", 3, size);
    int out = lower_tmp(s->c, "gs_grid", TOSAC_DT_F32, 3, size);
    int ins[3] = {g3, st, sz};
    if (g3 < 0 || st < 0 || sz < 0 || out < 0 ||
        lower_emit(s->c, TOSA_OP_SLICE, NULL, ins, 3, &out, 1))
        return -1;
    return out;
}

static tosac_code lower_grid_sample(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *G = lower_in_ir(c, n, 1);
    const ir_tensor *Y = lower_out_ir(c, n, 0);
    if (!X || !G || !Y)
        return lx_unsupported(c, n, "needs X, grid and an output");
    if (X->dtype != TOSAC_DT_F32 || G->dtype != TOSAC_DT_F32 || Y->dtype != TOSAC_DT_F32)
        return lx_unsupported(c, n, "a %s X or grid (the decomposition is fp32)",
                              tosac_dtype_name(X->dtype != TOSAC_DT_F32 ? X->dtype : G->dtype));
    if (X->rank != 4 || G->rank != 4 || G->shape[3] != 2 || Y->rank != 4)
        return lx_unsupported(c, n, "%d spatial dims (only 2, X [N, C, H, W], are lowered)",
                              X->rank - 2);
    /* opset 20 renamed bilinear and bicubic to linear and cubic; like the CPU executor
     * (cpu_ops_resize.c), either spelling is read in any opset */
    const char *mode = ir_node_attr_string(n, "mode", c->opset >= 20 ? "linear" : "bilinear");
    int form = !strcmp(mode, "bilinear") || !strcmp(mode, "linear") ? 0
               : !strcmp(mode, "nearest")                          ? 1
               : !strcmp(mode, "bicubic") || !strcmp(mode, "cubic") ? 2
                                                                    : -1;
    if (form < 0)
        return lx_unsupported(c, n, "mode \"%s\" (not a GridSample mode)", mode);
    const char *pad = ir_node_attr_string(n, "padding_mode", "zeros");
    bool zeros = strcmp(pad, "zeros") == 0, reflection = strcmp(pad, "reflection") == 0;
    if (!zeros && !reflection && strcmp(pad, "border") != 0)
        return lx_unsupported(c, n, "padding_mode \"%s\" (not a GridSample padding mode)",
                              pad);
    bool align = ir_node_attr_int(n, "align_corners", 0) != 0;
    int64_t N = X->shape[0], C = X->shape[1], H = X->shape[2], W = X->shape[3];
    int64_t P = G->shape[1] * G->shape[2];
    if (H < 1 || W < 1 || H * W > (1 << 24) || N * P > INT32_MAX)
        return lx_unsupported(c, n, "an image of %lld x %lld pixels (the flat indices are "
                              "computed in f32: at most 2^24)", (long long)H, (long long)W);
    gs s = {c, H, W, zeros, reflection, align, -1, N, P};
    int x = lower_in(c, n, 0), g = lower_in(c, n, 1);
    int xt = x < 0 ? -1 : lower_transpose(c, x, lower_nchw_to_nhwc, -1);
    s.values = xt < 0 ? -1 : lower_reshape(c, xt, 3, (int64_t[3]){N, H * W, C}, -1);
    int g3 = g < 0 ? -1 : lower_reshape(c, g, 3, (int64_t[3]){N, P, 2}, -1);
    if (s.values < 0 || g3 < 0)
        return lx_code(c);
    int px = pixel(&s, component(&s, g3, 0), W, align);
    int py = pixel(&s, component(&s, g3, 1), H, align);
    if (px < 0 || py < 0)
        return lx_code(c);
    int r = form == 0 ? linear(&s, px, py) : form == 1 ? nearest(&s, px, py) : cubic(&s, px, py);
    int y = r < 0 ? -1 : lower_out(c, n, 0);
    int r4 = y < 0 ? -1 : lower_reshape(c, r, 4, (int64_t[4]){N, G->shape[1], G->shape[2], C}, -1);
    return r4 < 0 || lower_transpose(c, r4, lower_nhwc_to_nchw, y) < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_grid_sample[] = {
    {IR_DOMAIN_ONNX, "GridSample", lower_grid_sample, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
