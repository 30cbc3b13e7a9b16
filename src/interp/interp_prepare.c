/* Preparing a graph for execution: allocate every tensor of every reachable block, resolve
 * operators, check operand counts, and fix an execution order. All allocation of a run
 * happens here, through the state's allocator (see interp_state.h). */
#include <stdalign.h>
#include <string.h>

#include "interp/interp_registry.h"
#include "interp/interp_state.h"
#include "util/strfmt.h"

static const char *op_label(const tosa_block *b, int i, char *buf, size_t len)
{
    const tosa_operator *o = &b->ops[i];
    const char *oname = o->n_outputs > 0 && o->outputs[0] >= 0 && o->outputs[0] < b->n_tensors
                            ? b->tensors[o->outputs[0]].name
                            : NULL;
    if (oname)
        tosac_strfmt(buf, len, "block '%s' operator %d (%s, output '%s')", b->name ? b->name : "?", i,
                 tosa_op_name(o->op) ? tosa_op_name(o->op) : "?", oname);
    else
        tosac_strfmt(buf, len, "block '%s' operator %d (%s)", b->name ? b->name : "?", i,
                 tosa_op_name(o->op) ? tosa_op_name(o->op) : "?");
    return buf;
}

static const char *var_name(const tosa_tensor *t)
{
    return t->variable_name && t->variable_name[0] ? t->variable_name : t->name;
}

interp_var *interp_find_var(interp_state *st, const char *name)
{
    for (int i = 0; i < st->n_vars; i++)
        if (strcmp(st->vars[i].name, name) == 0)
            return &st->vars[i];
    return NULL;
}

static void *state_alloc(interp_state *st, size_t bytes, tosac_error *err)
{
    void *p = tosac_alloc_zero(&st->alloc, bytes ? bytes : 1, 0);
    if (!p)
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory preparing the TOSA graph (the "
                   "allocator refused %llu bytes)", (unsigned long long)bytes);
    return p;
}

/* t gets dtype and shape and its data: buf when given, else zeroed memory from the state's
 * allocator (*owned set). owns_data stays 0: tosac_tensor_free on a copy must not free it;
 * interp_state_free releases what is owned through the allocator. */
static tosac_code tensor_init(interp_state *st, tosac_tensor *t, tosac_dtype dt, int rank,
                              const int64_t *shape, void *buf, unsigned char *owned,
                              tosac_error *err)
{
    tosac_code rc = tosac_tensor_describe(t, dt, rank, shape, err);
    if (rc)
        return rc;
    size_t nbytes = t->nbytes;
    if (buf) {
        t->data = buf;
        return TOSAC_OK;
    }
    /* at least one byte so data != NULL for empty tensors; 16-aligned for every dtype */
    t->data = tosac_alloc_zero(&st->alloc, nbytes ? nbytes : 1, 16);
    if (!t->data)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory (the allocator refused %llu "
                          "bytes)", (unsigned long long)nbytes);
    *owned = 1;
    return TOSAC_OK;
}

static tosac_code add_var(interp_state *st, const tosa_tensor *t, tosac_error *err)
{
    if (interp_find_var(st, var_name(t)))
        return TOSAC_OK;
    if (st->n_vars >= st->cap_vars) /* counted in interp_prepare_ex */
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "more variables than counted");
    interp_var *nv = &st->vars[st->n_vars];
    memset(nv, 0, sizeof *nv);
    nv->name = var_name(t);
    nv->decl = t;
    tosac_error local;
    tosac_error_clear(&local);
    unsigned char owned = 0;
    if (tensor_init(st, &nv->value, t->dtype, t->rank, t->shape, NULL, &owned, &local))
        return tosac_fail(err, local.code, "variable '%s': %s", nv->name, local.msg);
    st->n_vars++;
    return TOSAC_OK;
}

/* Marks with 1 in w[t] every tensor an operator other than CONST / CONST_SHAPE writes or the
 * block takes as an input (binding copies to those), 0 elsewhere: in one pass (a scan of the
 * operators per constant made preparing quadratic in the block size). */
static void mark_written(const tosa_block *b, unsigned char *w)
{
    memset(w, 0, (size_t)b->n_tensors);
    for (int i = 0; i < b->n_inputs; i++)
        if (b->inputs[i] >= 0 && b->inputs[i] < b->n_tensors)
            w[b->inputs[i]] = 1;
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        if (o->op == TOSA_OP_CONST || o->op == TOSA_OP_CONST_SHAPE)
            continue;
        for (int k = 0; k < o->n_outputs; k++)
            if (o->outputs[k] >= 0 && o->outputs[k] < b->n_tensors)
                w[o->outputs[k]] = 1;
    }
}

/* A constant the interpreter may use in place: its data is only ever read (not written, see
 * mark_written). */
static bool read_only_constant(const tosa_tensor *d, bool written)
{
    return d->data && !d->variable && !d->outer_ref && !written;
}

interp_block_state *interp_find_block_state(interp_state *st, const tosa_block *b, int depth)
{
    for (interp_block_state *bs = st->blocks; bs; bs = bs->next)
        if (bs->block == b && bs->depth == depth)
            return bs;
    return NULL;
}

static tosac_code alloc_tensors(interp_state *st, interp_block_state *bs, tosac_error *err)
{
    const tosa_block *b = bs->block;
    bs->tensors = state_alloc(st, (size_t)b->n_tensors * sizeof *bs->tensors, err);
    bs->owned = bs->tensors ? state_alloc(st, (size_t)b->n_tensors, err) : NULL;
    if (!bs->owned)
        return err->code;
    /* owned[] holds the marks until the loop reaches them (later ones, left by an error,
     * meet tensors without data: releasing those is a no-op) */
    mark_written(b, bs->owned);
    for (int t = 0; t < b->n_tensors; t++) {
        const tosa_tensor *d = &b->tensors[t];
        bool written = bs->owned[t];
        bs->owned[t] = 0;
        if (d->is_unranked)
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "block '%s': tensor '%s' is unranked (not supported)", b->name, d->name);
        tosac_error local;
        tosac_error_clear(&local);
        size_t nbytes = 0;
        if (tosac_shape_check(d->dtype, d->rank, d->shape, &nbytes, &local))
            return tosac_fail(err, local.code, "block '%s': tensor '%s': %s", b->name, d->name,
                              local.msg);
        if (d->data && d->data_size < nbytes)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "block '%s': tensor '%s' has %zu bytes of data, needs %zu", b->name,
                              d->name, d->data_size, nbytes);
        /* constants in place (never written), main-block tensors where the caller puts them */
        void *buf = NULL;
        if (read_only_constant(d, written))
            buf = d->data;
        else if (bs->depth == 0 && st->place)
            buf = st->place(st->place_user, b, t, nbytes);
        if (tensor_init(st, &bs->tensors[t], d->dtype, d->rank, d->shape, buf, &bs->owned[t],
                        &local))
            return tosac_fail(err, local.code, "block '%s': tensor '%s': %s", b->name, d->name,
                              local.msg);
        if (d->variable && add_var(st, d, err))
            return err->code;
    }
    return TOSAC_OK;
}

/* Checks each operator's operand counts and indices, resolves its function and builds the
 * flattened operand pointer array. */
static tosac_code resolve_ops(interp_state *st, interp_block_state *bs, tosac_error *err)
{
    const tosa_block *b = bs->block;
    char lbl[256];
    int total = 0;
    bs->fns = state_alloc(st, (size_t)b->n_ops * sizeof *bs->fns, err);
    bs->operand_off = bs->fns ? state_alloc(st, ((size_t)b->n_ops + 1) * sizeof *bs->operand_off, err) : NULL;
    bs->op_data = bs->operand_off ? state_alloc(st, (size_t)b->n_ops * sizeof *bs->op_data, err) : NULL;
    if (!bs->fns || !bs->operand_off || !bs->op_data)
        return err->code;
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        interp_arity ar;
        if (o->op == TOSA_OP_CUSTOM)
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "%s: CUSTOM operator '%s' (domain '%s') cannot be interpreted",
                              op_label(b, i, lbl, sizeof lbl),
                              o->attr.custom_operator_name ? o->attr.custom_operator_name : "",
                              o->attr.custom_domain_name ? o->attr.custom_domain_name : "");
        if (!interp_op_arity(o->op, &ar))
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: unknown operator %d",
                              op_label(b, i, lbl, sizeof lbl), (int)o->op);
        if (o->n_inputs < ar.min_in || (ar.max_in >= 0 && o->n_inputs > ar.max_in) ||
            o->n_outputs < ar.min_out || (ar.max_out >= 0 && o->n_outputs > ar.max_out)) {
            char want_in[32], want_out[32];
            if (ar.min_in == ar.max_in)
                tosac_strfmt(want_in, sizeof want_in, "%d", ar.min_in);
            else
                tosac_strfmt(want_in, sizeof want_in, "%d..%d", ar.min_in, ar.max_in);
            if (ar.min_out == ar.max_out)
                tosac_strfmt(want_out, sizeof want_out, "%d", ar.min_out);
            else
                tosac_strfmt(want_out, sizeof want_out, "%d..%d", ar.min_out, ar.max_out);
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "%s: has %d inputs and %d outputs, the operator takes %s inputs and %s outputs",
                              op_label(b, i, lbl, sizeof lbl), o->n_inputs, o->n_outputs, want_in,
                              want_out);
        }
        for (int k = 0; k < o->n_inputs + o->n_outputs; k++) {
            int t = k < o->n_inputs ? o->inputs[k] : o->outputs[k - o->n_inputs];
            if (t < 0 || t >= b->n_tensors)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s: operand %d refers to no tensor",
                                  op_label(b, i, lbl, sizeof lbl), k);
        }
        bs->fns[i] = interp_find_op(o->op);
        if (!bs->fns[i])
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "%s: the interpreter does not implement %s",
                              op_label(b, i, lbl, sizeof lbl), tosa_op_name(o->op));
        bs->operand_off[i] = total;
        total += o->n_inputs + o->n_outputs;
    }
    bs->operand_off[b->n_ops] = total;
    bs->operands = state_alloc(st, (size_t)total * sizeof *bs->operands, err);
    if (!bs->operands)
        return err->code;
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        tosac_tensor **p = bs->operands + bs->operand_off[i];
        for (int k = 0; k < o->n_inputs; k++)
            p[k] = &bs->tensors[o->inputs[k]];
        for (int k = 0; k < o->n_outputs; k++)
            p[o->n_inputs + k] = &bs->tensors[o->outputs[k]];
    }
    return TOSAC_OK;
}

/* Execution order: the listed order whenever it is valid, otherwise a dependency order
 * (each pass runs every operator whose inputs exist, earliest first). A tensor is
 * available if it is a block input, a variable, constant data nobody produces, or the
 * output of an operator already scheduled. */
static tosac_code schedule(interp_state *st, interp_block_state *bs, tosac_error *err)
{
    const tosa_block *b = bs->block;
    char lbl[256];
    int nt = b->n_tensors, no = b->n_ops;
    /* bs->order first: the temporaries after it are released (an arena keeps them) */
    bs->order = state_alloc(st, (size_t)no * sizeof *bs->order, err);
    int *producer = bs->order ? state_alloc(st, (size_t)nt * sizeof *producer, err) : NULL;
    bool *ready = producer ? state_alloc(st, (size_t)nt * sizeof *ready, err) : NULL;
    bool *done = ready ? state_alloc(st, (size_t)no * sizeof *done, err) : NULL;
    tosac_code rc = TOSAC_OK;
    if (!done) {
        rc = err->code;
        goto out;
    }
    for (int t = 0; t < nt; t++)
        producer[t] = -1;
    for (int i = 0; i < b->n_inputs + b->n_outputs; i++) {
        int t = i < b->n_inputs ? b->inputs[i] : b->outputs[i - b->n_inputs];
        if (t < 0 || t >= nt) {
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "block '%s': %s %d refers to no tensor", b->name,
                            i < b->n_inputs ? "input" : "output",
                            i < b->n_inputs ? i : i - b->n_inputs);
            goto out;
        }
    }
    for (int i = 0; i < b->n_inputs; i++)
        ready[b->inputs[i]] = true;
    for (int i = 0; i < no; i++) {
        const tosa_operator *o = &b->ops[i];
        for (int k = 0; k < o->n_outputs; k++) {
            int t = o->outputs[k];
            if (b->tensors[t].variable)
                continue; /* written by VARIABLE / VARIABLE_WRITE, possibly many times */
            if (ready[t] && producer[t] < 0) {
                rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: writes block input '%s'",
                                op_label(b, i, lbl, sizeof lbl), b->tensors[t].name);
                goto out;
            }
            if (producer[t] >= 0) {
                rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: tensor '%s' is also written by operator %d",
                                op_label(b, i, lbl, sizeof lbl), b->tensors[t].name, producer[t]);
                goto out;
            }
            producer[t] = i;
        }
    }
    for (int t = 0; t < nt; t++)
        if (b->tensors[t].variable || b->tensors[t].outer_ref ||
            (producer[t] < 0 && b->tensors[t].data))
            ready[t] = true;
    int n = 0;
    while (n < no) {
        int before = n;
        for (int i = 0; i < no; i++) {
            if (done[i])
                continue;
            const tosa_operator *o = &b->ops[i];
            bool ok = true;
            for (int k = 0; k < o->n_inputs && ok; k++)
                ok = ready[o->inputs[k]];
            if (!ok)
                continue;
            done[i] = true;
            bs->order[n++] = i;
            for (int k = 0; k < o->n_outputs; k++)
                ready[o->outputs[k]] = true;
        }
        if (n == before) { /* name the first stuck operator and its missing input */
            for (int i = 0; i < no; i++) {
                if (done[i])
                    continue;
                const tosa_operator *o = &b->ops[i];
                for (int k = 0; k < o->n_inputs; k++)
                    if (!ready[o->inputs[k]]) {
                        int t = o->inputs[k];
                        rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: input '%s' %s",
                                        op_label(b, i, lbl, sizeof lbl), b->tensors[t].name,
                                        producer[t] < 0 ? "is never produced"
                                                        : "depends on a cycle");
                        goto out;
                    }
            }
        }
    }
    for (int i = 0; i < b->n_outputs; i++)
        if (!ready[b->outputs[i]]) {
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "block '%s': output '%s' is never produced",
                            b->name, b->tensors[b->outputs[i]].name);
            goto out;
        }
out:
    tosac_release(&st->alloc, done);
    tosac_release(&st->alloc, ready);
    tosac_release(&st->alloc, producer);
    return rc;
}

static tosac_code prepare_block(interp_state *st, const tosa_block *b, int depth,
                                const tosa_block **chain, interp_block_state **out,
                                tosac_error *err);

/* Prepares the sub-blocks a control flow operator names. */
static tosac_code prepare_subgraphs(interp_state *st, interp_block_state *bs,
                                    const tosa_block **chain, tosac_error *err)
{
    const tosa_block *b = bs->block;
    char lbl[256];
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        const char *names[2] = {NULL, NULL}, *what[2] = {NULL, NULL};
        if (o->op == TOSA_OP_COND_IF) {
            names[0] = o->attr.then_graph, what[0] = "then_graph";
            names[1] = o->attr.else_graph, what[1] = "else_graph";
        } else if (o->op == TOSA_OP_WHILE_LOOP) {
            names[0] = o->attr.cond_graph, what[0] = "cond_graph";
            names[1] = o->attr.body_graph, what[1] = "body_graph";
        } else {
            continue;
        }
        for (int k = 0; k < 2; k++) {
            const tosa_block *sub = names[k] ? tosa_graph_find_block(st->graph, names[k]) : NULL;
            if (!sub)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s: %s '%s' is not a block of the graph",
                                  op_label(b, i, lbl, sizeof lbl), what[k], names[k] ? names[k] : "");
            for (int d = 0; d <= bs->depth; d++)
                if (chain[d] == sub)
                    return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                                      "%s: %s '%s' is recursive (it contains itself)",
                                      op_label(b, i, lbl, sizeof lbl), what[k], names[k]);
            if (bs->depth + 1 > INTERP_MAX_NESTING)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "%s: control flow nested deeper than %d",
                                  op_label(b, i, lbl, sizeof lbl), INTERP_MAX_NESTING);
            interp_block_state *unused;
            tosac_code rc = prepare_block(st, sub, bs->depth + 1, chain, &unused, err);
            if (rc)
                return rc;
        }
    }
    return TOSAC_OK;
}

static tosac_code prepare_block(interp_state *st, const tosa_block *b, int depth,
                                const tosa_block **chain, interp_block_state **out,
                                tosac_error *err)
{
    interp_block_state *bs = interp_find_block_state(st, b, depth);
    if (bs) {
        *out = bs;
        return TOSAC_OK;
    }
    bs = state_alloc(st, sizeof *bs, err);
    if (!bs)
        return err->code;
    bs->block = b;
    bs->depth = depth;
    bs->next = st->blocks; /* listed at once so interp_state_free releases it on failure */
    st->blocks = bs;
    *out = bs;
    chain[depth] = b;
    tosac_code rc = alloc_tensors(st, bs, err);
    if (!rc)
        rc = resolve_ops(st, bs, err);
    if (!rc)
        rc = schedule(st, bs, err);
    if (!rc)
        rc = prepare_subgraphs(st, bs, chain, err);
    return rc;
}

tosac_code interp_prepare_ex(const tosa_graph *g, const interp_options *o, interp_state **out,
                             tosac_error *err)
{
    *out = NULL;
    const tosa_block *main = g ? tosa_graph_main_block(g) : NULL;
    if (!main)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the graph has no main block");
    if (!o || !o->alloc || !o->alloc->alloc)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "interp_prepare_ex: no allocator");
    interp_state *st = tosac_alloc_zero(o->alloc, sizeof *st, 0);
    if (!st)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory preparing the TOSA graph (the "
                          "allocator refused %llu bytes)", (unsigned long long)sizeof *st);
    st->alloc = *o->alloc;
    st->place = o->place;
    st->place_user = o->user;
    st->graph = g;
    /* every variable tensor of the graph bounds the number of distinct variables */
    int n_var = 0;
    for (int r = 0; r < g->n_regions; r++)
        for (int i = 0; i < g->regions[r].n_blocks; i++)
            for (int t = 0; t < g->regions[r].blocks[i].n_tensors; t++)
                n_var += g->regions[r].blocks[i].tensors[t].variable;
    tosac_code rc = TOSAC_OK;
    if (n_var && !(st->vars = state_alloc(st, (size_t)n_var * sizeof *st->vars, err)))
        rc = err->code;
    st->cap_vars = n_var;
    const tosa_block *chain[INTERP_MAX_NESTING + 1];
    if (!rc)
        rc = prepare_block(st, main, 0, chain, &st->main, err);
    if (rc) {
        interp_state_free(st);
        return rc;
    }
    *out = st;
    return TOSAC_OK;
}


void interp_state_free(interp_state *st)
{
    if (!st)
        return;
    interp_block_state *bs = st->blocks;
    while (bs) {
        interp_block_state *next = bs->next;
        if (bs->owned)
            for (int t = 0; t < bs->block->n_tensors; t++)
                if (bs->owned[t])
                    tosac_release(&st->alloc, bs->tensors[t].data);
        tosac_release(&st->alloc, bs->owned);
        tosac_release(&st->alloc, bs->tensors);
        tosac_release(&st->alloc, bs->order);
        tosac_release(&st->alloc, bs->fns);
        tosac_release(&st->alloc, bs->op_data);
        tosac_release(&st->alloc, bs->operands);
        tosac_release(&st->alloc, bs->operand_off);
        tosac_release(&st->alloc, bs);
        bs = next;
    }
    for (int i = 0; i < st->n_vars; i++)
        tosac_release(&st->alloc, st->vars[i].value.data);
    tosac_release(&st->alloc, st->vars);
    tosac_allocator a = st->alloc;
    tosac_release(&a, st);
}
