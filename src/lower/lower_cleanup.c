/* TOSA-level cleanup after lowering. Rules lower in ONNX layout and wrap layout-sensitive
 * operators in TRANSPOSEs; here transposes sink through layout-agnostic single-input operators
 * and pairs that compose to the identity cancel, so transposes remain only at the edges.
 * Finally operators nobody reads and tensors nobody names are dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/validate.h"
#include "tosa/tosa_internal.h"

static int consumers(const tosa_block *b, int t, int *last)
{
    int n = 0;
    for (int i = 0; i < b->n_ops; i++)
        for (int k = 0; k < b->ops[i].n_inputs; k++)
            if (b->ops[i].inputs[k] == t) {
                n++;
                if (last)
                    *last = i;
            }
    return n;
}

static bool is_block_output(const tosa_block *b, int t)
{
    for (int i = 0; i < b->n_outputs; i++)
        if (b->outputs[i] == t)
            return true;
    return false;
}

/* Operators that compute each element from the same position of their one data input
 * (their other inputs are [1]-shaped constants), so they commute with a transpose. */
static bool layout_agnostic(const tosa_operator *o)
{
    switch (o->op) {
    case TOSA_OP_RESCALE: return !o->attr.per_channel;
    case TOSA_OP_CLAMP: case TOSA_OP_TABLE: case TOSA_OP_SIGMOID: case TOSA_OP_TANH:
    case TOSA_OP_ERF: case TOSA_OP_ABS: case TOSA_OP_EXP: case TOSA_OP_LOG:
    case TOSA_OP_NEGATE: case TOSA_OP_RECIPROCAL: case TOSA_OP_RSQRT: case TOSA_OP_CAST:
    case TOSA_OP_FLOOR: case TOSA_OP_CEIL: case TOSA_OP_IDENTITY:
        return true;
    default: return false;
    }
}

static void move_op(tosa_block *b, int from, int to)
{
    tosa_operator o = b->ops[from];
    if (from < to)
        memmove(&b->ops[from], &b->ops[from + 1], (size_t)(to - from) * sizeof o);
    else
        memmove(&b->ops[to + 1], &b->ops[to], (size_t)(from - to) * sizeof o);
    b->ops[to] = o;
}

/* TRANSPOSE x->y read only by agnostic U y->z becomes U x->z', TRANSPOSE z'->z. */
static tosac_code sink_once(tosa_block *b, bool *changed, tosac_error *err)
{
    for (int i = 0; i < b->n_ops; i++) {
        tosa_operator *t = &b->ops[i];
        if (t->op != TOSA_OP_TRANSPOSE || t->n_inputs != 1 || t->n_outputs != 1)
            continue;
        int x = t->inputs[0], y = t->outputs[0], u = -1;
        if (is_block_output(b, y) || consumers(b, y, &u) != 1)
            continue;
        tosa_operator *uo = &b->ops[u];
        if (!layout_agnostic(uo) || uo->n_outputs != 1 || uo->inputs[0] != y)
            continue;
        int z = uo->outputs[0];
        tosa_tensor *zt = &b->tensors[z], *xt = &b->tensors[x];
        char name[300];
        snprintf(name, sizeof name, "%s_pre", zt->name);
        for (unsigned k = 1; tosa_block_find_tensor(b, name) >= 0; k++)
            snprintf(name, sizeof name, "%s_pre%u", zt->name, k);
        int64_t shape[TOSAC_MAX_RANK];
        memcpy(shape, xt->shape, sizeof shape);
        int zp = tosa_block_add_tensor(b, name, zt->dtype, xt->rank, shape, NULL, 0, err);
        if (zp < 0)
            return err->code;
        uo = &b->ops[u];
        t = &b->ops[i];
        uo->inputs[0] = x;
        uo->outputs[0] = zp;
        t->inputs[0] = zp;
        t->outputs[0] = z;
        move_op(b, i, u); /* the transpose now runs after U */
        *changed = true;
        return TOSAC_OK;
    }
    return TOSAC_OK;
}

static bool perms_cancel(const tosa_operator *a, const tosa_operator *b)
{
    if (a->attr.n_perms != b->attr.n_perms)
        return false;
    for (int i = 0; i < a->attr.n_perms; i++)
        if (a->attr.perms[b->attr.perms[i]] != i)
            return false;
    return true;
}

/* TRANSPOSE x->y, TRANSPOSE y->z with inverse perms: readers of z read x. */
static void cancel_pairs(tosa_block *b, bool *changed)
{
    for (int j = 0; j < b->n_ops; j++) {
        tosa_operator *t2 = &b->ops[j];
        if (t2->op != TOSA_OP_TRANSPOSE || t2->n_inputs != 1 || t2->n_outputs != 1)
            continue;
        int p = tosa_block_producer(b, t2->inputs[0]);
        if (p < 0 || b->ops[p].op != TOSA_OP_TRANSPOSE || !perms_cancel(&b->ops[p], t2))
            continue;
        int x = b->ops[p].inputs[0], z = t2->outputs[0];
        if (is_block_output(b, z))
            continue;
        for (int i = 0; i < b->n_ops; i++)
            for (int k = 0; k < b->ops[i].n_inputs; k++)
                if (b->ops[i].inputs[k] == z) {
                    b->ops[i].inputs[k] = x;
                    *changed = true;
                }
    }
}

/* Drops operators none of whose outputs is read or is a block output (repeatedly). */
static void drop_dead_ops(tosa_block *b)
{
    /* Reader counts kept up to date as operators drop, so this is linear per pass (it runs
     * after every transpose sink: recounting readers per operator made compiles quadratic). */
    int *readers = calloc((size_t)b->n_tensors + 1, sizeof *readers);
    bool *dead = calloc((size_t)b->n_ops + 1, sizeof *dead);
    if (!readers || !dead) { /* only an optimisation: dead operators are harmless */
        free(readers);
        free(dead);
        return;
    }
    for (int i = 0; i < b->n_ops; i++)
        for (int k = 0; k < b->ops[i].n_inputs; k++)
            readers[b->ops[i].inputs[k]]++;
    for (int i = 0; i < b->n_outputs; i++)
        readers[b->outputs[i]]++;
    bool again = true;
    while (again) { /* backwards, so a chain of dead operators usually goes in one pass */
        again = false;
        for (int i = b->n_ops - 1; i >= 0; i--) {
            const tosa_operator *o = &b->ops[i];
            bool live = o->n_outputs == 0;
            for (int k = 0; k < o->n_outputs && !live; k++)
                live = readers[o->outputs[k]] > 0;
            if (live || dead[i])
                continue;
            dead[i] = again = true;
            for (int k = 0; k < o->n_inputs; k++)
                readers[o->inputs[k]]--;
        }
    }
    int n = 0;
    for (int i = 0; i < b->n_ops; i++) {
        tosa_operator *o = &b->ops[i];
        if (!dead[i]) {
            b->ops[n++] = *o;
            continue;
        }
        tosa_attr_release(&o->attr);
        free(o->inputs);
        free(o->outputs);
        free(o->location);
    }
    b->n_ops = n;
    free(readers);
    free(dead);
}

/* Drops tensors no operator or block input/output names, renumbering the rest. */
static tosac_code drop_dead_tensors(tosa_block *b, tosac_error *err)
{
    int *remap = malloc(((size_t)b->n_tensors + 1) * sizeof *remap);
    if (!remap)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory in the TOSA cleanup");
    for (int i = 0; i < b->n_tensors; i++)
        remap[i] = 0;
    for (int i = 0; i < b->n_ops; i++) {
        for (int k = 0; k < b->ops[i].n_inputs; k++)
            remap[b->ops[i].inputs[k]] = 1;
        for (int k = 0; k < b->ops[i].n_outputs; k++)
            remap[b->ops[i].outputs[k]] = 1;
    }
    for (int i = 0; i < b->n_inputs; i++)
        remap[b->inputs[i]] = 1;
    for (int i = 0; i < b->n_outputs; i++)
        remap[b->outputs[i]] = 1;
    int n = 0;
    for (int i = 0; i < b->n_tensors; i++) {
        if (!remap[i]) {
            free(b->tensors[i].name);
            free(b->tensors[i].data);
            free(b->tensors[i].variable_name);
            remap[i] = -1;
            continue;
        }
        b->tensors[n] = b->tensors[i];
        remap[i] = n++;
    }
    b->n_tensors = n;
    for (int i = 0; i < b->n_ops; i++) {
        for (int k = 0; k < b->ops[i].n_inputs; k++)
            b->ops[i].inputs[k] = remap[b->ops[i].inputs[k]];
        for (int k = 0; k < b->ops[i].n_outputs; k++)
            b->ops[i].outputs[k] = remap[b->ops[i].outputs[k]];
    }
    for (int i = 0; i < b->n_inputs; i++)
        b->inputs[i] = remap[b->inputs[i]];
    for (int i = 0; i < b->n_outputs; i++)
        b->outputs[i] = remap[b->outputs[i]];
    free(remap);
    return TOSAC_OK;
}

tosac_code lower_cleanup(tosa_block *b, tosac_error *err)
{
    bool changed = true;
    for (int round = 0; changed && round < 10000; round++) {
        changed = false;
        tosac_code rc = sink_once(b, &changed, err);
        if (rc)
            return rc;
        if (!changed)
            cancel_pairs(b, &changed);
        if (changed)
            drop_dead_ops(b);
    }
    drop_dead_ops(b);
    return drop_dead_tensors(b, err);
}
