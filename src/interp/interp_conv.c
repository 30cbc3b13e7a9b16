/* Operator group: convolutions (CONV2D, CONV3D, DEPTHWISE_CONV2D, TRANSPOSE_CONV2D).
 *
 * Integer modes are bit-exact: i8 x i8/i4 accumulate in 32 bits (wrapping, as the spec's
 * i32 accumulator would), i16 x i8 in 48 bits (stored sign-extended in int64). Floating
 * point modes accumulate in double and round once to the output type, which the spec's
 * DOT_PRODUCT compliance rule accepts for both fp16 and fp32 accumulators. The integer
 * inner loops use typed pointers so they vectorise. */
#include <string.h>

#include "interp/interp_internal.h"
#include "interp/interp_nn_util.h"

typedef enum conv_kind { CK_I8, CK_I16, CK_FLOAT } conv_kind;

/* The operands of one convolution, with its element kind and zero points. */
typedef struct conv_src {
    conv_kind kind;
    const tosac_tensor *in, *w, *bias;
    tosac_tensor *out;
    nn_zp izp, wzp;
} conv_src;

static bool is_conv_float_in(tosac_dtype dt)
{
    return dt == TOSAC_DT_F16 || dt == TOSAC_DT_BF16 || dt == TOSAC_DT_F32 ||
           dt == TOSAC_DT_FP8E4M3 || dt == TOSAC_DT_FP8E5M2;
}

/* The type-support rows of tosa-1.0.2.xml (and the 1.1 mixed-precision fp rows, which
 * only widen the float combinations). */
static tosac_code conv_types(interp_ctx *c, conv_src *s)
{
    tosac_dtype in = s->in->dtype, w = s->w->dtype, out = s->out->dtype;
    tosac_dtype acc = c->op->attr.acc_type;
    if (s->bias->dtype != out)
        return interp_error(c, "bias type %s differs from output type %s",
                            tosac_dtype_name(s->bias->dtype), tosac_dtype_name(out));
    if (in == TOSAC_DT_I8 && (w == TOSAC_DT_I8 || w == TOSAC_DT_I4) && out == TOSAC_DT_I32 &&
        acc == TOSAC_DT_I32) {
        s->kind = CK_I8;
        return TOSAC_OK;
    }
    if (in == TOSAC_DT_I16 && w == TOSAC_DT_I8 && out == TOSAC_DT_I48 && acc == TOSAC_DT_I48) {
        s->kind = CK_I16;
        return TOSAC_OK;
    }
    if (is_conv_float_in(in) && is_conv_float_in(w) &&
        (out == TOSAC_DT_F16 || out == TOSAC_DT_BF16 || out == TOSAC_DT_F32) &&
        (acc == TOSAC_DT_F16 || acc == TOSAC_DT_F32)) {
        s->kind = CK_FLOAT;
        return TOSAC_OK;
    }
    return interp_error(c, "unsupported type combination input %s, weight %s, output %s, "
                        "acc_type %s", tosac_dtype_name(in), tosac_dtype_name(w),
                        tosac_dtype_name(out), tosac_dtype_name(acc));
}

/* Operands, types, zero points and attribute vector lengths common to the four operators,
 * with nsp spatial dimensions. TRANSPOSE_CONV2D has out_pad instead of pad and no
 * dilation. */
static tosac_code conv_operands(interp_ctx *c, int nsp, bool transposed, conv_src *s)
{
    const tosa_attr *a = &c->op->attr;
    tosac_code rc = nn_check_arity(c, 5, 1);
    if (rc)
        return rc;
    s->in = c->in[0];
    s->w = c->in[1];
    s->bias = c->in[2];
    s->out = c->out[0];
    if ((rc = nn_check_rank(c, s->in, nsp + 2, "input")) ||
        (rc = nn_check_rank(c, s->w, nsp + 2, "weight")) ||
        (rc = nn_check_rank(c, s->bias, 1, "bias")) ||
        (rc = nn_check_rank(c, s->out, nsp + 2, "output")) ||
        (rc = nn_check_attr_len(c, a->n_stride, nsp, "stride")) ||
        (rc = transposed ? nn_check_attr_len(c, a->n_out_pad, 4, "out_pad")
                         : nn_check_attr_len(c, a->n_pad, 2 * nsp, "pad")) ||
        (rc = transposed ? TOSAC_OK : nn_check_attr_len(c, a->n_dilation, nsp, "dilation")) ||
        (rc = conv_types(c, s)) ||
        (rc = nn_read_zp(c, c->in[3], s->in->dtype, "input_zp", &s->izp)) ||
        (rc = nn_read_zp(c, c->in[4], s->w->dtype, "weight_zp", &s->wzp)))
        return rc;
    return TOSAC_OK;
}

/* Weight channels must match input channels; output batch and channels the input's
 * batch and out_ch. */
static tosac_code conv_check_channels(interp_ctx *c, const conv_src *s, int64_t w_ic,
                                      int64_t out_ch)
{
    int64_t ic = s->in->shape[s->in->rank - 1];
    if (w_ic != ic)
        return interp_error(c, "weight channels %lld differ from input channels %lld",
                            (long long)w_ic, (long long)ic);
    if (s->out->shape[0] != s->in->shape[0] || s->out->shape[s->out->rank - 1] != out_ch)
        return interp_error(c, "output batch/channels must be %lld/%lld",
                            (long long)s->in->shape[0], (long long)out_ch);
    return TOSAC_OK;
}

/* ERROR_IF(BC != n && BC != 1). */
static tosac_code conv_check_bias(interp_ctx *c, const conv_src *s, int64_t n)
{
    int64_t bc = s->bias->shape[0];
    if (bc != n && bc != 1)
        return interp_error(c, "ERROR_IF(BC != OC && BC != 1): BC %lld, OC %lld",
                            (long long)bc, (long long)n);
    return TOSAC_OK;
}

/* Accumulators of one output value: integer modes use i, floating point f. */
typedef struct conv_acc {
    int64_t i;
    double f;
} conv_acc;

static double dot_float(const conv_src *s, int64_t ioff, int64_t woff, int64_t n)
{
    double acc = 0.0;
    if (s->in->dtype == TOSAC_DT_F32 && s->w->dtype == TOSAC_DT_F32) {
        const float *x = (const float *)s->in->data + ioff;
        const float *w = (const float *)s->w->data + woff;
        for (int64_t i = 0; i < n; i++)
            acc += ((double)x[i] - s->izp.f) * ((double)w[i] - s->wzp.f);
        return acc;
    }
    for (int64_t i = 0; i < n; i++)
        acc += ((double)interp_get_float(s->in, ioff + i) - s->izp.f) *
               ((double)interp_get_float(s->w, woff + i) - s->wzp.f);
    return acc;
}

/* acc += sum over i < n of (in[ioff+i] - input_zp) * (weight[woff+i] - weight_zp). */
static inline void conv_dot(const conv_src *s, int64_t ioff, int64_t woff, int64_t n,
                            conv_acc *acc)
{
    switch (s->kind) {
    case CK_I8: {
        const int8_t *w = (const int8_t *)s->w->data + woff; /* I4 is int8 in memory too */
        const int8_t *x = (const int8_t *)s->in->data + ioff;
        int32_t izp = (int32_t)s->izp.i, wzp = (int32_t)s->wzp.i;
        uint32_t a = 0; /* wraps like the spec's 32-bit accumulator */
        for (int64_t i = 0; i < n; i++)
            a += (uint32_t)((x[i] - izp) * (w[i] - wzp));
        acc->i += (int32_t)a;
        break;
    }
    case CK_I16: {
        const int16_t *x = (const int16_t *)s->in->data + ioff;
        const int8_t *w = (const int8_t *)s->w->data + woff;
        int32_t wzp = (int32_t)s->wzp.i; /* the int16 input has no zero point */
        int64_t a = 0;
        for (int64_t i = 0; i < n; i++)
            a += (int32_t)x[i] * (w[i] - wzp);
        acc->i += a;
        break;
    }
    case CK_FLOAT: acc->f += dot_float(s, ioff, woff, n); break;
    }
}

/* output[oidx] = acc + bias[bidx], in the output type. */
static inline void conv_write(const conv_src *s, int64_t oidx, const conv_acc *acc,
                              int64_t bidx)
{
    if (s->kind == CK_FLOAT) {
        interp_set_float(s->out, oidx, (float)(acc->f + interp_get_float(s->bias, bidx)));
    } else {
        tosac_dtype dt = s->out->dtype;
        int64_t v = nn_wrap_int(dt, acc->i);
        interp_set_int(s->out, oidx, nn_wrap_int(dt, v + interp_get_int(s->bias, bidx)));
    }
}

/* Geometry of CONV2D (as a CONV3D with depth 1), CONV3D and DEPTHWISE_CONV2D (M output
 * channels per input channel; 1 for the others). */
typedef struct conv_geom {
    int64_t N, ID, IH, IW, IC, OC, KD, KH, KW, OD, OH, OW, M;
    int64_t pad[6]; /* d0, d1, top, bottom, left, right */
    int64_t stride[3], dil[3];
} conv_geom;

/* Kernel taps k in [*k0, *k1) with 0 <= i0 + k * dil < in (dil >= 1): the taps of a
 * window starting at input index i0 that land inside the image. */
static void tap_range(int64_t i0, int64_t dil, int64_t K, int64_t in, int64_t *k0, int64_t *k1)
{
    int64_t lo = i0 < 0 ? (-i0 + dil - 1) / dil : 0;
    int64_t hi = in - i0 <= 0 ? 0 : (in - i0 + dil - 1) / dil;
    *k0 = lo;
    *k1 = hi < K ? hi : K;
}

/* The pad/stride/dilation ERROR_IFs and the output-size equations. */
static tosac_code conv_check_window(interp_ctx *c, const conv_geom *g)
{
    static const char *const names[3] = {"OD", "OH", "OW"};
    const int64_t in[3] = {g->ID, g->IH, g->IW}, k[3] = {g->KD, g->KH, g->KW},
                  out[3] = {g->OD, g->OH, g->OW};
    for (int i = 0; i < 6; i++)
        INTERP_ERROR_IF(c, g->pad[i] < 0);
    for (int i = 0; i < 3; i++) {
        INTERP_ERROR_IF(c, g->stride[i] < 1);
        INTERP_ERROR_IF(c, g->dil[i] < 1);
    }
    for (int i = 0; i < 3; i++) {
        int64_t span; /* (K - 1) * dilation: attribute values are untrusted */
        if (__builtin_mul_overflow(k[i] > 0 ? k[i] - 1 : 0, g->dil[i], &span))
            return interp_error(c, "kernel extent of %s overflows", names[i]);
        int64_t num = in[i] - 1 + g->pad[2 * i] + g->pad[2 * i + 1] - span;
        tosac_code rc = nn_check_out_dim(c, num, g->stride[i], out[i], names[i]);
        if (rc)
            return rc;
    }
    return TOSAC_OK;
}

static void conv_run(const conv_src *s, const conv_geom *g)
{
    int64_t BC = s->bias->shape[0], kd0, kd1, ky0, ky1, kx0, kx1;
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t od = 0; od < g->OD; od++)
            for (int64_t oy = 0; oy < g->OH; oy++)
                for (int64_t ox = 0; ox < g->OW; ox++) {
                    int64_t id = od * g->stride[0] - g->pad[0];
                    int64_t iy = oy * g->stride[1] - g->pad[2];
                    int64_t ix = ox * g->stride[2] - g->pad[4];
                    int64_t obase = (((n * g->OD + od) * g->OH + oy) * g->OW + ox) * g->OC;
                    tap_range(id, g->dil[0], g->KD, g->ID, &kd0, &kd1);
                    tap_range(iy, g->dil[1], g->KH, g->IH, &ky0, &ky1);
                    tap_range(ix, g->dil[2], g->KW, g->IW, &kx0, &kx1);
                    for (int64_t oc = 0; oc < g->OC; oc++) {
                        conv_acc acc = {0, 0.0};
                        for (int64_t kd = kd0; kd < kd1; kd++)
                            for (int64_t ky = ky0; ky < ky1; ky++)
                                for (int64_t kx = kx0; kx < kx1; kx++) {
                                    int64_t d = id + kd * g->dil[0], y = iy + ky * g->dil[1],
                                            x = ix + kx * g->dil[2];
                                    int64_t ioff =
                                        (((n * g->ID + d) * g->IH + y) * g->IW + x) * g->IC;
                                    int64_t woff =
                                        (((oc * g->KD + kd) * g->KH + ky) * g->KW + kx) * g->IC;
                                    conv_dot(s, ioff, woff, g->IC, &acc);
                                }
                        conv_write(s, obase + oc, &acc, BC == 1 ? 0 : oc);
                    }
                }
}

/* CONV2D and CONV3D: weight [OC,(KD,)KH,KW,IC]. */
static tosac_code conv_nd(interp_ctx *c, int nsp)
{
    conv_src s;
    tosac_code rc = conv_operands(c, nsp, false, &s);
    if (rc)
        return rc;
    const tosa_attr *a = &c->op->attr;
    const int64_t *is = s.in->shape, *ws = s.w->shape, *os = s.out->shape;
    int o = nsp == 3 ? 1 : 0; /* shape index shift: depth is present */
    conv_geom g = {
        .N = is[0], .ID = o ? is[1] : 1, .IH = is[1 + o], .IW = is[2 + o], .IC = is[3 + o],
        .OC = ws[0], .KD = o ? ws[1] : 1, .KH = ws[1 + o], .KW = ws[2 + o],
        .OD = o ? os[1] : 1, .OH = os[1 + o], .OW = os[2 + o], .M = 1,
        .stride = {o ? a->stride[0] : 1, a->stride[o], a->stride[1 + o]},
        .dil = {o ? a->dilation[0] : 1, a->dilation[o], a->dilation[1 + o]},
    };
    for (int i = 0; i < 2 * nsp; i++)
        g.pad[6 - 2 * nsp + i] = a->pad[i];
    if ((rc = conv_check_window(c, &g)) || (rc = conv_check_channels(c, &s, ws[3 + o], g.OC)) ||
        (rc = conv_check_bias(c, &s, g.OC)))
        return rc;
    conv_run(&s, &g);
    return TOSAC_OK;
}

tosac_code interp_op_conv2d(interp_ctx *c)
{
    return conv_nd(c, 2);
}

tosac_code interp_op_conv3d(interp_ctx *c)
{
    return conv_nd(c, 3);
}

/* ---- DEPTHWISE_CONV2D: weight [KH,KW,C,M], output channel c*M+m ---- */

/* Output channels are accumulated in chunks of this many, so each kernel tap is one pass
 * over contiguous input channels (vectorises for M == 1, the common case). */
#define DW_CHUNK 256

/* Adds one kernel tap to the accumulators of output channels [cm0, cm0 + len). */
static void dw_tap(const conv_src *s, const conv_geom *g, int64_t ibase, int64_t wbase,
                   int64_t cm0, int64_t len, void *accv)
{
    if (s->kind == CK_I8 && g->M == 1) {
        const int8_t *x = (const int8_t *)s->in->data + ibase + cm0;
        const int8_t *w = (const int8_t *)s->w->data + wbase + cm0;
        int32_t izp = (int32_t)s->izp.i, wzp = (int32_t)s->wzp.i;
        uint32_t *acc = accv;
        for (int64_t i = 0; i < len; i++)
            acc[i] += (uint32_t)((x[i] - izp) * (w[i] - wzp));
        return;
    }
    for (int64_t i = 0; i < len; i++) {
        int64_t cm = cm0 + i, ch = cm / g->M;
        if (s->kind == CK_FLOAT)
            ((double *)accv)[i] +=
                ((double)interp_get_float(s->in, ibase + ch) - s->izp.f) *
                ((double)interp_get_float(s->w, wbase + cm) - s->wzp.f);
        else if (s->kind == CK_I8)
            ((uint32_t *)accv)[i] += (uint32_t)(int32_t)((interp_get_int(s->in, ibase + ch) -
                                                          s->izp.i) *
                                                         (interp_get_int(s->w, wbase + cm) -
                                                          s->wzp.i));
        else
            ((int64_t *)accv)[i] += interp_get_int(s->in, ibase + ch) *
                                    (interp_get_int(s->w, wbase + cm) - s->wzp.i);
    }
}

static void dw_run(const conv_src *s, const conv_geom *g)
{
    union {
        uint32_t u[DW_CHUNK];
        int64_t i[DW_CHUNK];
        double f[DW_CHUNK];
    } acc;
    int64_t CM = g->IC * g->M, BC = s->bias->shape[0], ky0, ky1, kx0, kx1;
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t oy = 0; oy < g->OH; oy++)
            for (int64_t ox = 0; ox < g->OW; ox++) {
                int64_t iy = oy * g->stride[1] - g->pad[2], ix = ox * g->stride[2] - g->pad[4];
                int64_t obase = ((n * g->OH + oy) * g->OW + ox) * CM;
                tap_range(iy, g->dil[1], g->KH, g->IH, &ky0, &ky1);
                tap_range(ix, g->dil[2], g->KW, g->IW, &kx0, &kx1);
                for (int64_t cm0 = 0; cm0 < CM; cm0 += DW_CHUNK) {
                    int64_t len = CM - cm0 < DW_CHUNK ? CM - cm0 : DW_CHUNK;
                    memset(&acc, 0, (size_t)len * sizeof acc.i[0]);
                    for (int64_t ky = ky0; ky < ky1; ky++)
                        for (int64_t kx = kx0; kx < kx1; kx++) {
                            int64_t y = iy + ky * g->dil[1], x = ix + kx * g->dil[2];
                            int64_t ibase = ((n * g->IH + y) * g->IW + x) * g->IC;
                            dw_tap(s, g, ibase, (ky * g->KW + kx) * CM, cm0, len, &acc);
                        }
                    for (int64_t i = 0; i < len; i++) {
                        conv_acc a = {0, 0.0};
                        if (s->kind == CK_FLOAT)
                            a.f = acc.f[i];
                        else if (s->kind == CK_I8)
                            a.i = (int32_t)acc.u[i];
                        else
                            a.i = acc.i[i];
                        conv_write(s, obase + cm0 + i, &a, BC == 1 ? 0 : cm0 + i);
                    }
                }
            }
}

tosac_code interp_op_depthwise_conv2d(interp_ctx *c)
{
    conv_src s;
    tosac_code rc = conv_operands(c, 2, false, &s);
    if (rc)
        return rc;
    const tosa_attr *a = &c->op->attr;
    const int64_t *is = s.in->shape, *ws = s.w->shape;
    conv_geom g = {
        .N = is[0], .ID = 1, .IH = is[1], .IW = is[2], .IC = is[3], .KD = 1, .KH = ws[0],
        .KW = ws[1], .M = ws[3], .OC = is[3] * ws[3], .OD = 1, .OH = s.out->shape[1],
        .OW = s.out->shape[2], .pad = {0, 0, a->pad[0], a->pad[1], a->pad[2], a->pad[3]},
        .stride = {1, a->stride[0], a->stride[1]}, .dil = {1, a->dilation[0], a->dilation[1]},
    };
    if ((rc = conv_check_window(c, &g)) || (rc = conv_check_channels(c, &s, ws[2], g.OC)) ||
        (rc = conv_check_bias(c, &s, g.OC)))
        return rc;
    dw_run(&s, &g);
    return TOSAC_OK;
}

/* ---- TRANSPOSE_CONV2D ---- */

tosac_code interp_op_transpose_conv2d(interp_ctx *c)
{
    conv_src s;
    tosac_code rc = conv_operands(c, 2, true, &s);
    if (rc)
        return rc;
    const tosa_attr *a = &c->op->attr;
    int64_t N = s.in->shape[0], IH = s.in->shape[1], IW = s.in->shape[2], IC = s.in->shape[3];
    int64_t OC = s.w->shape[0], KH = s.w->shape[1], KW = s.w->shape[2];
    int64_t OH = s.out->shape[1], OW = s.out->shape[2];
    int64_t pt = a->out_pad[0], pb = a->out_pad[1], pl = a->out_pad[2], pr = a->out_pad[3];
    int64_t sy = a->stride[0], sx = a->stride[1];
    INTERP_ERROR_IF(c, pt <= -KH || pb <= -KH);
    INTERP_ERROR_IF(c, pl <= -KW || pr <= -KW);
    INTERP_ERROR_IF(c, sy < 1 || sx < 1);
    int64_t ey, ex; /* (IH - 1) * stride_y etc.: attribute values are untrusted */
    if (__builtin_mul_overflow(IH > 0 ? IH - 1 : 0, sy, &ey) ||
        __builtin_mul_overflow(IW > 0 ? IW - 1 : 0, sx, &ex))
        return interp_error(c, "output extent overflows");
    INTERP_ERROR_IF(c, OH != ey + pt + pb + KH);
    INTERP_ERROR_IF(c, OW != ex + pl + pr + KW);
    if ((rc = conv_check_channels(c, &s, s.w->shape[3], OC)) ||
        (rc = conv_check_bias(c, &s, OC)))
        return rc;
    int64_t BC = s.bias->shape[0];
    for (int64_t n = 0; n < N; n++)
        for (int64_t oy = 0; oy < OH; oy++)
            for (int64_t ox = 0; ox < OW; ox++)
                for (int64_t oc = 0; oc < OC; oc++) {
                    conv_acc acc = {0, 0.0};
                    for (int64_t ky = 0; ky < KH; ky++) {
                        int64_t y = oy - pt - ky;
                        if (y < 0 || y >= IH * sy || y % sy != 0)
                            continue;
                        for (int64_t kx = 0; kx < KW; kx++) {
                            int64_t x = ox - pl - kx;
                            if (x < 0 || x >= IW * sx || x % sx != 0)
                                continue;
                            int64_t ioff = ((n * IH + y / sy) * IW + x / sx) * IC;
                            int64_t woff = ((oc * KH + ky) * KW + kx) * IC;
                            conv_dot(&s, ioff, woff, IC, &acc);
                        }
                    }
                    conv_write(&s, ((n * OH + oy) * OW + ox) * OC + oc, &acc,
                               BC == 1 ? 0 : oc);
                }
    return TOSAC_OK;
}

const interp_op_entry interp_ops_conv[] = {
    {TOSA_OP_CONV2D, interp_op_conv2d},
    {TOSA_OP_CONV3D, interp_op_conv3d},
    {TOSA_OP_DEPTHWISE_CONV2D, interp_op_depthwise_conv2d},
    {TOSA_OP_TRANSPOSE_CONV2D, interp_op_transpose_conv2d},
    {TOSA_OP_UNKNOWN, NULL},
};
