/* The lowering context: IR tensor -> block tensor mapping, constants, fresh names, and the
 * small emit helpers every rule uses (transpose, reshape, rank broadcast). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"

const int32_t lower_nchw_to_nhwc[4] = {0, 2, 3, 1};
const int32_t lower_nhwc_to_nchw[4] = {0, 3, 1, 2};

tosac_code lower_ctx_init(lower_ctx *c, const tosa_spec *spec, const ir_graph *g, tosa_block *b,
                          tosac_error *err)
{
    memset(c, 0, sizeof *c);
    c->spec = spec;
    c->g = g;
    c->b = b;
    c->err = err;
    c->block_name = "main";
    const ir_graph *top = g;
    while (top->parent)
        top = top->parent;
    c->opset = top->onnx_opset > 0 ? top->onnx_opset : 13;
    tosa_names_init(&c->names, b);
    c->n_tmap = g->n_tensors;
    c->tmap = malloc((size_t)(g->n_tensors > 0 ? g->n_tensors : 1) * sizeof *c->tmap);
    if (!c->tmap)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory starting a lowering");
    for (int i = 0; i < g->n_tensors; i++)
        c->tmap[i] = -1;
    return TOSAC_OK;
}

void lower_ctx_fini(lower_ctx *c)
{
    free(c->tmap);
    c->tmap = NULL;
    tosa_graph_free(c->pending);
    c->pending = NULL;
    tosa_names_free(&c->names);
}

/* A new tensor named base, base_1, base_2, ...: the first name the block does not have yet. */
static int add_tensor(lower_ctx *c, const char *base, tosac_dtype dt, int rank,
                      const int64_t *shape, const void *data, size_t nbytes)
{
    char name[256], stem[256];
    base = base && *base ? base : "t";
    snprintf(stem, sizeof stem, "%s_", base);
    tosa_names_fresh(&c->names, base, stem, name, sizeof name);
    return tosa_block_add_new_tensor(c->b, name, dt, rank, shape, data, nbytes, c->err);
}

static tosac_code check_static(lower_ctx *c, const ir_tensor *t)
{
    if (t->rank < 0)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "tensor '%s' has an unknown rank",
                          t->name);
    for (int d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                              "tensor '%s' has an unknown dimension %d", t->name, d);
    if (t->dtype == TOSAC_DT_UNKNOWN)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "tensor '%s' has an unknown type",
                          t->name);
    return TOSAC_OK;
}

static bool id_ok(const lower_ctx *c, int id)
{
    return id >= 0 && id < c->n_tmap && id < c->g->n_tensors;
}

int lower_declare(lower_ctx *c, int id)
{
    if (!id_ok(c, id)) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "lowering: tensor id %d out of range", id);
        return -1;
    }
    const ir_tensor *t = &c->g->tensors[id];
    if (check_static(c, t))
        return -1;
    int k = add_tensor(c, t->name, t->dtype, t->rank, t->shape, NULL, 0);
    if (k >= 0)
        c->tmap[id] = k;
    return k;
}

/* Integer constant data converted between integer dtypes (the passes may narrow a tensor's
 * declared dtype, e.g. int64 -> int32, before the data follows); values must fit. */
static int64_t read_int(const void *p, tosac_dtype dt, size_t i)
{
    switch (dt) {
    case TOSAC_DT_BOOL: case TOSAC_DT_U8: return ((const uint8_t *)p)[i];
    case TOSAC_DT_I4: case TOSAC_DT_I8: return ((const int8_t *)p)[i];
    case TOSAC_DT_U16: return ((const uint16_t *)p)[i];
    case TOSAC_DT_I16: return ((const int16_t *)p)[i];
    case TOSAC_DT_U32: return ((const uint32_t *)p)[i];
    case TOSAC_DT_I32: return ((const int32_t *)p)[i];
    default: return ((const int64_t *)p)[i]; /* I48 I64 SHAPE (U64 not converted) */
    }
}

static bool write_int(void *p, tosac_dtype dt, size_t i, int64_t v)
{
    int bits = tosac_dtype_bits(dt);
    if (bits < 64 && (v < -(INT64_C(1) << (bits - 1)) || v >= (INT64_C(1) << (bits - 1))))
        return false;
    switch (dt) {
    case TOSAC_DT_BOOL: ((uint8_t *)p)[i] = v != 0; return true;
    case TOSAC_DT_I4: case TOSAC_DT_I8: ((int8_t *)p)[i] = (int8_t)v; return true;
    case TOSAC_DT_I16: ((int16_t *)p)[i] = (int16_t)v; return true;
    case TOSAC_DT_I32: ((int32_t *)p)[i] = (int32_t)v; return true;
    case TOSAC_DT_I48: case TOSAC_DT_I64: ((int64_t *)p)[i] = v; return true;
    default: return false;
    }
}

static int const_from_ir(lower_ctx *c, int id)
{
    const ir_tensor *t = &c->g->tensors[id];
    tosac_tensor v;
    if (!ir_graph_const_value(c->g, id, &v) || check_static(c, t))
        return -1;
    int64_t numel = tosac_shape_numel(t->rank, t->shape);
    if (tosac_tensor_numel(&v) != numel) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "constant '%s': data does not match its shape",
                   t->name);
        return -1;
    }
    if (v.dtype == t->dtype)
        return lower_const(c, t->name, t->dtype, t->rank, t->shape, v.data);
    if (!tosac_dtype_is_int(v.dtype) || (!tosac_dtype_is_int(t->dtype) && t->dtype != TOSAC_DT_BOOL)) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "constant '%s': %s data for a %s tensor",
                   t->name, tosac_dtype_name(v.dtype), tosac_dtype_name(t->dtype));
        return -1;
    }
    void *buf = malloc((size_t)(numel ? numel : 1) * tosac_dtype_size(t->dtype));
    if (!buf) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory converting '%s'", t->name);
        return -1;
    }
    for (int64_t i = 0; i < numel; i++)
        if (!write_int(buf, t->dtype, (size_t)i, read_int(v.data, v.dtype, (size_t)i))) {
            free(buf);
            tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "constant '%s': value %lld does not fit %s",
                       t->name, (long long)read_int(v.data, v.dtype, (size_t)i),
                       tosac_dtype_name(t->dtype));
            return -1;
        }
    int k = lower_const(c, t->name, t->dtype, t->rank, t->shape, buf);
    free(buf);
    return k;
}

int lower_tensor(lower_ctx *c, int id)
{
    if (!id_ok(c, id)) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "lowering: tensor id %d out of range", id);
        return -1;
    }
    if (c->tmap[id] >= 0)
        return c->tmap[id];
    tosac_tensor v;
    if (!ir_graph_const_value(c->g, id, &v)) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "lowering: tensor '%s' is used before it is "
                   "produced", c->g->tensors[id].name);
        return -1;
    }
    int k = const_from_ir(c, id);
    if (k >= 0)
        c->tmap[id] = k;
    return k;
}

int lower_in(lower_ctx *c, const ir_node *n, int i)
{
    if (i < 0 || i >= n->n_inputs || n->inputs[i] < 0) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: input %d is missing", n->op_type, i);
        return -1;
    }
    return lower_tensor(c, n->inputs[i]);
}

int lower_out(lower_ctx *c, const ir_node *n, int i)
{
    if (i < 0 || i >= n->n_outputs || n->outputs[i] < 0) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: output %d is missing", n->op_type, i);
        return -1;
    }
    return lower_declare(c, n->outputs[i]);
}

const ir_tensor *lower_in_ir(const lower_ctx *c, const ir_node *n, int i)
{
    if (i < 0 || i >= n->n_inputs || !id_ok(c, n->inputs[i]))
        return NULL;
    return &c->g->tensors[n->inputs[i]];
}

const ir_tensor *lower_out_ir(const lower_ctx *c, const ir_node *n, int i)
{
    if (i < 0 || i >= n->n_outputs || !id_ok(c, n->outputs[i]))
        return NULL;
    return &c->g->tensors[n->outputs[i]];
}

bool lower_in_const(const lower_ctx *c, const ir_node *n, int i, tosac_tensor *out)
{
    if (i < 0 || i >= n->n_inputs || !id_ok(c, n->inputs[i]))
        return false;
    return ir_graph_const_value(c->g, n->inputs[i], out);
}

int lower_tmp(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank, const int64_t *shape)
{
    return add_tensor(c, prefix, dt, rank, shape, NULL, 0);
}

int lower_const(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank, const int64_t *shape,
                const void *data)
{
    size_t nbytes = (size_t)tosac_shape_numel(rank, shape) * tosac_dtype_size(dt);
    int k = add_tensor(c, prefix, dt, rank, shape, data, nbytes);
    if (k < 0 || lower_emit(c, TOSA_OP_CONST, NULL, NULL, 0, &k, 1))
        return -1;
    return k;
}

int lower_const_owned(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank,
                      const int64_t *shape, void *data)
{
    int k = add_tensor(c, prefix, dt, rank, shape, NULL, 0);
    if (k < 0) {
        free(data);
        return -1;
    }
    c->b->tensors[k].data = data; /* graph_build's tensors own malloc'd data */
    c->b->tensors[k].data_size = (size_t)tosac_shape_numel(rank, shape) * tosac_dtype_size(dt);
    return lower_emit(c, TOSA_OP_CONST, NULL, NULL, 0, &k, 1) ? -1 : k;
}

int lower_scalar(lower_ctx *c, const char *prefix, tosac_dtype dt, int64_t v)
{
    int64_t one = 1;
    uint8_t buf[8] = {0};
    if (dt == TOSAC_DT_F32) {
        float f = (float)v;
        memcpy(buf, &f, sizeof f);
    } else if ((dt == TOSAC_DT_F16 || dt == TOSAC_DT_BF16) && v == 0) {
        /* +0.0 is all zero bits */
    } else if (!write_int(buf, dt, 0, v)) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s value %lld does not fit %s", prefix,
                   (long long)v, tosac_dtype_name(dt));
        return -1;
    }
    return lower_const(c, prefix, dt, 1, &one, buf);
}

int lower_const_shape(lower_ctx *c, const char *prefix, int n, const int64_t *values)
{
    int64_t len = n;
    int k = add_tensor(c, prefix, TOSAC_DT_SHAPE, 1, &len, values, (size_t)n * sizeof(int64_t));
    if (k < 0 || lower_emit(c, TOSA_OP_CONST_SHAPE, NULL, NULL, 0, &k, 1))
        return -1;
    return k;
}

tosac_code lower_emit(lower_ctx *c, tosa_op op, const tosa_attr *attr, const int *inputs,
                      int n_inputs, const int *outputs, int n_outputs)
{
    tosa_attr none;
    memset(&none, 0, sizeof none);
    if (tosa_block_add_op(c->b, op, attr ? attr : &none, inputs, n_inputs, outputs, n_outputs,
                          c->err) < 0)
        return c->err && c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
    return TOSAC_OK;
}

tosac_dtype lower_dtype(const lower_ctx *c, int t) { return c->b->tensors[t].dtype; }
int lower_rank(const lower_ctx *c, int t) { return c->b->tensors[t].rank; }
const int64_t *lower_shape(const lower_ctx *c, int t) { return c->b->tensors[t].shape; }

int lower_transpose(lower_ctx *c, int t, const int32_t *perms, int out)
{
    if (t < 0)
        return -1;
    int r = lower_rank(c, t);
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < r; i++)
        shape[i] = lower_shape(c, t)[perms[i]];
    if (out < 0)
        out = lower_tmp(c, "transpose", lower_dtype(c, t), r, shape);
    if (out < 0)
        return -1;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_perms = r;
    for (int i = 0; i < r; i++)
        a.perms[i] = perms[i];
    return lower_emit(c, TOSA_OP_TRANSPOSE, &a, &t, 1, &out, 1) ? -1 : out;
}

int lower_reshape(lower_ctx *c, int t, int rank, const int64_t *shape, int out)
{
    if (t < 0)
        return -1;
    int sh = lower_const_shape(c, "shape", rank, shape);
    if (out < 0)
        out = lower_tmp(c, "reshape", lower_dtype(c, t), rank, shape);
    if (sh < 0 || out < 0)
        return -1;
    int ins[2] = {t, sh};
    return lower_emit(c, TOSA_OP_RESHAPE, NULL, ins, 2, &out, 1) ? -1 : out;
}

int lower_broadcast_rank(lower_ctx *c, int t, int r)
{
    if (t < 0)
        return -1;
    int have = lower_rank(c, t);
    if (have >= r)
        return t;
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < r - have; i++)
        shape[i] = 1;
    for (int i = 0; i < have; i++)
        shape[r - have + i] = lower_shape(c, t)[i];
    return lower_reshape(c, t, r, shape, -1);
}

int lower_concat_groups(lower_ctx *c, const char *prefix, int *parts, int n, const int64_t nhwc[4])
{
    int res = lower_tmp(c, prefix, lower_dtype(c, parts[0]), 4, nhwc);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.axis = 3;
    if (res >= 0 && lower_emit(c, TOSA_OP_CONCAT, &a, parts, n, &res, 1))
        res = -1;
    return res;
}
