/* --int-io: the program takes and gives the quantized integers. A float graph input read only
 * by one QuantizeLinear is replaced by that Q's output, a float graph output made by a
 * DequantizeLinear by the DQ's input; the Q/DQ go, and the new edge tensors carry the
 * scale and zero point (the program's signature records them: tosac inspect PROGRAM). */
#include <string.h>

#include "compile/compile_int_io.h"

/* The per-tensor scale and zero point of a Q/DQ node (constant inputs 1 and 2) on tensor t,
 * unless t has them already (the importer records them on QDQ models). */
static tosac_code set_params(ir_graph *g, const ir_node *n, int t, tosac_error *err)
{
    if (g->tensors[t].quant)
        return g->tensors[t].quant->axis < 0 ? TOSAC_OK
               : tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "--int-io: '%s' is quantized per "
                            "channel; only per-tensor edges can be integer", g->tensors[t].name);
    tosac_tensor s, z;
    memset(&z, 0, sizeof z);
    bool has_z = n->n_inputs > 2 && n->inputs[2] >= 0;
    if (n->n_inputs < 2 || n->inputs[1] < 0 || !ir_graph_const_value(g, n->inputs[1], &s) ||
        tosac_tensor_numel(&s) != 1 || (has_z && (!ir_graph_const_value(g, n->inputs[2], &z) ||
                                                  tosac_tensor_numel(&z) != 1)))
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "--int-io: node '%s' (%s) has no "
                          "constant per-tensor scale and zero point", n->name ? n->name : "?",
                          n->op_type);
    float scale = (float)tosac_tensor_f64_at(&s, 0);
    int64_t zp = has_z ? tosac_tensor_int_at(&z, 0) : 0;
    return ir_tensor_set_quant(g, t, &scale, &zp, 1, -1, g->tensors[t].dtype, err);
}

tosac_code compile_int_io(ir_graph *g, tosac_error *err)
{
    for (int i = 0; i < g->n_inputs; i++) {
        int x = g->inputs[i];
        if (!tosac_dtype_is_float(g->tensors[x].dtype))
            continue; /* indices, shapes, flags: they stay as they are */
        int who[2];
        int n = ir_graph_consumers(g, x, who, 2);
        const ir_node *q = n == 1 ? &g->nodes[who[0]] : NULL;
        if (!q || !ir_node_is(q, "QuantizeLinear") || q->inputs[0] != x || q->n_outputs < 1 ||
            ir_graph_is_output(g, x))
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "--int-io: input '%s' is not read by "
                              "one QuantizeLinear alone, so it has no integer form (quantize "
                              "the model, or leave out --int-io)", g->tensors[x].name);
        int xq = q->outputs[0];
        if (ir_graph_is_input(g, xq))
            continue;
        tosac_code rc = set_params(g, q, xq, err);
        if (rc)
            return rc;
        g->inputs[i] = xq;
        ir_node_kill(g, who[0]);
    }
    for (int i = 0; i < g->n_outputs; i++) {
        int y = g->outputs[i];
        if (!tosac_dtype_is_float(g->tensors[y].dtype))
            continue;
        int p = ir_graph_producer(g, y);
        const ir_node *dq = p >= 0 ? &g->nodes[p] : NULL;
        if (!dq || !ir_node_is(dq, "DequantizeLinear") || dq->n_inputs < 1 || dq->inputs[0] < 0)
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "--int-io: output '%s' is not made by "
                              "a DequantizeLinear, so it has no integer form (quantize the "
                              "model, or leave out --int-io)", g->tensors[y].name);
        int yq = dq->inputs[0];
        if (ir_graph_is_output(g, yq) || ir_graph_is_input(g, yq))
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "--int-io: output '%s' would be "
                              "'%s', already an input or output", g->tensors[y].name,
                              g->tensors[yq].name);
        tosac_code rc = set_params(g, dq, yq, err);
        if (rc)
            return rc;
        g->outputs[i] = yq;
        if (ir_graph_consumers(g, y, NULL, 0) == 0)
            ir_node_kill(g, p);
    }
    ir_graph_compact(g);
    return TOSAC_OK;
}
