/* Activations the host executor folds into the Conv before them (plan time): a float Conv
 * whose output only a Relu or a Clip with constant bounds reads computes the activation in
 * its own store (kernels/out_act.h: the same comparisons as the activation op), and the
 * activation node then only renames the value. Saves a pass over every activation. */
#include "cpu/cpu_fuse.h"

#include <float.h>
#include <math.h>
#include <string.h>

static bool onnx_op(const ir_node *n, const char *op)
{
    return (strcmp(n->domain, "") == 0 || strcmp(n->domain, "ai.onnx") == 0) &&
           strcmp(n->op_type, op) == 0;
}

/* Declared f32, or undeclared (Conv computes f32: an f16 Conv runs widened to f32 and
 * narrows its result, which commutes with Relu and with Clip's f32 bounds). */
static bool f32_or_unknown(const ir_graph *g, int t)
{
    return g->tensors[t].dtype == TOSAC_DT_F32 || g->tensors[t].dtype == TOSAC_DT_UNKNOWN;
}

/* A constant f32 scalar (or one element) input of n. */
static bool const_f32(const ir_graph *g, int id, float *v)
{
    tosac_tensor t;
    if (!ir_graph_const_value(g, id, &t) || t.dtype != TOSAC_DT_F32 || t.nbytes != sizeof(float))
        return false;
    memcpy(v, t.data, sizeof *v);
    return true;
}

/* Clip's bounds as op_clip (cpu_ops_unary.c) reads them: attributes, then inputs 1 and 2. */
static bool clip_bounds(const ir_graph *g, const ir_node *n, kern_out_act *act)
{
    act->kind = KERN_OUT_ACT_CLIP;
    act->lo = -INFINITY;
    act->hi = INFINITY;
    if (ir_node_attr(n, "min") || ir_node_attr(n, "max")) {
        act->lo = ir_node_attr_float(n, "min", -FLT_MAX);
        act->hi = ir_node_attr_float(n, "max", FLT_MAX);
    }
    for (int k = 1; k <= 2 && k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && !const_f32(g, n->inputs[k], k == 1 ? &act->lo : &act->hi))
            return false;
    return true;
}

int cpu_fuse_conv_act(const ir_graph *g, int ni, const int *n_readers, kern_out_act *act)
{
    const ir_node *n = &g->nodes[ni];
    if (!onnx_op(n, "Conv") || n->n_outputs != 1 || n->outputs[0] < 0)
        return -1;
    const int t = n->outputs[0];
    if (!f32_or_unknown(g, t) || n_readers[t] != 1)
        return -1;
    for (int j = 0; j < g->n_nodes; j++) {
        const ir_node *r = &g->nodes[j];
        if (r->dead || r->n_inputs < 1 || r->inputs[0] != t)
            continue;
        if (r->n_outputs != 1 || r->outputs[0] < 0 || !f32_or_unknown(g, r->outputs[0]))
            return -1;
        if (onnx_op(r, "Relu") && r->n_inputs == 1) {
            act->kind = KERN_OUT_ACT_RELU;
            act->lo = act->hi = 0;
            return j;
        }
        if (onnx_op(r, "Clip") && clip_bounds(g, r, act))
            return j;
        return -1;
    }
    return -1;
}
