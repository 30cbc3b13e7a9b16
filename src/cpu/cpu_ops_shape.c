/* Operators that make or reinterpret shapes: Constant, Shape, Size, Reshape, Flatten,
 * Squeeze, Unsqueeze, ConstantOfShape, Range, EyeLike. */
#include "cpu/cpu_internal.h"

#include <math.h>
#include <string.h>

#include "kernels/kern.h"

/* The value of Constant, ConstantOfShape's value, Shape's start/end and EyeLike's dtype/k,
 * found and checked once (prepare step). The values stay where the program holds them: the
 * state has their tensor views. */
typedef struct value_prep {
    tosac_tensor v;             /* Constant: its value; ConstantOfShape: value (has_v) */
    int has_v, has_end, has_dtype;
    int64_t start, end, k;
} value_prep;

static tosac_code constant_prepare(cpu_ctx *c, void *st)
{
    value_prep *p = st;
    CPU_CHECK(c, c->node->n_outputs >= 1 && c->node->outputs[0] >= 0, "needs an output");
    if (!ir_graph_const_value(c->g, c->node->outputs[0], &p->v))
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "this form of Constant is not supported");
    return TOSAC_OK;
}

static tosac_code value_prepare(cpu_ctx *c, void *st)
{
    value_prep *p = st;
    const ir_attr *v = ir_node_attr(c->node, "value");
    if (v) {
        CPU_CHECK(c, v->kind == IR_ATTR_TENSOR && tosac_tensor_numel(&v->t) == 1,
                  "value must be a one-element tensor");
        p->v = v->t;
        p->has_v = 1;
    }
    p->start = cpu_attr_i(c, "start", 0);
    p->end = cpu_attr_i(c, "end", INT64_MIN);
    p->has_end = p->end != INT64_MIN;
    p->has_dtype = cpu_has_attr(c, "dtype");
    p->k = cpu_attr_i(c, "k", 0);
    return TOSAC_OK;
}

static const cpu_op_prep constant_prep = {constant_prepare, sizeof(value_prep), NULL};
static const cpu_op_prep value_prep_op = {value_prepare, sizeof(value_prep), NULL};

static tosac_code op_constant(cpu_ctx *c)
{
    const tosac_tensor *v = &((const value_prep *)c->prep)->v;
    return cpu_out_copy(c, 0, v, v->rank, v->shape);
}

static tosac_code op_shape(cpu_ctx *c)
{
    const value_prep *p = c->prep;
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    int64_t r = x->rank, start = p->start, end = p->has_end ? p->end : r;
    if (start < 0)
        start += r;
    if (end < 0)
        end += r;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < 0 ? 0 : end > r ? r : end;
    int64_t n = end > start ? end - start : 0;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, TOSAC_DT_I64, 1, &n, &y)))
        return rc;
    for (int64_t i = 0; i < n; i++)
        ((int64_t *)y->data)[i] = x->shape[start + i];
    return TOSAC_OK;
}

static tosac_code op_size(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_tensor *y;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_out(c, 0, TOSAC_DT_I64, 0, NULL, &y);
    if (!rc)
        *(int64_t *)y->data = tosac_tensor_numel(x);
    return rc;
}

/* Reshape's target shape when the program fixes it (the opset-1 attribute or a constant
 * input) and allowzero, read once (prepare step). */
typedef struct reshape_prep {
    int has_shape, n, allowzero;
    int64_t shape[TOSAC_MAX_RANK];
} reshape_prep;

static tosac_code reshape_prepare(cpu_ctx *c, void *st)
{
    reshape_prep *rp = st;
    rp->allowzero = (int)cpu_attr_i(c, "allowzero", 0);
    int n;
    const int64_t *attr = cpu_attr_ints(c, "shape", &n);
    tosac_code rc = TOSAC_OK;
    if (attr && c->node->n_inputs < 2) {
        CPU_CHECK(c, n <= TOSAC_MAX_RANK, "shape rank %d is too large", n);
        memcpy(rp->shape, attr, (size_t)n * sizeof(int64_t));
        rp->n = n;
        rp->has_shape = 1;
    } else if (cpu_const_ints(c, 1, rp->shape, TOSAC_MAX_RANK, &rp->n, &rc)) {
        rp->has_shape = !rc;
    }
    return rc;
}

static const cpu_op_prep reshape_prep_op = {reshape_prepare, sizeof(reshape_prep), NULL};

static tosac_code op_reshape(cpu_ctx *c)
{
    const tosac_tensor *x, *st;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    const reshape_prep *rp = c->prep;
    int64_t s[TOSAC_MAX_RANK];
    int n = rp->n;
    if (rp->has_shape) {
        memcpy(s, rp->shape, sizeof s);
    } else if ((rc = cpu_req(c, 1, &st)) || (rc = cpu_ints(c, st, s, TOSAC_MAX_RANK, &n))) {
        return rc;
    }
    int allowzero = rp->allowzero;
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < n; i++) {
        if (s[i] == 0 && !allowzero) {
            CPU_CHECK(c, i < x->rank, "shape[%d] = 0 copies a dim the input does not have", i);
            s[i] = x->shape[i];
        }
        if (s[i] == -1) {
            CPU_CHECK(c, infer < 0, "more than one -1 in the shape");
            infer = i;
            continue;
        }
        CPU_CHECK(c, s[i] >= 0, "shape[%d] = %lld is negative", i, (long long)s[i]);
        CPU_CHECK(c, !__builtin_mul_overflow(known, s[i], &known),
                  "shape has more elements than fit in 64 bits");
    }
    int64_t total = tosac_tensor_numel(x);
    if (infer >= 0) {
        CPU_CHECK(c, known > 0 && total % known == 0, "cannot infer the -1 dim of the shape");
        s[infer] = total / known;
    }
    return cpu_out_copy(c, 0, x, n, s);
}

static tosac_code op_flatten(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    /* axis is in [-r, r]: a negative one counts from the rank, not rank + 1 */
    int64_t a = ((const cpu_axis_prep *)c->prep)->axis;
    CPU_CHECK(c, a >= -x->rank && a <= x->rank, "axis %lld is out of range for rank %d",
              (long long)a, x->rank);
    int axis = (int)(a < 0 ? a + x->rank : a);
    int64_t s[2] = {1, 1};
    for (int k = 0; k < x->rank; k++)
        s[k < axis ? 0 : 1] *= x->shape[k];
    return cpu_out_copy(c, 0, x, 2, s);
}

/* Squeeze/Unsqueeze axes when the program fixes them (attribute or constant input). */
typedef struct axes_prep {
    int known, n;
    int64_t axes[TOSAC_MAX_RANK];
} axes_prep;

/* axes from the attribute (old opsets) or input 1 */
static tosac_code axes_prepare(cpu_ctx *c, void *st)
{
    axes_prep *ap = st;
    int n;
    const int64_t *a = cpu_attr_ints(c, "axes", &n);
    tosac_code rc = TOSAC_OK;
    if (a) {
        CPU_CHECK(c, n <= TOSAC_MAX_RANK, "too many axes");
        memcpy(ap->axes, a, (size_t)n * sizeof(int64_t));
        ap->n = n;
        ap->known = 1;
    } else if (cpu_const_ints(c, 1, ap->axes, TOSAC_MAX_RANK, &ap->n, &rc)) {
        ap->known = !rc;
    } else if (c->node->n_inputs < 2 || c->node->inputs[1] < 0) {
        ap->known = 1; /* none: every size-1 dim (Squeeze) */
    }
    return rc;
}

static const cpu_op_prep axes_prep_op = {axes_prepare, sizeof(axes_prep), NULL};

static tosac_code axes_of(cpu_ctx *c, int64_t *axes, int *n)
{
    const axes_prep *ap = c->prep;
    if (ap->known) {
        *n = ap->n;
        memcpy(axes, ap->axes, sizeof(int64_t) * (size_t)ap->n);
        return TOSAC_OK;
    }
    *n = 0;
    const tosac_tensor *t = cpu_opt(c, 1);
    return t ? cpu_ints(c, t, axes, TOSAC_MAX_RANK, n) : TOSAC_OK;
}

static tosac_code op_squeeze(cpu_ctx *c)
{
    const tosac_tensor *x;
    int64_t axes[TOSAC_MAX_RANK];
    int n;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = axes_of(c, axes, &n);
    if (rc)
        return rc;
    uint8_t drop[TOSAC_MAX_RANK] = {0};
    for (int i = 0; i < n; i++) {
        int a;
        if ((rc = cpu_axis(c, axes[i], x->rank, &a)))
            return rc;
        CPU_CHECK(c, x->shape[a] == 1, "axis %d has size %lld, not 1", a, (long long)x->shape[a]);
        drop[a] = 1;
    }
    int64_t s[TOSAC_MAX_RANK];
    int r = 0;
    for (int k = 0; k < x->rank; k++)
        if (!(n ? drop[k] : x->shape[k] == 1))
            s[r++] = x->shape[k];
    return cpu_out_copy(c, 0, x, r, s);
}

static tosac_code op_unsqueeze(cpu_ctx *c)
{
    const tosac_tensor *x;
    int64_t axes[TOSAC_MAX_RANK];
    int n;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = axes_of(c, axes, &n);
    if (rc)
        return rc;
    int r = x->rank + n;
    CPU_CHECK(c, r <= TOSAC_MAX_RANK, "result rank %d is too large", r);
    uint8_t ins[TOSAC_MAX_RANK] = {0};
    for (int i = 0; i < n; i++) {
        int a;
        if ((rc = cpu_axis(c, axes[i], r, &a)))
            return rc;
        CPU_CHECK(c, !ins[a], "axis %d repeats", a);
        ins[a] = 1;
    }
    int64_t s[TOSAC_MAX_RANK];
    for (int k = 0, j = 0; k < r; k++)
        s[k] = ins[k] ? 1 : x->shape[j++];
    return cpu_out_copy(c, 0, x, r, s);
}

static tosac_code op_constant_of_shape(cpu_ctx *c)
{
    const tosac_tensor *st;
    int64_t s[TOSAC_MAX_RANK];
    int n;
    tosac_code rc = cpu_req(c, 0, &st);
    if (!rc)
        rc = cpu_ints(c, st, s, TOSAC_MAX_RANK, &n);
    if (rc)
        return rc;
    const value_prep *p = c->prep;
    tosac_dtype dt = p->has_v ? p->v.dtype : TOSAC_DT_F32;
    const void *val = p->has_v ? p->v.data : NULL;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, dt, n, s, &y)))
        return rc;
    size_t es = tosac_dtype_size(dt);
    if (val)
        for (int64_t i = 0; i < tosac_tensor_numel(y); i++)
            memcpy((char *)y->data + i * (int64_t)es, val, es);
    return TOSAC_OK;
}

static tosac_code op_range(cpu_ctx *c)
{
    const tosac_tensor *st, *li, *de;
    tosac_code rc = cpu_req(c, 0, &st);
    if (!rc)
        rc = cpu_req(c, 1, &li);
    if (!rc)
        rc = cpu_req(c, 2, &de);
    if (rc)
        return rc;
    CPU_CHECK(c, st->dtype == li->dtype && st->dtype == de->dtype, "operand types differ");
    tosac_dtype dt = st->dtype;
    int64_t n;
    if (tosac_dtype_is_float(dt)) {
        double a, b, d;
        if ((rc = cpu_scalar_f64(c, st, &a)) || (rc = cpu_scalar_f64(c, li, &b)) ||
            (rc = cpu_scalar_f64(c, de, &d)))
            return rc;
        CPU_CHECK(c, d != 0 && isfinite(a) && isfinite(b) && isfinite(d), "delta must be non-zero");
        double cnt = ceil((b - a) / d);
        CPU_CHECK(c, cnt < 1e9, "range of %g elements is too large", cnt);
        n = cnt > 0 ? (int64_t)cnt : 0;
        tosac_tensor *y;
        if ((rc = cpu_out(c, 0, dt, 1, &n, &y)))
            return rc;
        /* value i is start + i * delta in the element type, as onnxruntime computes it */
        for (int64_t i = 0; i < n; i++) {
            if (dt == TOSAC_DT_F32)
                ((float *)y->data)[i] = (float)a + (float)i * (float)d;
            else
                kern_set_f64(dt, y->data, i, a + (double)i * d);
        }
        return TOSAC_OK;
    }
    int64_t a, b, d;
    if ((rc = cpu_scalar_i64(c, st, &a)) || (rc = cpu_scalar_i64(c, li, &b)) ||
        (rc = cpu_scalar_i64(c, de, &d)))
        return rc;
    CPU_CHECK(c, d != 0, "delta must be non-zero");
    /* count = max(ceil((limit - start) / delta), 0), in unsigned arithmetic so int64
     * extremes cannot overflow */
    uint64_t cnt = 0;
    if (d > 0 && b > a) {
        uint64_t span = (uint64_t)b - (uint64_t)a, ud = (uint64_t)d;
        cnt = span / ud + (span % ud != 0);
    } else if (d < 0 && a > b) {
        uint64_t span = (uint64_t)a - (uint64_t)b, ud = 0 - (uint64_t)d;
        cnt = span / ud + (span % ud != 0);
    }
    CPU_CHECK(c, cnt < 1000000000, "range is too large");
    n = (int64_t)cnt;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, dt, 1, &n, &y)))
        return rc;
    for (int64_t i = 0; i < n; i++)
        kern_set_i64(dt, y->data, i, (int64_t)((uint64_t)a + (uint64_t)i * (uint64_t)d));
    return TOSAC_OK;
}

static tosac_code op_eyelike(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank == 2, "input must be 2-D");
    tosac_dtype dt = x->dtype;
    const value_prep *p = c->prep;
    if (p->has_dtype && c->node->outputs[0] >= 0)
        dt = c->g->tensors[c->node->outputs[0]].dtype;
    CPU_CHECK(c, dt != TOSAC_DT_UNKNOWN, "output type is unknown");
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, dt, 2, x->shape, &y)))
        return rc;
    int64_t k = p->k;
    for (int64_t i = 0; i < x->shape[0]; i++) {
        int64_t j = i + k;
        if (j >= 0 && j < x->shape[1])
            kern_set_f64(dt, y->data, i * x->shape[1] + j, 1.0);
    }
    return TOSAC_OK;
}

const cpu_op_entry cpu_ops_shape[] = {
    {"Constant", op_constant, 0, &constant_prep},
    {"Shape", op_shape, 0, &value_prep_op},
    {"Size", op_size, 0, NULL}, /* no attributes */
    {"Reshape", op_reshape, 0, &reshape_prep_op},
    {"Flatten", op_flatten, 0, &cpu_prep_axis1},
    {"Squeeze", op_squeeze, 0, &axes_prep_op},
    {"Unsqueeze", op_unsqueeze, 0, &axes_prep_op},
    {"ConstantOfShape", op_constant_of_shape, 0, &value_prep_op},
    {"Range", op_range, 0, NULL}, /* no attributes */
    {"EyeLike", op_eyelike, 0, &value_prep_op},
    {NULL, NULL, 0, NULL},
};
