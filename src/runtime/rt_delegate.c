/* TOSA delegates on the runtime: each .tosa flatbuffer is read in place (constants borrowed
 * from the program buffer) and prepared once on the interpreter with all its state in the
 * arena; main-block tensors sit at the plan's offsets, so a delegate's inputs and outputs are
 * the CPU values' own buffers (no copy where the plan aliases them). */
#include <string.h>

#include "interp/interp_state.h"
#include "runtime/rt_internal.h"
#include "tosa/tosa_internal.h"
#include "util/format.h"

/* Steps of the plan's timeline: one per CPU node, one per operator of a delegate's main
 * block (as tosac_plan_program numbers them). */
static tosac_code number_steps(tosac_rt *rt, tosac_error *err)
{
    for (int gi = 0; gi < rt->n_graphs; gi++) {
        rt_gview *G = &rt->graphs[gi];
        int s = 0;
        for (int k = 0; k < G->g.n_nodes; k++) {
            G->step[k] = s;
            if (G->delegate[k] < 0) {
                s++;
                continue;
            }
            const tosa_block *b = tosa_graph_main_block(rt->delegates[G->delegate[k]].graph);
            s += b->n_ops > 0 ? b->n_ops : 1;
        }
        G->n_steps = s;
        if (rt_plan_present(&rt->prog) && (uint32_t)s != rt_plan_n_steps(&rt->prog, (uint32_t)gi))
            return tosac_fail(err, TOSAC_ERR_INPUT, "plan: graph %d has %d steps, the plan %u",
                              gi, s, rt_plan_n_steps(&rt->prog, (uint32_t)gi));
    }
    return TOSAC_OK;
}

static void *place(void *user, const tosa_block *b, int tensor, size_t bytes)
{
    rt_delegate *d = user;
    tosac_rt *rt = d->rt;
    (void)b;
    int64_t off = rt_plan_tosa_offset(&rt->prog, (uint32_t)d->index, (uint32_t)tensor);
    if (off < 0 || (uint64_t)off > rt->planned_bytes || bytes > rt->planned_bytes - (size_t)off)
        return NULL;
    return rt->planned + off;
}

static tosac_code prepare_one(tosac_rt *rt, int di, const tosac_allocator *index_alloc,
                              tosac_error *err)
{
    rt_delegate *d = &rt->delegates[di];
    rt_delegate_view v = rt_program_delegate(&rt->prog, (uint32_t)di);
    tosac_error e;
    tosac_error_clear(&e);
    tosac_allocator a = tosac_arena_allocator(&rt->state);
    d->rt = rt;
    d->index = di;
    tosac_code rc = tosa_graph_read_indexed(v.tosa, v.tosa_size, &a, index_alloc,
                                            TOSA_READ_BORROW, &d->graph, &e);
    interp_options o;
    memset(&o, 0, sizeof o);
    o.alloc = &a;
    o.place = place;
    o.user = d;
    if (!rc)
        rc = interp_prepare_ex(d->graph, &o, &d->st, &e);
    if (rc)
        return tosac_fail(err, e.code, "delegate %d does not load on the interpreter: %s", di,
                          e.msg);
    const tosa_block *b = tosa_graph_main_block(d->graph);
    const rt_gview *G = &rt->graphs[d->graph_index];
    const ir_node *n = &G->g.nodes[d->node];
    if (!b || b->n_inputs != n->n_inputs || b->n_outputs != n->n_outputs)
        return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %d: its main block does not take the "
                          "%d inputs and give the %d outputs of its node", di, n->n_inputs,
                          n->n_outputs);
    for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
        bool in = i < n->n_inputs;
        int k = in ? i : i - n->n_inputs, id = in ? n->inputs[k] : n->outputs[k];
        const tosa_tensor *bt = &b->tensors[in ? b->inputs[k] : b->outputs[k]];
        const ir_tensor *t = id >= 0 && id < G->g.n_tensors ? &G->g.tensors[id] : NULL;
        bool ok = t && (t->dtype == TOSAC_DT_UNKNOWN || t->dtype == bt->dtype) &&
                  (t->rank < 0 || t->rank == bt->rank);
        for (int dd = 0; ok && t->rank >= 0 && dd < t->rank; dd++)
            ok = t->shape[dd] < 0 || t->shape[dd] == bt->shape[dd];
        if (ok)
            continue;
        char a[128] = "(missing)", sa[96], sb[96];
        if (t)
            tosac_format(a, sizeof a, "%s%s", tosac_dtype_name(t->dtype),
                         t->rank < 0 ? "[?]" : tosac_shape_str(t->rank, t->shape, sa, sizeof sa));
        return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %d: %s %d '%s' is %s in the CPU graph "
                          "but %s%s in the delegate", di, in ? "input" : "output", k,
                          t ? t->name : "?", a, tosac_dtype_name(bt->dtype),
                          tosac_shape_str(bt->rank, bt->shape, sb, sizeof sb));
    }
    d->in = tosac_arena_alloc(&rt->state, sizeof *d->in * (size_t)(n->n_inputs + 1), 16);
    if (!d->in)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the arena is too small for the runtime's state");
    /* measuring: only the main graph's delegates never run (rt_run_delegate); bodies' do */
    bool measuring = rt->accel.measure_only;
    rt->accel.measure_only = measuring && d->graph_index == 0;
    if (!rt->reference)
        rc = rt_accel_prepare(d->st, &rt->state, &rt->accel, true, &e);
    rt->accel.measure_only = measuring;
    if (rc)
        return tosac_fail(err, e.code, "delegate %d: %s", di, e.msg);
    return TOSAC_OK;
}

tosac_code rt_prepare_delegates(tosac_rt *rt, const tosac_allocator *index_alloc,
                                tosac_error *err)
{
    tosac_code rc = TOSAC_OK;
    for (int d = 0; d < rt->n_delegates && !rc; d++)
        rc = prepare_one(rt, d, index_alloc, err);
    if (!rc && !rt->reference)
        rc = rt_accel_finish(&rt->accel, &rt->state, err);
    return rc ? rc : number_steps(rt, err);
}

tosac_code rt_run_delegate(tosac_rt *rt, rt_gview *G, int k, tosac_error *err)
{
    rt_delegate *d = &rt->delegates[G->delegate[k]];
    const ir_node *n = &G->g.nodes[k];
    for (int i = 0; i < n->n_inputs; i++) {
        const tosac_tensor *v = rt_value(G, n->inputs[i]);
        if (!v)
            return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %d: input %d has no value",
                              G->delegate[k], i);
        d->in[i] = *v;
    }
    /* measuring skips the main graph's delegates (the heavy part; what the CPU nodes need
     * depends on shapes): their outputs stay as prepared (zero). Inside bodies they run, as
     * a Loop's condition may come from one. */
    tosac_code rc = rt->sizes && G->index == 0 ? TOSAC_OK
                                               : interp_execute(d->st, d->in, n->n_inputs, err);
    for (int o = 0; o < n->n_outputs && !rc; o++) {
        const tosac_tensor *t = interp_main_output(d->st, o);
        int id = n->outputs[o];
        if (id < 0)
            continue;
        tosac_tensor *v = &G->vals[id];
        int64_t off = rt_plan_cpu_offset(&rt->prog, (uint32_t)G->index, (uint32_t)id);
        if (off < 0) { /* not planned: the interpreter's own buffer is the value */
            *v = *t;
            v->owns_data = 0;
            continue;
        }
        if (t->nbytes > G->cap[id])
            return tosac_fail(err, TOSAC_ERR_CAPACITY, "delegate %d: output %d needs %zu bytes, "
                              "%zu planned", G->delegate[k], o, t->nbytes, G->cap[id]);
        unsigned char *dst = rt->planned + off;
        /* copy only where the plan did not alias them; memmove: a hostile plan may make
         * them overlap in part (the loader cannot tell the interpreter's own placement) */
        if (t->data != dst && t->nbytes)
            memmove(dst, t->data, t->nbytes);
        *v = *t;
        v->data = dst;
        v->owns_data = 0;
    }
    return rc;
}

/* The observer inside a delegate: every tensor the operator just wrote. */
static void observe_op(void *user, const interp_block_state *bs, int op)
{
    rt_delegate *d = user;
    const tosa_block *b = bs->block;
    const tosa_operator *o = &b->ops[op];
    if (o->op == TOSA_OP_CONST || o->op == TOSA_OP_CONST_SHAPE)
        return; /* constants, not computed values */
    for (int i = 0; i < o->n_outputs; i++) {
        int t = o->outputs[i];
        if (t < 0 || t >= b->n_tensors)
            continue;
        tosac_rt_value v = {b->tensors[t].name, &bs->tensors[t], tosa_op_name(o->op), "",
                            d->index};
        d->rt->observe(d->rt->observe_user, &v);
    }
}

void rt_observe_delegates(tosac_rt *rt)
{
    for (int i = 0; i < rt->n_delegates; i++) {
        rt_delegate *d = &rt->delegates[i];
        bool on = rt->observe && rt->reference && d->graph_index == 0;
        d->st->observe = on ? observe_op : NULL;
        d->st->observe_user = on ? d : NULL;
    }
}
