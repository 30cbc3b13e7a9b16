/* Helpers for the operator implementations: errors naming the node, inputs, outputs and
 * temporaries through the executor (cpu_env_ops), attributes, axes, the f16 widening. */
#include "cpu/cpu_internal.h"

#include <stdarg.h>
#include <string.h>

#include "kernels/kern.h"
#include "kernels/quant.h"
#include "onnxop/onnxop.h"

tosac_code cpu_fail(cpu_ctx *c, tosac_code code, const char *fmt, ...)
{
    /* the node named as the operator-semantics layer names it (onnxop_vfail) */
    va_list ap;
    va_start(ap, fmt);
    onnxop_vfail(c->err, c->node, code, fmt, ap);
    va_end(ap);
    return code;
}

const tosac_tensor *cpu_opt(const cpu_ctx *c, int i)
{
    return i < c->n_in ? c->in[i] : NULL;
}

tosac_code cpu_req(cpu_ctx *c, int i, const tosac_tensor **t)
{
    *t = cpu_opt(c, i);
    if (!*t)
        return cpu_fail(c, TOSAC_ERR_INPUT, "input %d is required", i);
    return TOSAC_OK;
}

tosac_code cpu_req_float(cpu_ctx *c, int i, const tosac_tensor **t)
{
    tosac_code rc = cpu_req(c, i, t);
    if (!rc && (*t)->dtype != TOSAC_DT_F32 && (*t)->dtype != TOSAC_DT_F64)
        rc = cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "input %d of type %s is not supported", i,
                      tosac_dtype_name((*t)->dtype));
    return rc;
}

/* Checks the request and sizes it; every output and temporary tensor goes through here. */
static tosac_code tensor_size(cpu_ctx *c, tosac_dtype dt, int rank, const int64_t *shape,
                              size_t *nbytes)
{
    if (rank < 0 || rank > TOSAC_MAX_RANK)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "output rank %d is beyond %d", rank,
                        TOSAC_MAX_RANK);
    return tosac_shape_check(dt, rank, shape, nbytes, c->err);
}

static void set_meta(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                     void *data, size_t nbytes)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = rank;
    for (int k = 0; k < rank; k++)
        t->shape[k] = shape[k];
    t->data = data;
    t->nbytes = nbytes;
}

tosac_code cpu_tensor_temp(cpu_ctx *c, tosac_tensor *t, tosac_dtype dt, int rank,
                           const int64_t *shape, int zero)
{
    size_t nbytes;
    memset(t, 0, sizeof *t);
    tosac_code rc = tensor_size(c, dt, rank, shape, &nbytes);
    if (rc)
        return rc;
    void *data = cpu_temp(c, nbytes);
    if (!data)
        return c->err ? c->err->code : TOSAC_ERR_INTERNAL;
    if (zero && nbytes)
        memset(data, 0, nbytes);
    set_meta(t, dt, rank, shape, data, nbytes);
    return TOSAC_OK;
}

void cpu_tensor_drop(cpu_ctx *c, tosac_tensor *t)
{
    if (t->data)
        c->ops->release(c, t->data);
    memset(t, 0, sizeof *t);
}

void *cpu_temp(cpu_ctx *c, size_t bytes)
{
    void *p = c->ops->temp(c, bytes ? bytes : 1); /* never NULL on success */
    if (!p)
        cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory for %zu bytes of temporaries", bytes);
    return p;
}

void cpu_release(cpu_ctx *c, void *ptr)
{
    if (ptr)
        c->ops->release(c, ptr);
}

void *cpu_scratch(cpu_ctx *c, size_t bytes)
{
    void *p = c->ops->scratch(c, bytes ? bytes : 1);
    if (!p)
        cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory for %zu bytes of scratch", bytes);
    return p;
}

void *cpu_prepared(cpu_ctx *c, size_t bytes, int *fresh)
{
    *fresh = 0;
    return c->ops->prepared ? c->ops->prepared(c, bytes ? bytes : 1, fresh) : NULL;
}

int cpu_input_is_const(const cpu_ctx *c, int i)
{
    if (i >= c->node->n_inputs || c->node->inputs[i] < 0)
        return 0;
    tosac_tensor v;
    return ir_graph_const_value(c->g, c->node->inputs[i], &v);
}

static tosac_code out_any(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                          int zero, tosac_tensor **t)
{
    if (i < 0 || i >= c->n_out)
        return cpu_fail(c, TOSAC_ERR_INPUT, "output %d is missing", i);
    size_t nbytes;
    tosac_code rc = tensor_size(c, dt, rank, shape, &nbytes);
    if (rc)
        return rc;
    if (c->outs_temp_) {
        cpu_tensor_drop(c, &c->out[i]);
        rc = cpu_tensor_temp(c, &c->out[i], dt, rank, shape, zero);
    } else {
        rc = c->ops->out(c, i, dt, rank, shape, nbytes, zero);
    }
    if (!rc && t)
        *t = &c->out[i];
    return rc;
}

tosac_code cpu_out(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                   tosac_tensor **t)
{
    return out_any(c, i, dt, rank, shape, 1, t);
}

tosac_code cpu_out_uninit(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                          tosac_tensor **t)
{
    return out_any(c, i, dt, rank, shape, 0, t);
}

tosac_code cpu_out_copy(cpu_ctx *c, int i, const tosac_tensor *t, int rank, const int64_t *shape)
{
    tosac_tensor *o = NULL;
    if (tosac_shape_numel(rank, shape) != tosac_tensor_numel(t))
        return cpu_fail(c, TOSAC_ERR_INPUT, "cannot reshape %lld elements to %lld",
                        (long long)tosac_tensor_numel(t), (long long)tosac_shape_numel(rank, shape));
    tosac_code rc = out_any(c, i, t->dtype, rank, shape, 0, &o);
    if (rc)
        return rc;
    if (t->nbytes)
        memcpy(o->data, t->data, t->nbytes);
    return TOSAC_OK;
}

tosac_code cpu_out_take(cpu_ctx *c, int i, tosac_tensor *t)
{
    tosac_code rc;
    if (c->ops->take && !c->outs_temp_) {
        if (i < 0 || i >= c->n_out)
            return cpu_fail(c, TOSAC_ERR_INPUT, "output %d is missing", i);
        rc = c->ops->take(c, i, t);
    } else {
        rc = cpu_out_copy(c, i, t, t->rank, t->shape);
    }
    cpu_tensor_drop(c, t);
    return rc;
}

static int is_half(tosac_dtype dt) { return dt == TOSAC_DT_F16 || dt == TOSAC_DT_BF16; }

int cpu_decl_rank(const cpu_ctx *c, int i)
{
    if (i >= c->node->n_inputs || c->node->inputs[i] < 0 ||
        c->node->inputs[i] >= c->g->n_tensors)
        return -1;
    int r = c->g->tensors[c->node->inputs[i]].rank;
    return r >= 0 && r <= TOSAC_MAX_RANK ? r : -1;
}

int cpu_const_ints(cpu_ctx *c, int i, int64_t *vals, int max, int *n, tosac_code *rc)
{
    tosac_tensor v;
    *rc = TOSAC_OK;
    if (i >= c->node->n_inputs || c->node->inputs[i] < 0 ||
        !ir_graph_const_value(c->g, c->node->inputs[i], &v))
        return 0;
    *rc = cpu_ints(c, &v, vals, max, n);
    return 1;
}

static tosac_code prep_axis0(cpu_ctx *c, void *st)
{
    ((cpu_axis_prep *)st)->axis = cpu_attr_i(c, "axis", 0);
    return TOSAC_OK;
}

static tosac_code prep_axis1(cpu_ctx *c, void *st)
{
    ((cpu_axis_prep *)st)->axis = cpu_attr_i(c, "axis", 1);
    return TOSAC_OK;
}

const cpu_op_prep cpu_prep_axis0 = {prep_axis0, sizeof(cpu_axis_prep), NULL};
const cpu_op_prep cpu_prep_axis1 = {prep_axis1, sizeof(cpu_axis_prep), NULL};

tosac_code cpu_prepare(cpu_ctx *c, const cpu_op_entry *e, void *st)
{
    if (!e->prep)
        return TOSAC_OK;
    if (e->prep->size > CPU_PREP_MAX)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "prepared state of %zu bytes is beyond %d",
                        e->prep->size, CPU_PREP_MAX);
    memset(st, 0, e->prep->size);
    return e->prep->prepare(c, st);
}

tosac_code cpu_prepack(cpu_ctx *c, const cpu_op_entry *e)
{
    return e->prep && e->prep->pack ? e->prep->pack(c) : TOSAC_OK;
}

static tosac_code invoke_prepared(cpu_ctx *c, const cpu_op_entry *e);

tosac_code cpu_invoke(cpu_ctx *c, const cpu_op_entry *e)
{
    if (!e->prep || c->prep)
        return invoke_prepared(c, e);
    /* no state kept by the executor: prepare here, for this call only */
    _Alignas(16) unsigned char local[CPU_PREP_MAX];
    tosac_code rc = cpu_prepare(c, e, local);
    if (!rc) {
        c->prep = local;
        rc = invoke_prepared(c, e);
        c->prep = NULL;
    }
    return rc;
}

static tosac_code invoke_prepared(cpu_ctx *c, const cpu_op_entry *e)
{
    tosac_dtype half = TOSAC_DT_UNKNOWN;
    tosac_tensor wide[CPU_MAX_IO];
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < c->n_in && (e->flags & CPU_F16_VIA_F32) && !rc; i++) {
        if (!c->in[i] || !is_half(c->in[i]->dtype))
            continue;
        half = c->in[i]->dtype;
        rc = cpu_tensor_temp(c, &wide[i], TOSAC_DT_F32, c->in[i]->rank, c->in[i]->shape, 0);
        if (!rc)
            kern_cast(half, TOSAC_DT_F32, tosac_tensor_numel(c->in[i]), c->in[i]->data,
                      wide[i].data);
        c->in[i] = &wide[i];
    }
    if (rc)
        return rc;
    if (half == TOSAC_DT_UNKNOWN)
        return e->fn(c);
    /* f32 results go to temporaries, then narrow into the real outputs (which a runtime
     * planned at the half size) */
    c->outs_temp_ = 1;
    rc = e->fn(c);
    c->outs_temp_ = 0;
    for (int i = 0; i < c->n_out; i++) {
        tosac_tensor r = c->out[i];
        memset(&c->out[i], 0, sizeof c->out[i]);
        if (!rc && r.data && r.dtype == TOSAC_DT_F32) {
            tosac_tensor *o = NULL;
            rc = cpu_out_uninit(c, i, half, r.rank, r.shape, &o);
            if (!rc)
                kern_cast(TOSAC_DT_F32, half, tosac_tensor_numel(&r), r.data, o->data);
        } else if (!rc && r.data) {
            rc = cpu_out_take(c, i, &r);
        }
        cpu_tensor_drop(c, &r);
    }
    return rc;
}

tosac_code cpu_with_temp_outs(cpu_ctx *c, tosac_code (*fn)(cpu_ctx *c, void *user), void *user)
{
    int was = c->outs_temp_;
    c->outs_temp_ = 1;
    tosac_code rc = fn(c, user);
    c->outs_temp_ = was;
    return rc;
}

tosac_code cpu_axis(cpu_ctx *c, int64_t axis, int rank, int *out)
{
    if (axis < -rank || axis >= (rank > 0 ? rank : 1))
        return cpu_fail(c, TOSAC_ERR_INPUT, "axis %lld is out of range for rank %d",
                        (long long)axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return TOSAC_OK;
}

tosac_code cpu_ints(cpu_ctx *c, const tosac_tensor *t, int64_t *vals, int max, int *n)
{
    if (!tosac_dtype_is_int(t->dtype) && t->dtype != TOSAC_DT_SHAPE)
        return cpu_fail(c, TOSAC_ERR_INPUT, "expected an integer tensor, got %s",
                        tosac_dtype_name(t->dtype));
    int64_t cnt = tosac_tensor_numel(t);
    if (cnt > max)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "%lld values where at most %d are supported",
                        (long long)cnt, max);
    for (int64_t i = 0; i < cnt; i++)
        vals[i] = kern_get_i64(t->dtype, t->data, i);
    *n = (int)cnt;
    return TOSAC_OK;
}

tosac_code cpu_scalar_f64(cpu_ctx *c, const tosac_tensor *t, double *v)
{
    if (tosac_tensor_numel(t) != 1)
        return cpu_fail(c, TOSAC_ERR_INPUT, "expected a single value, got %lld",
                        (long long)tosac_tensor_numel(t));
    *v = kern_get_f64(t->dtype, t->data, 0);
    return TOSAC_OK;
}

tosac_code cpu_scalar_i64(cpu_ctx *c, const tosac_tensor *t, int64_t *v)
{
    if (tosac_tensor_numel(t) != 1)
        return cpu_fail(c, TOSAC_ERR_INPUT, "expected a single value, got %lld",
                        (long long)tosac_tensor_numel(t));
    *v = kern_get_i64(t->dtype, t->data, 0);
    return TOSAC_OK;
}

tosac_code cpu_dtype_in(cpu_ctx *c, const tosac_tensor *t, const char *what, ...)
{
    va_list ap;
    va_start(ap, what);
    for (;;) {
        int dt = va_arg(ap, int);
        if (dt == TOSAC_DT_UNKNOWN)
            break;
        if ((tosac_dtype)dt == t->dtype) {
            va_end(ap);
            return TOSAC_OK;
        }
    }
    va_end(ap);
    return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "%s of type %s is not supported", what,
                    tosac_dtype_name(t->dtype));
}

int64_t cpu_attr_i(const cpu_ctx *c, const char *name, int64_t dflt)
{
    return ir_node_attr_int(c->node, name, dflt);
}

float cpu_attr_f(const cpu_ctx *c, const char *name, float dflt)
{
    return ir_node_attr_float(c->node, name, dflt);
}

const char *cpu_attr_s(const cpu_ctx *c, const char *name, const char *dflt)
{
    return ir_node_attr_string(c->node, name, dflt);
}

const int64_t *cpu_attr_ints(const cpu_ctx *c, const char *name, int *n)
{
    return ir_node_attr_ints(c->node, name, n);
}

int cpu_has_attr(const cpu_ctx *c, const char *name) { return ir_node_attr(c->node, name) != NULL; }

void cpu_split_axis(const tosac_tensor *t, int axis, int64_t *outer, int64_t *n, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    for (int k = 0; k < axis; k++)
        *outer *= t->shape[k];
    for (int k = axis + 1; k < t->rank; k++)
        *inner *= t->shape[k];
    *n = t->rank > 0 ? t->shape[axis] : 1;
}

const ir_graph *cpu_subgraph(const cpu_ctx *c, const char *name)
{
    const ir_attr *a = ir_node_attr(c->node, name);
    return a && a->kind == IR_ATTR_GRAPH ? a->g : NULL;
}

int cpu_subgraph_index(const cpu_ctx *c, const ir_graph *body)
{
    const ir_graph *sub;
    for (int k = 0; body && (sub = ir_node_subgraph(c->node, k)); k++)
        if (sub == body)
            return k;
    return -1;
}

tosac_code cpu_run_sub_at(cpu_ctx *c, int k, const tosac_tensor *inputs, int n_inputs,
                          tosac_tensor *outputs, int n_outputs)
{
    for (int i = 0; i < n_outputs; i++)
        memset(&outputs[i], 0, sizeof outputs[i]);
    if (k < 0)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "the body is not a subgraph of the node");
    return c->ops->run_sub(c, k, inputs, n_inputs, outputs, n_outputs);
}

tosac_code cpu_run_sub(cpu_ctx *c, const ir_graph *body, const tosac_tensor *inputs,
                       int n_inputs, tosac_tensor *outputs, int n_outputs)
{
    return cpu_run_sub_at(c, cpu_subgraph_index(c, body), inputs, n_inputs, outputs, n_outputs);
}
