/* Arm Ethos-U55 limits on top of the TOSA tables (spec subset "u55"): what Vela 5.1.0 compiles
 * from a .tosa file for Ethos-U55, after the table in docs/ETHOS_U_LIMITS.md (shared). Vela has
 * no CPU fallback for TOSA, so an operator refused here would fail the whole Vela compile;
 * what Vela splits itself (batch > 1, large kernels, strides > 3, dilation, axes > 65536) is
 * accepted. The type rows Vela lacks are cut from the tables (src/spec/spec_u55.c); here are
 * the limits that depend on shapes, attributes, constants and neighbouring operators (which
 * RESCALEs Vela fuses). Every reason starts "U55 restriction: ". */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lower/validate.h"

#define U55_MAX_AXIS 65536

static bool fail(char *reason, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *reason, size_t len, const char *fmt, ...)
{
    if (reason && len) {
        int w = snprintf(reason, len, "U55 restriction: ");
        va_list ap;
        va_start(ap, fmt);
        if (w > 0 && (size_t)w < len)
            vsnprintf(reason + w, len - (size_t)w, fmt, ap);
        va_end(ap);
    }
    return false;
}

typedef struct ctx {
    const tosa_block *b;
    const tosa_operator *o;
    const char *name;
    char *reason;
    size_t len;
} ctx;

static const tosa_tensor *tensor(const tosa_block *b, int t) { return &b->tensors[t]; }
static const tosa_tensor *in_t(const ctx *c, int i) { return tensor(c->b, c->o->inputs[i]); }
static const tosa_tensor *out_t(const ctx *c) { return tensor(c->b, c->o->outputs[0]); }

static bool is_const(const tosa_block *b, int t)
{
    int p = tosa_block_producer(b, t);
    return tensor(b, t)->data ||
           (p >= 0 && (b->ops[p].op == TOSA_OP_CONST || b->ops[p].op == TOSA_OP_CONST_SHAPE));
}

/* Element i of a constant (0 when it is not one or is too short). */
static int64_t const_at(const tosa_block *b, int t, int64_t i)
{
    const tosa_tensor *x = tensor(b, t);
    tosac_tensor v;
    memset(&v, 0, sizeof v);
    v.dtype = x->dtype == TOSAC_DT_SHAPE ? TOSAC_DT_I64 : x->dtype;
    v.data = x->data;
    size_t sz = tosac_dtype_size(v.dtype);
    if (!x->data || sz == 0 || (size_t)(i + 1) * sz > x->data_size)
        return 0;
    return tosac_tensor_int_at(&v, i);
}

/* ---- RESCALE scales, normalised as Vela does (multiplier odd or shift 0) ---- */
typedef struct scale {
    int64_t m;
    int shift;
} scale;

static scale rescale_scale(const tosa_block *b, const tosa_operator *o, int ch)
{
    scale s = {const_at(b, o->inputs[1], ch), (int)const_at(b, o->inputs[2], ch)};
    while (s.shift > 0 && s.m != 0 && (s.m & 1) == 0) {
        s.m /= 2;
        s.shift--;
    }
    return s;
}

static bool is_pow2(int64_t m) { return m > 0 && (m & (m - 1)) == 0; }
static bool unit_scale(scale s) { return s.m == 1 && s.shift == 0; }
/* Vela's "simple" 16-bit IFM scale: an integer multiplier of 16 bits with shift 0. */
static bool simple16(scale s) { return s.shift == 0 && s.m >= -32768 && s.m <= 32767; }
static double scale_value(scale s) { return ldexp((double)s.m, -s.shift); }

static int bits(tosac_dtype dt) { return tosac_dtype_bits(dt); }

static bool conv_class(tosa_op op)
{
    return op == TOSA_OP_CONV2D || op == TOSA_OP_DEPTHWISE_CONV2D ||
           op == TOSA_OP_TRANSPOSE_CONV2D || op == TOSA_OP_CONV3D;
}

/* Follows single-reader RESHAPEs (Vela removes them first) from tensor t to the operator
 * that consumes it; -1 if t has several readers or is a block output. */
static int consumer_of(const tosa_block *b, int t)
{
    for (int hop = 0; hop < 16; hop++) {
        int only = -1;
        if (tosa_block_readers(b, t, &only) != 1)
            return -1;
        if (b->ops[only].op != TOSA_OP_RESHAPE)
            return only;
        t = b->ops[only].outputs[0];
    }
    return -1;
}

/* The producer of t, looking back through RESHAPEs. */
static int producer_of(const tosa_block *b, int t)
{
    for (int hop = 0; hop < 16; hop++) {
        int p = tosa_block_producer(b, t);
        if (p < 0 || b->ops[p].op != TOSA_OP_RESHAPE)
            return p;
        t = b->ops[p].inputs[0];
    }
    return -1;
}

/* A RESCALE from 8/16 bits whose (per-tensor) scale Vela folds into the consumer's input. */
static bool rescale_fuses_forward(const tosa_block *b, int r)
{
    const tosa_operator *o = &b->ops[r];
    if (o->op != TOSA_OP_RESCALE || o->attr.per_channel ||
        bits(tensor(b, o->inputs[0])->dtype) > 16 || const_at(b, o->inputs[4], 0) != 0)
        return false;
    int c = consumer_of(b, o->outputs[0]);
    if (c < 0)
        return false;
    const tosa_operator *co = &b->ops[c];
    scale s = rescale_scale(b, o, 0);
    switch (co->op) {
    case TOSA_OP_ADD: case TOSA_OP_SUB: {
        if (simple16(s) || is_pow2(s.m))
            return true;
        /* the "advanced" form: the other input's scale is a power of two */
        for (int k = 0; k < 2; k++) {
            int p = producer_of(b, co->inputs[k]);
            if (p >= 0 && p != r && b->ops[p].op == TOSA_OP_RESCALE &&
                is_pow2(rescale_scale(b, &b->ops[p], 0).m))
                return true;
        }
        return false;
    }
    case TOSA_OP_MUL: case TOSA_OP_MAXIMUM: case TOSA_OP_MINIMUM: case TOSA_OP_ABS:
    case TOSA_OP_REDUCE_SUM:
        return unit_scale(s);
    default:
        return false;
    }
}

/* Elementwise producer whose inputs are 8/16-bit once Vela has fused their rescales. */
static bool narrow_inputs(const tosa_block *b, const tosa_operator *p)
{
    int n = p->op == TOSA_OP_MUL ? 2 : p->n_inputs; /* MUL's third input is the shift */
    for (int k = 0; k < n; k++) {
        int t = p->inputs[k];
        if (bits(tensor(b, t)->dtype) <= 16)
            continue;
        int q = producer_of(b, t);
        if (q < 0 || !rescale_fuses_forward(b, q))
            return false;
    }
    return true;
}

static bool resize_rescale_ok(const tosa_block *b, const tosa_operator *rs, scale s);

/* A RESCALE Vela folds into the output of the operator producing its input. */
static bool rescale_fuses_back(const tosa_block *b, const tosa_operator *o)
{
    int t = o->inputs[0], only = -1;
    int p = tosa_block_producer(b, t);
    if (p < 0 || tosa_block_readers(b, t, &only) != 1)
        return false;
    const tosa_operator *po = &b->ops[p];
    if (conv_class(po->op))
        return true;
    if (o->attr.per_channel)
        return false;
    scale s = rescale_scale(b, o, 0);
    switch (po->op) {
    case TOSA_OP_MATMUL: case TOSA_OP_REDUCE_SUM: case TOSA_OP_MAX_POOL2D:
        return true;
    case TOSA_OP_ADD: case TOSA_OP_SUB: case TOSA_OP_MUL: case TOSA_OP_ABS: case TOSA_OP_NEGATE:
        /* 32-bit elementwise operations apply the shift only */
        return narrow_inputs(b, po) || s.m == 1;
    case TOSA_OP_MAXIMUM: case TOSA_OP_MINIMUM: case TOSA_OP_ARITHMETIC_RIGHT_SHIFT:
    case TOSA_OP_LOGICAL_LEFT_SHIFT: case TOSA_OP_CLZ: case TOSA_OP_AVG_POOL2D:
        return unit_scale(s);
    case TOSA_OP_TABLE: /* the LUT step's output scale is fixed */
        return s.m == 1 && s.shift == 7;
    case TOSA_OP_RESIZE:
        return resize_rescale_ok(b, po, s);
    default:
        return false;
    }
}

static bool check_rescale(const ctx *c)
{
    const tosa_block *b = c->b;
    const tosa_operator *o = c->o;
    int ib = bits(in_t(c, 0)->dtype), ob = bits(out_t(c)->dtype);
    int64_t izp = const_at(b, o->inputs[3], 0), ozp = const_at(b, o->inputs[4], 0);
    if (ib == 32 && izp != 0)
        return fail(c->reason, c->len, "RESCALE of a 32-bit input with zero point %lld (must "
                    "be 0)", (long long)izp);
    if (ob == 32 && ozp != 0)
        return fail(c->reason, c->len, "RESCALE to a 32-bit output with zero point %lld (must "
                    "be 0)", (long long)ozp);
    if (o->attr.per_channel) {
        int p = tosa_block_producer(b, o->inputs[0]);
        if (p < 0 || !conv_class(b->ops[p].op))
            return fail(c->reason, c->len, "per-channel RESCALE of %s: per-channel scales "
                        "only on a convolution's output", p < 0 ? "a graph input" :
                        tosa_op_name(b->ops[p].op));
    }
    if (ib <= 16 && ob <= 16)
        return true;
    int self = (int)(o - b->ops);
    bool plain = !o->attr.input_unsigned && !o->attr.output_unsigned; /* Vela fuses no others */
    if (plain && (rescale_fuses_back(b, o) || rescale_fuses_forward(b, self)))
        return true;
    return fail(c->reason, c->len, "RESCALE %s -> %s stands alone: a RESCALE wider than 16 "
                "bits must fuse into its producer (convolution, MATMUL, ADD, ...) or its "
                "consumer (ADD/SUB input scaling, unit scale elsewhere)",
                tosac_dtype_name(in_t(c, 0)->dtype), tosac_dtype_name(out_t(c)->dtype));
}

/* ---- TOSA level 8K: Vela validates every graph against it ---- */
static bool over(const ctx *c, const char *what, int64_t v, int64_t lim, const char *lim_name)
{
    if (v <= lim)
        return false;
    fail(c->reason, c->len, "%s %s %lld exceeds %s %lld of level 8K (Vela checks the 8K level)",
         c->name, what, (long long)v, lim_name, (long long)lim);
    return true;
}

/* Kernel height/width (and depth for CONV3D first) of a windowed operator; 0 if none. */
static int kernel_dims(const ctx *c, int64_t *k)
{
    const tosa_operator *o = c->o;
    switch (o->op) {
    case TOSA_OP_AVG_POOL2D: case TOSA_OP_MAX_POOL2D:
        k[0] = o->attr.kernel[0];
        k[1] = o->attr.kernel[1];
        return 2;
    case TOSA_OP_CONV2D: case TOSA_OP_TRANSPOSE_CONV2D: /* [OC,KH,KW,IC] */
        k[0] = in_t(c, 1)->shape[1];
        k[1] = in_t(c, 1)->shape[2];
        return 2;
    case TOSA_OP_DEPTHWISE_CONV2D: /* [KH,KW,C,M] */
        k[0] = in_t(c, 1)->shape[0];
        k[1] = in_t(c, 1)->shape[1];
        return 2;
    case TOSA_OP_CONV3D: /* [OC,KD,KH,KW,IC] */
        for (int i = 0; i < 3; i++)
            k[i] = in_t(c, 1)->shape[1 + i];
        return 3;
    default:
        return 0;
    }
}

static bool level_8k(const tosa_spec *spec, const ctx *c)
{
    tosa_spec s8 = *spec;
    s8.level = TOSA_LEVEL_8K;
    const tosa_spec_levels *l = tosa_spec_level_limits(&s8);
    if (!l)
        return true;
    const tosa_operator *o = c->o;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < (pass ? o->n_outputs : o->n_inputs); i++) {
            const tosa_tensor *t = tensor(c->b, pass ? o->outputs[i] : o->inputs[i]);
            if (t->dtype != TOSAC_DT_SHAPE && over(c, "rank", t->rank, l->max_rank, "MAX_RANK"))
                return false;
        }
    int64_t k[3];
    int nk = kernel_dims(c, k);
    if (nk > 0 && o->op != TOSA_OP_AVG_POOL2D && o->op != TOSA_OP_MAX_POOL2D &&
        o->op != TOSA_OP_TRANSPOSE_CONV2D && o->attr.n_dilation == nk)
        for (int i = 0; i < nk; i++)
            k[i] *= o->attr.dilation[i];
    for (int i = 0; i < nk; i++)
        if (over(c, "dilation x kernel", k[i], l->max_kernel, "MAX_KERNEL"))
            return false;
    if (nk > 0) {
        for (int i = 0; i < o->attr.n_stride; i++)
            if (over(c, "stride", o->attr.stride[i], l->max_stride, "MAX_STRIDE"))
                return false;
        for (int i = 0; i < o->attr.n_pad; i++)
            if (over(c, "pad", o->attr.pad[i], l->max_kernel, "MAX_KERNEL"))
                return false;
        for (int i = 0; i < o->attr.n_out_pad; i++)
            if (over(c, "out_pad", o->attr.out_pad[i], l->max_kernel, "MAX_KERNEL"))
                return false;
    }
    if (o->op == TOSA_OP_RESIZE && o->n_inputs > 1)
        for (int a = 0; a < 2; a++) {
            int64_t n = const_at(c->b, o->inputs[1], 2 * a);
            int64_t d = const_at(c->b, o->inputs[1], 2 * a + 1);
            if (d > 0 && over(c, "scale", n / d, l->max_scale, "MAX_SCALE"))
                return false;
        }
    return true;
}

/* ---- operator rules ---- */
static bool check_conv(const ctx *c)
{
    const tosa_operator *o = c->o;
    if (!is_const(c->b, o->inputs[1]))
        return fail(c->reason, c->len, "%s weights are not constant (Ethos-U55 takes constant "
                    "weights only)", c->name);
    if ((o->op == TOSA_OP_TRANSPOSE_CONV2D || o->op == TOSA_OP_CONV3D) &&
        !is_const(c->b, o->inputs[2]))
        return fail(c->reason, c->len, "%s bias is not constant", c->name);
    if (in_t(c, 0)->dtype == TOSAC_DT_I16) { /* every reader a RESCALE to i8/i16/i32 */
        int good = 0, bad = 0, y = o->outputs[0];
        for (int i = 0; i < c->b->n_ops; i++)
            for (int k = 0; k < c->b->ops[i].n_inputs; k++) {
                if (c->b->ops[i].inputs[k] != y)
                    continue;
                const tosa_operator *r = &c->b->ops[i];
                tosac_dtype rd = tensor(c->b, r->outputs[0])->dtype;
                if (r->op == TOSA_OP_RESCALE && k == 0 &&
                    (rd == TOSAC_DT_I8 || rd == TOSAC_DT_I16 || rd == TOSAC_DT_I32))
                    good++;
                else
                    bad++;
            }
        for (int i = 0; i < c->b->n_outputs; i++)
            bad += c->b->outputs[i] == y;
        if (!good || bad)
            return fail(c->reason, c->len, "int16 %s whose int48 accumulator is not followed "
                        "by a RESCALE to i8/i16/i32", c->name);
    }
    if (o->op == TOSA_OP_TRANSPOSE_CONV2D) {
        int sy = o->attr.stride[0], sx = o->attr.stride[1];
        const tosa_tensor *x = in_t(c, 0), *w = in_t(c, 1);
        bool ok = (sy == 1 && sx == 1) || (sy == 2 && sx == 2) ||
                  (sy == 2 && sx == 1 && x->shape[2] == 1 && w->shape[2] == 1) ||
                  (sy == 1 && sx == 2 && x->shape[1] == 1 && w->shape[1] == 1);
        if (!ok)
            return fail(c->reason, c->len, "TRANSPOSE_CONV2D stride %dx%d (Ethos-U55: 1x1, 2x2, "
                        "2x1 on width-1 input and kernel, 1x2 on height-1 input and kernel)",
                        sy, sx);
    }
    return true;
}

static bool check_avg_pool(const ctx *c)
{
    const tosa_attr *a = &c->o->attr;
    bool padded = false;
    for (int i = 0; i < a->n_pad; i++)
        padded |= a->pad[i] != 0;
    if (padded && (a->kernel[0] > 8 || a->kernel[1] > 8))
        return fail(c->reason, c->len, "padded AVG_POOL2D kernel %dx%d larger than 8x8",
                    a->kernel[0], a->kernel[1]);
    return true;
}

static bool check_argmax(const ctx *c)
{
    const tosa_tensor *x = in_t(c, 0);
    int64_t lead = 1;
    for (int d = 0; d < x->rank - 3; d++)
        lead *= x->shape[d];
    if (c->o->attr.axis != x->rank - 1)
        return fail(c->reason, c->len, "ARGMAX over axis %d of a rank-%d tensor (last axis "
                    "only)", c->o->attr.axis, x->rank);
    if (lead != 1)
        return fail(c->reason, c->len, "ARGMAX with leading dimensions of %lld elements (must "
                    "be 1)", (long long)lead);
    if (x->shape[x->rank - 1] > 127)
        return fail(c->reason, c->len, "ARGMAX over %lld channels (at most 127)",
                    (long long)x->shape[x->rank - 1]);
    return true;
}

static bool check_transpose(const ctx *c)
{
    const tosa_tensor *x = in_t(c, 0);
    for (int d = x->rank > 3 ? x->rank - 3 : 0; d < x->rank; d++)
        if (x->shape[d] > U55_MAX_AXIS)
            return fail(c->reason, c->len, "TRANSPOSE of a dimension of %lld (at most 65536: "
                        "Vela does not split TRANSPOSE)", (long long)x->shape[d]);
    if (x->dtype != TOSAC_DT_I32)
        return true;
    if (x->rank > 4)
        return fail(c->reason, c->len, "int32 TRANSPOSE of rank %d (at most 4)", x->rank);
    int p[4], pad = 4 - x->rank;
    int64_t s[4];
    for (int i = 0; i < 4; i++) {
        p[i] = i < pad ? i : c->o->attr.perms[i - pad] + pad;
        s[i] = i < pad ? 1 : x->shape[i - pad];
    }
    const int64_t n = s[0], h = s[1], w = s[2], ch = s[3], A = U55_MAX_AXIS;
    bool ok;
    if (p[0] == 0 && p[1] == 1 && p[2] == 2 && p[3] == 3)
        ok = ch <= 32768;
    else if (p[0] == 0 && p[1] == 2 && p[2] == 1 && p[3] == 3) /* NWHC */
        ok = n == 1 && h <= A && w <= A && ch <= 16384;
    else if (p[0] == 0 && p[1] == 1 && p[2] == 3 && p[3] == 2) /* NHCW */
        ok = n * h <= A && w <= A && ch <= A;
    else if (p[0] == 0 && p[1] == 3 && p[2] == 2 && p[3] == 1) /* NCWH */
        ok = n == 1 && h <= A && w <= A && ch <= 16384;
    else
        return fail(c->reason, c->len, "int32 TRANSPOSE with permutation [%d,%d,%d,%d] (int32: "
                    "NWHC, NHCW, NCWH only)", p[0], p[1], p[2], p[3]);
    if (!ok)
        return fail(c->reason, c->len, "int32 TRANSPOSE [%d,%d,%d,%d] of shape [%lld,%lld,%lld,"
                    "%lld] beyond its axis limits", p[0], p[1], p[2], p[3], (long long)n,
                    (long long)h, (long long)w, (long long)ch);
    return true;
}

static bool check_reverse(const ctx *c)
{
    int r = in_t(c, 0)->rank, a = c->o->attr.axis;
    if (a < 0 || (a != r - 3 && a != r - 2))
        return fail(c->reason, c->len, "REVERSE of axis %d of a rank-%d tensor (height or width "
                    "only)", a, r);
    return true;
}

/* RESIZE upscale of one axis: n/d when it is 2, 4 or 8, else 0. */
static int64_t upscale(const tosa_block *b, const tosa_operator *o, int axis)
{
    int64_t n = const_at(b, o->inputs[1], 2 * axis), d = const_at(b, o->inputs[1], 2 * axis + 1);
    if (d <= 0 || n % d != 0)
        return 0;
    int64_t r = n / d;
    return r == 2 || r == 4 || r == 8 ? r : 0;
}

static bool resize_rescale_ok(const tosa_block *b, const tosa_operator *rs, scale s)
{
    int64_t ry = upscale(b, rs, 0), rx = upscale(b, rs, 1);
    return rs->attr.mode == TOSA_RESIZE_BILINEAR && ry && rx &&
           scale_value(s) == 1.0 / (double)(ry * rx);
}

static bool check_resize(const ctx *c)
{
    const tosa_tensor *x = in_t(c, 0);
    if (x->rank == 4 && x->shape[1] * x->shape[2] == 1)
        return fail(c->reason, c->len, "RESIZE of a 1x1 input");
    int64_t ry = upscale(c->b, c->o, 0), rx = upscale(c->b, c->o, 1);
    if (!ry || !rx)
        return fail(c->reason, c->len, "RESIZE scale %lld/%lld x %lld/%lld (upscale 2x, 4x or "
                    "8x only)", (long long)const_at(c->b, c->o->inputs[1], 0),
                    (long long)const_at(c->b, c->o->inputs[1], 1),
                    (long long)const_at(c->b, c->o->inputs[1], 2),
                    (long long)const_at(c->b, c->o->inputs[1], 3));
    if (c->o->attr.mode != TOSA_RESIZE_BILINEAR)
        return true;
    int only = -1, y = c->o->outputs[0];
    const tosa_operator *r = tosa_block_readers(c->b, y, &only) == 1 ? &c->b->ops[only] : NULL;
    if (!r || r->op != TOSA_OP_RESCALE || !resize_rescale_ok(c->b, c->o, rescale_scale(c->b, r, 0)))
        return fail(c->reason, c->len, "BILINEAR RESIZE not followed by a RESCALE by 1/%lld "
                    "(shift log2 of the upscale)", (long long)(ry * rx));
    return true;
}

bool tosa_u55_op_ok(const tosa_spec *spec, const tosa_block *b, int op_index, char *reason,
                    size_t len)
{
    const tosa_operator *o = &b->ops[op_index];
    ctx c = {b, o, tosa_op_name(o->op), reason, len};
    if (o->op == TOSA_OP_CONST || o->op == TOSA_OP_CONST_SHAPE)
        return true;
    if (!level_8k(spec, &c))
        return false;
    switch (o->op) {
    case TOSA_OP_CONV2D: case TOSA_OP_DEPTHWISE_CONV2D: case TOSA_OP_TRANSPOSE_CONV2D:
    case TOSA_OP_CONV3D:
        return check_conv(&c);
    case TOSA_OP_AVG_POOL2D:
        return check_avg_pool(&c);
    case TOSA_OP_ARGMAX:
        return check_argmax(&c);
    case TOSA_OP_ARITHMETIC_RIGHT_SHIFT:
        return o->attr.round ? true : fail(reason, len, "ARITHMETIC_RIGHT_SHIFT with round "
                                           "false (round true only)");
    case TOSA_OP_REDUCE_SUM: {
        const tosa_tensor *x = in_t(&c, 0);
        int a = o->attr.axis;
        if (a >= 0 && a < x->rank && x->shape[a] > U55_MAX_AXIS)
            return fail(reason, len, "REDUCE_SUM over %lld elements (at most 65536)",
                        (long long)x->shape[a]);
        return true;
    }
    case TOSA_OP_NEGATE:
        if (in_t(&c, 0)->dtype == TOSAC_DT_I32 &&
            (const_at(b, o->inputs[1], 0) != 0 || const_at(b, o->inputs[2], 0) != 0))
            return fail(reason, len, "NEGATE of int32 with a zero point (must be 0)");
        return true;
    case TOSA_OP_TRANSPOSE:
        return check_transpose(&c);
    case TOSA_OP_REVERSE:
        return check_reverse(&c);
    case TOSA_OP_RESIZE:
        return check_resize(&c);
    case TOSA_OP_RESCALE:
        return check_rescale(&c);
    default:
        return true;
    }
}
