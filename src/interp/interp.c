/* The executor: binds inputs, runs prepared blocks operator by operator, hands out outputs.
 * Nothing here allocates (tosa_interp_run, which copies outputs for its caller, is in
 * interp_host/). */
#include <string.h>

#include "interp/interp_state.h"
#include "util/strfmt.h"

const char *interp_type_str(tosac_dtype dt, int rank, const int64_t *shape, char *buf, size_t len)
{
    char sh[160];
    tosac_strfmt(buf, len, "%s%s", tosac_dtype_name(dt), tosac_shape_str(rank, shape, sh, sizeof sh));
    return buf;
}

bool interp_same_type(const tosac_tensor *a, const tosac_tensor *b)
{
    return a->dtype == b->dtype && tosac_shape_equal(a->rank, a->shape, b->rank, b->shape);
}

bool interp_matches_decl(const tosac_tensor *t, const tosa_tensor *decl)
{
    return t->dtype == decl->dtype && tosac_shape_equal(t->rank, t->shape, decl->rank, decl->shape);
}

void interp_copy_tensor(tosac_tensor *dst, const tosac_tensor *src)
{
    /* the same buffer (the runtime places a delegate's inputs at the CPU values' buffers):
     * nothing to copy */
    if (dst->data != src->data && dst->nbytes)
        memmove(dst->data, src->data, dst->nbytes);
}

/* Copies inputs into the block's input tensors after checking their types. */
static tosac_code bind_inputs(interp_block_state *bs, const tosac_tensor *const *inputs,
                              const tosac_tensor *flat, int n_inputs, tosac_error *err)
{
    const tosa_block *b = bs->block;
    if (n_inputs != b->n_inputs)
        return tosac_fail(err, TOSAC_ERR_INPUT, "block '%s' has %d inputs, %d given", b->name,
                          b->n_inputs, n_inputs);
    for (int i = 0; i < n_inputs; i++) {
        const tosac_tensor *in = inputs ? inputs[i] : &flat[i];
        tosac_tensor *dst = &bs->tensors[b->inputs[i]];
        if (!interp_same_type(dst, in)) {
            char want[200], got[200];
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s': expected %s, got %s",
                              b->tensors[b->inputs[i]].name,
                              interp_type_str(dst->dtype, dst->rank, dst->shape, want, sizeof want),
                              interp_type_str(in->dtype, in->rank, in->shape, got, sizeof got));
        }
        interp_copy_tensor(dst, in);
    }
    return TOSAC_OK;
}

/* Tensors a sub-block names from its caller (outer_ref) take the caller's current value. */
static tosac_code bind_outer_refs(interp_block_state *bs, const interp_block_state *caller,
                                  tosac_error *err)
{
    const tosa_block *b = bs->block;
    for (int t = 0; t < b->n_tensors; t++) {
        if (!b->tensors[t].outer_ref)
            continue;
        int ct = tosa_block_find_tensor(caller->block, b->tensors[t].name);
        if (ct < 0 || !interp_same_type(&caller->tensors[ct], &bs->tensors[t]))
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "block '%s': tensor '%s' is not a tensor of the calling block '%s' "
                              "of the same type", b->name, b->tensors[t].name, caller->block->name);
        interp_copy_tensor(&bs->tensors[t], &caller->tensors[ct]);
    }
    return TOSAC_OK;
}

static tosac_code run_block(interp_state *st, interp_block_state *bs, tosac_error *err)
{
    const tosa_block *b = bs->block;
    st->running[bs->depth] = bs;
    interp_ctx c;
    memset(&c, 0, sizeof c);
    c.st = st;
    c.graph = st->graph;
    c.block = b;
    c.err = err;
    for (int n = 0; n < b->n_ops; n++) {
        int i = bs->order[n];
        const tosa_operator *o = &b->ops[i];
        c.op = o;
        c.in = bs->operands + bs->operand_off[i];
        c.n_in = o->n_inputs;
        c.out = c.in + o->n_inputs;
        c.n_out = o->n_outputs;
        c.op_data = bs->op_data[i];
        tosac_code rc = bs->fns[i](&c);
        if (rc != TOSAC_OK) {
            if (err && err->code == TOSAC_OK) /* an op that failed without saying why */
                interp_error(&c, "failed");
            return rc;
        }
        if (st->observe && bs->depth == 0)
            st->observe(st->observe_user, bs, i);
    }
    return TOSAC_OK;
}

void interp_block_set_op(interp_block_state *bs, int op, interp_op_fn fn, void *data)
{
    bs->fns[op] = fn;
    bs->op_data[op] = data;
}

tosac_code interp_op_nop(interp_ctx *c)
{
    (void)c;
    return TOSAC_OK;
}

tosac_code interp_exec_block(interp_state *st, const tosa_block *b, tosac_tensor *const *inputs,
                             int n_inputs, const interp_block_state **ran, tosac_error *err)
{
    interp_block_state *bs = interp_find_block_state(st, b, st->depth + 1);
    if (!bs)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "block '%s' was not prepared at depth %d",
                          b->name, st->depth + 1);
    tosac_code rc = bind_inputs(bs, (const tosac_tensor *const *)inputs, NULL, n_inputs, err);
    if (!rc)
        rc = bind_outer_refs(bs, st->running[st->depth], err);
    if (rc)
        return rc;
    st->depth++;
    rc = run_block(st, bs, err);
    st->depth--;
    if (ran)
        *ran = bs;
    return rc;
}

const tosac_tensor *interp_block_output(const interp_block_state *bs, int i)
{
    return &bs->tensors[bs->block->outputs[i]];
}

tosac_code interp_execute(interp_state *st, const tosac_tensor *inputs, int n_inputs,
                          tosac_error *err)
{
    tosac_code rc = bind_inputs(st->main, NULL, inputs, n_inputs, err);
    if (rc)
        return rc;
    for (int i = 0; i < st->n_vars; i++) /* variables live for one run */
        st->vars[i].declared = false;
    st->depth = 0;
    return run_block(st, st->main, err);
}

const tosac_tensor *interp_main_output(const interp_state *st, int i)
{
    return &st->main->tensors[st->main->block->outputs[i]];
}
