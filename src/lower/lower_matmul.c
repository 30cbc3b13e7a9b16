/* Gemm and MatMul.
 *
 * Constant rank-2 weights (a linear layer) -> CONV2D 1x1: the rows of A become the spatial
 * positions of an NHWC view [1, rows, 1, K] (batch 1, so hardware subsets that only take batch
 * 1 still accept it), the weights OHWI [N, 1, 1, K], the bias an accumulator-typed [N] vector.
 * TOSA 1.0 has no FULLY_CONNECTED and MATMUL has neither a bias nor per-channel weights, which
 * QDQ linear layers have. int8: i8 x i8 -> i32; a16w8: i16 x i8 -> i48 with an i48 bias;
 * float: f32. The per-channel RESCALE by alpha*sa*sw[n]/sy follows.
 *
 * Two runtime operands (attention) or batched weights -> MATMUL [B,M,K] x [B,K,N]: batch dims
 * are folded into rows when B has none, tiled when they broadcast. int8 -> i32 (zero points
 * are MATMUL operands), int16 x int16 -> i48 (EXT-INT16; zero points must be 0), then a
 * per-tensor RESCALE. Constant int8 weights meeting int16 activations are widened to int16 at
 * compile time, since MATMUL takes one input type. A Gemm with runtime B adds C after the
 * MATMUL: float as MUL by alpha, beta*C ADDed; int8 with a constant C as an i32 bias in the
 * product's units (sa*sb, times beta/alpha) ADDed before the one RESCALE; int16 the same after
 * an exact RESCALE of the i48 product down to i32 (TOSA has no 48-bit ADD). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/lower_extra.h"

typedef struct mm {
    const ir_node *n;
    const ir_tensor *a, *b, *cc, *y; /* cc: Gemm's C, or NULL */
    double alpha, beta;
    bool trans_a, trans_b;
    bool quant;
} mm;

static tosac_dtype acc_of(tosac_dtype in)
{
    return in == TOSAC_DT_I16 ? TOSAC_DT_I48 : in == TOSAC_DT_I8 ? TOSAC_DT_I32 : in;
}

/* Scale of B's output channel o (per-tensor, or per-axis along axis `n_axis`). */
static double b_scale(const ir_tensor *b, int64_t o)
{
    return b->quant->n > 1 ? (double)b->quant->scale[o] : (double)b->quant->scale[0];
}

static tosac_code check_quant(lower_ctx *c, const mm *m, int n_axis, bool per_channel_ok)
{
    const ir_tensor *a = m->a, *b = m->b, *y = m->y;
    if (!lower_is_quantized(b) || !lower_is_quantized(y))
        return lx_unsupported(c, m->n, "A is quantized but B or the output is not");
    if (a->quant->n != 1 || y->quant->n != 1)
        return lx_unsupported(c, m->n, "activations quantized per axis");
    if (b->quant->n > 1 && (!per_channel_ok || b->quant->axis != n_axis))
        return lx_unsupported(c, m->n, "B quantized per axis other than the output channels");
    for (int i = 1; i < b->quant->n; i++)
        if (b->quant->zero_point[i] != b->quant->zero_point[0])
            return lx_unsupported(c, m->n, "per-channel weight zero points differ");
    if (a->dtype != TOSAC_DT_I8 && a->dtype != TOSAC_DT_I16)
        return lx_unsupported(c, m->n, "quantized A is not int8/int16");
    if (a->dtype == TOSAC_DT_I16 && lower_qzp(a) != 0)
        return lx_unsupported(c, m->n, "int16 A with a non-zero zero point");
    if (!(m->alpha > 0.0))
        return lx_unsupported(c, m->n, "quantized with alpha <= 0");
    return TOSAC_OK;
}

/* ---- constant weights: CONV2D 1x1 ---- */

/* OHWI [N,1,1,K] weights from B's data ([K,N] when kn, else [N,K]: already that order, one
 * copy); float scaled by alpha. A trial lowering leaves them zero (no check reads them). */
static int fc_weights(lower_ctx *c, const mm *m, const tosac_tensor *wv, bool kn, int64_t k,
                      int64_t nn)
{
    size_t es = tosac_dtype_size(wv->dtype), n = (size_t)(k * nn > 0 ? k * nn : 1);
    char *dst = c->trial ? calloc(n, es) : malloc(n * es);
    if (!dst) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory laying out weights");
        return -1;
    }
    const char *src = wv->data;
    if (!c->trial && !kn)
        memcpy(dst, src, (size_t)(k * nn) * es);
    for (int64_t o = 0; !c->trial && kn && o < nn; o++)
        for (int64_t i = 0; i < k; i++)
            memcpy(dst + (o * k + i) * (int64_t)es, src + (i * nn + o) * (int64_t)es, es);
    if (!c->trial && wv->dtype == TOSAC_DT_F32 && m->alpha != 1.0)
        for (int64_t j = 0; j < k * nn; j++)
            ((float *)(void *)dst)[j] = (float)(m->alpha * ((float *)(void *)dst)[j]);
    int64_t shape[4] = {nn, 1, 1, k};
    return lower_const_owned(c, "weight", wv->dtype, 4, shape, dst);
}

/* a2 holds A as [rows, K]; writes the [rows, N] result, reshaped to Y's shape, into out. */
static tosac_code lower_fc(lower_ctx *c, const mm *m, int a2, int64_t rows, int64_t k,
                           int64_t nn, const tosac_tensor *wv, bool kn, int out)
{
    tosac_dtype in_dt = m->a->dtype, acc = acc_of(in_dt);
    if (!m->quant && in_dt != TOSAC_DT_F32)
        return lx_unsupported(c, m->n, "unquantized integer operands");
    if (m->quant && wv->dtype != TOSAC_DT_I8)
        return lx_unsupported(c, m->n, "quantized weights are not int8");
    int64_t view[4] = {1, rows, 1, k}, res[4] = {1, rows, 1, nn};
    int x = lower_reshape(c, a2, 4, view, -1);
    /* Gemm's beta*C is the bias, in units of the accumulator's scale alpha*sa*sw[o] (float:
     * as is, the weights carry alpha) */
    double *sc = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *sc);
    if (!sc)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t o = 0; o < nn; o++)
        sc[o] = m->quant ? m->alpha * lower_qscale(m->a) * b_scale(m->b, o) : 1.0;
    int w = fc_weights(c, m, wv, kn, k, nn);
    int b = lower_bias(c, m->n, m->cc ? 2 : -1, acc, nn, sc, m->beta);
    int izp = lower_scalar(c, "input_zp", in_dt, m->quant ? lower_qzp(m->a) : 0);
    int wzp = lower_scalar(c, "weight_zp", wv->dtype, m->quant ? lower_qzp(m->b) : 0);
    int conv = lower_tmp(c, "fc", acc, 4, res);
    if (x < 0 || w < 0 || b < 0 || izp < 0 || wzp < 0 || conv < 0) {
        free(sc);
        return c->err->code;
    }
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_pad = 4;
    a.stride[0] = a.stride[1] = 1;
    a.n_stride = 2;
    a.dilation[0] = a.dilation[1] = 1;
    a.n_dilation = 2;
    a.acc_type = acc;
    int ins[5] = {x, w, b, izp, wzp};
    if (lower_emit(c, TOSA_OP_CONV2D, &a, ins, 5, &conv, 1)) {
        free(sc);
        return c->err->code;
    }
    int r = conv;
    if (m->quant) {
        for (int64_t o = 0; o < nn; o++)
            sc[o] /= lower_qscale(m->y);
        int per = m->b->quant->n > 1 ? (int)nn : 1;
        lower_rescale_args ra = {m->y->dtype, sc, per, 0, lower_qzp(m->y), -1, "fc_q"};
        r = lower_rescale(c, conv, &ra);
    }
    free(sc);
    return r < 0 || lower_reshape(c, r, m->y->rank, m->y->shape, out) < 0 ? c->err->code
                                                                           : TOSAC_OK;
}

/* ---- runtime operands: MATMUL ---- */

/* Constant B for a MATMUL whose A is int16: int8 weights widened (zero point subtracted). */
static int widen_b(lower_ctx *c, const mm *m)
{
    tosac_tensor v;
    if (!lower_in_const(c, m->n, 1, &v) || v.dtype != TOSAC_DT_I8) {
        lx_unsupported(c, m->n, "int16 A with a runtime int8 B");
        return -1;
    }
    int64_t n = tosac_tensor_numel(&v), zp = lower_qzp(m->b);
    int16_t *w = malloc((size_t)(n ? n : 1) * sizeof *w);
    if (!w) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory widening weights");
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        w[i] = (int16_t)(((const int8_t *)v.data)[i] - zp);
    int t = lower_const(c, "weight16", TOSAC_DT_I16, m->b->rank, m->b->shape, w);
    free(w);
    return t;
}

typedef struct mm_dims {
    int nb;                       /* batch rank of the output */
    int64_t ybatch[TOSAC_MAX_RANK];
    int64_t nbatch, m, k, n;
} mm_dims;

/* t (an operand of rank r holding [batch..., rows, cols]) as [nbatch, rows, cols]: batch dims
 * broadcast to the output's by TILE when they differ. */
static int to_batched(lower_ctx *c, int t, const mm_dims *d, int64_t rows, int64_t cols)
{
    int r = lower_rank(c, t), have = r - 2;
    int64_t pb[TOSAC_MAX_RANK + 2];
    bool same = true;
    for (int i = 0; i < d->nb; i++) {
        int src = i - (d->nb - have);
        pb[i] = src >= 0 ? lower_shape(c, t)[src] : 1;
        same &= pb[i] == d->ybatch[i];
    }
    if (!same) {
        int64_t full[TOSAC_MAX_RANK + 2], mult[TOSAC_MAX_RANK + 2], tiled[TOSAC_MAX_RANK + 2];
        for (int i = 0; i < d->nb; i++) {
            full[i] = pb[i];
            mult[i] = d->ybatch[i] / pb[i];
            tiled[i] = d->ybatch[i];
        }
        full[d->nb] = tiled[d->nb] = rows;
        full[d->nb + 1] = tiled[d->nb + 1] = cols;
        mult[d->nb] = mult[d->nb + 1] = 1;
        t = lower_reshape(c, t, d->nb + 2, full, -1);
        int ms = lower_const_shape(c, "multiples", d->nb + 2, mult);
        int o = lower_tmp(c, "tile", lower_dtype(c, t >= 0 ? t : 0), d->nb + 2, tiled);
        int ins[2] = {t, ms};
        if (t < 0 || ms < 0 || o < 0 || lower_emit(c, TOSA_OP_TILE, NULL, ins, 2, &o, 1))
            return -1;
        t = o;
    }
    int64_t s3[3] = {d->nbatch, rows, cols};
    return lower_reshape(c, t, 3, s3, -1);
}

static tosac_code lower_mm_runtime(lower_ctx *c, const mm *m, int a, const mm_dims *d, int out)
{
    tosac_dtype in_dt = m->a->dtype, acc = acc_of(in_dt);
    if (!m->quant && in_dt != TOSAC_DT_F32)
        return lx_unsupported(c, m->n, "unquantized integer operands");
    int64_t za = m->quant ? lower_qzp(m->a) : 0, zb = m->quant ? lower_qzp(m->b) : 0;
    int b;
    if (m->quant && m->b->dtype != in_dt) {
        if (in_dt != TOSAC_DT_I16)
            return lx_unsupported(c, m->n, "A and B have different types");
        b = widen_b(c, m);
        zb = 0;
    } else {
        b = lower_in(c, m->n, 1);
    }
    if (in_dt == TOSAC_DT_I16 && (za != 0 || zb != 0))
        return lx_unsupported(c, m->n, "int16 operands with non-zero zero points");
    if (a < 0 || b < 0)
        return c->err->code;
    if (lower_rank(c, b) == 1) { /* [K] -> [K, 1] */
        int64_t kn[2] = {d->k, 1};
        b = lower_reshape(c, b, 2, kn, -1);
    }
    if (m->trans_b) {
        const int32_t swap[2] = {1, 0};
        b = lower_transpose(c, b, swap, -1);
    }
    int a3, b3;
    if (b >= 0 && lower_rank(c, b) == 2) { /* weights without batch: fold A's batch into rows */
        int64_t sa[3] = {1, d->nbatch * d->m, d->k}, sb[3] = {1, d->k, d->n};
        a3 = lower_reshape(c, a, 3, sa, -1);
        b3 = lower_reshape(c, b, 3, sb, -1);
    } else {
        a3 = to_batched(c, a, d, d->m, d->k);
        b3 = b < 0 ? -1 : to_batched(c, b, d, d->k, d->n);
    }
    int azp = lower_scalar(c, "a_zp", in_dt, za), bzp = lower_scalar(c, "b_zp", in_dt, zb);
    if (a3 < 0 || b3 < 0 || azp < 0 || bzp < 0)
        return c->err->code;
    int64_t os[3];
    memcpy(os, lower_shape(c, a3), sizeof os);
    os[2] = d->n;
    int prod = lower_tmp(c, "matmul", acc, 3, os);
    int ins[4] = {a3, b3, azp, bzp};
    if (prod < 0 || lower_emit(c, TOSA_OP_MATMUL, NULL, ins, 4, &prod, 1))
        return c->err->code;
    int r = prod;
    if (m->quant) {
        if (m->b->quant->n != 1)
            return lx_unsupported(c, m->n, "MATMUL with B quantized per channel");
        double sab = lower_qscale(m->a) * lower_qscale(m->b);
        if (m->cc && acc == TOSAC_DT_I48) {
            /* TOSA has no 48-bit ADD: the i48 product goes to i32 first, exactly divided by
             * 2^shift, the least power of two that keeps K * 2^15 * 2^15 inside int32 (a loss
             * far below an output step: the output scale is about K * 2^15 units of sa*sb) */
            int shift = 0;
            while (shift < 40 && (double)d->k * 32768.0 * 32768.0 > ldexp(2147483647.0, shift))
                shift++;
            double down = ldexp(1.0, -shift);
            lower_rescale_args ra = {TOSAC_DT_I32, &down, 1, 0, 0, -1, "matmul_i32"};
            prod = lower_rescale(c, prod, &ra);
            if (prod < 0)
                return c->err->code;
            acc = TOSAC_DT_I32;
            sab *= ldexp(1.0, shift);
            r = prod;
        }
        if (m->cc) { /* Gemm's C: an i32 bias in units of sa*sb, scaled by beta/alpha */
            double *sc = malloc((size_t)(d->n > 0 ? d->n : 1) * sizeof *sc);
            if (!sc)
                return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
            for (int64_t i = 0; i < d->n; i++)
                sc[i] = sab;
            int bias = lower_bias(c, m->n, 2, acc, d->n, sc, m->beta / m->alpha);
            free(sc);
            int64_t b3[3] = {1, 1, d->n};
            r = lx_binary(c, TOSA_OP_ADD, prod, lower_reshape(c, bias, 3, b3, -1),
                          TOSAC_DT_UNKNOWN, -1);
        }
        double s = m->alpha * sab / lower_qscale(m->y);
        lower_rescale_args ra = {m->y->dtype, &s, 1, 0, lower_qzp(m->y), -1, "matmul_q"};
        r = r < 0 ? -1 : lower_rescale(c, r, &ra);
    } else {
        if (m->alpha != 1.0)
            r = lx_binary(c, TOSA_OP_MUL, r, lx_fill(c, "alpha", in_dt, 3, m->alpha),
                          TOSAC_DT_UNKNOWN, -1);
        if (m->cc) { /* beta * C, broadcast as [1, rows or 1, n or 1] */
            int cv = lower_in(c, m->n, 2);
            if (m->beta != 1.0)
                cv = lx_binary(c, TOSA_OP_MUL, cv, lx_fill(c, "beta", in_dt, m->cc->rank,
                                                           m->beta), TOSAC_DT_UNKNOWN, -1);
            int64_t c3[3] = {1, 1, 1};
            for (int i = 0; i < m->cc->rank; i++)
                c3[3 - m->cc->rank + i] = m->cc->shape[i];
            r = lx_binary(c, TOSA_OP_ADD, r, cv < 0 ? -1 : lower_reshape(c, cv, 3, c3, -1),
                          TOSAC_DT_UNKNOWN, -1);
        }
    }
    return r < 0 || lower_reshape(c, r, m->y->rank, m->y->shape, out) < 0 ? c->err->code
                                                                           : TOSAC_OK;
}

/* ---- the two ONNX operators ---- */

static tosac_code setup(lower_ctx *c, const ir_node *n, mm *m)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    m->a = lower_in_ir(c, n, 0);
    m->b = lower_in_ir(c, n, 1);
    m->y = lower_out_ir(c, n, 0);
    m->alpha = m->beta = 1.0;
    if (!m->a || !m->b || !m->y || m->a->rank < 1 || m->b->rank < 1 || m->y->rank < 0)
        return lx_unsupported(c, m->n, "missing input or output");
    m->quant = lower_is_quantized(m->a);
    return TOSAC_OK;
}

static tosac_code lower_gemm(lower_ctx *c, const ir_node *n)
{
    mm m;
    tosac_code rc = setup(c, n, &m);
    if (rc)
        return rc;
    m.cc = n->n_inputs > 2 && n->inputs[2] >= 0 ? lower_in_ir(c, n, 2) : NULL;
    m.alpha = ir_node_attr_float(n, "alpha", 1.0f);
    m.beta = ir_node_attr_float(n, "beta", 1.0f);
    m.trans_a = ir_node_attr_int(n, "transA", 0) != 0;
    m.trans_b = ir_node_attr_int(n, "transB", 0) != 0;
    if (m.a->rank != 2 || m.b->rank != 2 || m.y->rank != 2)
        return lx_unsupported(c, n, "operands are not matrices");
    int64_t rows = m.y->shape[0], nn = m.y->shape[1];
    int64_t k = m.a->shape[m.trans_a ? 0 : 1];
    if (m.b->shape[m.trans_b ? 1 : 0] != k || m.b->shape[m.trans_b ? 0 : 1] != nn)
        return lx_unsupported(c, n, "B does not match A and the output");
    if (m.quant && (rc = check_quant(c, &m, m.trans_b ? 0 : 1, true)))
        return rc;
    int a = lower_in(c, n, 0);
    if (a >= 0 && m.trans_a) {
        const int32_t swap[2] = {1, 0};
        a = lower_transpose(c, a, swap, -1);
    }
    if (a < 0)
        return c->err->code;
    tosac_tensor wv;
    if (lower_in_const(c, n, 1, &wv)) {
        int out = lower_out(c, n, 0);
        return out < 0 ? c->err->code : lower_fc(c, &m, a, rows, k, nn, &wv, !m.trans_b, out);
    }
    if (m.cc && (m.cc->rank > 2 || (m.quant && !lower_in_const(c, n, 2, &wv))))
        return lx_unsupported(c, n, "%s", m.quant ? "runtime B with a runtime C operand"
                                          : "C of rank above 2");
    mm_dims d = {0, {0}, 1, rows, k, nn};
    int out = lower_out(c, n, 0);
    return out < 0 ? c->err->code : lower_mm_runtime(c, &m, a, &d, out);
}

static tosac_code lower_matmul(lower_ctx *c, const ir_node *n)
{
    mm m;
    tosac_code rc = setup(c, n, &m);
    if (rc)
        return rc;
    const ir_tensor *A = m.a, *B = m.b, *Y = m.y;
    mm_dims d;
    memset(&d, 0, sizeof d);
    d.m = A->rank == 1 ? 1 : A->shape[A->rank - 2];
    d.k = A->shape[A->rank - 1];
    d.n = B->rank == 1 ? 1 : B->shape[B->rank - 1];
    int yb = Y->rank - (A->rank > 1) - (B->rank > 1);
    d.nb = yb < 0 ? 0 : yb;
    d.nbatch = 1;
    for (int i = 0; i < d.nb; i++) {
        d.ybatch[i] = Y->shape[i];
        d.nbatch *= Y->shape[i];
    }
    if ((B->rank == 1 ? B->shape[0] : B->shape[B->rank - 2]) != d.k)
        return lx_unsupported(c, n, "inner dimensions differ");
    tosac_tensor wv;
    bool weights = B->rank <= 2 && lower_in_const(c, n, 1, &wv);
    if (m.quant && (rc = check_quant(c, &m, B->rank - 1, weights)))
        return rc;
    int a = lower_in(c, n, 0);
    if (a < 0)
        return c->err->code;
    int out = lower_out(c, n, 0);
    if (out < 0)
        return c->err->code;
    if (weights) /* every row of A (batch included) times the same [K, N] matrix */
        return lower_fc(c, &m, a, d.nbatch * d.m, d.k, d.n, &wv, true, out);
    return lower_mm_runtime(c, &m, a, &d, out);
}

const lower_rule lower_rules_matmul[] = {
    {IR_DOMAIN_ONNX, "Gemm", lower_gemm, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "MatMul", lower_matmul, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
