/* The accelerated-operator walker and the helpers families share (see rt_accel.h). */
#include <string.h>

#include "runtime/accel/rt_accel.h"

void rt_accel_parallel(const rt_accel_shared *sh, int n_tasks, tosac_rt_task task, void *ctx)
{
    if (sh->par && sh->par->run && sh->n_threads > 1 && n_tasks > 1) {
        sh->par->run(sh->par->pool, n_tasks, task, ctx);
        return;
    }
    for (int i = 0; i < n_tasks; i++)
        task(ctx, i, 0);
}

static bool is_const_op(tosa_op op) { return op == TOSA_OP_CONST || op == TOSA_OP_CONST_SHAPE; }

int rt_accel_next_op(const rt_accel_block *ab, int op)
{
    const interp_block_state *bs = ab->bs;
    for (int n = ab->pos[op] + 1; n < ab->b->n_ops; n++)
        if (!is_const_op(ab->b->ops[bs->order[n]].op))
            return bs->order[n];
    return -1;
}

int rt_accel_sole_reader(const rt_accel_block *ab, int t)
{
    if (t < 0 || t >= ab->b->n_tensors)
        return -1;
    if (ab->reader)
        return (ab->reader[t] & (RT_ACCEL_CONST_BIT - 1)) - 1;
    int n = 0; /* operands reading t, +1 if a block output */
    for (int i = 0; i < ab->b->n_ops; i++)
        for (int k = 0; k < ab->b->ops[i].n_inputs; k++)
            n += ab->b->ops[i].inputs[k] == t;
    for (int i = 0; i < ab->b->n_outputs; i++)
        n += ab->b->outputs[i] == t;
    if (n != 1)
        return -1;
    for (int i = 0; i < ab->b->n_ops; i++) {
        const tosa_operator *o = &ab->b->ops[i];
        for (int k = 0; k < o->n_inputs; k++)
            if (o->inputs[k] == t)
                return i;
    }
    return -1; /* its one reader is the block's output list */
}

bool rt_accel_is_const(const rt_accel_block *ab, int t)
{
    const tosa_tensor *d = &ab->b->tensors[t];
    if (d->data && !d->variable)
        return true;
    if (ab->reader)
        return (ab->reader[t] & RT_ACCEL_CONST_BIT) != 0;
    for (int i = 0; i < ab->b->n_ops; i++) {
        const tosa_operator *o = &ab->b->ops[i];
        if (is_const_op(o->op) && o->n_outputs == 1 && o->outputs[0] == t)
            return true;
    }
    return false;
}

void *rt_accel_alloc(rt_accel_block *ab, size_t bytes)
{
    return tosac_arena_alloc(ab->state, bytes, 16);
}

void rt_accel_request_scratch(rt_accel_block *ab, size_t bytes_per_thread)
{
    if (bytes_per_thread > ab->scratch_need)
        ab->scratch_need = bytes_per_thread;
}

static bool overlaps(const tosac_tensor *a, const tosac_tensor *b)
{
    const unsigned char *pa = a->data, *pb = b->data;
    return a->nbytes && b->nbytes && pa < pb + b->nbytes && pb < pa + a->nbytes;
}

/* The last operator of a staged group: moves the result from the stage buffer to the final
 * tensor (memmove: the plan may have let them overlap once the stage's readers are done). */
static tosac_code move_staged(interp_ctx *c)
{
    const tosac_tensor *stage = c->op_data;
    tosac_tensor *final = c->out[0];
    if (final->nbytes && final->data != stage->data)
        memmove(final->data, stage->data, final->nbytes);
    return TOSAC_OK;
}

int rt_accel_install(rt_accel_block *ab, const int *ops, int n_ops, const int *inputs,
                     int n_inputs, int stage, int final, interp_op_fn fn, void *data,
                     void **dst)
{
    if (n_ops < 1)
        return 0;
    for (int k = 0; k < n_ops; k++)
        if (ab->claimed[ops[k]] || (k > 0 && rt_accel_next_op(ab, ops[k - 1]) != ops[k]))
            return 0;
    const tosa_operator *last = &ab->b->ops[ops[n_ops - 1]];
    if (last->n_outputs != 1 || last->outputs[0] != final)
        return 0;
    tosac_tensor *fin = rt_accel_tensor(ab, final);
    bool staged = false;
    for (int i = 0; ab->placed && i < n_inputs && !staged; i++)
        staged = overlaps(fin, rt_accel_tensor(ab, inputs[i]));
    if (staged) {
        tosac_tensor *st = rt_accel_tensor(ab, stage);
        const tosa_operator *first = &ab->b->ops[ops[0]];
        if (n_ops < 2 || first->n_outputs < 1 || first->outputs[0] != stage ||
            st->nbytes < fin->nbytes)
            return 0;
        for (int i = 0; i < n_inputs; i++)
            if (overlaps(st, rt_accel_tensor(ab, inputs[i])))
                return 0;
        *dst = st->data;
        interp_block_set_op(ab->bs, ops[n_ops - 1], move_staged, st);
    } else {
        *dst = fin->data;
        if (n_ops > 1)
            interp_block_set_op(ab->bs, ops[n_ops - 1], interp_op_nop, NULL);
    }
    for (int k = 1; k < n_ops - 1; k++)
        interp_block_set_op(ab->bs, ops[k], interp_op_nop, NULL);
    interp_block_set_op(ab->bs, ops[0], fn, data);
    for (int k = 0; k < n_ops; k++)
        ab->claimed[ops[k]] = 1;
    return 1;
}

/* rd[t] (see rt_accel_block.reader) for every tensor of b, in two sweeps: reads counted,
 * then a tensor read once by an operator (and not a block output) gets that operator. */
static int *index_readers(const tosa_block *b, int *rd)
{
    memset(rd, 0, sizeof(int) * (size_t)b->n_tensors);
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        for (int k = 0; k < o->n_inputs; k++)
            if (o->inputs[k] >= 0 && o->inputs[k] < b->n_tensors)
                rd[o->inputs[k]]++;
    }
    for (int i = 0; i < b->n_outputs; i++)
        rd[b->outputs[i]]++;
    for (int i = 0; i < b->n_ops; i++) { /* read once: -(reader + 2) for now */
        const tosa_operator *o = &b->ops[i];
        for (int k = 0; k < o->n_inputs; k++)
            if (o->inputs[k] >= 0 && o->inputs[k] < b->n_tensors && rd[o->inputs[k]] == 1)
                rd[o->inputs[k]] = -(i + 2);
    }
    for (int t = 0; t < b->n_tensors; t++)
        rd[t] = rd[t] < 0 ? -rd[t] - 1 : 0;
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        if (is_const_op(o->op) && o->n_outputs == 1 && o->outputs[0] >= 0 &&
            o->outputs[0] < b->n_tensors)
            rd[o->outputs[0]] |= RT_ACCEL_CONST_BIT;
    }
    return rd;
}

static tosac_code prepare_block(interp_block_state *bs, tosac_arena *state, rt_accel_shared *sh,
                                bool placed, tosac_error *err)
{
    const tosa_block *b = bs->block;
    if (b->n_ops == 0)
        return TOSAC_OK;
    rt_accel_block ab;
    memset(&ab, 0, sizeof ab);
    ab.bs = bs;
    ab.b = b;
    ab.state = state;
    ab.sh = sh;
    ab.placed = placed;
    int *rd = tosac_arena_alloc(state, sizeof(int) * (size_t)b->n_tensors + 1, 16);
    ab.pos = tosac_arena_alloc(state, sizeof(int) * (size_t)b->n_ops, 16);
    ab.claimed = tosac_arena_alloc(state, (size_t)b->n_ops, 16);
    if (!rd || !ab.pos || !ab.claimed)
        return TOSAC_OK; /* no room: the reference runs */
    memset(ab.claimed, 0, (size_t)b->n_ops);
    if (b->n_ops < RT_ACCEL_CONST_BIT - 2)
        ab.reader = index_readers(b, rd);
    for (int n = 0; n < b->n_ops; n++)
        ab.pos[bs->order[n]] = n;
    tosac_code rc = TOSAC_OK;
    for (int n = 0; n < b->n_ops && !rc; n++) {
        int op = bs->order[n];
        if (ab.claimed[op] || is_const_op(b->ops[op].op))
            continue;
        for (int f = 0; rt_accel_families[f]; f++) {
            int r = rt_accel_families[f]->try_op(&ab, op, err);
            if (r < 0)
                rc = err && err->code ? err->code : TOSAC_ERR_INTERNAL;
            if (r != 0)
                break;
        }
    }
    if (ab.scratch_need > sh->scratch_need)
        sh->scratch_need = ab.scratch_need;
    return rc;
}

tosac_code rt_accel_prepare(interp_state *st, tosac_arena *state, rt_accel_shared *sh,
                            bool placed, tosac_error *err)
{
    for (interp_block_state *bs = st->blocks; bs; bs = bs->next) {
        tosac_code rc = prepare_block(bs, state, sh, placed, err);
        if (rc)
            return rc;
    }
    return TOSAC_OK;
}

tosac_code rt_accel_finish(rt_accel_shared *sh, tosac_arena *state, tosac_error *err)
{
    if (!sh->scratch_need)
        return TOSAC_OK;
    size_t stride = (sh->scratch_need + 15) & ~(size_t)15;
    unsigned char *p = tosac_arena_alloc(state, stride * (size_t)sh->n_threads, 16);
    if (!p && sh->n_threads > 1) { /* no room for a slice per thread: one thread */
        sh->n_threads = 1;
        p = tosac_arena_alloc(state, stride, 16);
    }
    if (!p)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the arena is too small for the accelerated "
                          "kernels' scratch (%zu bytes)", stride);
    sh->scratch = p;
    sh->scratch_stride = stride;
    return TOSAC_OK;
}
