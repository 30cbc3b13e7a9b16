/* Quantization operators: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the
 * integer operators ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul (int32
 * accumulation with zero points subtracted, then an f32 requantization). */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "cpu/cpu_geometry.h"
#include "kernels/gemm.h"
#include "kernels/quant.h"

/* Quantize/DequantizeLinear's axis (default 1), blocked quantization refused, once. */
static tosac_code qdq_prepare(cpu_ctx *c, void *st)
{
    CPU_CHECK(c, cpu_attr_i(c, "block_size", 0) == 0, "blocked quantization is not supported");
    ((cpu_axis_prep *)st)->axis = cpu_attr_i(c, "axis", 1);
    return TOSAC_OK;
}

static const cpu_op_prep qdq_prep = {qdq_prepare, sizeof(cpu_axis_prep), NULL};

/* Scale (and zero point) layout against x: per tensor (1 value) or along axis. */
static tosac_code qaxis(cpu_ctx *c, const tosac_tensor *x, const tosac_tensor *scale,
                        const tosac_tensor *zp, int64_t *outer, int64_t *n, int64_t *inner)
{
    CPU_CHECK(c, scale->dtype == TOSAC_DT_F32, "scale must be float32, got %s",
              tosac_dtype_name(scale->dtype));
    int64_t ns = tosac_tensor_numel(scale);
    if (zp)
        CPU_CHECK(c, tosac_tensor_numel(zp) == ns, "zero point and scale differ in size");
    if (ns == 1 && scale->rank <= 1) { /* per tensor: one long inner run for the kernel */
        *outer = 1;
        *n = 1;
        *inner = tosac_tensor_numel(x);
        return TOSAC_OK;
    }
    int axis;
    tosac_code rc = cpu_axis(c, ((const cpu_axis_prep *)c->prep)->axis, x->rank, &axis);
    if (rc)
        return rc;
    CPU_CHECK(c, scale->rank == 1 && ns == x->shape[axis],
              "scale has %lld values for axis %d of size %lld", (long long)ns, axis,
              (long long)x->shape[axis]);
    cpu_split_axis(x, axis, outer, n, inner);
    return TOSAC_OK;
}

static int qtype_ok(tosac_dtype dt)
{
    return dt == TOSAC_DT_U8 || dt == TOSAC_DT_I8 || dt == TOSAC_DT_U16 || dt == TOSAC_DT_I16 ||
           dt == TOSAC_DT_I32 || dt == TOSAC_DT_U32;
}

static tosac_code op_quantize(cpu_ctx *c)
{
    const tosac_tensor *x, *s, *zp = cpu_opt(c, 2);
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &s);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN)))
        return rc;
    tosac_dtype qdt = zp ? zp->dtype : TOSAC_DT_U8;
    if (!zp && c->node->outputs[0] >= 0 && c->g->tensors[c->node->outputs[0]].dtype != TOSAC_DT_UNKNOWN)
        qdt = c->g->tensors[c->node->outputs[0]].dtype;
    CPU_CHECK(c, qtype_ok(qdt), "quantizing to %s is not supported", tosac_dtype_name(qdt));
    int64_t outer, n, inner;
    if ((rc = qaxis(c, x, s, zp, &outer, &n, &inner)))
        return rc;
    tosac_tensor *y;
    if ((rc = cpu_out_uninit(c, 0, qdt, x->rank, x->shape, &y)))
        return rc;
    kern_quantize_f32(outer, n, inner, x->data, s->data, qdt, zp ? zp->data : NULL, y->data);
    return TOSAC_OK;
}

static tosac_code op_dequantize(cpu_ctx *c)
{
    const tosac_tensor *x, *s, *zp = cpu_opt(c, 2);
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &s);
    if (rc)
        return rc;
    CPU_CHECK(c, qtype_ok(x->dtype), "dequantizing %s is not supported", tosac_dtype_name(x->dtype));
    if (zp)
        CPU_CHECK(c, zp->dtype == x->dtype, "zero point type differs from input type");
    int64_t outer, n, inner;
    if ((rc = qaxis(c, x, s, zp, &outer, &n, &inner)))
        return rc;
    tosac_tensor *y;
    if ((rc = cpu_out_uninit(c, 0, TOSAC_DT_F32, x->rank, x->shape, &y)))
        return rc;
    kern_dequantize_f32(outer, n, inner, x->dtype, x->data, s->data, zp ? zp->data : NULL, y->data);
    return TOSAC_OK;
}

static tosac_code op_dynamic_quantize(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN)))
        return rc;
    tosac_tensor *y, *s, *z;
    if ((rc = cpu_out(c, 0, TOSAC_DT_U8, x->rank, x->shape, &y)) ||
        (rc = cpu_out(c, 1, TOSAC_DT_F32, 0, NULL, &s)) ||
        (rc = cpu_out(c, 2, TOSAC_DT_U8, 0, NULL, &z)))
        return rc;
    kern_dynamic_qparams(tosac_tensor_numel(x), x->data, s->data, z->data);
    kern_quantize_f32(1, 1, tosac_tensor_numel(x), x->data, s->data, TOSAC_DT_U8, z->data, y->data);
    return TOSAC_OK;
}

/* int32 copy of a quantized tensor minus its zero point (per tensor, or per slice of axis 0
 * when zp has shape[0] values: weights / per-row). */
static tosac_code widen(cpu_ctx *c, const tosac_tensor *t, const tosac_tensor *zp, int per_axis,
                        int32_t **out)
{
    CPU_CHECK(c, t->dtype == TOSAC_DT_U8 || t->dtype == TOSAC_DT_I8,
              "8-bit integer operands expected, got %s", tosac_dtype_name(t->dtype));
    int64_t n = tosac_tensor_numel(t), nz = zp ? tosac_tensor_numel(zp) : 0;
    if (zp)
        CPU_CHECK(c, zp->dtype == t->dtype, "zero point type differs from its tensor");
    int64_t groups = 1, inner = n;
    if (zp && nz > 1) {
        CPU_CHECK(c, t->rank >= 1 && per_axis >= 0 && per_axis < t->rank &&
                         nz == t->shape[per_axis], "zero point has %lld values", (long long)nz);
        groups = t->shape[per_axis];
        inner = 1;
        for (int k = per_axis + 1; k < t->rank; k++)
            inner *= t->shape[k];
    }
    *out = cpu_temp(c, (size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    if (!*out)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        int64_t g = nz > 1 ? (i / inner) % groups : 0;
        int32_t z = zp ? (int32_t)kern_get_i64(zp->dtype, zp->data, g) : 0;
        (*out)[i] = (int32_t)kern_get_i64(t->dtype, t->data, i) - z;
    }
    return TOSAC_OK;
}

/* Runs an int32 convolution of x, w (zero points subtracted); y gets the int32 result. */
static tosac_code conv_int(cpu_ctx *c, const tosac_tensor *x, const tosac_tensor *xz,
                           const tosac_tensor *w, const tosac_tensor *wz, const tosac_tensor *b,
                           tosac_tensor *acc)
{
    kern_conv_params p;
    int64_t ys[TOSAC_MAX_RANK];
    tosac_code rc = cpu_conv_setup(c, x, w, &p, ys);
    if (rc)
        return rc;
    if (b)
        CPU_CHECK(c, b->dtype == TOSAC_DT_I32 && tosac_tensor_numel(b) == p.m,
                  "bias must be %lld int32 values", (long long)p.m);
    int32_t *xi = NULL, *wi = NULL;
    if ((rc = widen(c, x, xz, -1, &xi)) || (rc = widen(c, w, wz, 0, &wi)) ||
        (rc = cpu_tensor_temp(c, acc, TOSAC_DT_I32, x->rank, ys, 1))) {
        cpu_release(c, xi);
        cpu_release(c, wi);
        return rc;
    }
    kern_conv_i32(&p, xi, wi, b ? b->data : NULL, acc->data);
    cpu_release(c, xi);
    cpu_release(c, wi);
    return TOSAC_OK;
}

static tosac_code op_conv_integer(cpu_ctx *c)
{
    const tosac_tensor *x, *w;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &w);
    if (rc)
        return rc;
    tosac_tensor acc;
    if ((rc = conv_int(c, x, cpu_opt(c, 2), w, cpu_opt(c, 3), NULL, &acc)))
        return rc;
    return cpu_out_take(c, 0, &acc);
}

/* Float multiplier per output channel: x_scale * w_scale[m] / y_scale, in f32. */
static tosac_code requant_mults(cpu_ctx *c, const tosac_tensor *xs, const tosac_tensor *ws,
                                const tosac_tensor *ysc, int64_t n, float **out)
{
    CPU_CHECK(c, xs->dtype == TOSAC_DT_F32 && ws->dtype == TOSAC_DT_F32 && ysc->dtype == TOSAC_DT_F32,
              "scales must be float32");
    CPU_CHECK(c, tosac_tensor_numel(xs) == 1 && tosac_tensor_numel(ysc) == 1,
              "input and output scales must be single values");
    int64_t nw = tosac_tensor_numel(ws);
    CPU_CHECK(c, nw == 1 || nw == n, "weight scale has %lld values for %lld channels",
              (long long)nw, (long long)n);
    *out = cpu_temp(c, (size_t)(n > 0 ? n : 1) * sizeof(float));
    if (!*out)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    float a = *(const float *)xs->data, y = *(const float *)ysc->data;
    for (int64_t i = 0; i < n; i++)
        (*out)[i] = a * ((const float *)ws->data)[nw == 1 ? 0 : i] / y;
    return TOSAC_OK;
}

static tosac_code op_qlinear_conv(cpu_ctx *c)
{
    const tosac_tensor *t[8];
    for (int i = 0; i < 8; i++) {
        tosac_code rc = cpu_req(c, i, &t[i]);
        if (rc)
            return rc;
    }
    CPU_CHECK(c, t[7]->dtype == TOSAC_DT_U8 || t[7]->dtype == TOSAC_DT_I8,
              "output zero point must be 8-bit");
    tosac_tensor acc;
    tosac_code rc = conv_int(c, t[0], t[2], t[3], t[5], cpu_opt(c, 8), &acc);
    if (rc)
        return rc;
    int64_t m = acc.shape[1], nm = acc.shape[0] * m;
    int64_t spatial = nm > 0 ? tosac_tensor_numel(&acc) / nm : 0;
    float *mult = NULL;
    tosac_tensor *y;
    rc = requant_mults(c, t[1], t[4], t[6], m, &mult);
    if (!rc)
        rc = cpu_out(c, 0, t[7]->dtype, acc.rank, acc.shape, &y);
    if (!rc)
        kern_requantize(acc.shape[0], m, spatial, acc.data, mult, t[7]->dtype,
                        (int32_t)kern_get_i64(t[7]->dtype, t[7]->data, 0), y->data);
    cpu_release(c, mult);
    cpu_tensor_drop(c, &acc);
    return rc;
}

typedef struct imm_ctx {
    const int32_t *a, *b;
} imm_ctx;

static void imm(void *ctx, void *y, int64_t ao, int64_t bo, int64_t yo, int64_t m, int64_t n,
                int64_t k)
{
    imm_ctx *c = ctx;
    kern_matmul_i32(m, n, k, c->a + ao, c->b + bo, (int32_t *)y + yo);
}

/* int32 MatMul of a, b with zero points (a per-row zp on axis -2 / b per-column on -1 are
 * accepted as 1-D vectors). */
static tosac_code matmul_int(cpu_ctx *c, const tosac_tensor *a, const tosac_tensor *az,
                             const tosac_tensor *b, const tosac_tensor *bz)
{
    int32_t *ai = NULL, *bi = NULL;
    tosac_code rc = widen(c, a, az, a->rank - 2, &ai);
    if (!rc)
        rc = widen(c, b, bz, b->rank - 1, &bi);
    imm_ctx m = {ai, bi};
    if (!rc)
        rc = cpu_matmul_shapes(c, a, b, TOSAC_DT_I32, imm, &m);
    cpu_release(c, ai);
    cpu_release(c, bi);
    return rc;
}

static tosac_code op_matmul_integer(cpu_ctx *c)
{
    const tosac_tensor *a, *b;
    tosac_code rc = cpu_req(c, 0, &a);
    if (!rc)
        rc = cpu_req(c, 1, &b);
    return rc ? rc : matmul_int(c, a, cpu_opt(c, 2), b, cpu_opt(c, 3));
}

typedef struct mm_args {
    const tosac_tensor *const *t;
} mm_args;

static tosac_code matmul_int_args(cpu_ctx *c, void *user)
{
    const tosac_tensor *const *t = ((mm_args *)user)->t;
    return matmul_int(c, t[0], t[2], t[3], t[5]);
}

static tosac_code op_qlinear_matmul(cpu_ctx *c)
{
    const tosac_tensor *t[8];
    for (int i = 0; i < 8; i++) {
        tosac_code rc = cpu_req(c, i, &t[i]);
        if (rc)
            return rc;
    }
    /* the int32 product is computed as a temporary output 0, then requantized into it */
    mm_args args = {t};
    tosac_code rc = cpu_with_temp_outs(c, matmul_int_args, &args);
    if (rc)
        return rc;
    tosac_tensor acc = c->out[0];
    memset(&c->out[0], 0, sizeof c->out[0]);
    int64_t n = acc.rank ? acc.shape[acc.rank - 1] : 1;
    int64_t nws = tosac_tensor_numel(t[4]);
    float *mult = NULL;
    tosac_tensor *y;
    rc = requant_mults(c, t[1], t[4], t[6], nws == 1 ? 1 : n, &mult);
    if (!rc)
        rc = cpu_out(c, 0, t[7]->dtype, acc.rank, acc.shape, &y);
    if (!rc) {
        int64_t total = tosac_tensor_numel(&acc);
        int32_t zp = (int32_t)kern_get_i64(t[7]->dtype, t[7]->data, 0);
        if (nws == 1)
            kern_requantize(total, 1, 1, acc.data, mult, t[7]->dtype, zp, y->data);
        else
            kern_requantize(total / n, n, 1, acc.data, mult, t[7]->dtype, zp, y->data);
    }
    cpu_release(c, mult);
    cpu_tensor_drop(c, &acc);
    return rc;
}

const cpu_op_entry cpu_ops_quant[] = {
    {"QuantizeLinear", op_quantize, 0, &qdq_prep},
    {"DequantizeLinear", op_dequantize, 0, &qdq_prep},
    {"DynamicQuantizeLinear", op_dynamic_quantize, 0, NULL},
    {"ConvInteger", op_conv_integer, 0, &cpu_prep_conv},
    {"MatMulInteger", op_matmul_integer, 0, NULL},
    {"QLinearConv", op_qlinear_conv, 0, &cpu_prep_conv},
    {"QLinearMatMul", op_qlinear_matmul, 0, NULL},
    {NULL, NULL, 0, NULL},
};
