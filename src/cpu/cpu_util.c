/* Helpers for the operator implementations: errors naming the node, inputs, outputs,
 * attributes, axes. */
#include "cpu/cpu_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern.h"

tosac_code cpu_fail(cpu_ctx *c, tosac_code code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *name = c->node->name && c->node->name[0] ? c->node->name : "?";
    return tosac_fail(c->err, code, "node '%s' (%s): %s", name, c->node->op_type, msg);
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

tosac_code cpu_out(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                   tosac_tensor **t)
{
    if (i >= c->n_out)
        return cpu_fail(c, TOSAC_ERR_INPUT, "output %d is missing", i);
    if (rank < 0 || rank > TOSAC_MAX_RANK)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "output rank %d is beyond %d", rank,
                        TOSAC_MAX_RANK);
    tosac_tensor_free(&c->out[i]);
    tosac_code rc = tosac_tensor_alloc(&c->out[i], dt, rank, shape, c->err);
    if (rc)
        return rc;
    if (t)
        *t = &c->out[i];
    return TOSAC_OK;
}

tosac_code cpu_tensor_uninit(cpu_ctx *c, tosac_tensor *t, tosac_dtype dt, int rank,
                             const int64_t *shape)
{
    size_t nbytes;
    memset(t, 0, sizeof *t);
    if (rank < 0 || rank > TOSAC_MAX_RANK)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "output rank %d is beyond %d", rank,
                        TOSAC_MAX_RANK);
    tosac_code rc = tosac_shape_check(dt, rank, shape, &nbytes, c->err);
    if (rc)
        return rc;
    t->data = malloc(nbytes ? nbytes : 1); /* like tosac_tensor_alloc: never NULL */
    if (!t->data)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory allocating %zu bytes",
                          nbytes);
    t->dtype = dt;
    t->rank = rank;
    for (int k = 0; k < rank; k++)
        t->shape[k] = shape[k];
    t->nbytes = nbytes;
    t->owns_data = 1;
    return TOSAC_OK;
}

tosac_code cpu_out_uninit(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                          tosac_tensor **t)
{
    if (i >= c->n_out)
        return cpu_fail(c, TOSAC_ERR_INPUT, "output %d is missing", i);
    tosac_tensor_free(&c->out[i]);
    tosac_code rc = cpu_tensor_uninit(c, &c->out[i], dt, rank, shape);
    if (!rc && t)
        *t = &c->out[i];
    return rc;
}

tosac_code cpu_out_copy(cpu_ctx *c, int i, const tosac_tensor *t, int rank, const int64_t *shape)
{
    tosac_tensor *o = NULL;
    if (tosac_shape_numel(rank, shape) != tosac_tensor_numel(t))
        return cpu_fail(c, TOSAC_ERR_INPUT, "cannot reshape %lld elements to %lld",
                        (long long)tosac_tensor_numel(t), (long long)tosac_shape_numel(rank, shape));
    tosac_code rc = cpu_out(c, i, t->dtype, rank, shape, &o);
    if (rc)
        return rc;
    if (t->nbytes)
        memcpy(o->data, t->data, t->nbytes);
    return TOSAC_OK;
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

cpu_plan *cpu_subplan(const cpu_ctx *c, const char *name)
{
    const ir_attr *a = ir_node_attr(c->node, name);
    if (!a || a->kind != IR_ATTR_GRAPH)
        return NULL;
    for (int k = 0; k < c->n_sub; k++)
        if (ir_node_subgraph(c->node, k) == a->g)
            return c->subplans[k];
    return NULL;
}
