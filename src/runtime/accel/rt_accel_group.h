/* A fused group's way back to the reference: when a kernel finds at invoke that a
 * data-dependent REQUIRE of the reference fails (or may), it runs the group's operators on
 * the interpreter, which computes or reports exactly as without acceleration. */
#ifndef TOSAC_RT_ACCEL_GROUP_H
#define TOSAC_RT_ACCEL_GROUP_H

#include "runtime/accel/rt_accel.h"

typedef struct rt_accel_group {
    interp_block_state *bs;
    int ops[4];                 /* in execution order */
    int n_ops;
    void *dst;                  /* where the kernel writes the result (rt_accel_install) */
    tosac_tensor *final;
} rt_accel_group;

/* Operand k of operator op (its inputs, then its outputs) as a prepared tensor. */
static inline tosac_tensor *rt_accel_operand(const rt_accel_block *ab, int op, int k)
{
    const tosa_operator *o = &ab->b->ops[op];
    return rt_accel_tensor(ab, k < o->n_inputs ? o->inputs[k] : o->outputs[k - o->n_inputs]);
}

/* Installs fn for ops[0..n_ops) (see rt_accel_install) and records them in g. */
int rt_accel_group_install(rt_accel_block *ab, rt_accel_group *g, const int *ops, int n_ops,
                           const int *inputs, int n_inputs, int stage, interp_op_fn fn,
                           void *data);
/* Runs the group's operators on the reference (c: the context of the first); a result
 * written to final is copied to the stage the last operator moves from. */
tosac_code rt_accel_group_reference(interp_ctx *c, const rt_accel_group *g);

#endif
