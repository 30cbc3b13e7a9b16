/* Per-operator static shape rules (ONNX semantics, opsets 9..21). Each rule reads static
 * input shapes and known small integer values and sets every output's dtype and shape. */
#include "ir_shape.h"
#include "onnxop/onnxop_crop.h"
#include "onnxop/onnxop_matmul.h"
#include "onnxop/onnxop_window.h"

#include <math.h>
#include <string.h>

#define IN(k) sh_in(c, node, k)
#define NODE (&c->g->nodes[node])

/* An axis in -rank..rank-1 (callers check the range they accept); values too large for any
 * rank give -1 rather than being truncated into range by the int conversion. */
static int norm_axis(int64_t axis, int rank)
{
    if (axis < -TOSAC_MAX_RANK - 1 || axis > TOSAC_MAX_RANK + 1)
        return -1;
    return (int)(axis < 0 ? axis + rank : axis);
}

/* Output 0 carries input 0's known values unchanged (Identity, Reshape, Squeeze, ...). */
static void pass_vals(shape_ctx *c, int node)
{
    int64_t v[SHAPE_MAX_VALUES];
    int n;
    if (sh_ints(c, node, 0, v, &n, SHAPE_MAX_VALUES))
        sh_set_vals(c, node, 0, v, n);
}

/* ---- elementwise ---- */

static tosac_code r_same(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    return sh_set(c, node, 0, x->dtype, x->rank, x->shape);
}

static tosac_code r_identity(shape_ctx *c, int node)
{
    if (r_same(c, node))
        return c->err->code;
    pass_vals(c, node);
    return TOSAC_OK;
}

static tosac_code r_bool_same(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    return sh_set(c, node, 0, TOSAC_DT_BOOL, x->rank, x->shape);
}

static tosac_code r_dropout(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x) || sh_set(c, node, 0, x->dtype, x->rank, x->shape))
        return c->err->code;
    return sh_set(c, node, 1, TOSAC_DT_BOOL, x->rank, x->shape);
}

/* Multidirectional (numpy) broadcast of inputs [first, last]. */
static tosac_code broadcast(shape_ctx *c, int node, int first, int last, int *rank,
                            int64_t *shape)
{
    *rank = 0;
    if (last < first) /* a variadic node (Add, Max, Sum) given no inputs at all */
        return sh_fail(c, node, "it has no inputs");
    for (int k = first; k <= last; k++) {
        const ir_tensor *t;
        if (sh_need(c, node, k, &t))
            return c->err->code;
        int r = t->rank > *rank ? t->rank : *rank;
        int64_t out[TOSAC_MAX_RANK];
        for (int d = 0; d < r; d++) {
            int da = d - (r - *rank), db = d - (r - t->rank);
            int64_t a = da >= 0 ? shape[da] : 1, b = db >= 0 ? t->shape[db] : 1;
            if (a != b && a != 1 && b != 1) {
                char desc[160];
                return tosac_fail(c->err, TOSAC_ERR_INPUT,
                                  "%s: inconsistent shapes: dimension %lld and %lld do not broadcast",
                                  ir_node_desc(c->g, node, desc, sizeof desc), (long long)a,
                                  (long long)b);
            }
            out[d] = a == 1 ? b : a;
        }
        *rank = r;
        memcpy(shape, out, sizeof(int64_t) * (size_t)r);
    }
    return TOSAC_OK;
}

/* Folds integer arithmetic on known values (scalar or equal-length operands). */
static void fold_arith(shape_ctx *c, int node)
{
    int64_t a[SHAPE_MAX_VALUES], b[SHAPE_MAX_VALUES], r[SHAPE_MAX_VALUES];
    int na, nb;
    if (!sh_ints(c, node, 0, a, &na, SHAPE_MAX_VALUES) ||
        !sh_ints(c, node, 1, b, &nb, SHAPE_MAX_VALUES) || (na != nb && na != 1 && nb != 1))
        return;
    const char *op = NODE->op_type;
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t x = a[na == 1 ? 0 : i], y = b[nb == 1 ? 0 : i];
        bool ok;
        if (strcmp(op, "Add") == 0)
            ok = sh_add(x, y, &r[i]);
        else if (strcmp(op, "Sub") == 0)
            ok = !__builtin_sub_overflow(x, y, &r[i]);
        else if (strcmp(op, "Mul") == 0)
            ok = sh_mul(x, y, &r[i]);
        else if (strcmp(op, "Div") == 0 && y != 0 && !(x == INT64_MIN && y == -1))
            ok = (r[i] = x / y, true);
        else
            ok = false;
        if (!ok) /* the values stay unknown; the shapes are set already */
            return;
    }
    sh_set_vals(c, node, 0, r, n);
}

static tosac_code r_binary(shape_ctx *c, int node)
{
    int rank;
    int64_t shape[TOSAC_MAX_RANK];
    const ir_node *n = NODE;
    if (broadcast(c, node, 0, n->n_inputs - 1, &rank, shape) ||
        sh_set(c, node, 0, IN(0)->dtype, rank, shape))
        return c->err->code;
    const ir_tensor *x = IN(0);
    if (x->dtype == TOSAC_DT_I64 || x->dtype == TOSAC_DT_I32)
        fold_arith(c, node);
    return TOSAC_OK;
}

static tosac_code r_compare(shape_ctx *c, int node)
{
    int rank;
    int64_t shape[TOSAC_MAX_RANK];
    if (broadcast(c, node, 0, 1, &rank, shape) || sh_set(c, node, 0, TOSAC_DT_BOOL, rank, shape))
        return c->err->code;
    /* on known integer values (shape tests such as "dim == 1" that pick an If branch) */
    int64_t a[SHAPE_MAX_VALUES], b[SHAPE_MAX_VALUES], r[SHAPE_MAX_VALUES];
    int na, nb;
    if (!tosac_dtype_is_int(IN(0)->dtype) || !sh_ints(c, node, 0, a, &na, SHAPE_MAX_VALUES) ||
        !sh_ints(c, node, 1, b, &nb, SHAPE_MAX_VALUES) || (na != nb && na != 1 && nb != 1))
        return TOSAC_OK;
    const char *op = NODE->op_type;
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t x = a[na == 1 ? 0 : i], y = b[nb == 1 ? 0 : i];
        r[i] = strcmp(op, "Equal") == 0         ? x == y
               : strcmp(op, "Less") == 0        ? x < y
               : strcmp(op, "Greater") == 0     ? x > y
               : strcmp(op, "LessOrEqual") == 0 ? x <= y
                                                : x >= y;
    }
    sh_set_vals(c, node, 0, r, n);
    return TOSAC_OK;
}

static tosac_code r_not(shape_ctx *c, int node)
{
    if (r_same(c, node))
        return c->err->code;
    int64_t v[SHAPE_MAX_VALUES];
    int n;
    if (IN(0)->dtype != TOSAC_DT_BOOL || !sh_ints(c, node, 0, v, &n, SHAPE_MAX_VALUES))
        return TOSAC_OK;
    for (int i = 0; i < n; i++)
        v[i] = !v[i];
    sh_set_vals(c, node, 0, v, n);
    return TOSAC_OK;
}

static tosac_code r_where(shape_ctx *c, int node)
{
    int rank;
    int64_t shape[TOSAC_MAX_RANK];
    if (broadcast(c, node, 0, 2, &rank, shape))
        return c->err->code;
    return sh_set(c, node, 0, IN(1)->dtype, rank, shape);
}

static tosac_code r_cast(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    tosac_dtype to;
    if (strcmp(NODE->op_type, "CastLike") == 0) {
        const ir_tensor *like;
        if (sh_need(c, node, 1, &like))
            return c->err->code;
        to = like->dtype;
    } else {
        to = sh_onnx_dtype(ir_node_attr_int(NODE, "to", 0));
        if (to == TOSAC_DT_UNKNOWN)
            return sh_fail(c, node, "unsupported 'to' type");
    }
    if (sh_set(c, node, 0, to, x->rank, x->shape))
        return c->err->code;
    int64_t v[SHAPE_MAX_VALUES];
    int n;
    if (to == TOSAC_DT_BOOL && (tosac_dtype_is_int(x->dtype) || x->dtype == TOSAC_DT_BOOL) &&
        sh_ints(c, node, 0, v, &n, SHAPE_MAX_VALUES)) {
        for (int i = 0; i < n; i++)
            v[i] = v[i] != 0;
        sh_set_vals(c, node, 0, v, n);
    } else if (tosac_dtype_is_int(to)) {
        pass_vals(c, node);
    }
    return TOSAC_OK;
}

/* ---- quantization ---- */

static tosac_code r_quantize(shape_ctx *c, int node)
{
    const ir_tensor *x, *s = IN(1), *zp = IN(2);
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    if (s && s->dtype != TOSAC_DT_UNKNOWN && !tosac_dtype_is_float(s->dtype))
        return sh_fail(c, node, "the scale is not a float tensor");
    tosac_dtype dt = TOSAC_DT_U8;
    int64_t od = ir_node_attr_int(NODE, "output_dtype", 0);
    if (zp && zp->dtype != TOSAC_DT_UNKNOWN)
        dt = zp->dtype;
    else if (od == 3)
        dt = TOSAC_DT_I8;
    else if (od == 4)
        dt = TOSAC_DT_U16;
    else if (od == 5)
        dt = TOSAC_DT_I16;
    return sh_set(c, node, 0, dt, x->rank, x->shape);
}

static tosac_code r_dequantize(shape_ctx *c, int node)
{
    const ir_tensor *x, *s = IN(1), *zp = IN(2);
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    if (s && s->dtype != TOSAC_DT_UNKNOWN && !tosac_dtype_is_float(s->dtype))
        return sh_fail(c, node, "the scale is not a float tensor");
    /* ONNX types the zero point like x: other types would dequantize x with foreign params */
    if (zp && zp->dtype != TOSAC_DT_UNKNOWN && x->dtype != TOSAC_DT_UNKNOWN &&
        zp->dtype != x->dtype)
        return sh_fail(c, node, "the zero point's type differs from the input's");
    tosac_dtype dt = s && s->dtype != TOSAC_DT_UNKNOWN ? s->dtype : TOSAC_DT_F32;
    return sh_set(c, node, 0, dt, x->rank, x->shape);
}

static tosac_code r_dynamic_quantize(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x) || sh_set(c, node, 0, TOSAC_DT_U8, x->rank, x->shape) ||
        sh_set(c, node, 1, TOSAC_DT_F32, 0, NULL))
        return c->err->code;
    return sh_set(c, node, 2, TOSAC_DT_U8, 0, NULL);
}

/* ---- convolution and pooling ---- */

static tosac_code spatial(shape_ctx *c, int node, const ir_tensor *x, const int64_t *kernel,
                          int64_t channels, tosac_dtype dt, int out_k)
{
    int ns = x->rank - 2;
    if (ns < 1)
        return sh_fail(c, node, "input rank below 3");
    onnx_window w;
    int64_t out[TOSAC_MAX_RANK], pb[ONNX_WIN_MAX_SP], pe[ONNX_WIN_MAX_SP];
    out[0] = x->shape[0];
    out[1] = channels;
    if (onnx_window_parse(NODE, ns, &w, c->err) ||
        onnx_window_forward(NODE, &w, x->shape + 2, kernel, out + 2, pb, pe, c->err))
        return c->err->code;
    return sh_set(c, node, out_k, dt, x->rank, out);
}

static tosac_code r_conv(shape_ctx *c, int node)
{
    const char *op = NODE->op_type;
    int wi = strcmp(op, "QLinearConv") == 0 ? 3 : 1;
    const ir_tensor *x, *w;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, wi, &w))
        return c->err->code;
    if (w->rank != x->rank)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': inconsistent shapes: weight rank %d, input rank %d",
                          NODE->name, w->rank, x->rank);
    tosac_dtype dt = x->dtype;
    if (wi == 3) {
        const ir_tensor *yzp = IN(7);
        dt = yzp && yzp->dtype ? yzp->dtype : TOSAC_DT_U8;
    } else if (strcmp(op, "ConvInteger") == 0) {
        dt = TOSAC_DT_I32;
    }
    return spatial(c, node, x, w->shape + 2, w->shape[0], dt, 0);
}

static tosac_code r_pool(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int nk;
    const int64_t *k = ir_node_attr_ints(NODE, "kernel_shape", &nk);
    if (!k || nk != x->rank - 2)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': kernel_shape missing or of the wrong length",
                          NODE->name);
    /* MaxPool's optional Indices output has the pooled shape; output 0 may be omitted, so
     * the shape is computed for each output rather than read back from output 0 */
    if (spatial(c, node, x, k, x->shape[1], x->dtype, 0))
        return c->err->code;
    return spatial(c, node, x, k, x->shape[1], TOSAC_DT_I64, 1);
}

static tosac_code r_global_pool(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t out[TOSAC_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        out[d] = d < 2 ? x->shape[d] : 1;
    return sh_set(c, node, 0, x->dtype, x->rank, out);
}

/* ---- matrix products ---- */

static tosac_code r_gemm(shape_ctx *c, int node)
{
    const ir_tensor *a, *b;
    if (sh_need(c, node, 0, &a) || sh_need(c, node, 1, &b))
        return c->err->code;
    if (a->rank != 2 || b->rank != 2)
        return sh_fail(c, node, "Gemm inputs must be 2-D");
    bool ta = ir_node_attr_int(NODE, "transA", 0), tb = ir_node_attr_int(NODE, "transB", 0);
    int64_t m = a->shape[ta ? 1 : 0], ka = a->shape[ta ? 0 : 1];
    int64_t kb = b->shape[tb ? 1 : 0], n = b->shape[tb ? 0 : 1];
    if (ka != kb)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': inconsistent shapes: K is %lld and %lld",
                          NODE->name, (long long)ka, (long long)kb);
    int64_t out[2] = {m, n};
    return sh_set(c, node, 0, a->dtype, 2, out);
}

static tosac_code r_matmul(shape_ctx *c, int node)
{
    const char *op = NODE->op_type;
    bool q = strcmp(op, "QLinearMatMul") == 0;
    const ir_tensor *a, *b;
    if (sh_need(c, node, 0, &a) || sh_need(c, node, q ? 3 : 1, &b))
        return c->err->code;
    onnx_matmul_dims md;
    if (onnx_matmul_dims_of(NODE, a->rank, a->shape, b->rank, b->shape, &md, c->err))
        return c->err->code;
    tosac_dtype dt = a->dtype;
    if (strcmp(op, "MatMulInteger") == 0)
        dt = TOSAC_DT_I32;
    if (q)
        dt = IN(7) && IN(7)->dtype ? IN(7)->dtype : TOSAC_DT_U8;
    return sh_set(c, node, 0, dt, md.yrank, md.y);
}

/* ---- layout ---- */

static tosac_code r_flatten(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int axis = norm_axis(ir_node_attr_int(NODE, "axis", 1), x->rank);
    if (axis < 0 || axis > x->rank)
        return sh_fail(c, node, "axis out of range");
    int64_t out[2] = {1, 1};
    for (int d = 0; d < x->rank; d++)
        if (!sh_mul(out[d < axis ? 0 : 1], x->shape[d], &out[d < axis ? 0 : 1]))
            return sh_overflow(c, node, "the element count");
    return sh_set(c, node, 0, x->dtype, 2, out);
}

static tosac_code r_reshape(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t s[SHAPE_MAX_VALUES];
    int n;
    if (!sh_ints(c, node, 1, s, &n, TOSAC_MAX_RANK))
        return sh_declared_or_fail(c, node, 0, "the target shape is not a known constant");
    bool allowzero = ir_node_attr_int(NODE, "allowzero", 0) != 0;
    int64_t total, known = 1, numel;
    if (!sh_numel(x->rank, x->shape, &total))
        return sh_overflow(c, node, "the element count");
    int infer = -1;
    for (int d = 0; d < n; d++) {
        if (s[d] == 0 && !allowzero) {
            if (d >= x->rank)
                return sh_fail(c, node, "0 in the shape beyond the input rank");
            s[d] = x->shape[d];
        }
        if (s[d] == -1) {
            if (infer >= 0)
                return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': two -1 in the shape", NODE->name);
            infer = d;
        } else if (s[d] < 0) {
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': shape value %lld", NODE->name,
                              (long long)s[d]);
        } else if (!sh_mul(known, s[d], &known)) {
            return sh_overflow(c, node, "the target shape's element count");
        }
    }
    if (infer >= 0)
        s[infer] = known ? total / known : 0;
    if (!sh_numel(n, s, &numel) || numel != total)
        return tosac_fail(c->err, TOSAC_ERR_INPUT,
                          "node '%s': inconsistent shapes: cannot reshape %lld elements", NODE->name,
                          (long long)total);
    if (sh_set(c, node, 0, x->dtype, n, s))
        return c->err->code;
    pass_vals(c, node);
    return TOSAC_OK;
}

static tosac_code r_transpose(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int np;
    const int64_t *perm = ir_node_attr_ints(NODE, "perm", &np);
    if (perm && np != x->rank)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': perm has %d entries for rank %d",
                          NODE->name, np, x->rank);
    int64_t out[TOSAC_MAX_RANK];
    bool seen[TOSAC_MAX_RANK] = {false};
    for (int d = 0; d < x->rank; d++) {
        int64_t p = perm ? perm[d] : x->rank - 1 - d;
        if (p < 0 || p >= x->rank || seen[p])
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': invalid perm", NODE->name);
        seen[p] = true;
        out[d] = x->shape[p];
    }
    if (sh_set(c, node, 0, x->dtype, x->rank, out))
        return c->err->code;
    /* small integer values move too (torch's pad arithmetic transposes a [n,2] table) */
    int64_t v[SHAPE_MAX_VALUES], r[SHAPE_MAX_VALUES], numel;
    int nv;
    if (!sh_ints(c, node, 0, v, &nv, SHAPE_MAX_VALUES) || !sh_numel(x->rank, x->shape, &numel) ||
        numel != nv)
        return TOSAC_OK;
    int64_t in_stride[TOSAC_MAX_RANK], idx[TOSAC_MAX_RANK] = {0};
    for (int d = x->rank - 1, st = 1; d >= 0; st *= (int)x->shape[d], d--)
        in_stride[d] = st;
    for (int64_t i = 0; i < numel; i++) {
        int64_t src = 0;
        for (int d = 0; d < x->rank; d++)
            src += idx[d] * in_stride[perm ? perm[d] : x->rank - 1 - d];
        r[i] = v[src];
        for (int d = x->rank - 1; d >= 0 && ++idx[d] == out[d]; d--)
            idx[d] = 0;
    }
    sh_set_vals(c, node, 0, r, nv);
    return TOSAC_OK;
}

/* Axes from the attribute (older opsets) or input 1; *n = -1 when absent. */
static bool axes_of(shape_ctx *c, int node, int input, int64_t *axes, int *n)
{
    int na;
    const int64_t *a = ir_node_attr_ints(NODE, "axes", &na);
    if (a) {
        if (na > TOSAC_MAX_RANK)
            return false;
        memcpy(axes, a, sizeof(int64_t) * (size_t)na);
        *n = na;
        return true;
    }
    if (input < NODE->n_inputs && NODE->inputs[input] >= 0)
        return sh_ints(c, node, input, axes, n, TOSAC_MAX_RANK);
    *n = -1;
    return true;
}

static tosac_code r_squeeze(shape_ctx *c, int node, bool unsqueeze)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t axes[TOSAC_MAX_RANK];
    int na;
    if (!axes_of(c, node, 1, axes, &na))
        return sh_fail(c, node, "axes are not a known constant");
    int orank = unsqueeze ? x->rank + (na > 0 ? na : 0) : x->rank;
    if (orank > TOSAC_MAX_RANK)
        return sh_fail(c, node, "rank above 8");
    bool mark[TOSAC_MAX_RANK] = {false};
    for (int i = 0; i < na; i++) {
        int a = norm_axis(axes[i], orank);
        if (a < 0 || a >= orank || mark[a])
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': axis %lld out of range",
                              NODE->name, (long long)axes[i]);
        if (!unsqueeze && x->shape[a] != 1)
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': squeezing a dimension of size %lld",
                              NODE->name, (long long)x->shape[a]);
        mark[a] = true;
    }
    int64_t out[TOSAC_MAX_RANK];
    int r = 0, src = 0;
    for (int d = 0; d < orank; d++) {
        if (unsqueeze) {
            out[r++] = mark[d] ? 1 : x->shape[src++];
        } else if (!(na < 0 ? x->shape[d] == 1 : mark[d])) {
            out[r++] = x->shape[d];
        }
    }
    if (sh_set(c, node, 0, x->dtype, r, out))
        return c->err->code;
    pass_vals(c, node);
    return TOSAC_OK;
}

static tosac_code r_squeeze_op(shape_ctx *c, int node) { return r_squeeze(c, node, false); }
static tosac_code r_unsqueeze_op(shape_ctx *c, int node) { return r_squeeze(c, node, true); }

static tosac_code r_concat(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int axis = norm_axis(ir_node_attr_int(NODE, "axis", 0), x->rank);
    if (axis < 0 || axis >= x->rank)
        return sh_fail(c, node, "axis out of range");
    int64_t out[TOSAC_MAX_RANK], vals[SHAPE_MAX_VALUES];
    memcpy(out, x->shape, sizeof out);
    out[axis] = 0;
    int nvals = 0;
    bool fold = x->rank == 1;
    for (int k = 0; k < NODE->n_inputs; k++) {
        const ir_tensor *t;
        if (sh_need(c, node, k, &t))
            return c->err->code;
        if (t->rank != x->rank)
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': inconsistent shapes: ranks %d and %d",
                              NODE->name, t->rank, x->rank);
        for (int d = 0; d < x->rank; d++)
            if (d != axis && t->shape[d] != x->shape[d])
                return tosac_fail(c->err, TOSAC_ERR_INPUT,
                                  "node '%s': inconsistent shapes: dimension %d is %lld and %lld",
                                  NODE->name, d, (long long)t->shape[d], (long long)x->shape[d]);
        if (!sh_add(out[axis], t->shape[axis], &out[axis]))
            return sh_overflow(c, node, "the concatenated dimension");
        int nv;
        if (fold && sh_ints(c, node, k, vals + nvals, &nv, SHAPE_MAX_VALUES - nvals))
            nvals += nv;
        else
            fold = false;
    }
    if (sh_set(c, node, 0, x->dtype, x->rank, out))
        return c->err->code;
    if (fold)
        sh_set_vals(c, node, 0, vals, nvals);
    return TOSAC_OK;
}

static tosac_code r_split(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int axis = norm_axis(ir_node_attr_int(NODE, "axis", 0), x->rank);
    int nout = NODE->n_outputs;
    if (axis < 0 || axis >= x->rank || nout < 1)
        return sh_fail(c, node, "axis out of range");
    int64_t split[SHAPE_MAX_VALUES];
    int ns;
    const int64_t *sa = ir_node_attr_ints(NODE, "split", &ns);
    if (sa && ns <= SHAPE_MAX_VALUES) {
        memcpy(split, sa, sizeof(int64_t) * (size_t)ns);
    } else if (NODE->n_inputs > 1 && NODE->inputs[1] >= 0) {
        if (!sh_ints(c, node, 1, split, &ns, SHAPE_MAX_VALUES))
            return sh_fail(c, node, "split sizes are not a known constant");
    } else {
        ns = nout > SHAPE_MAX_VALUES ? SHAPE_MAX_VALUES : nout;
        int64_t each = (x->shape[axis] + ns - 1) / ns; /* last chunk smaller (opset 18) */
        for (int i = 0; i < ns; i++)
            split[i] = i < ns - 1 ? each : x->shape[axis] - each * (ns - 1);
    }
    int64_t sum = 0;
    bool bad = false;
    for (int i = 0; i < ns; i++)
        bad |= split[i] < 0 || !sh_add(sum, split[i], &sum);
    if (bad || ns != nout || sum != x->shape[axis])
        return tosac_fail(c->err, TOSAC_ERR_INPUT,
                          "node '%s': inconsistent shapes: split sizes do not add up to %lld",
                          NODE->name, (long long)x->shape[axis]);
    for (int k = 0; k < nout; k++) {
        int64_t out[TOSAC_MAX_RANK];
        memcpy(out, x->shape, sizeof out);
        out[axis] = split[k];
        if (sh_set(c, node, k, x->dtype, x->rank, out))
            return c->err->code;
    }
    return TOSAC_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static tosac_code r_slice(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t st[TOSAC_MAX_RANK], en[TOSAC_MAX_RANK], ax[TOSAC_MAX_RANK], sp[TOSAC_MAX_RANK];
    int n, ne, na = -1, nsp = -1;
    if (c->opset < 10) {
        const int64_t *a = ir_node_attr_ints(NODE, "starts", &n), *b = ir_node_attr_ints(NODE, "ends", &ne);
        if (!a || !b || n > TOSAC_MAX_RANK || ne != n)
            return sh_fail(c, node, "starts/ends attributes missing");
        memcpy(st, a, sizeof(int64_t) * (size_t)n);
        memcpy(en, b, sizeof(int64_t) * (size_t)n);
        const int64_t *aa = ir_node_attr_ints(NODE, "axes", &na);
        if (aa && na == n)
            memcpy(ax, aa, sizeof(int64_t) * (size_t)n);
        else
            na = -1;
    } else {
        if (!sh_ints(c, node, 1, st, &n, TOSAC_MAX_RANK) ||
            !sh_ints(c, node, 2, en, &ne, TOSAC_MAX_RANK) || ne != n)
            return sh_declared_or_fail(c, node, 0, "starts/ends are not known constants");
        if (NODE->n_inputs > 3 && NODE->inputs[3] >= 0 &&
            (!sh_ints(c, node, 3, ax, &na, TOSAC_MAX_RANK) || na != n))
            return sh_fail(c, node, "axes are not a known constant");
        if (NODE->n_inputs > 4 && NODE->inputs[4] >= 0 &&
            (!sh_ints(c, node, 4, sp, &nsp, TOSAC_MAX_RANK) || nsp != n))
            return sh_fail(c, node, "steps are not a known constant");
    }
    int64_t out[TOSAC_MAX_RANK], begin[TOSAC_MAX_RANK] = {0}, step_of[TOSAC_MAX_RANK];
    memcpy(out, x->shape, sizeof out);
    for (int d = 0; d < TOSAC_MAX_RANK; d++)
        step_of[d] = 1;
    for (int i = 0; i < n; i++) {
        int a = na >= 0 ? norm_axis(ax[i], x->rank) : i;
        int64_t step = nsp >= 0 ? sp[i] : 1;
        if (a < 0 || a >= x->rank || step == 0)
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': invalid axis or step", NODE->name);
        int64_t dim = x->shape[a];
        int64_t s = st[i] < 0 ? st[i] + dim : st[i], e = en[i] < 0 ? en[i] + dim : en[i];
        if (en[i] > ((int64_t)1 << 62))
            e = dim;
        /* ceil(distance / |step|) without forming distance + |step| - 1 (step may be
         * any int64, INT64_MIN included) */
        int64_t len;
        if (step > 0) {
            s = clamp64(s, 0, dim);
            e = clamp64(e, 0, dim);
            len = e > s ? (e - s - 1) / step + 1 : 0;
        } else {
            s = clamp64(s, 0, dim - 1);
            e = clamp64(e, -1, dim - 1);
            len = s > e ? (int64_t)((uint64_t)(s - e - 1) / (0 - (uint64_t)step)) + 1 : 0;
        }
        out[a] = len;
        begin[a] = s;
        step_of[a] = step;
    }
    if (sh_set(c, node, 0, x->dtype, x->rank, out))
        return c->err->code;
    int64_t v[SHAPE_MAX_VALUES], r[SHAPE_MAX_VALUES], numel, out_numel;
    int nv;
    if (!sh_ints(c, node, 0, v, &nv, SHAPE_MAX_VALUES) || !sh_numel(x->rank, x->shape, &numel) ||
        numel != nv || !sh_numel(x->rank, out, &out_numel) || out_numel > numel)
        return TOSAC_OK; /* (a slice never grows: anything else reads no value) */
    /* small integer values of any rank (a [n,2] pads table reversed along axis 0) */
    int64_t stride[TOSAC_MAX_RANK], idx[TOSAC_MAX_RANK] = {0};
    for (int d = x->rank - 1, st = 1; d >= 0; st *= (int)x->shape[d], d--)
        stride[d] = st;
    for (int64_t i = 0; i < out_numel; i++) {
        int64_t src = 0;
        for (int d = 0; d < x->rank; d++)
            src += (begin[d] + idx[d] * step_of[d]) * stride[d];
        r[i] = v[src];
        for (int d = x->rank - 1; d >= 0 && ++idx[d] == out[d]; d--)
            idx[d] = 0;
    }
    sh_set_vals(c, node, 0, r, (int)out_numel);
    return TOSAC_OK;
}

static tosac_code r_gather(shape_ctx *c, int node)
{
    const ir_tensor *x, *idx;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &idx))
        return c->err->code;
    int axis = norm_axis(ir_node_attr_int(NODE, "axis", 0), x->rank);
    if (axis < 0 || axis >= x->rank || x->rank + idx->rank - 1 > TOSAC_MAX_RANK)
        return sh_fail(c, node, "axis out of range");
    int64_t out[TOSAC_MAX_RANK];
    int r = 0;
    for (int d = 0; d < axis; d++)
        out[r++] = x->shape[d];
    for (int d = 0; d < idx->rank; d++)
        out[r++] = idx->shape[d];
    for (int d = axis + 1; d < x->rank; d++)
        out[r++] = x->shape[d];
    if (sh_set(c, node, 0, x->dtype, r, out))
        return c->err->code;
    int64_t v[SHAPE_MAX_VALUES], ix[SHAPE_MAX_VALUES], res[SHAPE_MAX_VALUES];
    int nv, ni;
    if (x->rank == 1 && sh_ints(c, node, 0, v, &nv, SHAPE_MAX_VALUES) &&
        sh_ints(c, node, 1, ix, &ni, SHAPE_MAX_VALUES)) {
        for (int i = 0; i < ni; i++) {
            int64_t k = ix[i] < 0 ? ix[i] + nv : ix[i];
            if (k < 0 || k >= nv)
                return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': index %lld out of range",
                                  NODE->name, (long long)ix[i]);
            res[i] = v[k];
        }
        sh_set_vals(c, node, 0, res, ni);
    }
    return TOSAC_OK;
}

static tosac_code r_shape(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t s = ir_node_attr_int(NODE, "start", 0), e = ir_node_attr_int(NODE, "end", x->rank);
    s = clamp64(s < 0 ? s + x->rank : s, 0, x->rank);
    e = clamp64(e < 0 ? e + x->rank : e, 0, x->rank);
    int64_t n = e > s ? e - s : 0;
    if (sh_set(c, node, 0, TOSAC_DT_I64, 1, &n))
        return c->err->code;
    sh_set_vals(c, node, 0, x->shape + s, (int)n);
    return TOSAC_OK;
}

static tosac_code r_size(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x) || sh_set(c, node, 0, TOSAC_DT_I64, 0, NULL))
        return c->err->code;
    int64_t n;
    if (sh_numel(x->rank, x->shape, &n))
        sh_set_vals(c, node, 0, &n, 1);
    return TOSAC_OK;
}

static tosac_code r_constant(shape_ctx *c, int node)
{
    tosac_tensor v;
    const ir_node *n = NODE;
    if (n->n_outputs < 1 || n->outputs[0] < 0 || !ir_graph_const_value(c->g, n->outputs[0], &v))
        return sh_fail(c, node, "unsupported Constant value");
    if (sh_set(c, node, 0, v.dtype, v.rank, v.shape))
        return c->err->code;
    int64_t vals[SHAPE_MAX_VALUES];
    int64_t cnt = tosac_tensor_numel(&v);
    if ((v.dtype == TOSAC_DT_I64 || v.dtype == TOSAC_DT_I32) && cnt <= SHAPE_MAX_VALUES) {
        for (int64_t i = 0; i < cnt; i++)
            vals[i] = v.dtype == TOSAC_DT_I64 ? ((int64_t *)v.data)[i] : ((int32_t *)v.data)[i];
        sh_set_vals(c, node, 0, vals, (int)cnt);
    }
    return TOSAC_OK;
}

static tosac_code r_constant_of_shape(shape_ctx *c, int node)
{
    int64_t s[TOSAC_MAX_RANK];
    int n;
    if (!sh_ints(c, node, 0, s, &n, TOSAC_MAX_RANK))
        return sh_declared_or_fail(c, node, 0, "the shape is not a known constant");
    const ir_attr *a = ir_node_attr(NODE, "value");
    tosac_dtype dt = a && a->kind == IR_ATTR_TENSOR ? a->t.dtype : TOSAC_DT_F32;
    if (sh_set(c, node, 0, dt, n, s))
        return c->err->code;
    int64_t numel, v[SHAPE_MAX_VALUES];
    if (tosac_dtype_is_int(dt) && tosac_tensor_numel(&a->t) == 1 && sh_numel(n, s, &numel) &&
        numel <= SHAPE_MAX_VALUES) {
        for (int64_t i = 0; i < numel; i++)
            v[i] = tosac_tensor_int_at(&a->t, 0);
        sh_set_vals(c, node, 0, v, (int)numel);
    }
    return TOSAC_OK;
}

static tosac_code r_range(shape_ctx *c, int node)
{
    const ir_tensor *s;
    if (sh_need(c, node, 0, &s))
        return c->err->code;
    if (tosac_dtype_is_float(s->dtype)) { /* ceil((limit - start) / delta), as the CPU counts */
        tosac_tensor v[3];
        bool known = true;
        for (int i = 0; i < 3; i++)
            known &= i < NODE->n_inputs && NODE->inputs[i] >= 0 &&
                     ir_graph_const_value(c->g, NODE->inputs[i], &v[i]) &&
                     tosac_tensor_numel(&v[i]) == 1;
        double cnt = NAN;
        if (known && tosac_tensor_f64_at(&v[2], 0) != 0)
            cnt = ceil((tosac_tensor_f64_at(&v[1], 0) - tosac_tensor_f64_at(&v[0], 0)) /
                       tosac_tensor_f64_at(&v[2], 0));
        if (!(cnt < (double)IR_SHAPE_LIMIT))
            return sh_declared_or_fail(c, node, 0, "the output size depends on input values");
        int64_t len = cnt > 0 ? (int64_t)cnt : 0;
        return sh_set(c, node, 0, s->dtype, 1, &len);
    }
    int64_t a, b, d;
    int n1, n2, n3;
    if (!tosac_dtype_is_int(s->dtype) || !sh_ints(c, node, 0, &a, &n1, 1) ||
        !sh_ints(c, node, 1, &b, &n2, 1) || !sh_ints(c, node, 2, &d, &n3, 1) || d == 0)
        return sh_declared_or_fail(c, node, 0, "the output size depends on input values");
    /* ceil((limit - start) / delta), clamped at 0, for any int64 values */
    int64_t dist, len = 0;
    if (__builtin_sub_overflow(d > 0 ? b : a, d > 0 ? a : b, &dist))
        return sh_overflow(c, node, "the range length");
    if (dist > 0)
        len = (int64_t)((uint64_t)(dist - 1) / (d > 0 ? (uint64_t)d : 0 - (uint64_t)d)) + 1;
    return sh_set(c, node, 0, s->dtype, 1, &len);
}

static tosac_code r_pad(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t pads[2 * TOSAC_MAX_RANK], axes[TOSAC_MAX_RANK];
    int np, na = -1;
    const int64_t *pa = ir_node_attr_ints(NODE, "pads", &np);
    if (pa && np <= 2 * TOSAC_MAX_RANK)
        memcpy(pads, pa, sizeof(int64_t) * (size_t)np);
    else if (!sh_ints(c, node, 1, pads, &np, 2 * TOSAC_MAX_RANK))
        return sh_fail(c, node, "pads are not a known constant");
    if (NODE->n_inputs > 3 && NODE->inputs[3] >= 0 && !sh_ints(c, node, 3, axes, &na, TOSAC_MAX_RANK))
        return sh_fail(c, node, "axes are not a known constant");
    int cnt = na >= 0 ? na : x->rank;
    if (np != 2 * cnt)
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': %d pads for %d axes", NODE->name,
                          np, cnt);
    int64_t out[TOSAC_MAX_RANK];
    memcpy(out, x->shape, sizeof out);
    for (int i = 0; i < cnt; i++) {
        int a = na >= 0 ? norm_axis(axes[i], x->rank) : i;
        if (a < 0 || a >= x->rank)
            return sh_fail(c, node, "axis out of range");
        if (!sh_add(out[a], pads[i], &out[a]) || !sh_add(out[a], pads[i + cnt], &out[a]))
            return sh_overflow(c, node, "the padded dimension");
    }
    return sh_set(c, node, 0, x->dtype, x->rank, out);
}

/* CenterCropPad: the listed axes take the constant target lengths (onnxop_crop.c). */
static tosac_code r_center_crop_pad(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t target[TOSAC_MAX_RANK];
    int nt;
    if (!sh_ints(c, node, 1, target, &nt, TOSAC_MAX_RANK))
        return sh_fail(c, node, "shape is not a known constant");
    onnxop_crop_pad cp;
    if (onnxop_center_crop_pad(NODE, x->rank, x->shape, target, nt, &cp, c->err))
        return c->err->code;
    return sh_set(c, node, 0, x->dtype, x->rank, cp.out);
}

static tosac_code r_reduce(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t axes[TOSAC_MAX_RANK];
    int na;
    if (!axes_of(c, node, 1, axes, &na))
        return sh_fail(c, node, "axes are not a known constant");
    bool keep = ir_node_attr_int(NODE, "keepdims", 1) != 0;
    bool noop = ir_node_attr_int(NODE, "noop_with_empty_axes", 0) != 0;
    bool mark[TOSAC_MAX_RANK] = {false};
    for (int i = 0; i < na; i++) {
        int a = norm_axis(axes[i], x->rank);
        if (a < 0 || a >= x->rank)
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': axis %lld out of range",
                              NODE->name, (long long)axes[i]);
        mark[a] = true;
    }
    if (na <= 0 && noop)
        return sh_set(c, node, 0, x->dtype, x->rank, x->shape);
    int64_t out[TOSAC_MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
        bool red = na <= 0 || mark[d];
        if (!red)
            out[r++] = x->shape[d];
        else if (keep)
            out[r++] = 1;
    }
    return sh_set(c, node, 0, x->dtype, r, out);
}

static tosac_code r_argmax(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int axis = norm_axis(ir_node_attr_int(NODE, "axis", 0), x->rank);
    if (axis < 0 || axis >= x->rank)
        return sh_fail(c, node, "axis out of range");
    bool keep = ir_node_attr_int(NODE, "keepdims", 1) != 0;
    int64_t out[TOSAC_MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++)
        if (d != axis)
            out[r++] = x->shape[d];
        else if (keep)
            out[r++] = 1;
    return sh_set(c, node, 0, TOSAC_DT_I64, r, out);
}

static tosac_code r_topk(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t k = ir_node_attr_int(NODE, "k", -1);
    int nk;
    /* checked before a runtime K falls back to the declared outputs: the CPU operator
     * refuses these at prepare, which would be too late for compile */
    int64_t axis_attr = ir_node_attr_int(NODE, "axis", -1);
    if (x->rank >= 0 && (axis_attr < -x->rank || axis_attr >= x->rank))
        return sh_bad(c, node, "the axis is out of range for the input's rank");
    if (c->opset >= 10 && (NODE->n_inputs < 2 || NODE->inputs[1] < 0))
        return sh_bad(c, node, "it has no K input");
    if (c->opset >= 10 && !sh_ints(c, node, 1, &k, &nk, 1))
        return sh_declared_or_fail(c, node, 0, "K is not a known constant");
    int axis = norm_axis(axis_attr, x->rank);
    if (axis < 0 || axis >= x->rank || k < 0 || k > x->shape[axis])
        return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': K %lld or axis out of range",
                          NODE->name, (long long)k);
    int64_t out[TOSAC_MAX_RANK];
    memcpy(out, x->shape, sizeof out);
    out[axis] = k;
    if (sh_set(c, node, 0, x->dtype, x->rank, out))
        return c->err->code;
    return sh_set(c, node, 1, TOSAC_DT_I64, x->rank, out);
}

static tosac_code r_expand_tile(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t s[TOSAC_MAX_RANK], out[TOSAC_MAX_RANK];
    int n;
    if (!sh_ints(c, node, 1, s, &n, TOSAC_MAX_RANK))
        return sh_declared_or_fail(c, node, 0, "the shape/repeats are not a known constant");
    if (strcmp(NODE->op_type, "Tile") == 0) {
        if (n != x->rank)
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': %d repeats for rank %d",
                              NODE->name, n, x->rank);
        for (int d = 0; d < n; d++)
            if (!sh_mul(x->shape[d], s[d], &out[d]))
                return sh_overflow(c, node, "the tiled dimension");
        return sh_set(c, node, 0, x->dtype, n, out);
    }
    int r = n > x->rank ? n : x->rank;
    for (int d = 0; d < r; d++) {
        int da = d - (r - x->rank), db = d - (r - n);
        int64_t a = da >= 0 ? x->shape[da] : 1, b = db >= 0 ? s[db] : 1;
        if (a != b && a != 1 && b != 1)
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': inconsistent shapes for Expand",
                              NODE->name);
        out[d] = a == 1 ? b : a;
    }
    return sh_set(c, node, 0, x->dtype, r, out);
}

static tosac_code r_resize(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t sizes[TOSAC_MAX_RANK], out[TOSAC_MAX_RANK];
    int n;
    if (NODE->n_inputs > 3 && sh_ints(c, node, 3, sizes, &n, TOSAC_MAX_RANK) && n == x->rank)
        return sh_set(c, node, 0, x->dtype, n, sizes);
    int si = strcmp(NODE->op_type, "Upsample") == 0 || c->opset < 11 ? 1 : 2;
    tosac_tensor sc;
    if (si < NODE->n_inputs && NODE->inputs[si] >= 0 &&
        ir_graph_const_value(c->g, NODE->inputs[si], &sc) && sc.dtype == TOSAC_DT_F32 &&
        tosac_tensor_numel(&sc) == x->rank) {
        for (int d = 0; d < x->rank; d++) {
            double v = (double)x->shape[d] * ((float *)sc.data)[d];
            /* NaN, infinite or huge scales: no int64 conversion of an out-of-range double */
            if (!(v >= 0 && v <= (double)IR_SHAPE_LIMIT))
                return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': scale %g gives dimension %g",
                                  NODE->name, (double)((float *)sc.data)[d], v);
            out[d] = (int64_t)v;
        }
        return sh_set(c, node, 0, x->dtype, x->rank, out);
    }
    return sh_declared_or_fail(c, node, 0, "scales/sizes are not known constants");
}

static tosac_code r_if(shape_ctx *c, int node)
{
    const ir_attr *t = ir_node_attr(NODE, "then_branch"), *e = ir_node_attr(NODE, "else_branch");
    if (!t || !e || t->kind != IR_ATTR_GRAPH || e->kind != IR_ATTR_GRAPH ||
        t->g->n_outputs != NODE->n_outputs || e->g->n_outputs != NODE->n_outputs)
        return sh_fail(c, node, "malformed branches");
    /* a branch that cannot run with these shapes (ir_shape_infer.c) gives no shapes */
    const ir_graph *ta = t->g == c->dead_branch ? e->g : t->g;
    const ir_graph *eb = e->g == c->dead_branch ? t->g : e->g;
    for (int k = 0; k < NODE->n_outputs; k++) {
        const ir_tensor *a = &ta->tensors[ta->outputs[k]];
        const ir_tensor *b = &eb->tensors[eb->outputs[k]];
        bool same = a->rank == b->rank && a->dtype == b->dtype &&
                    memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)(a->rank > 0 ? a->rank : 0)) == 0;
        if (!sh_static(a) || !same) {
            if (sh_declared_or_fail(c, node, k, "the branches give different or unknown shapes"))
                return c->err->code;
            continue;
        }
        if (sh_set(c, node, k, a->dtype, a->rank, a->shape))
            return c->err->code;
    }
    return TOSAC_OK;
}

static const struct {
    const char *op;
    shape_rule fn;
} rules[] = {
    {"Abs", r_same}, {"Neg", r_same}, {"Relu", r_same}, {"Sigmoid", r_same}, {"Tanh", r_same},
    {"Sqrt", r_same}, {"Exp", r_same}, {"Log", r_same}, {"Erf", r_same}, {"HardSigmoid", r_same},
    {"HardSwish", r_same}, {"LeakyRelu", r_same}, {"Elu", r_same}, {"Selu", r_same},
    {"Softmax", r_same}, {"LogSoftmax", r_same}, {"Hardmax", r_same}, {"Clip", r_same},
    {"Floor", r_same}, {"Ceil", r_same}, {"Round", r_same}, {"Reciprocal", r_same},
    {"Sin", r_same}, {"Cos", r_same}, {"Sign", r_same}, {"Softplus", r_same}, {"Gelu", r_same},
    {"Mish", r_same}, {"CumSum", r_same}, {"BatchNormalization", r_same},
    {"InstanceNormalization", r_same}, {"LayerNormalization", r_same}, {"Not", r_not},
    {"LpNormalization", r_same}, {"Identity", r_identity}, {"IsNaN", r_bool_same},
    {"IsInf", r_bool_same}, {"Dropout", r_dropout},
    {"Add", r_binary}, {"Sub", r_binary}, {"Mul", r_binary}, {"Div", r_binary},
    {"Pow", r_binary}, {"Max", r_binary}, {"Min", r_binary}, {"Mod", r_binary},
    {"PRelu", r_binary}, {"Sum", r_binary}, {"Mean", r_binary}, {"And", r_binary},
    {"Or", r_binary}, {"Xor", r_binary}, {"BitShift", r_binary},
    {"Equal", r_compare}, {"Less", r_compare}, {"Greater", r_compare},
    {"LessOrEqual", r_compare}, {"GreaterOrEqual", r_compare}, {"Where", r_where},
    {"Cast", r_cast}, {"CastLike", r_cast},
    {"QuantizeLinear", r_quantize}, {"DequantizeLinear", r_dequantize},
    {"DynamicQuantizeLinear", r_dynamic_quantize},
    {"Conv", r_conv}, {"QLinearConv", r_conv}, {"ConvInteger", r_conv},
    {"MaxPool", r_pool}, {"AveragePool", r_pool}, {"LpPool", r_pool},
    {"GlobalAveragePool", r_global_pool}, {"GlobalMaxPool", r_global_pool},
    {"Gemm", r_gemm}, {"MatMul", r_matmul}, {"MatMulInteger", r_matmul},
    {"QLinearMatMul", r_matmul},
    {"Flatten", r_flatten}, {"Reshape", r_reshape}, {"Transpose", r_transpose},
    {"Squeeze", r_squeeze_op}, {"Unsqueeze", r_unsqueeze_op}, {"Concat", r_concat},
    {"Split", r_split}, {"Slice", r_slice}, {"Gather", r_gather}, {"Shape", r_shape},
    {"Size", r_size}, {"Constant", r_constant}, {"ConstantOfShape", r_constant_of_shape},
    {"Range", r_range}, {"Pad", r_pad}, {"CenterCropPad", r_center_crop_pad},
    {"ReduceSum", r_reduce}, {"ReduceMean", r_reduce}, {"ReduceMax", r_reduce},
    {"ReduceMin", r_reduce}, {"ReduceProd", r_reduce}, {"ReduceL1", r_reduce},
    {"ReduceL2", r_reduce}, {"ReduceLogSumExp", r_reduce}, {"ReduceSumSquare", r_reduce},
    {"ArgMax", r_argmax}, {"ArgMin", r_argmax}, {"TopK", r_topk},
    {"Expand", r_expand_tile}, {"Tile", r_expand_tile},
    {"Resize", r_resize}, {"Upsample", r_resize}, {"If", r_if},
    {"Acosh", r_same}, {"Atan", r_same}, {"ScaledTanh", r_same}, {"ThresholdedRelu", r_same},
    {"LRN", r_same}, {"MeanVarianceNormalization", r_same}, {"Trilu", r_same},
    {"ReverseSequence", r_same}, {"Scatter", r_same}, {"ScatterElements", r_same},
    {"ScatterND", r_same}, {"GlobalLpPool", r_global_pool},
    {"Acos", r_same}, {"Asin", r_same}, {"Asinh", r_same}, {"Atanh", r_same},
    {"BitwiseNot", r_same}, {"Celu", r_same}, {"Cosh", r_same}, {"Shrink", r_same},
    {"Sinh", r_same}, {"Softsign", r_same}, {"Tan", r_same}, {"ReduceLogSum", r_reduce},
    {"BitwiseAnd", r_binary}, {"BitwiseOr", r_binary}, {"BitwiseXor", r_binary},
};

shape_rule ir_shape_rule(const char *op_type)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].op, op_type) == 0)
            return rules[i].fn;
    static const shape_rule_row *const families[] = {
        ir_shape_rules_layout, ir_shape_rules_conv, ir_shape_rules_linalg,
        ir_shape_rules_signal, ir_shape_rules_image,
    };
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (const shape_rule_row *r = families[f]; r->op; r++)
            if (strcmp(r->op, op_type) == 0)
                return r->fn;
    return ir_shape_rule_seq(op_type);
}
