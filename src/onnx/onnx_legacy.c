/* Models importing ai.onnx opsets 1..8. Everything downstream (shape inference, the CPU
 * executor, the lowering) implements the operators as defined from opset 9 on. An older model
 * is accepted only when every operator it uses means the same at its opset as at opset 9 —
 * most did not change, or only lost the legacy "consumed_inputs" hint — so nothing downstream
 * can run old semantics silently wrong. Operators whose meaning differs (the legacy
 * broadcast/axis binary operators, Reshape-1 with a shape attribute, Upsample-7 with
 * attribute scales, ...) are refused with a message naming the operator and opset; a few are
 * accepted under conditions that make both meanings agree (BatchNormalization in inference
 * form). Scan-8 (batch axis, sequence_lens) is the one older form the CPU executor
 * implements itself (it reads the model opset). */
#include "onnx_internal.h"

#include <string.h>

typedef bool (*legacy_ok_fn)(const ir_node *n, int64_t opset);

typedef struct legacy_op {
    const char *op;
    int64_t since;     /* from this opset on the meaning is the opset-9 one */
    legacy_ok_fn ok;   /* below `since`: accepted when this says the meanings agree */
} legacy_op;

/* Binary operators before opset 7 broadcast only with broadcast=1 (+ axis); without it both
 * shapes are equal, where numpy broadcasting gives the same result. */
static bool no_legacy_broadcast(const ir_node *n, int64_t opset)
{
    (void)opset;
    return ir_node_attr_int(n, "broadcast", 0) == 0;
}

/* BatchNormalization before 9: spatial (default 1) must be 1, only Y may be used, and before
 * 7 is_test must be set (otherwise Y uses the batch statistics). */
static bool batchnorm_inference(const ir_node *n, int64_t opset)
{
    if (ir_node_attr_int(n, "spatial", 1) != 1)
        return false;
    if (opset < 7 && ir_node_attr_int(n, "is_test", 0) != 1)
        return false;
    for (int i = 1; i < n->n_outputs; i++)
        if (n->outputs[i] >= 0)
            return false;
    return true;
}

/* Concat-1 had an optional axis defaulting to 1; with the axis given it is Concat-4. */
static bool concat_has_axis(const ir_node *n, int64_t opset)
{
    (void)opset;
    return ir_node_attr(n, "axis") != NULL;
}

/* Dropout before 7 is the identity only with is_test set. */
static bool dropout_is_test(const ir_node *n, int64_t opset)
{
    (void)opset;
    return ir_node_attr_int(n, "is_test", 0) == 1;
}

static const legacy_op legacy_ops[] = {
    /* unchanged since opset 1 (apart from consumed_inputs, an optimisation hint) */
    {"Abs", 1, NULL}, {"Ceil", 1, NULL}, {"Exp", 1, NULL}, {"Floor", 1, NULL},
    {"Log", 1, NULL}, {"Neg", 1, NULL}, {"Reciprocal", 1, NULL}, {"Relu", 1, NULL},
    {"Sigmoid", 1, NULL}, {"Sqrt", 1, NULL}, {"Tanh", 1, NULL}, {"Elu", 1, NULL},
    {"HardSigmoid", 1, NULL}, {"LeakyRelu", 1, NULL}, {"Selu", 1, NULL},
    {"Softplus", 1, NULL}, {"Softsign", 1, NULL}, {"Identity", 1, NULL}, {"Not", 1, NULL},
    {"Transpose", 1, NULL}, {"Softmax", 1, NULL}, {"LogSoftmax", 1, NULL},
    {"Hardmax", 1, NULL}, {"GlobalAveragePool", 1, NULL}, {"GlobalMaxPool", 1, NULL},
    {"LpNormalization", 1, NULL}, {"InstanceNormalization", 1, NULL}, {"LRN", 1, NULL},
    {"Flatten", 1, NULL}, {"Shape", 1, NULL}, {"Size", 1, NULL}, {"Squeeze", 1, NULL},
    {"Unsqueeze", 1, NULL}, {"Gather", 1, NULL}, {"Slice", 1, NULL}, {"TopK", 1, NULL},
    {"ReduceMax", 1, NULL}, {"ReduceMin", 1, NULL}, {"ReduceMean", 1, NULL},
    {"ReduceSum", 1, NULL}, {"ReduceProd", 1, NULL}, {"ReduceL1", 1, NULL},
    {"ReduceL2", 1, NULL}, {"ReduceLogSum", 1, NULL}, {"ReduceLogSumExp", 1, NULL},
    {"ReduceSumSquare", 1, NULL}, {"ArgMax", 1, NULL}, {"ArgMin", 1, NULL},
    {"MatMul", 1, NULL}, {"Conv", 1, NULL}, {"ConvTranspose", 1, NULL},
    /* AveragePool-1 had no count_include_pad: the default 0; MaxPool-8 only added Indices */
    {"AveragePool", 1, NULL}, {"MaxPool", 1, NULL}, {"Constant", 1, NULL},
    {"DepthToSpace", 1, NULL}, {"SpaceToDepth", 1, NULL}, {"If", 1, NULL},
    {"Loop", 1, NULL},
    /* variadic: equal shapes before 8, numpy broadcasting from 8 (a superset) */
    {"Max", 1, NULL}, {"Min", 1, NULL}, {"Mean", 1, NULL}, {"Sum", 1, NULL},
    {"Split", 2, NULL}, {"Pad", 2, NULL}, {"GlobalLpPool", 2, NULL}, {"LpPool", 2, NULL},
    {"Concat", 4, concat_has_axis}, {"Reshape", 5, NULL}, {"Tile", 6, NULL},
    {"Cast", 6, NULL}, {"Clip", 6, NULL},
    {"Add", 7, no_legacy_broadcast}, {"Sub", 7, no_legacy_broadcast},
    {"Mul", 7, no_legacy_broadcast}, {"Div", 7, no_legacy_broadcast},
    {"Pow", 7, no_legacy_broadcast}, {"And", 7, no_legacy_broadcast},
    {"Or", 7, no_legacy_broadcast}, {"Xor", 7, no_legacy_broadcast},
    {"Equal", 7, no_legacy_broadcast}, {"Greater", 7, no_legacy_broadcast},
    {"Less", 7, no_legacy_broadcast}, {"Gemm", 7, no_legacy_broadcast},
    {"PRelu", 7, NULL}, {"Dropout", 7, dropout_is_test},
    {"Sin", 7, NULL}, {"Cos", 7, NULL}, {"Tan", 7, NULL}, {"Asin", 7, NULL},
    {"Acos", 7, NULL}, {"Atan", 7, NULL}, {"RNN", 7, NULL}, {"GRU", 7, NULL},
    {"LSTM", 7, NULL}, {"Expand", 8, NULL}, {"Scan", 8, NULL},
    {"BatchNormalization", 9, batchnorm_inference},
};

static tosac_code check_graph(const ir_graph *g, int64_t opset, tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (strcmp(n->domain, "") != 0 && strcmp(n->domain, "ai.onnx") != 0)
            continue;
        const legacy_op *e = NULL;
        for (size_t k = 0; k < sizeof legacy_ops / sizeof legacy_ops[0] && !e; k++)
            if (strcmp(legacy_ops[k].op, n->op_type) == 0)
                e = &legacy_ops[k];
        if (!e || (opset < e->since && !(e->ok && e->ok(n, opset)))) {
            char desc[160];
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "%s: %s at ai.onnx opset %lld differs from its opset-9 meaning "
                              "and is not supported (supported: opsets %d..%d)",
                              ir_node_desc(g, i, desc, sizeof desc), n->op_type,
                              (long long)opset, ONNX_MIN_OPSET, ONNX_MAX_OPSET);
        }
        for (int k = 0; ir_node_subgraph(n, k); k++) {
            tosac_code rc = check_graph(ir_node_subgraph(n, k), opset, err);
            if (rc)
                return rc;
        }
    }
    return TOSAC_OK;
}

tosac_code onnx_check_legacy_ops(const ir_model *m, tosac_error *err)
{
    int64_t opset = ir_model_opset(m, "");
    if (opset >= ONNX_MIN_OPSET)
        return TOSAC_OK;
    return check_graph(m->graph, opset, err);
}
