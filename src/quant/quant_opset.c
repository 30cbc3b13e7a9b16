/* Opset upgrade: QDQ needs ai.onnx 13 (per-channel DequantizeLinear) or 21 (int16 Q/DQ).
 * Raising a model's opset changes what some operators mean or how they take their
 * arguments, so those nodes are rewritten into the newer form (attributes that became
 * inputs, Softmax's axis meaning). Only the signature changes between 9 and 21 that
 * inference graphs use are handled; an operator that cannot be carried over (Upsample,
 * opset-10 Resize, Softmax over several axes) is TOSAC_ERR_UNSUPPORTED naming the node. */
#include "quant/quant_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

typedef struct upgrade {
    ir_graph *g;
    int64_t from, to;
    const quant_seen *seen; /* top-level graph only */
    tosac_error *err;
} upgrade;

static bool crosses(const upgrade *u, int64_t version) { return u->from < version && u->to >= version; }

static tosac_code append_ints(upgrade *u, int node, const int64_t *v, int n)
{
    int64_t len = n;
    char base[300];
    snprintf(base, sizeof base, "%s", u->g->nodes[node].name[0] ? u->g->nodes[node].name
                                                                 : u->g->nodes[node].op_type);
    int t = quant_add_const(u->g, base, "_ints", TOSAC_DT_I64, 1, &len, v, u->err);
    return t < 0 ? u->err->code : quant_node_append_input(u->g, node, t, u->err);
}

static tosac_code append_f32(upgrade *u, int node, float v)
{
    char base[300];
    snprintf(base, sizeof base, "%s", u->g->nodes[node].name[0] ? u->g->nodes[node].name
                                                                : u->g->nodes[node].op_type);
    int t = quant_add_const(u->g, base, "_value", TOSAC_DT_F32, 0, NULL, &v, u->err);
    return t < 0 ? u->err->code : quant_node_append_input(u->g, node, t, u->err);
}

static tosac_code pad_inputs(upgrade *u, int node, int want)
{
    tosac_code rc = TOSAC_OK;
    while (u->g->nodes[node].n_inputs < want && !rc)
        rc = quant_node_append_input(u->g, node, -1, u->err);
    return rc;
}

/* Moves an INTS attribute to input slot `slot` (absent attribute: input left omitted). */
static tosac_code ints_attr_to_input(upgrade *u, int node, const char *attr, int slot)
{
    int n = 0;
    const int64_t *v = ir_node_attr_ints(&u->g->nodes[node], attr, &n);
    if (!v)
        return TOSAC_OK;
    int64_t tmp[64];
    if (n > 64)
        return tosac_fail(u->err, TOSAC_ERR_UNSUPPORTED, "node '%s': %s has %d values",
                          u->g->nodes[node].name, attr, n);
    memcpy(tmp, v, (size_t)n * sizeof *tmp);
    quant_node_drop_attr(u->g, node, attr);
    tosac_code rc = pad_inputs(u, node, slot);
    if (!rc)
        rc = append_ints(u, node, tmp, n);
    return rc;
}

static tosac_code clip(upgrade *u, int node)
{
    const ir_node *n = &u->g->nodes[node];
    if (!ir_node_attr(n, "min") && !ir_node_attr(n, "max"))
        return TOSAC_OK;
    float lo = ir_node_attr_float(n, "min", -FLT_MAX), hi = ir_node_attr_float(n, "max", FLT_MAX);
    quant_node_drop_attr(u->g, node, "min");
    quant_node_drop_attr(u->g, node, "max");
    tosac_code rc = append_f32(u, node, lo);
    return rc ? rc : append_f32(u, node, hi);
}

static tosac_code slice(upgrade *u, int node)
{
    const ir_node *n = &u->g->nodes[node];
    if (!ir_node_attr(n, "starts"))
        return TOSAC_OK;
    tosac_code rc = ints_attr_to_input(u, node, "starts", 1);
    if (!rc)
        rc = ints_attr_to_input(u, node, "ends", 2);
    if (!rc)
        rc = ints_attr_to_input(u, node, "axes", 3);
    return rc;
}

static int rank_of(const upgrade *u, int t, const int64_t **shape)
{
    if (u->seen && u->seen[t].rank >= 0) {
        *shape = u->seen[t].shape;
        return u->seen[t].rank;
    }
    *shape = u->g->tensors[t].shape;
    return u->g->tensors[t].rank;
}

/* Before 13 the input was flattened to 2-D at axis; the same as a one-axis softmax when
 * axis is the last non-1 dimension. */
static tosac_code softmax(upgrade *u, int node)
{
    const ir_node *n = &u->g->nodes[node];
    char desc[200];
    const int64_t *shape;
    int rank = n->n_inputs ? rank_of(u, n->inputs[0], &shape) : -1;
    int64_t axis = ir_node_attr_int(n, "axis", 1);
    if (rank >= 0 && axis < 0)
        axis += rank;
    bool same = rank >= 0 && axis >= 0 && axis < rank;
    for (int d = (int)axis + 1; same && d < rank; d++)
        same = shape[d] == 1;
    if (!same)
        return tosac_fail(u->err, TOSAC_ERR_UNSUPPORTED,
                          "%s: a softmax over the flattened axes %lld.. (opset %lld) cannot be "
                          "carried to opset %lld",
                          ir_node_desc(u->g, node, desc, sizeof desc), (long long)axis,
                          (long long)u->from, (long long)u->to);
    return ir_node_set_int(u->g, node, "axis", axis, u->err);
}

static tosac_code pad(upgrade *u, int node)
{
    const ir_node *n = &u->g->nodes[node];
    if (!ir_node_attr(n, "pads"))
        return TOSAC_OK;
    float value = ir_node_attr_float(n, "value", 0.0f);
    quant_node_drop_attr(u->g, node, "value");
    tosac_code rc = ints_attr_to_input(u, node, "pads", 1);
    if (!rc && value != 0.0f)
        rc = append_f32(u, node, value);
    return rc;
}

static tosac_code topk(upgrade *u, int node)
{
    const ir_node *n = &u->g->nodes[node];
    if (!ir_node_attr(n, "k"))
        return TOSAC_OK;
    int64_t k = ir_node_attr_int(n, "k", 1);
    quant_node_drop_attr(u->g, node, "k");
    return append_ints(u, node, &k, 1);
}

static tosac_code dropout(upgrade *u, int node)
{
    const ir_node *n = &u->g->nodes[node];
    if (!ir_node_attr(n, "ratio"))
        return TOSAC_OK;
    float r = ir_node_attr_float(n, "ratio", 0.5f);
    quant_node_drop_attr(u->g, node, "ratio");
    quant_node_drop_attr(u->g, node, "is_test");
    return append_f32(u, node, r);
}

static bool is_reduce18(const ir_node *n)
{
    static const char *const ops[] = {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                                      "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                                      "ReduceSumSquare", NULL};
    for (int i = 0; ops[i]; i++)
        if (ir_node_is(n, ops[i]))
            return true;
    return false;
}

static tosac_code node_upgrade(upgrade *u, int node)
{
    const ir_node *n = &u->g->nodes[node];
    char desc[200];
    if (ir_node_is(n, "Upsample") && crosses(u, 10))
        return tosac_fail(u->err, TOSAC_ERR_UNSUPPORTED,
                          "%s: Upsample (opset %lld) cannot be carried to opset %lld",
                          ir_node_desc(u->g, node, desc, sizeof desc), (long long)u->from,
                          (long long)u->to);
    if (ir_node_is(n, "Resize") && crosses(u, 11))
        return tosac_fail(u->err, TOSAC_ERR_UNSUPPORTED,
                          "%s: opset-10 Resize cannot be carried to opset %lld",
                          ir_node_desc(u->g, node, desc, sizeof desc), (long long)u->to);
    if (ir_node_is(n, "Scatter") && crosses(u, 11)) {
        u->g->nodes[node].op_type = ir_intern("ScatterElements");
        return TOSAC_OK;
    }
    if (ir_node_is(n, "Clip") && crosses(u, 11))
        return clip(u, node);
    if (ir_node_is(n, "Slice") && crosses(u, 10))
        return slice(u, node);
    if ((ir_node_is(n, "Softmax") || ir_node_is(n, "LogSoftmax") || ir_node_is(n, "Hardmax")) &&
        crosses(u, 13))
        return softmax(u, node);
    if ((ir_node_is(n, "Squeeze") || ir_node_is(n, "Unsqueeze") || ir_node_is(n, "ReduceSum")) &&
        crosses(u, 13))
        return ints_attr_to_input(u, node, "axes", 1);
    if (ir_node_is(n, "Split") && crosses(u, 13))
        return ints_attr_to_input(u, node, "split", 1);
    if (is_reduce18(n) && crosses(u, 18))
        return ints_attr_to_input(u, node, "axes", 1);
    if (ir_node_is(n, "Pad") && crosses(u, 11))
        return pad(u, node);
    if (ir_node_is(n, "TopK") && crosses(u, 10))
        return topk(u, node);
    if (ir_node_is(n, "Dropout") && crosses(u, 12))
        return dropout(u, node);
    return TOSAC_OK;
}

static tosac_code graph_upgrade(ir_graph *g, int64_t from, int64_t to, const quant_seen *seen,
                                tosac_error *err)
{
    upgrade u = {g, from, to, seen, err};
    int n_nodes = g->n_nodes;
    for (int i = 0; i < n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        tosac_code rc = node_upgrade(&u, i);
        ir_graph *sub;
        for (int k = 0; !rc && (sub = ir_node_subgraph(&g->nodes[i], k)); k++)
            rc = graph_upgrade(sub, from, to, NULL, err);
        if (rc)
            return rc;
    }
    return TOSAC_OK;
}

tosac_code quant_upgrade_opset(ir_model *m, int64_t target, const quant_seen *seen,
                               tosac_error *err)
{
    int64_t from = ir_model_opset(m, "");
    if (from >= target)
        return TOSAC_OK;
    tosac_code rc = graph_upgrade(m->graph, from, target, seen, err);
    if (!rc)
        rc = ir_model_set_opset(m, "", target, err);
    /* ONNX IR versions that first allowed these opsets (onnx/helper VERSION_TABLE) */
    int64_t ir = target >= 21 ? 10 : 7;
    if (!rc && m->ir_version < ir)
        m->ir_version = ir;
    return rc;
}
