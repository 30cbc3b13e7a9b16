/* Constant folding, so that later passes and the lowering see plain constants instead of the
 * exporters' constant noise (torch's QDQ export computes every bias zero point as
 * Cast(ConstantOfShape(...)), puts weights in Constant nodes and wraps Q->DQ edges in
 * Cast(uint8 -> uint8)).
 *
 *   - Constant nodes become initializers (data on their output tensor);
 *   - Shape / Size of a statically shaped tensor become constants;
 *   - a node whose inputs are all constant is evaluated once with the CPU executor's own
 *     implementation of it (exactly what the CPU would compute at run time) and its outputs
 *     become constants, unless the result would be much larger than its inputs
 *     (ConstantOfShape / Expand / Tile of a big shape stay nodes) or it writes a graph output;
 *   - Cast to the type the value already has is dropped;
 *   - Q/DQ scales and zero points that have just become constant are recorded on their tensors.
 * QuantizeLinear / DequantizeLinear of constants are kept: fold_qdq turns DQ(weights) into
 * quantized weights. Random generators are never folded. */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_internal.h"
#include "onnx/onnx_internal.h"
#include "onnxop/onnxop_traits.h"
#include "passes/passes.h"

/* Outputs at most this big always fold; bigger ones only when no bigger than the inputs. */
#define FOLD_SMALL_BYTES ((size_t)1 << 20)

static bool never_fold(const ir_node *n, bool fold_dq)
{
    if (fold_dq && ir_node_is(n, "DequantizeLinear") && strcmp(n->domain, IR_DOMAIN_ONNX) == 0)
        return false;
    if (strcmp(n->domain, IR_DOMAIN_ONNX) != 0 || ir_node_subgraph(n, 0))
        return true;
    return onnxop_has(n, ONNXOP_NO_CONST_FOLD); /* the traits table's column */
}

static bool static_shape(const ir_tensor *t)
{
    if (t->rank < 0 || t->dtype == TOSAC_DT_UNKNOWN)
        return false;
    for (int d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return false;
    return true;
}

static bool writes_graph_output(const ir_graph *g, const ir_node *n)
{
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0 && ir_graph_is_output(g, n->outputs[o]))
            return true;
    return false;
}

/* Sets v as the data of tensor t if dtype and shape agree with what the IR declares. */
static bool store(ir_graph *g, int t, const tosac_tensor *v, tosac_error *err)
{
    const ir_tensor *it = &g->tensors[t];
    if (!static_shape(it) || it->dtype != v->dtype || it->rank != v->rank ||
        memcmp(it->shape, v->shape, sizeof(int64_t) * (size_t)v->rank) != 0)
        return false;
    return ir_tensor_set_data(g, t, v->data, v->nbytes, err) == TOSAC_OK;
}

static tosac_code constant_nodes_to_data(ir_graph *g, tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        if (n->dead || !ir_node_is(n, "Constant") || n->n_outputs != 1 || n->outputs[0] < 0)
            continue;
        int t = n->outputs[0];
        tosac_tensor v;
        if (g->tensors[t].data || !ir_graph_const_value(g, t, &v))
            continue;
        /* v borrows the node's attribute, which lives until ir_graph_compact */
        if (store(g, t, &v, err))
            ir_node_kill(g, i);
        if (err->code)
            return err->code;
    }
    return TOSAC_OK;
}

/* Shape (with opset-15 start/end) and Size of a statically shaped input. */
static tosac_code fold_shape_of(ir_graph *g, int ni, tosac_error *err)
{
    const ir_node *n = &g->nodes[ni];
    bool is_shape = ir_node_is(n, "Shape");
    if ((!is_shape && !ir_node_is(n, "Size")) || n->n_inputs != 1 || n->n_outputs != 1 ||
        n->inputs[0] < 0 || n->outputs[0] < 0 || writes_graph_output(g, n))
        return TOSAC_OK;
    const ir_tensor *x = &g->tensors[n->inputs[0]];
    if (!static_shape(x))
        return TOSAC_OK;
    int64_t vals[TOSAC_MAX_RANK] = {0}, cnt = 1;
    int64_t len = 0;
    if (is_shape) {
        int64_t r = x->rank, s = ir_node_attr_int(n, "start", 0), e = ir_node_attr_int(n, "end", r);
        s = s < 0 ? s + r : s;
        e = e < 0 ? e + r : e;
        s = s < 0 ? 0 : s > r ? r : s;
        e = e < 0 ? 0 : e > r ? r : e;
        for (int64_t d = s; d < e; d++)
            vals[len++] = x->shape[d];
    } else {
        for (int d = 0; d < x->rank; d++)
            cnt *= x->shape[d];
        vals[0] = cnt;
    }
    tosac_tensor v;
    memset(&v, 0, sizeof v);
    v.dtype = TOSAC_DT_I64;
    v.rank = is_shape ? 1 : 0;
    v.shape[0] = len;
    v.data = vals;
    v.nbytes = (size_t)(is_shape ? len : 1) * sizeof(int64_t);
    if (store(g, n->outputs[0], &v, err))
        ir_node_kill(g, ni);
    return err->code;
}

/* Evaluates node ni when every input is constant (DequantizeLinear too, of any size, when
 * fold_dq: the float weights replace the integer ones). */
/* Whether a live Constant node is left (constant_nodes_to_data keeps those whose value does
 * not fit their tensor). Folding adds none, so without one a tensor without data is not
 * constant and fold_node need not look for its producer (a scan per input: quadratic). */
static bool any_constant_node(const ir_graph *g)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && ir_node_is(&g->nodes[i], "Constant"))
            return true;
    return false;
}

static tosac_code fold_node(ir_graph *g, int ni, int64_t opset, bool fold_dq,
                            bool constant_nodes, tosac_error *err)
{
    const ir_node *n = &g->nodes[ni];
    if (never_fold(n, fold_dq) || n->n_inputs > CPU_MAX_IO || n->n_outputs > CPU_MAX_IO ||
        n->n_outputs < 1 || writes_graph_output(g, n))
        return TOSAC_OK;
    const cpu_op_entry *op = cpu_find_op(n->op_type);
    if (!op)
        return TOSAC_OK;
    tosac_tensor ins[CPU_MAX_IO];
    size_t in_bytes = 0;
    int n_const = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        if (n->inputs[i] < 0)
            continue;
        if (!ir_graph_const_value_from(g, n->inputs[i], constant_nodes ? -2 : -1, &ins[i]))
            return TOSAC_OK;
        if (ins[i].dtype == TOSAC_DT_F16 || ins[i].dtype == TOSAC_DT_BF16)
            return TOSAC_OK; /* the executor widens these around the kernel */
        in_bytes += ins[i].nbytes;
        n_const++;
    }
    size_t out_bytes = 0;
    for (int o = 0; o < n->n_outputs; o++) {
        const ir_tensor *t = n->outputs[o] >= 0 ? &g->tensors[n->outputs[o]] : NULL;
        if (t && !static_shape(t))
            return TOSAC_OK;
        if (t)
            out_bytes += (size_t)tosac_shape_numel(t->rank, t->shape) * tosac_dtype_size(t->dtype);
    }
    if (n_const == 0 && n->n_inputs > 0)
        return TOSAC_OK;
    if (!fold_dq && out_bytes > FOLD_SMALL_BYTES && out_bytes > in_bytes)
        return TOSAC_OK;
    tosac_tensor outs[CPU_MAX_IO];
    memset(outs, 0, sizeof(tosac_tensor) * (size_t)n->n_outputs);
    tosac_error cerr;
    tosac_error_clear(&cerr);
    cpu_ctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.node = n;
    c.opset = opset;
    for (int i = 0; i < n->n_inputs; i++)
        c.in[i] = n->inputs[i] >= 0 ? &ins[i] : NULL;
    c.n_in = n->n_inputs;
    c.out = outs;
    c.n_out = n->n_outputs;
    c.err = &cerr;
    /* a failure leaves the node to the CPU at run time, which reports it there */
    bool ok = cpu_host_call(&c, op) == TOSAC_OK;
    for (int o = 0; ok && o < n->n_outputs; o++) {
        int t = g->nodes[ni].outputs[o];
        if (t < 0)
            continue;
        const ir_tensor *it = &g->tensors[t];
        ok = it->dtype == outs[o].dtype && it->rank == outs[o].rank &&
             memcmp(it->shape, outs[o].shape, sizeof(int64_t) * (size_t)it->rank) == 0;
    }
    for (int o = 0; ok && o < g->nodes[ni].n_outputs; o++) {
        int t = g->nodes[ni].outputs[o];
        if (t >= 0 && !store(g, t, &outs[o], err))
            ok = false;
    }
    for (int o = 0; o < g->nodes[ni].n_outputs; o++)
        tosac_tensor_free(&outs[o]);
    if (err->code)
        return err->code;
    if (ok)
        ir_node_kill(g, ni);
    return TOSAC_OK;
}

/* Cast to the type the value already has (torch wraps every Q->DQ edge in one). */
static void drop_identity_cast(ir_graph *g, int ni, tosac_error *err)
{
    ir_node *n = &g->nodes[ni];
    if (!ir_node_is(n, "Cast") || n->n_inputs != 1 || n->n_outputs != 1 || n->inputs[0] < 0 ||
        n->outputs[0] < 0 || ir_graph_is_output(g, n->outputs[0]) ||
        ir_graph_is_input(g, n->outputs[0]))
        return;
    int x = n->inputs[0], y = n->outputs[0];
    if (g->tensors[x].dtype != g->tensors[y].dtype || g->tensors[x].dtype == TOSAC_DT_UNKNOWN)
        return;
    const ir_quant *yq = g->tensors[y].quant, *xq = g->tensors[x].quant;
    if (yq && !xq &&
        ir_tensor_set_quant(g, x, yq->scale, yq->zero_point, yq->n, yq->axis, yq->zp_dtype, err))
        return;
    ir_node_kill(g, ni);
    ir_graph_replace_uses(g, y, x);
}

tosac_code pass_fold_constants(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    tosac_code rc = constant_nodes_to_data(g, err);
    if (!rc)
        rc = ir_graph_toposort(g, err); /* producers fold before their readers look */
    bool constant_nodes = any_constant_node(g);
    for (int i = 0; !rc && i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        rc = fold_shape_of(g, i, err);
        if (!rc && !g->nodes[i].dead)
            rc = fold_node(g, i, c->opset, false, constant_nodes, err);
        if (!rc && !g->nodes[i].dead)
            drop_identity_cast(g, i, err);
        rc = rc ? rc : err->code;
    }
    if (rc)
        return rc;
    ir_graph_compact(g);
    return onnx_record_quant(g, err);
}

tosac_code pass_fold_dequantized_weights(ir_graph *g, int64_t opset, tosac_error *err)
{
    bool constant_nodes = any_constant_node(g);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && ir_node_is(&g->nodes[i], "DequantizeLinear") &&
            fold_node(g, i, opset, true, constant_nodes, err))
            return err->code;
    ir_graph_compact(g);
    return TOSAC_OK;
}
