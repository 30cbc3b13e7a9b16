/* TOSA-level cleanup after lowering. Rules lower in ONNX layout and wrap layout-sensitive
 * operators in TRANSPOSEs; the layout propagation (lower_layout_propagate.c) moves them past
 * layout-free operators until they meet and cancel, and rewires copies (IDENTITY, reshapes to
 * the same shape). Then operators nobody reads and tensors nobody names are dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/validate.h"
#include "tosa/tosa_internal.h"

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
    tosac_code rc = lower_layout_propagate(b, err);
    if (rc)
        return rc;
    drop_dead_ops(b);
    return drop_dead_tensors(b, err);
}
