/* Ethos-U55 operator order, after the TOSA-level cleanup of a u55 delegate. The cleanup sinks
 * transposes through layout-agnostic operators, so a transpose coming from another node can
 * land between a widening RESCALE/CAST and the ADD or MUL that Vela would fuse it into
 * (RESCALE i8->i32, TRANSPOSE i32, ADD): the RESCALE then stands alone, which Ethos-U55
 * cannot run, and the transpose moves four times the bytes. Here such a transpose goes back
 * above the widening operator (TRANSPOSE i8, RESCALE, ADD), so the delegate keeps the form its
 * nodes had when each was checked alone. */
#include <string.h>

#include "lower/lower.h"
#include "lower/validate.h"

static bool widening(const tosa_block *b, const tosa_operator *o)
{
    if ((o->op != TOSA_OP_RESCALE || o->attr.per_channel) && o->op != TOSA_OP_CAST)
        return false;
    return tosac_dtype_bits(b->tensors[o->outputs[0]].dtype) >
           tosac_dtype_bits(b->tensors[o->inputs[0]].dtype);
}

/* U: x -> y, T: y -> z (y read by T alone) becomes T: x -> y', U: y' -> z, with T moved to
 * U's place. y keeps its index and takes x's type and the permuted shape. */
static bool swap_once(tosa_block *b)
{
    for (int ti = 0; ti < b->n_ops; ti++) {
        tosa_operator *t = &b->ops[ti];
        if (t->op != TOSA_OP_TRANSPOSE || t->n_inputs < 1)
            continue;
        int y = t->inputs[0], ui = tosa_block_producer(b, y);
        int only;
        if (ui < 0 || ui > ti || !widening(b, &b->ops[ui]) || tosa_block_readers(b, y, &only) != 1)
            continue;
        tosa_operator *u = &b->ops[ui];
        int x = u->inputs[0], z = t->outputs[0];
        tosa_tensor *ty = &b->tensors[y];
        const tosa_tensor *tx = &b->tensors[x];
        ty->dtype = tx->dtype;
        for (int d = 0; d < tx->rank && d < t->attr.n_perms; d++)
            ty->shape[d] = tx->shape[t->attr.perms[d]];
        t->inputs[0] = x;
        t->outputs[0] = y;
        u->inputs[0] = y;
        u->outputs[0] = z;
        tosa_operator moved = *t; /* T now reads x, defined before U: place it just before U */
        memmove(&b->ops[ui + 1], &b->ops[ui], (size_t)(ti - ui) * sizeof moved);
        b->ops[ui] = moved;
        return true;
    }
    return false;
}

void lower_u55_order(tosa_block *b)
{
    for (int round = 0; round < 100000 && swap_once(b); round++)
        ;
}
