/* Softmax, LogSoftmax, Hardmax and the normalisations (BatchNormalization, also in training
 * mode, InstanceNormalization, LayerNormalization, LRN, MeanVarianceNormalization). */
#include "cpu/cpu_internal.h"

#include <math.h>
#include <string.h>

#include "kernels/softmax.h"

/* The axis with its opset's default (1 before opset 13, -1 from 13), read once. */
static tosac_code softmax_prepare(cpu_ctx *c, void *st)
{
    ((cpu_axis_prep *)st)->axis = cpu_attr_i(c, "axis", c->opset < 13 ? 1 : -1);
    return TOSAC_OK;
}

static const cpu_op_prep softmax_prep = {softmax_prepare, sizeof(cpu_axis_prep), NULL};

static tosac_code softmax(cpu_ctx *c, kern_softmax_kind kind)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_F64, TOSAC_DT_UNKNOWN)))
        return rc;
    /* before opset 13 the input is flattened to 2-D at axis (default 1); from 13 the
     * operation runs along one axis (default -1) */
    int old = c->opset < 13;
    int axis;
    if ((rc = cpu_axis(c, ((const cpu_axis_prep *)c->prep)->axis, x->rank > 0 ? x->rank : 1,
                       &axis)))
        return rc;
    int64_t outer = 1, n = 1, inner = 1;
    if (x->rank > 0) {
        if (old) {
            for (int k = 0; k < axis; k++)
                outer *= x->shape[k];
            for (int k = axis; k < x->rank; k++)
                n *= x->shape[k];
        } else {
            cpu_split_axis(x, axis, &outer, &n, &inner);
        }
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y)))
        return rc;
    kern_softmax(kind, x->dtype, outer, n, inner, x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_softmax(cpu_ctx *c) { return softmax(c, KERN_SOFTMAX); }
static tosac_code op_logsoftmax(cpu_ctx *c) { return softmax(c, KERN_LOGSOFTMAX); }
static tosac_code op_hardmax(cpu_ctx *c) { return softmax(c, KERN_HARDMAX); }

/* The normalisations' attributes, read once (prepare step). */
typedef struct norm_prep {
    float eps, momentum, alpha, beta, bias;
    int training, n_axes;
    int64_t axis, size;
    int64_t axes[TOSAC_MAX_RANK];   /* MeanVarianceNormalization's */
} norm_prep;

static tosac_code norm_prepare(cpu_ctx *c, void *st)
{
    norm_prep *p = st;
    p->eps = cpu_attr_f(c, "epsilon", 1e-5f);
    p->momentum = cpu_attr_f(c, "momentum", 0.9f);
    p->training = cpu_attr_i(c, "training_mode", 0) != 0;
    p->axis = cpu_attr_i(c, "axis", -1);
    return TOSAC_OK;
}

static tosac_code lrn_prepare(cpu_ctx *c, void *st)
{
    norm_prep *p = st;
    p->size = cpu_attr_i(c, "size", 0);
    CPU_CHECK(c, p->size >= 1, "size must be positive");
    p->alpha = cpu_attr_f(c, "alpha", 1e-4f);
    p->beta = cpu_attr_f(c, "beta", 0.75f);
    p->bias = cpu_attr_f(c, "bias", 1.0f);
    return TOSAC_OK;
}

static tosac_code mvn_prepare(cpu_ctx *c, void *st)
{
    norm_prep *p = st;
    static const int64_t dflt[3] = {0, 2, 3};
    int n_axes;
    const int64_t *axes = cpu_attr_ints(c, "axes", &n_axes);
    if (!cpu_has_attr(c, "axes")) {
        axes = dflt;
        n_axes = 3;
    }
    CPU_CHECK(c, n_axes <= TOSAC_MAX_RANK, "too many axes");
    if (n_axes)
        memcpy(p->axes, axes, (size_t)n_axes * sizeof(int64_t));
    p->n_axes = n_axes;
    return TOSAC_OK;
}

static const cpu_op_prep norm_prep_op = {norm_prepare, sizeof(norm_prep), NULL};
static const cpu_op_prep lrn_prep_op = {lrn_prepare, sizeof(norm_prep), NULL};
static const cpu_op_prep mvn_prep_op = {mvn_prepare, sizeof(norm_prep), NULL};

/* Checks that inputs first..last are f32 vectors of n values. */
static tosac_code channel_params(cpu_ctx *c, int first, int last, int64_t n)
{
    for (int i = first; i <= last; i++) {
        const tosac_tensor *t;
        tosac_code rc = cpu_req(c, i, &t);
        if (rc)
            return rc;
        CPU_CHECK(c, t->dtype == TOSAC_DT_F32 && tosac_tensor_numel(t) == n,
                  "input %d must hold %lld float values", i, (long long)n);
    }
    return TOSAC_OK;
}

static tosac_code op_batchnorm(cpu_ctx *c)
{
    const norm_prep *p = c->prep;
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN)))
        return rc;
    CPU_CHECK(c, x->rank >= 2, "input must have rank >= 2");
    int64_t outer, ch, spatial;
    cpu_split_axis(x, 1, &outer, &ch, &spatial);
    if ((rc = channel_params(c, 1, 4, ch)))
        return rc;
    int training = p->training;
    /* before opset 14 the extra outputs were training statistics of another definition */
    for (int i = 1; i < c->n_out && !training; i++)
        if (c->node->outputs[i] >= 0)
            return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "output %d (training statistics) is only "
                            "supported with training_mode (opset 14+)", i);
    float eps = p->eps;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y)))
        return rc;
    if (!training) {
        kern_batchnorm_f32(outer, ch, spatial, x->data, c->in[1]->data, c->in[2]->data,
                           c->in[3]->data, c->in[4]->data, eps, y->data);
        return TOSAC_OK;
    }
    /* training: normalise with the batch statistics; the running statistics blend the given
     * ones with the batch's by momentum */
    float *stats = cpu_temp(c, (size_t)(ch > 0 ? ch : 1) * 2 * sizeof(float));
    if (!stats)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    kern_channel_stats_f32(outer, ch, spatial, x->data, stats, stats + ch);
    kern_batchnorm_f32(outer, ch, spatial, x->data, c->in[1]->data, c->in[2]->data, stats,
                       stats + ch, eps, y->data);
    float mom = p->momentum;
    for (int i = 1; i < 3 && i < c->n_out && !rc; i++) {
        tosac_tensor *r;
        if ((rc = cpu_out(c, i, TOSAC_DT_F32, 1, &ch, &r)))
            break;
        const float *given = c->in[2 + i]->data, *batch = stats + (i - 1) * ch;
        for (int64_t k = 0; k < ch; k++)
            ((float *)r->data)[k] = given[k] * mom + batch[k] * (1 - mom);
    }
    cpu_release(c, stats);
    return rc;
}

static tosac_code op_mvn(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN);
    if (rc)
        return rc;
    const norm_prep *p = c->prep;
    int n_axes = p->n_axes;
    const int64_t *axes = p->axes;
    uint8_t reduce[TOSAC_MAX_RANK] = {0};
    for (int k = 0; k < n_axes; k++) {
        int a;
        if ((rc = cpu_axis(c, axes[k], x->rank, &a)))
            return rc;
        reduce[a] = 1;
    }
    int64_t n_keep = 1;
    for (int k = 0; k < x->rank; k++)
        if (!reduce[k])
            n_keep *= x->shape[k];
    double *scratch = cpu_temp(c, (size_t)(n_keep > 0 ? n_keep : 1) * 2 * sizeof(double));
    tosac_tensor *y;
    if (!scratch)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    if (!(rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y)))
        kern_mvn_f32(x->rank, x->shape, reduce, x->data, y->data, scratch);
    cpu_release(c, scratch);
    return rc;
}

static tosac_code op_instancenorm(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN)))
        return rc;
    CPU_CHECK(c, x->rank >= 3, "input must have rank >= 3");
    int64_t outer, ch, spatial;
    cpu_split_axis(x, 1, &outer, &ch, &spatial);
    if ((rc = channel_params(c, 1, 2, ch)))
        return rc;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y)))
        return rc;
    kern_rownorm_f32(outer * ch, spatial, x->data, c->in[1]->data, c->in[2]->data, 1, ch,
                     ((const norm_prep *)c->prep)->eps, y->data);
    return TOSAC_OK;
}

/* Expands a scale/bias that broadcasts to the normalised shape [cols] into a full row. */
static tosac_code full_row(cpu_ctx *c, const tosac_tensor *t, const tosac_tensor *x, int axis,
                           int64_t cols, float *row)
{
    CPU_CHECK(c, t->dtype == TOSAC_DT_F32, "scale and bias must be float");
    int nr = x->rank - axis;
    CPU_CHECK(c, t->rank <= nr, "scale/bias rank %d exceeds the normalised rank %d", t->rank, nr);
    for (int k = 0; k < t->rank; k++) {
        int64_t d = t->shape[t->rank - 1 - k], xd = x->shape[x->rank - 1 - k];
        CPU_CHECK(c, d == 1 || d == xd, "scale/bias shape does not broadcast to the input");
    }
    int64_t idx[TOSAC_MAX_RANK] = {0};
    for (int64_t j = 0; j < cols; j++) {
        int64_t off = 0, st = 1;
        for (int k = t->rank - 1; k >= 0; k--) {
            int xk = x->rank - t->rank + k;
            int64_t i = t->shape[k] == 1 ? 0 : idx[xk - axis];
            off += i * st;
            st *= t->shape[k];
        }
        row[j] = ((const float *)t->data)[off];
        for (int k = nr - 1; k >= 0; k--) {
            if (++idx[k] < x->shape[axis + k])
                break;
            idx[k] = 0;
        }
    }
    return TOSAC_OK;
}

static tosac_code op_layernorm(cpu_ctx *c)
{
    const norm_prep *p = c->prep;
    const tosac_tensor *x, *s, *b = cpu_opt(c, 2);
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &s);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN)))
        return rc;
    int axis;
    if ((rc = cpu_axis(c, p->axis, x->rank, &axis)))
        return rc;
    int64_t rows = 1, cols = 1;
    for (int k = 0; k < axis; k++)
        rows *= x->shape[k];
    for (int k = axis; k < x->rank; k++)
        cols *= x->shape[k];
    float *sr = cpu_temp(c, (size_t)(cols > 0 ? cols : 1) * 2 * sizeof(float));
    if (!sr)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    float *br = sr + cols;
    rc = full_row(c, s, x, axis, cols, sr);
    if (!rc && b)
        rc = full_row(c, b, x, axis, cols, br);
    tosac_tensor *y;
    if (!rc)
        rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y);
    if (!rc)
        kern_rownorm_f32(rows, cols, x->data, sr, b ? br : NULL, 0, 1, p->eps, y->data);
    cpu_release(c, sr);
    if (rc || c->n_out < 2)
        return rc;
    /* optional Mean and InvStdDev outputs: the input shape with normalised dims set to 1 */
    int64_t ms[TOSAC_MAX_RANK];
    for (int k = 0; k < x->rank; k++)
        ms[k] = k < axis ? x->shape[k] : 1;
    tosac_tensor *mean = NULL, *inv = NULL;
    if (c->node->outputs[1] >= 0 && (rc = cpu_out(c, 1, TOSAC_DT_F32, x->rank, ms, &mean)))
        return rc;
    if (c->n_out > 2 && c->node->outputs[2] >= 0 &&
        (rc = cpu_out(c, 2, TOSAC_DT_F32, x->rank, ms, &inv)))
        return rc;
    const float *X = x->data;
    float eps = p->eps;
    for (int64_t r = 0; r < rows; r++) {
        double m = 0, v = 0;
        for (int64_t j = 0; j < cols; j++)
            m += X[r * cols + j];
        m /= (double)cols;
        for (int64_t j = 0; j < cols; j++)
            v += (X[r * cols + j] - m) * (X[r * cols + j] - m);
        v /= (double)cols;
        if (mean)
            ((float *)mean->data)[r] = (float)m;
        if (inv)
            ((float *)inv->data)[r] = (float)(1.0 / sqrt(v + eps));
    }
    return TOSAC_OK;
}

static tosac_code op_lrn(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN)))
        return rc;
    CPU_CHECK(c, x->rank >= 3, "input must have rank >= 3");
    const norm_prep *p = c->prep;
    int64_t outer, ch, spatial;
    cpu_split_axis(x, 1, &outer, &ch, &spatial);
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y)))
        return rc;
    kern_lrn_f32(outer, ch, spatial, p->size, p->alpha, p->beta, p->bias, x->data, y->data);
    return TOSAC_OK;
}

#define F CPU_F16_VIA_F32
const cpu_op_entry cpu_ops_norm[] = {
    {"Softmax", op_softmax, F, &softmax_prep},
    {"LogSoftmax", op_logsoftmax, F, &softmax_prep},
    {"Hardmax", op_hardmax, F, &softmax_prep},
    {"BatchNormalization", op_batchnorm, F, &norm_prep_op},
    {"InstanceNormalization", op_instancenorm, F, &norm_prep_op},
    {"LayerNormalization", op_layernorm, F, &norm_prep_op},
    {"LRN", op_lrn, F, &lrn_prep_op},
    {"MeanVarianceNormalization", op_mvn, F, &mvn_prep_op},
    {NULL, NULL, 0, NULL},
};
