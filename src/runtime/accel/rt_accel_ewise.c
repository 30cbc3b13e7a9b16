/* Accelerated elementwise operators (kernels: src/ukernels/ewise.c): RESCALE of every width
 * the interpreter takes, the residual group RESCALE a, RESCALE b -> ADD -> RESCALE (int8
 * CNNs' skip connections, one pass instead of four), int32 ADD / SUB / MUL of same-shaped
 * operands, integer CLAMP, and TRANSPOSE (a typed strided copy; the reference copies
 * element by element through memcpy). Everything the reference checks statically is checked
 * here (or the operator is left to it); when a data-dependent REQUIRE fails at invoke the
 * kernel runs the reference operators of its group, which report it. */
#include <string.h>

#include "interp/interp_arith.h"
#include "runtime/accel/rt_accel_ewise.h"
#include "ukernels/ewise.h"

/* ---------------------------------------------------------------- shared */

static int64_t numel(const tosac_tensor *t) { return tosac_tensor_numel(t); }

static bool same_shape(const tosac_tensor *a, const tosac_tensor *b)
{
    return tosac_shape_equal(a->rank, a->shape, b->rank, b->shape);
}

/* Installs a single operator reading tensors inputs[0..n). */
static int install_one(rt_accel_block *ab, int op, const int *inputs, int n, interp_op_fn fn,
                       rt_accel_group *g, void *data)
{
    return rt_accel_group_install(ab, g, &op, 1, inputs, n, -1, fn, data);
}

/* ---------------------------------------------------------------- RESCALE */

static int64_t read_int(const tosac_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case TOSAC_DT_I8: return ((const int8_t *)t->data)[i];
    case TOSAC_DT_I16: return ((const int16_t *)t->data)[i];
    case TOSAC_DT_I32: return ((const int32_t *)t->data)[i];
    default: return ((const int64_t *)t->data)[i];
    }
}

bool rt_accel_rescale_params(rt_accel_block *ab, int op, ukr_rescale *p)
{
    const tosa_operator *o = &ab->b->ops[op];
    if (o->op != TOSA_OP_RESCALE || o->n_inputs != 5 || o->n_outputs != 1)
        return false;
    for (int k = 1; k < 5; k++)
        if (!rt_accel_is_const(ab, o->inputs[k]))
            return false;
    const tosa_attr *a = &o->attr;
    const tosac_tensor *in = rt_accel_operand(ab, op, 0), *mul = rt_accel_operand(ab, op, 1),
                       *sh = rt_accel_operand(ab, op, 2), *izp = rt_accel_operand(ab, op, 3),
                       *ozp = rt_accel_operand(ab, op, 4), *out = rt_accel_operand(ab, op, 5);
    int ib = arith_rescale_bits(in->dtype), ob = arith_rescale_bits(out->dtype);
    uint32_t rm = a->rounding_mode;
    if (!ib || !ob || ob == 48 || !same_shape(in, out) || izp->dtype != in->dtype ||
        ozp->dtype != out->dtype || numel(izp) != 1 || numel(ozp) != 1 ||
        mul->dtype != (a->scale32 ? TOSAC_DT_I32 : TOSAC_DT_I16) || sh->dtype != TOSAC_DT_I8 ||
        (a->per_channel && in->rank < 1) || a->input_unsigned || a->output_unsigned ||
        (rm != TOSA_ROUND_SINGLE && rm != TOSA_ROUND_INEXACT && rm != TOSA_ROUND_DOUBLE) ||
        (a->scale32 && ib == 48) || (!a->scale32 && rm == TOSA_ROUND_DOUBLE) ||
        (-1 >> 1) != -1 /* the kernels' arithmetic right shift */)
        return false;
    int64_t nc = a->per_channel ? in->shape[in->rank - 1] : 1;
    if (mul->rank != 1 || mul->shape[0] != nc || sh->rank != 1 || sh->shape[0] != nc ||
        nc < 1 || nc > INT32_MAX)
        return false;
    int64_t in_zp = read_int(izp, 0), out_zp = read_int(ozp, 0);
    if ((ib != 8 && in_zp != 0) || (ob != 8 && out_zp != 0))
        return false;
    ukr_rescale_ch *ch = rt_accel_alloc(ab, sizeof *ch * (size_t)nc);
    if (!ch)
        return false;
    for (int64_t k = 0; k < nc; k++) {
        int64_t m = read_int(mul, k), s = ((const int8_t *)sh->data)[k];
        if (m < 0 || (!a->scale32 && m > INT16_MAX) || s < 2 || s > 62)
            return false; /* the reference reports these REQUIREs at invoke */
        ukr_rescale_ch_init(&ch[k], (int32_t)m, (int)s, a->scale32 && rm == TOSA_ROUND_DOUBLE);
    }
    memset(p, 0, sizeof *p);
    p->in_bits = ib;
    p->out_bits = ob;
    p->in_zp = in_zp;
    p->out_zp = out_zp;
    p->lo = -((int64_t)1 << (ob - 1));
    p->hi = ((int64_t)1 << (ob - 1)) - 1;
    p->n_ch = (int)nc;
    p->ch = ch;
    p->scale16 = !a->scale32;
    if (nc > 1) { /* the vectorised per-channel loops' arrays (every variant allocates them) */
        int64_t *soa = rt_accel_alloc(ab, sizeof(int64_t) * 5 * (size_t)nc);
        if (!soa)
            return false;
        ukr_rescale_soa(p, soa);
    }
    return true;
}

typedef struct rescale_data {
    rt_accel_group g;
    ukr_rescale p;
    ukr_rescale_fn fn;
} rescale_data;

static tosac_code run_rescale(interp_ctx *c)
{
    rescale_data *d = c->op_data;
    const tosac_tensor *in = c->in[0];
    if (!d->fn(&d->p, in->data, d->g.dst, numel(in)))
        return rt_accel_group_reference(c, &d->g);
    return TOSAC_OK;
}

static int try_rescale(rt_accel_block *ab, int op)
{
    rescale_data *d = rt_accel_alloc(ab, sizeof *d);
    if (!d || !rt_accel_rescale_params(ab, op, &d->p))
        return 0;
    d->fn = ukr_rescale_select(kern_isa_active());
    int in = ab->b->ops[op].inputs[0];
    return install_one(ab, op, &in, 1, run_rescale, &d->g, d);
}

/* ---- the residual group: RESCALE x, RESCALE y -> ADD -> RESCALE ---- */

typedef struct residual_data {
    rt_accel_group g;
    ukr_rescale a, b, c;
    ukr_add_rescale_fn fn;
    const tosac_tensor *y;
} residual_data;

static tosac_code run_residual(interp_ctx *c)
{
    residual_data *d = c->op_data;
    const tosac_tensor *x = c->in[0];
    if (!d->fn(&d->a, &d->b, &d->c, x->data, d->y->data, d->g.dst, numel(x)))
        return rt_accel_group_reference(c, &d->g);
    return TOSAC_OK;
}

/* op is the first RESCALE; the group is it, the next RESCALE, an ADD of their two results
 * (read by nothing else) and a RESCALE of the sum (read by nothing else), all one shape. */
static int try_residual(rt_accel_block *ab, int op)
{
    const tosa_block *b = ab->b;
    int r2 = rt_accel_next_op(ab, op);
    int add = r2 >= 0 ? rt_accel_next_op(ab, r2) : -1;
    int r3 = add >= 0 ? rt_accel_next_op(ab, add) : -1;
    if (r3 < 0 || b->ops[r2].op != TOSA_OP_RESCALE || b->ops[add].op != TOSA_OP_ADD ||
        b->ops[r3].op != TOSA_OP_RESCALE || ab->claimed[r2] || ab->claimed[add] ||
        ab->claimed[r3])
        return 0;
    const tosa_operator *A = &b->ops[add];
    int ta = b->ops[op].outputs[0], tb = b->ops[r2].outputs[0];
    if (A->n_inputs != 2 || A->n_outputs != 1 || b->ops[r3].inputs[0] != A->outputs[0] ||
        !((A->inputs[0] == ta && A->inputs[1] == tb) || (A->inputs[0] == tb && A->inputs[1] == ta)) ||
        ta == tb || rt_accel_sole_reader(ab, ta) != add || rt_accel_sole_reader(ab, tb) != add ||
        rt_accel_sole_reader(ab, A->outputs[0]) != r3)
        return 0;
    residual_data *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    /* a + b is symmetric: a is the group's first RESCALE, whose input the kernel gets */
    if (!rt_accel_rescale_params(ab, op, &d->a) || !rt_accel_rescale_params(ab, r2, &d->b) ||
        !rt_accel_rescale_params(ab, r3, &d->c))
        return 0;
    const tosac_tensor *x = rt_accel_operand(ab, op, 0), *y = rt_accel_operand(ab, r2, 0),
                       *s = rt_accel_operand(ab, add, 2), *out = rt_accel_operand(ab, r3, 5);
    if (x->dtype != y->dtype || (d->a.in_bits != 8 && d->a.in_bits != 16) ||
        d->a.out_bits != 32 || d->b.out_bits != 32 || s->dtype != TOSAC_DT_I32 ||
        (d->c.out_bits != 8 && d->c.out_bits != 16) || !same_shape(x, y) ||
        !same_shape(x, s) || !same_shape(x, out))
        return 0;
    int ops[4] = {op, r2, add, r3};
    int inputs[2] = {b->ops[op].inputs[0], b->ops[r2].inputs[0]};
    d->y = y;
    d->fn = ukr_add_rescale_select(kern_isa_active());
    return rt_accel_group_install(ab, &d->g, ops, 4, inputs, 2, ta, run_residual, d);
}

/* ---------------------------------------------------------------- ADD / SUB / MUL */

typedef struct arith_data {
    rt_accel_group g;
    int what, shift;
    ukr_arith_fn fn;
} arith_data;

static tosac_code run_arith(interp_ctx *c)
{
    arith_data *d = c->op_data;
    if (!d->fn(d->what, d->shift, c->in[0]->data, c->in[1]->data, d->g.dst, numel(c->in[0])))
        return rt_accel_group_reference(c, &d->g);
    return TOSAC_OK;
}

static int try_arith(rt_accel_block *ab, int op)
{
    const tosa_operator *o = &ab->b->ops[op];
    int what = o->op == TOSA_OP_ADD ? UKR_ADD : o->op == TOSA_OP_SUB ? UKR_SUB : UKR_MUL;
    if (o->n_inputs != (what == UKR_MUL ? 3 : 2) || o->n_outputs != 1)
        return 0;
    const tosac_tensor *a = rt_accel_operand(ab, op, 0), *b = rt_accel_operand(ab, op, 1),
                       *out = rt_accel_operand(ab, op, o->n_inputs);
    if (a->dtype != TOSAC_DT_I32 || b->dtype != TOSAC_DT_I32 || out->dtype != TOSAC_DT_I32 ||
        !same_shape(a, b) || !same_shape(a, out))
        return 0;
    int shift = 0;
    if (what == UKR_MUL) {
        const tosac_tensor *s = rt_accel_operand(ab, op, 2);
        if (!rt_accel_is_const(ab, o->inputs[2]) || s->dtype != TOSAC_DT_I8 || numel(s) != 1)
            return 0;
        shift = ((const int8_t *)s->data)[0];
        if (shift < 0 || shift > 63)
            return 0;
    }
    arith_data *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    d->what = what;
    d->shift = shift;
    d->fn = ukr_arith_select(kern_isa_active());
    return install_one(ab, op, o->inputs, 2, run_arith, &d->g, d);
}

/* ---------------------------------------------------------------- CLAMP */

typedef struct clamp_data {
    rt_accel_group g;
    int bits;
    int64_t lo, hi;
    ukr_clamp_fn fn;
} clamp_data;

static tosac_code run_clamp(interp_ctx *c)
{
    clamp_data *d = c->op_data;
    d->fn(d->bits, d->lo, d->hi, c->in[0]->data, d->g.dst, numel(c->in[0]));
    return TOSAC_OK;
}

static int try_clamp(rt_accel_block *ab, int op)
{
    const tosa_operator *o = &ab->b->ops[op];
    if (o->n_inputs != 1 || o->n_outputs != 1)
        return 0;
    const tosac_tensor *in = rt_accel_operand(ab, op, 0), *out = rt_accel_operand(ab, op, 1);
    int bits = in->dtype == TOSAC_DT_I8 ? 8 : in->dtype == TOSAC_DT_I16 ? 16 : 0;
    int nb = bits / 8;
    if (!bits || out->dtype != in->dtype || !same_shape(in, out) || o->attr.n_min_val < nb ||
        o->attr.n_max_val < nb)
        return 0;
    /* the attribute's little-endian bytes, as the reference decodes them */
    int64_t lo = bits == 8 ? (int8_t)o->attr.min_val[0]
                           : (int16_t)(uint16_t)(o->attr.min_val[0] | o->attr.min_val[1] << 8);
    int64_t hi = bits == 8 ? (int8_t)o->attr.max_val[0]
                           : (int16_t)(uint16_t)(o->attr.max_val[0] | o->attr.max_val[1] << 8);
    if (hi < lo)
        return 0;
    clamp_data *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    d->bits = bits;
    d->lo = lo;
    d->hi = hi;
    d->fn = ukr_clamp_select(kern_isa_active());
    return install_one(ab, op, o->inputs, 1, run_clamp, &d->g, d);
}

/* ---------------------------------------------------------------- TRANSPOSE */

typedef struct transpose_data {
    rt_accel_group g;
    ukr_view v;
} transpose_data;

static tosac_code run_transpose(interp_ctx *c)
{
    transpose_data *d = c->op_data;
    ukr_copy_view(&d->v, c->in[0]->data, d->g.dst);
    return TOSAC_OK;
}

static int try_transpose(rt_accel_block *ab, int op)
{
    const tosa_operator *o = &ab->b->ops[op];
    if (o->n_inputs != 1 || o->n_outputs != 1)
        return 0;
    const tosac_tensor *in = rt_accel_operand(ab, op, 0), *out = rt_accel_operand(ab, op, 1);
    size_t esz = tosac_dtype_size(in->dtype);
    int r = in->rank;
    if (out->dtype != in->dtype || out->rank != r || o->attr.n_perms != r || r < 1 ||
        r > UKR_VIEW_MAX_RANK || (esz != 1 && esz != 2 && esz != 4 && esz != 8) ||
        in->dtype == TOSAC_DT_I4 || in->dtype == TOSAC_DT_BOOL)
        return 0;
    int64_t ist[TOSAC_MAX_RANK], s = 1;
    bool used[TOSAC_MAX_RANK] = {false};
    for (int d = r - 1; d >= 0; d--) {
        ist[d] = s;
        s *= in->shape[d];
    }
    transpose_data *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    for (int i = 0; i < r; i++) {
        int p = o->attr.perms[i];
        if (p < 0 || p >= r || used[p] || in->shape[p] != out->shape[i])
            return 0;
        used[p] = true;
        d->v.shape[i] = out->shape[i];
        d->v.src_stride[i] = ist[p];
    }
    d->v.rank = r;
    d->v.esz = (int)esz;
    ukr_view_init(&d->v);
    return install_one(ab, op, o->inputs, 1, run_transpose, &d->g, d);
}

/* ---------------------------------------------------------------- family */

static int ewise_try(rt_accel_block *ab, int op, tosac_error *err)
{
    (void)err;
    switch (ab->b->ops[op].op) {
    case TOSA_OP_RESCALE: return try_residual(ab, op) || try_rescale(ab, op);
    case TOSA_OP_ADD:
    case TOSA_OP_SUB:
    case TOSA_OP_MUL: return try_arith(ab, op);
    case TOSA_OP_CLAMP: return try_clamp(ab, op);
    case TOSA_OP_TRANSPOSE: return try_transpose(ab, op);
    default: return 0;
    }
}

const rt_accel_family rt_accel_ewise = {"ewise", ewise_try};
