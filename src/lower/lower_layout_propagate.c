/* Layout propagation over a lowered block (part of the TOSA-level cleanup, lower_cleanup.c).
 *
 * Rules lower in ONNX layout (NCHW) and wrap every layout-sensitive operator in TRANSPOSEs, so
 * a CNN block is CONV, TRANSPOSE to NCHW, elementwise/concat/pad ..., TRANSPOSE back to NHWC,
 * CONV. One forward sweep in operator order (a topological order) moves every transpose past
 * the layout-free operators that read it, towards the block outputs, where it meets the next
 * rule's inverse transpose and both vanish:
 *   - U(T_P(x), ...) becomes T_P(U'(x, ...)) for elementwise operators, CONCAT / REDUCE_* /
 *     REVERSE (axis remapped), PAD / SLICE / TILE (shape operands permuted) and RESCALE
 *     (per-channel only when the last axis stays last). U's other data operands: a constant
 *     is permuted at compile time, one computed from constants alone (a quantized constant's
 *     RESCALE) is recomputed from permuted constants, one whose permutation only moves size-1
 *     dimensions is reshaped, any other needs an inverse TRANSPOSE, so U is passed only when
 *     more transposes vanish than appear;
 *   - T_Q(T_P(x)) is one transpose, none when the perms compose to the identity; two equal
 *     transposes of one tensor (two convolutions reading it) are one;
 *   - RESHAPE(RESHAPE(x)) and RESHAPE(T_P(x)) (T_P moving only size-1 dimensions) read x; a
 *     RESHAPE to x's own shape, an IDENTITY, and an identity transpose are x itself (their
 *     readers are rewired; a block output takes over the tensor's name instead);
 *   - TRANSPOSE and RESHAPE of a constant are folded into a new constant.
 * A second sweep turns the transposes left that only move size-1 dimensions ([1,1,1,C] to
 * [1,C,1,1] before a Flatten) into RESHAPEs, which then fold into their neighbours.
 * Every rewrite moves or relabels values, so results stay bit-identical. Operators left
 * without readers are dropped afterwards by lower_cleanup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "tosa/tosa_internal.h"
#include "tosa/tosa_names.h"

typedef struct lp_state {
    tosa_block *b;
    int *alias;    /* per tensor: the tensor holding its value (itself unless rewired) */
    int *prod;     /* per tensor: index of its producer among the new operators, or -1 */
    int *shared;   /* per tensor: a TRANSPOSE output of it (rules transpose a tensor once
                    * per reader), or -1 */
    int cap;
    bool final;    /* second sweep: size-1 transposes become reshapes */
    tosac_error *err;
    tosa_names names; /* per sweep (fix_outputs renames) */
} lp_state;

static bool lp_fit(lp_state *s)
{
    int n = s->b->n_tensors;
    if (n <= s->cap)
        return true;
    int nc = s->cap * 2 > n ? s->cap * 2 : n + 16;
    int *a = realloc(s->alias, (size_t)nc * sizeof *a);
    if (a)
        s->alias = a;
    int *p = a ? realloc(s->prod, (size_t)nc * sizeof *p) : NULL;
    if (p)
        s->prod = p;
    int *sh = p ? realloc(s->shared, (size_t)nc * sizeof *sh) : NULL;
    if (!sh) {
        tosac_fail(s->err, TOSAC_ERR_INTERNAL, "out of memory in the layout propagation");
        return false;
    }
    s->shared = sh;
    for (int i = s->cap; i < nc; i++) {
        s->alias[i] = i;
        s->prod[i] = s->shared[i] = -1;
    }
    s->cap = nc;
    return true;
}

/* A new tensor named after base ("<base>_pre", "<base>_pre1", ...). */
static int lp_tensor(lp_state *s, int like, tosac_dtype dt, int rank, const int64_t *shape,
                     const void *data, size_t nbytes)
{
    char name[300], stem[300];
    snprintf(stem, sizeof stem, "%s_pre", s->b->tensors[like].name);
    tosa_names_fresh(&s->names, stem, stem, name, sizeof name);
    int t = tosa_block_add_new_tensor(s->b, name, dt, rank, shape, data, nbytes, s->err);
    return t >= 0 && lp_fit(s) ? t : -1;
}

static int lp_emit(lp_state *s, tosa_op op, const tosa_attr *attr, const int *ins, int n_in,
                   int out)
{
    int k = tosa_block_add_op(s->b, op, attr, ins, n_in, &out, 1, s->err);
    if (k < 0)
        return -1;
    s->prod[out] = k;
    return out;
}

/* Appends a moved operator (its arrays and attribute change owner). */
static tosac_code lp_move(lp_state *s, tosa_operator *o)
{
    int k = tosa_block_add_op(s->b, o->op, NULL, o->inputs, o->n_inputs, o->outputs,
                              o->n_outputs, s->err);
    if (k < 0)
        return s->err->code ? s->err->code : TOSAC_ERR_INTERNAL;
    tosa_operator *n = &s->b->ops[k];
    n->attr = o->attr;
    n->location = o->location;
    for (int i = 0; i < o->n_outputs; i++)
        s->prod[o->outputs[i]] = k;
    free(o->inputs);
    free(o->outputs);
    memset(o, 0, sizeof *o);
    return TOSAC_OK;
}

static void lp_drop(tosa_operator *o)
{
    tosa_attr_release(&o->attr);
    free(o->inputs);
    free(o->outputs);
    free(o->location);
    memset(o, 0, sizeof *o);
}

static const tosa_operator *producer(const lp_state *s, int t, tosa_op op)
{
    int p = s->prod[t];
    return p >= 0 && s->b->ops[p].op == op ? &s->b->ops[p] : NULL;
}

/* True if perms (n entries) is a permutation of the r axes: a model's Transpose may repeat an
 * axis, and such an operator is left alone. */
static bool is_perm(const int32_t *perms, int n, int r)
{
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        if (n != r || perms[i] < 0 || perms[i] >= r || (seen >> perms[i] & 1u))
            return false;
        seen |= 1u << perms[i];
    }
    return n == r;
}

/* The TRANSPOSE producing t, if it is a true permutation. */
static const tosa_operator *transpose_of(const lp_state *s, int t)
{
    const tosa_operator *o = producer(s, t, TOSA_OP_TRANSPOSE);
    return o && o->n_inputs == 1 &&
                   is_perm(o->attr.perms, o->attr.n_perms, s->b->tensors[o->inputs[0]].rank)
               ? o : NULL;
}

static bool is_const(const lp_state *s, int t)
{
    return producer(s, t, TOSA_OP_CONST) && s->b->tensors[t].data;
}

static bool is_identity(const int32_t *perm, int r)
{
    for (int i = 0; i < r; i++)
        if (perm[i] != i)
            return false;
    return true;
}

/* True if permuting shape by perm keeps the order of every dimension larger than 1: the
 * transpose moves no data and is a reshape. */
static bool moves_only_ones(const int64_t *shape, const int32_t *perm, int r)
{
    int last = -1;
    for (int i = 0; i < r; i++) {
        if (shape[perm[i]] == 1)
            continue;
        if (perm[i] < last)
            return false;
        last = perm[i];
    }
    return true;
}

static bool same_shape(const tosa_tensor *t, int r, const int64_t *shape)
{
    if (t->rank != r)
        return false;
    for (int i = 0; i < r; i++)
        if (t->shape[i] != shape[i])
            return false;
    return true;
}

/* out = TRANSPOSE(in, perm) on raw elements of es bytes; in has rank r and shape ish. */
static void permute_data(const unsigned char *in, unsigned char *out, size_t es, int r,
                         const int64_t *ish, const int32_t *perm)
{
    int64_t stride[TOSAC_MAX_RANK], osh[TOSAC_MAX_RANK], idx[TOSAC_MAX_RANK] = {0}, n = 1;
    for (int i = r - 1; i >= 0; i--) {
        stride[i] = n;
        n *= ish[i];
    }
    for (int i = 0; i < r; i++)
        osh[i] = ish[perm[i]];
    for (int64_t k = 0; k < n; k++) {
        int64_t src = 0;
        for (int i = 0; i < r; i++)
            src += idx[i] * stride[perm[i]];
        memcpy(out + (size_t)k * es, in + (size_t)src * es, es);
        for (int i = r - 1; i >= 0 && ++idx[i] == osh[i]; i--)
            idx[i] = 0;
    }
}

/* A constant holding the data of constant x (permuted by perm, or as is when perm is NULL)
 * with the given shape: into out when out >= 0 (which then gets the data and a CONST). */
static int lp_const(lp_state *s, int x, const int32_t *perm, int rank, const int64_t *shape,
                    int out)
{
    const tosa_tensor *xt = &s->b->tensors[x];
    size_t nbytes = xt->data_size;
    unsigned char *buf = malloc(nbytes ? nbytes : 1);
    if (!buf) {
        tosac_fail(s->err, TOSAC_ERR_INTERNAL, "out of memory folding constant '%s'", xt->name);
        return -1;
    }
    int64_t n = tosac_shape_numel(xt->rank, xt->shape);
    if (perm && n > 0)
        permute_data(xt->data, buf, nbytes / (size_t)n, xt->rank, xt->shape, perm);
    else
        memcpy(buf, xt->data, nbytes);
    if (out < 0) {
        out = lp_tensor(s, x, xt->dtype, rank, shape, NULL, 0);
        if (out < 0) {
            free(buf);
            return -1;
        }
    }
    tosa_tensor *ot = &s->b->tensors[out];
    free(ot->data);
    ot->data = buf;
    ot->data_size = nbytes;
    return lp_emit(s, TOSA_OP_CONST, NULL, NULL, 0, out);
}

/* The tensor equal to RESHAPE(x, shape): x itself, a folded constant, or a RESHAPE (into out
 * when out >= 0; new_shape is its shape operand, or -1 to make one). */
static int lp_reshape(lp_state *s, int x, int rank, const int64_t *shape, int new_shape, int out)
{
    for (;;) { /* reshapes of reshapes and of size-1 transposes read what those read */
        const tosa_operator *p = producer(s, x, TOSA_OP_RESHAPE);
        const tosa_operator *t = transpose_of(s, x);
        if (p)
            x = p->inputs[0];
        else if (t && moves_only_ones(s->b->tensors[t->inputs[0]].shape, t->attr.perms,
                                      t->attr.n_perms))
            x = t->inputs[0];
        else
            break;
    }
    if (same_shape(&s->b->tensors[x], rank, shape))
        return x;
    if (is_const(s, x))
        return lp_const(s, x, NULL, rank, shape, out);
    if (new_shape < 0) {
        int64_t len = rank;
        int64_t vals[TOSAC_MAX_RANK];
        memcpy(vals, shape, (size_t)rank * sizeof *vals);
        new_shape = lp_tensor(s, x, TOSAC_DT_SHAPE, 1, &len, vals,
                              (size_t)rank * sizeof(int64_t));
        if (new_shape < 0 || lp_emit(s, TOSA_OP_CONST_SHAPE, NULL, NULL, 0, new_shape) < 0)
            return -1;
    }
    if (out < 0 && (out = lp_tensor(s, x, s->b->tensors[x].dtype, rank, shape, NULL, 0)) < 0)
        return -1;
    int ins[2] = {x, new_shape};
    return lp_emit(s, TOSA_OP_RESHAPE, NULL, ins, 2, out);
}

/* The tensor equal to TRANSPOSE(x, perm) (output[i] = input[perm[i]]): x itself when the
 * perms compose to the identity, a folded constant, a RESHAPE in the final sweep, or a
 * TRANSPOSE (into out when out >= 0). */
static int lp_transpose(lp_state *s, int x, const int32_t *perm_in, int out)
{
    const tosa_tensor *xt = &s->b->tensors[x];
    int r = xt->rank;
    int32_t perm[TOSAC_MAX_RANK];
    memcpy(perm, perm_in, (size_t)r * sizeof *perm);
    const tosa_operator *p = transpose_of(s, x);
    if (p && p->attr.n_perms == r) { /* T_perm(T_inner(v)) = T_{inner[perm[i]]}(v) */
        for (int i = 0; i < r; i++)
            perm[i] = p->attr.perms[perm_in[i]];
        x = p->inputs[0];
        xt = &s->b->tensors[x];
    }
    if (is_identity(perm, r))
        return x;
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < r; i++)
        shape[i] = xt->shape[perm[i]];
    if (is_const(s, x))
        return lp_const(s, x, perm, r, shape, out);
    if (s->final && moves_only_ones(xt->shape, perm, r))
        return lp_reshape(s, x, r, shape, -1, out);
    int have = s->shared[x];
    const tosa_operator *h = have >= 0 ? transpose_of(s, have) : NULL;
    if (h && h->inputs[0] == x && memcmp(h->attr.perms, perm, (size_t)r * sizeof *perm) == 0)
        return have;
    if (out < 0 && (out = lp_tensor(s, x, xt->dtype, r, shape, NULL, 0)) < 0)
        return -1;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_perms = r;
    memcpy(a.perms, perm, sizeof perm);
    s->shared[x] = out;
    return lp_emit(s, TOSA_OP_TRANSPOSE, &a, &x, 1, out);
}

/* How a transpose passes an operator: its data operands (the first n_data inputs), and what
 * else changes. */
typedef enum { LP_NO, LP_EWISE, LP_AXIS, LP_SHAPES } lp_kind;

static lp_kind kind_of(const tosa_operator *o, int *n_data)
{
    *n_data = 1;
    switch (o->op) {
    case TOSA_OP_CLAMP: case TOSA_OP_SIGMOID: case TOSA_OP_TANH: case TOSA_OP_ERF:
    case TOSA_OP_ABS: case TOSA_OP_BITWISE_NOT: case TOSA_OP_CEIL: case TOSA_OP_CLZ:
    case TOSA_OP_COS: case TOSA_OP_EXP: case TOSA_OP_FLOOR: case TOSA_OP_LOG:
    case TOSA_OP_LOGICAL_NOT: case TOSA_OP_RECIPROCAL: case TOSA_OP_RSQRT: case TOSA_OP_SIN:
    case TOSA_OP_CAST: case TOSA_OP_NEGATE: case TOSA_OP_TABLE: case TOSA_OP_RESCALE:
        return LP_EWISE; /* other operands: zero points, table, multipliers: not laid out */
    case TOSA_OP_ADD: case TOSA_OP_SUB: case TOSA_OP_MUL: case TOSA_OP_MAXIMUM:
    case TOSA_OP_MINIMUM: case TOSA_OP_POW: case TOSA_OP_INTDIV:
    case TOSA_OP_ARITHMETIC_RIGHT_SHIFT: case TOSA_OP_BITWISE_AND: case TOSA_OP_BITWISE_OR:
    case TOSA_OP_BITWISE_XOR: case TOSA_OP_LOGICAL_AND: case TOSA_OP_LOGICAL_OR:
    case TOSA_OP_LOGICAL_XOR: case TOSA_OP_LOGICAL_LEFT_SHIFT:
    case TOSA_OP_LOGICAL_RIGHT_SHIFT: case TOSA_OP_EQUAL: case TOSA_OP_GREATER:
    case TOSA_OP_GREATER_EQUAL:
        *n_data = 2; /* MUL's third operand is its [1] shift */
        return LP_EWISE;
    case TOSA_OP_SELECT:
        *n_data = 3;
        return LP_EWISE;
    case TOSA_OP_CONCAT:
        *n_data = o->n_inputs;
        return LP_AXIS;
    case TOSA_OP_REDUCE_ALL: case TOSA_OP_REDUCE_ANY: case TOSA_OP_REDUCE_MAX:
    case TOSA_OP_REDUCE_MIN: case TOSA_OP_REDUCE_PRODUCT: case TOSA_OP_REDUCE_SUM:
    case TOSA_OP_REVERSE:
        return LP_AXIS;
    case TOSA_OP_PAD: case TOSA_OP_SLICE: case TOSA_OP_TILE:
        return LP_SHAPES; /* padding / start+size / multiples: one entry (pair) per axis */
    default:
        return LP_NO;
    }
}

/* The shape operands of a LP_SHAPES operator, with how many values each has per axis. */
static int shape_operands(const tosa_operator *o, int *first, int *per_axis)
{
    *first = 1;
    *per_axis = o->op == TOSA_OP_PAD ? 2 : 1;
    return o->op == TOSA_OP_SLICE ? 2 : 1;
}

/* True if t is a constant or computed from constants alone by elementwise operators (the
 * RESCALE of a quantized constant to an operator's scale): permuting it needs no runtime
 * transpose. Depth-bounded. */
static bool from_consts(const lp_state *s, int t, int depth)
{
    if (is_const(s, t))
        return true;
    int p = s->prod[t], n_data;
    if (p < 0 || depth == 0)
        return false;
    const tosa_operator *o = &s->b->ops[p];
    if (kind_of(o, &n_data) != LP_EWISE || o->n_outputs != 1 || o->n_inputs > 8 ||
        (o->op == TOSA_OP_RESCALE && o->attr.per_channel))
        return false;
    for (int i = 0; i < n_data; i++)
        if (s->b->tensors[o->inputs[i]].rank != s->b->tensors[t].rank ||
            !from_consts(s, o->inputs[i], depth - 1))
            return false;
    return true;
}

/* TRANSPOSE(t, perm) of a from_consts tensor: its operators again, on permuted constants. */
static int lp_permute_consts(lp_state *s, int t, const int32_t *perm)
{
    if (is_const(s, t))
        return lp_transpose(s, t, perm, -1);
    tosa_block *b = s->b;
    int p = s->prod[t], n_data, ins[8];
    tosa_op op = b->ops[p].op;
    int n_in = b->ops[p].n_inputs;
    kind_of(&b->ops[p], &n_data);
    memcpy(ins, b->ops[p].inputs, (size_t)n_in * sizeof *ins);
    for (int i = 0; i < n_data; i++)
        if ((ins[i] = lp_permute_consts(s, ins[i], perm)) < 0)
            return -1;
    int r = b->tensors[t].rank;
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < r; i++)
        shape[i] = b->tensors[t].shape[perm[i]];
    int out = lp_tensor(s, t, b->tensors[t].dtype, r, shape, NULL, 0);
    if (out < 0)
        return -1;
    int k = tosa_block_add_op(b, op, &b->ops[p].attr, ins, n_in, &out, 1, s->err);
    if (k < 0)
        return -1;
    s->prod[out] = k;
    return out;
}

/* Moves the transpose o's data operands share past o when that removes more transposes than
 * it adds; *done false leaves o to be kept as it is. */
static tosac_code push(lp_state *s, tosa_operator *o, bool *done)
{
    *done = false;
    int n_data;
    lp_kind kind = kind_of(o, &n_data);
    if (kind == LP_NO || o->n_outputs != 1 || o->n_inputs < n_data)
        return TOSAC_OK;
    tosa_block *b = s->b;
    int z = o->outputs[0], r = b->tensors[z].rank;
    const tosa_operator *tp = NULL;
    for (int i = 0; i < n_data && !tp; i++) {
        tp = transpose_of(s, o->inputs[i]);
        if (tp && tp->attr.n_perms != r)
            tp = NULL;
    }
    if (!tp || r < 2)
        return TOSAC_OK;
    int32_t P[TOSAC_MAX_RANK], inv[TOSAC_MAX_RANK];
    memcpy(P, tp->attr.perms, sizeof P);
    for (int i = 0; i < r; i++)
        inv[P[i]] = i;
    if (o->op == TOSA_OP_RESCALE && o->attr.per_channel && P[r - 1] != r - 1)
        return TOSAC_OK; /* multipliers run along the last axis */
    if (kind == LP_AXIS && (o->attr.axis < 0 || o->attr.axis >= r))
        return TOSAC_OK; /* the validator will name it */
    int removed = 0, added = 1; /* the transpose after o */
    for (int i = 0; i < n_data; i++) {
        int t = o->inputs[i];
        const tosa_operator *ti = transpose_of(s, t);
        if (b->tensors[t].rank != r)
            return TOSAC_OK;
        if (ti && memcmp(ti->attr.perms, P, (size_t)r * sizeof *P) == 0)
            removed++;
        else if (!from_consts(s, t, 4) && !moves_only_ones(b->tensors[t].shape, inv, r))
            added++;
    }
    int first = 0, per_axis = 0, n_shapes = 0;
    if (kind == LP_SHAPES) {
        n_shapes = shape_operands(o, &first, &per_axis);
        if (o->n_inputs < first + n_shapes)
            return TOSAC_OK;
        for (int k = 0; k < n_shapes; k++) {
            int t = o->inputs[first + k];
            const tosa_tensor *st = &b->tensors[t];
            if (!producer(s, t, TOSA_OP_CONST_SHAPE) || !st->data ||
                st->data_size != (size_t)(r * per_axis) * sizeof(int64_t))
                return TOSAC_OK;
        }
    }
    if (removed < added)
        return TOSAC_OK;

    /* o reads its data operands in the layout before the transpose: x' = T_inv(x) */
    for (int i = 0; i < n_data; i++) {
        int t = o->inputs[i];
        const tosa_operator *ti = transpose_of(s, t);
        int64_t sh[TOSAC_MAX_RANK];
        for (int j = 0; j < r; j++)
            sh[j] = b->tensors[t].shape[inv[j]];
        if (is_const(s, t) || (ti && memcmp(ti->attr.perms, P, (size_t)r * sizeof *P) == 0))
            t = lp_transpose(s, t, inv, -1);
        else if (from_consts(s, t, 4))
            t = lp_permute_consts(s, t, inv);
        else if (moves_only_ones(b->tensors[t].shape, inv, r))
            t = lp_reshape(s, t, r, sh, -1, -1);
        else
            t = lp_transpose(s, t, inv, -1);
        if (t < 0)
            return s->err->code;
        o->inputs[i] = t;
    }
    for (int k = 0; k < n_shapes; k++) { /* entry (pair) of axis i moves to axis P[i] */
        int t = o->inputs[first + k];
        int64_t v[2 * TOSAC_MAX_RANK], len = r * per_axis;
        const int64_t *old = b->tensors[t].data;
        for (int i = 0; i < r; i++)
            for (int j = 0; j < per_axis; j++)
                v[P[i] * per_axis + j] = old[i * per_axis + j];
        int nt = lp_tensor(s, t, TOSAC_DT_SHAPE, 1, &len, v, (size_t)len * sizeof *v);
        if (nt < 0 || lp_emit(s, TOSA_OP_CONST_SHAPE, NULL, NULL, 0, nt) < 0)
            return s->err->code;
        o->inputs[first + k] = nt;
    }
    if (kind == LP_AXIS)
        o->attr.axis = P[o->attr.axis];
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < r; i++)
        shape[P[i]] = b->tensors[z].shape[i];
    int zp = lp_tensor(s, z, b->tensors[z].dtype, r, shape, NULL, 0);
    if (zp < 0)
        return s->err->code;
    o->outputs[0] = zp;
    tosac_code rc = lp_move(s, o);
    if (rc)
        return rc;
    if (lp_transpose(s, zp, P, z) < 0)
        return s->err->code;
    *done = true;
    return TOSAC_OK;
}

/* One operator of the sweep; its inputs are already rewired. */
static tosac_code visit(lp_state *s, tosa_operator *o)
{
    tosa_block *b = s->b;
    int out = o->n_outputs == 1 ? o->outputs[0] : -1, res = out;
    if (o->op == TOSA_OP_IDENTITY && o->n_inputs == 1 && out >= 0) {
        const tosa_tensor *x = &b->tensors[o->inputs[0]], *y = &b->tensors[out];
        if (x->dtype == y->dtype && same_shape(x, y->rank, y->shape))
            res = o->inputs[0];
    } else if (o->op == TOSA_OP_TRANSPOSE && o->n_inputs == 1 && out >= 0 &&
               is_perm(o->attr.perms, o->attr.n_perms, b->tensors[o->inputs[0]].rank)) {
        res = lp_transpose(s, o->inputs[0], o->attr.perms, out);
    } else if (o->op == TOSA_OP_RESHAPE && o->n_inputs == 2 && out >= 0) {
        const tosa_tensor *y = &b->tensors[out];
        int64_t shape[TOSAC_MAX_RANK];
        memcpy(shape, y->shape, sizeof shape);
        res = lp_reshape(s, o->inputs[0], y->rank, shape, o->inputs[1], out);
    } else {
        bool done;
        tosac_code rc = push(s, o, &done);
        return rc || done ? rc : lp_move(s, o);
    }
    if (res < 0)
        return s->err->code;
    s->alias[out] = res; /* res == out: rebuilt into out */
    lp_drop(o);
    return TOSAC_OK;
}

static bool is_io(const tosa_block *b, int t)
{
    for (int i = 0; i < b->n_inputs; i++)
        if (b->inputs[i] == t)
            return true;
    for (int i = 0; i < b->n_outputs; i++)
        if (b->outputs[i] == t)
            return true;
    return false;
}

/* A block output whose value now lives in another tensor: that tensor takes the output's
 * name (so the delegate's interface is unchanged), or, when it is itself a block input or
 * output, an IDENTITY copies it. */
static tosac_code fix_outputs(lp_state *s)
{
    tosa_block *b = s->b;
    for (int i = 0; i < b->n_outputs; i++) {
        int t = b->outputs[i], v = s->alias[t];
        if (v == t)
            continue;
        if (is_io(b, v)) {
            s->alias[t] = t;
            if (lp_emit(s, TOSA_OP_IDENTITY, NULL, &v, 1, t) < 0)
                return s->err->code;
            continue;
        }
        char *name = b->tensors[v].name;
        b->tensors[v].name = b->tensors[t].name;
        b->tensors[t].name = name;
        b->outputs[i] = v;
    }
    return TOSAC_OK;
}

static tosac_code sweep(lp_state *s)
{
    tosa_block *b = s->b;
    tosa_operator *old = b->ops;
    int n_old = b->n_ops;
    b->ops = NULL;
    b->n_ops = b->cap_ops = 0;
    for (int i = 0; i < s->cap; i++) {
        s->alias[i] = i;
        s->prod[i] = s->shared[i] = -1;
    }
    tosac_code rc = TOSAC_OK;
    tosa_names_init(&s->names, b);
    int i = 0;
    for (; i < n_old && !rc; i++) {
        tosa_operator *o = &old[i];
        for (int k = 0; k < o->n_inputs; k++)
            o->inputs[k] = s->alias[o->inputs[k]];
        rc = visit(s, o);
    }
    tosa_names_free(&s->names);
    for (int k = rc ? i - 1 : n_old; k < n_old; k++)
        lp_drop(&old[k]);
    free(old);
    return rc ? rc : fix_outputs(s);
}

tosac_code lower_layout_propagate(tosa_block *b, tosac_error *err)
{
    for (int i = 0; i < b->n_ops; i++)
        if (b->ops[i].op == TOSA_OP_COND_IF || b->ops[i].op == TOSA_OP_WHILE_LOOP)
            return TOSAC_OK; /* sub-blocks name this block's tensors: leave names alone */
    lp_state s;
    memset(&s, 0, sizeof s);
    s.b = b;
    s.err = err;
    tosac_code rc = lp_fit(&s) ? sweep(&s) : err->code;
    if (!rc) {
        s.final = true;
        rc = sweep(&s);
    }
    free(s.alias);
    free(s.prod);
    free(s.shared);
    return rc;
}
