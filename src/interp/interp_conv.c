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

/* Operands, types and zero points common to the four operators. */
static tosac_code conv_operands(interp_ctx *c, int rank, int w_rank, conv_src *s)
{
    tosac_code rc = nn_check_arity(c, 5, 1);
    if (rc)
        return rc;
    s->in = c->in[0];
    s->w = c->in[1];
    s->bias = c->in[2];
    s->out = c->out[0];
    if ((rc = nn_check_rank(c, s->in, rank, "input")) ||
        (rc = nn_check_rank(c, s->w, w_rank, "weight")) ||
        (rc = nn_check_rank(c, s->bias, 1, "bias")) ||
        (rc = nn_check_rank(c, s->out, rank, "output")) || (rc = conv_types(c, s)) ||
        (rc = nn_read_zp(c, c->in[3], s->in->dtype, "input_zp", &s->izp)) ||
        (rc = nn_read_zp(c, c->in[4], s->w->dtype, "weight_zp", &s->wzp)))
        return rc;
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
        int64_t a = 0;
        for (int64_t i = 0; i < n; i++) /* zero points are 0 for these types */
            a += (int32_t)x[i] * (int32_t)w[i];
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

/* Geometry of CONV2D (as a CONV3D with depth 1) and CONV3D. */
typedef struct conv_geom {
    int64_t N, ID, IH, IW, IC, OC, KD, KH, KW, OD, OH, OW;
    int64_t pad[6]; /* d0, d1, top, bottom, left, right */
    int64_t stride[3], dil[3];
} conv_geom;

static tosac_code conv_check_geom(interp_ctx *c, const conv_src *s, const conv_geom *g)
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
    if (s->w->shape[s->w->rank - 1] != g->IC)
        return interp_error(c, "weight channels %lld differ from input channels %lld",
                            (long long)s->w->shape[s->w->rank - 1], (long long)g->IC);
    if (s->out->shape[0] != g->N || s->out->shape[s->out->rank - 1] != g->OC)
        return interp_error(c, "output batch/channels differ from input batch/weight OC");
    for (int i = 0; i < 3; i++) {
        int64_t num = in[i] - 1 + g->pad[2 * i] + g->pad[2 * i + 1] - (k[i] - 1) * g->dil[i];
        tosac_code rc = nn_check_out_dim(c, num, g->stride[i], out[i], names[i]);
        if (rc)
            return rc;
    }
    return conv_check_bias(c, s, g->OC);
}

static void conv_run(const conv_src *s, const conv_geom *g)
{
    int64_t BC = s->bias->shape[0];
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t od = 0; od < g->OD; od++)
            for (int64_t oy = 0; oy < g->OH; oy++)
                for (int64_t ox = 0; ox < g->OW; ox++) {
                    int64_t id = od * g->stride[0] - g->pad[0];
                    int64_t iy = oy * g->stride[1] - g->pad[2];
                    int64_t ix = ox * g->stride[2] - g->pad[4];
                    int64_t obase = (((n * g->OD + od) * g->OH + oy) * g->OW + ox) * g->OC;
                    for (int64_t oc = 0; oc < g->OC; oc++) {
                        conv_acc acc = {0, 0.0};
                        for (int64_t kd = 0; kd < g->KD; kd++) {
                            int64_t d = id + kd * g->dil[0];
                            if (d < 0 || d >= g->ID)
                                continue;
                            for (int64_t ky = 0; ky < g->KH; ky++) {
                                int64_t y = iy + ky * g->dil[1];
                                if (y < 0 || y >= g->IH)
                                    continue;
                                for (int64_t kx = 0; kx < g->KW; kx++) {
                                    int64_t x = ix + kx * g->dil[2];
                                    if (x < 0 || x >= g->IW)
                                        continue;
                                    int64_t ioff =
                                        (((n * g->ID + d) * g->IH + y) * g->IW + x) * g->IC;
                                    int64_t woff =
                                        (((oc * g->KD + kd) * g->KH + ky) * g->KW + kx) * g->IC;
                                    conv_dot(s, ioff, woff, g->IC, &acc);
                                }
                            }
                        }
                        conv_write(s, obase + oc, &acc, BC == 1 ? 0 : oc);
                    }
                }
}

static tosac_code op_conv2d(interp_ctx *c)
{
    conv_src s;
    tosac_code rc = conv_operands(c, 4, 4, &s);
    const tosa_attr *a = &c->op->attr;
    if (rc || (rc = nn_check_attr_len(c, a->n_pad, 4, "pad")) ||
        (rc = nn_check_attr_len(c, a->n_stride, 2, "stride")) ||
        (rc = nn_check_attr_len(c, a->n_dilation, 2, "dilation")))
        return rc;
    conv_geom g = {
        .N = s.in->shape[0], .ID = 1, .IH = s.in->shape[1], .IW = s.in->shape[2],
        .IC = s.in->shape[3], .OC = s.w->shape[0], .KD = 1, .KH = s.w->shape[1],
        .KW = s.w->shape[2], .OD = 1, .OH = s.out->shape[1], .OW = s.out->shape[2],
        .pad = {0, 0, a->pad[0], a->pad[1], a->pad[2], a->pad[3]},
        .stride = {1, a->stride[0], a->stride[1]}, .dil = {1, a->dilation[0], a->dilation[1]},
    };
    if ((rc = conv_check_geom(c, &s, &g)))
        return rc;
    conv_run(&s, &g);
    return TOSAC_OK;
}

static tosac_code op_conv3d(interp_ctx *c)
{
    conv_src s;
    tosac_code rc = conv_operands(c, 5, 5, &s);
    const tosa_attr *a = &c->op->attr;
    if (rc || (rc = nn_check_attr_len(c, a->n_pad, 6, "pad")) ||
        (rc = nn_check_attr_len(c, a->n_stride, 3, "stride")) ||
        (rc = nn_check_attr_len(c, a->n_dilation, 3, "dilation")))
        return rc;
    conv_geom g = {
        .N = s.in->shape[0], .ID = s.in->shape[1], .IH = s.in->shape[2],
        .IW = s.in->shape[3], .IC = s.in->shape[4], .OC = s.w->shape[0], .KD = s.w->shape[1],
        .KH = s.w->shape[2], .KW = s.w->shape[3], .OD = s.out->shape[1],
        .OH = s.out->shape[2], .OW = s.out->shape[3],
        .pad = {a->pad[0], a->pad[1], a->pad[2], a->pad[3], a->pad[4], a->pad[5]},
        .stride = {a->stride[0], a->stride[1], a->stride[2]},
        .dil = {a->dilation[0], a->dilation[1], a->dilation[2]},
    };
    if ((rc = conv_check_geom(c, &s, &g)))
        return rc;
    conv_run(&s, &g);
    return TOSAC_OK;
}

/* ---- DEPTHWISE_CONV2D: weight [KH,KW,C,M], output channel c*M+m ---- */

/* Output channels are accumulated in chunks of this many, so each kernel tap is one pass
 * over contiguous input channels (vectorises for M == 1, the common case). */
#define DW_CHUNK 256

typedef struct dw_geom {
    int64_t N, IH, IW, C, M, KH, KW, OH, OW, pad_top, pad_left, sy, sx, dy, dx;
} dw_geom;

/* Adds one kernel tap to the accumulators of output channels [cm0, cm0 + len). */
static void dw_tap(const conv_src *s, const dw_geom *g, int64_t ibase, int64_t wbase,
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
                                    interp_get_int(s->w, wbase + cm);
    }
}

static void dw_run(const conv_src *s, const dw_geom *g)
{
    union {
        uint32_t u[DW_CHUNK];
        int64_t i[DW_CHUNK];
        double f[DW_CHUNK];
    } acc;
    int64_t CM = g->C * g->M, BC = s->bias->shape[0];
    for (int64_t n = 0; n < g->N; n++)
        for (int64_t oy = 0; oy < g->OH; oy++)
            for (int64_t ox = 0; ox < g->OW; ox++) {
                int64_t iy = oy * g->sy - g->pad_top, ix = ox * g->sx - g->pad_left;
                int64_t obase = ((n * g->OH + oy) * g->OW + ox) * CM;
                for (int64_t cm0 = 0; cm0 < CM; cm0 += DW_CHUNK) {
                    int64_t len = CM - cm0 < DW_CHUNK ? CM - cm0 : DW_CHUNK;
                    memset(&acc, 0, (size_t)len * sizeof acc.i[0]);
                    for (int64_t ky = 0; ky < g->KH; ky++) {
                        int64_t y = iy + ky * g->dy;
                        if (y < 0 || y >= g->IH)
                            continue;
                        for (int64_t kx = 0; kx < g->KW; kx++) {
                            int64_t x = ix + kx * g->dx;
                            if (x < 0 || x >= g->IW)
                                continue;
                            int64_t ibase = ((n * g->IH + y) * g->IW + x) * g->C;
                            int64_t wbase = (ky * g->KW + kx) * CM;
                            dw_tap(s, g, ibase, wbase, cm0, len, &acc);
                        }
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

static tosac_code op_depthwise_conv2d(interp_ctx *c)
{
    conv_src s;
    tosac_code rc = conv_operands(c, 4, 4, &s);
    const tosa_attr *a = &c->op->attr;
    if (rc || (rc = nn_check_attr_len(c, a->n_pad, 4, "pad")) ||
        (rc = nn_check_attr_len(c, a->n_stride, 2, "stride")) ||
        (rc = nn_check_attr_len(c, a->n_dilation, 2, "dilation")))
        return rc;
    dw_geom g = {
        .N = s.in->shape[0], .IH = s.in->shape[1], .IW = s.in->shape[2], .C = s.in->shape[3],
        .M = s.w->shape[3], .KH = s.w->shape[0], .KW = s.w->shape[1], .OH = s.out->shape[1],
        .OW = s.out->shape[2], .pad_top = a->pad[0], .pad_left = a->pad[2],
        .sy = a->stride[0], .sx = a->stride[1], .dy = a->dilation[0], .dx = a->dilation[1],
    };
    INTERP_ERROR_IF(c, a->pad[0] < 0 || a->pad[1] < 0 || a->pad[2] < 0 || a->pad[3] < 0);
    INTERP_ERROR_IF(c, g.sy < 1 || g.sx < 1);
    INTERP_ERROR_IF(c, g.dy < 1 || g.dx < 1);
    if (s.w->shape[2] != g.C)
        return interp_error(c, "weight channels %lld differ from input channels %lld",
                            (long long)s.w->shape[2], (long long)g.C);
    if (s.out->shape[0] != g.N || s.out->shape[3] != g.C * g.M)
        return interp_error(c, "output shape must be [N,OH,OW,C*M]");
    if ((rc = nn_check_out_dim(c, g.IH - 1 + a->pad[0] + a->pad[1] - (g.KH - 1) * g.dy, g.sy,
                               g.OH, "OH")) ||
        (rc = nn_check_out_dim(c, g.IW - 1 + a->pad[2] + a->pad[3] - (g.KW - 1) * g.dx, g.sx,
                               g.OW, "OW")) ||
        (rc = conv_check_bias(c, &s, g.C * g.M)))
        return rc;
    dw_run(&s, &g);
    return TOSAC_OK;
}

/* ---- TRANSPOSE_CONV2D ---- */

static tosac_code op_transpose_conv2d(interp_ctx *c)
{
    conv_src s;
    tosac_code rc = conv_operands(c, 4, 4, &s);
    const tosa_attr *a = &c->op->attr;
    if (rc || (rc = nn_check_attr_len(c, a->n_out_pad, 4, "out_pad")) ||
        (rc = nn_check_attr_len(c, a->n_stride, 2, "stride")))
        return rc;
    int64_t N = s.in->shape[0], IH = s.in->shape[1], IW = s.in->shape[2], IC = s.in->shape[3];
    int64_t OC = s.w->shape[0], KH = s.w->shape[1], KW = s.w->shape[2];
    int64_t OH = s.out->shape[1], OW = s.out->shape[2];
    int64_t pt = a->out_pad[0], pb = a->out_pad[1], pl = a->out_pad[2], pr = a->out_pad[3];
    int64_t sy = a->stride[0], sx = a->stride[1];
    INTERP_ERROR_IF(c, pt <= -KH || pb <= -KH);
    INTERP_ERROR_IF(c, pl <= -KW || pr <= -KW);
    INTERP_ERROR_IF(c, sy < 1 || sx < 1);
    INTERP_ERROR_IF(c, OH != (IH - 1) * sy + pt + pb + KH);
    INTERP_ERROR_IF(c, OW != (IW - 1) * sx + pl + pr + KW);
    if (s.w->shape[3] != IC)
        return interp_error(c, "weight channels %lld differ from input channels %lld",
                            (long long)s.w->shape[3], (long long)IC);
    if (s.out->shape[0] != N || s.out->shape[3] != OC)
        return interp_error(c, "output batch/channels differ from input batch/weight OC");
    if ((rc = conv_check_bias(c, &s, OC)))
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
    {TOSA_OP_CONV2D, op_conv2d},
    {TOSA_OP_CONV3D, op_conv3d},
    {TOSA_OP_DEPTHWISE_CONV2D, op_depthwise_conv2d},
    {TOSA_OP_TRANSPOSE_CONV2D, op_transpose_conv2d},
    {TOSA_OP_UNKNOWN, NULL},
};
