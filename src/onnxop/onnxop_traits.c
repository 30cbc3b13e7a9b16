/* The operator-traits table (onnxop_traits.h): one row per ai.onnx operator that some pass or
 * the quantizer treats specially, sorted by op type (test_onnxop_traits checks the order).
 * Columns: op, flags, quantizer class, quantized data inputs, per-tensor constant inputs,
 * float parameters kept through the Q/DQ folding, integer compile-time parameters.
 *
 * Where the old per-pass lists differed, the difference is a column here, not a guess:
 *   - the quantizer's parameters (not q_data) and pass_narrow_int64's integer parameters
 *     (int_params) are different sets (Resize's roi/scales/sizes vs its quantized input; Pad's
 *     constant value is quantized, its pads and axes are integers);
 *   - COPIES_VALUES is pass_narrow_int64's range-preserving list as it was (MaxPool, which
 *     also copies values, is not in it: it never reads int64);
 *   - ConvTranspose is quantized but its Relu/Clip is not fused (no FUSES_ACT), as before. */
#include <string.h>

#include "onnxop/onnxop_traits.h"

#define FUSES_ACT ONNXOP_FUSES_ACT
#define FUSABLE_ACT ONNXOP_FUSABLE_ACT
#define QUANT_FORM ONNXOP_QUANT_FORM
#define NO_QDQ_FOLD ONNXOP_NO_QDQ_FOLD
#define INDEX_RESULT ONNXOP_INDEX_RESULT
#define NO_CONST_FOLD ONNXOP_NO_CONST_FOLD
#define COPIES_VALUES ONNXOP_COPIES_VALUES
#define Q_NONE ONNXOP_Q_NONE
#define Q_COMPUTE ONNXOP_Q_COMPUTE
#define Q_SHARED ONNXOP_Q_SHARED
#define Q_OWN ONNXOP_Q_OWN
#define ALL ONNXOP_SLOTS_ALL
#define FROM(k) ONNXOP_SLOTS_FROM(k)
#define S(k) ONNXOP_SLOT(k)

const onnxop_traits onnxop_traits_table[] = {
    {"Add", FUSES_ACT, Q_COMPUTE, ALL, ALL, 0, 0},
    {"ArgMax", INDEX_RESULT, Q_NONE, 0, 0, 0, 0},
    {"ArgMin", INDEX_RESULT, Q_NONE, 0, 0, 0, 0},
    {"AveragePool", 0, Q_SHARED, S(0), 0, 0, 0},
    {"Bernoulli", NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"Cast", NO_QDQ_FOLD, Q_NONE, 0, 0, 0, 0},
    {"CenterCropPad", 0, Q_SHARED, S(0), 0, 0, S(1)},
    {"Clip", FUSABLE_ACT, Q_OWN, S(0), 0, S(1) | S(2), 0},
    {"Concat", 0, Q_SHARED, ALL, ALL, 0, 0},
    {"Constant", NO_QDQ_FOLD | NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"ConstantOfShape", 0, Q_NONE, 0, 0, 0, FROM(0)},
    {"Conv", FUSES_ACT, Q_COMPUTE, S(0), 0, S(2), 0},
    {"ConvTranspose", 0, Q_COMPUTE, S(0), 0, S(2), 0},
    {"CumSum", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"DequantizeLinear", QUANT_FORM | NO_QDQ_FOLD | NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"Dropout", COPIES_VALUES, Q_NONE, 0, 0, 0, 0},
    {"DynamicQuantizeLinear", QUANT_FORM, Q_NONE, 0, 0, 0, 0},
    {"Equal", INDEX_RESULT, Q_NONE, 0, 0, 0, 0},
    {"Erf", 0, Q_OWN, S(0), 0, 0, 0},
    {"Exp", 0, Q_OWN, S(0), 0, 0, 0},
    {"Expand", COPIES_VALUES, Q_NONE, 0, 0, 0, FROM(1)},
    {"Flatten", COPIES_VALUES, Q_SHARED, S(0), 0, 0, 0},
    {"Floor", 0, Q_OWN, S(0), 0, 0, 0},
    {"Gather", COPIES_VALUES, Q_SHARED, S(0), S(0), 0, 0},
    {"GatherElements", COPIES_VALUES, Q_NONE, 0, 0, 0, 0},
    {"GatherND", COPIES_VALUES, Q_NONE, 0, 0, 0, 0},
    {"Gelu", 0, Q_OWN, S(0), 0, 0, 0},
    {"Gemm", FUSES_ACT, Q_COMPUTE, S(0) | S(1), 0, S(2), 0},
    {"GlobalAveragePool", 0, Q_SHARED, S(0), 0, 0, 0},
    {"Greater", INDEX_RESULT, Q_COMPUTE, ALL, ALL, 0, 0},
    {"GreaterOrEqual", INDEX_RESULT, Q_COMPUTE, ALL, ALL, 0, 0},
    {"HardSigmoid", 0, Q_OWN, S(0), 0, 0, 0},
    {"HardSwish", 0, Q_OWN, S(0), 0, 0, 0},
    {"Identity", COPIES_VALUES, Q_NONE, 0, 0, 0, 0},
    {"LeakyRelu", 0, Q_OWN, S(0), 0, 0, 0},
    {"Less", INDEX_RESULT, Q_COMPUTE, ALL, ALL, 0, 0},
    {"LessOrEqual", INDEX_RESULT, Q_COMPUTE, ALL, ALL, 0, 0},
    {"Log", 0, Q_OWN, S(0), 0, 0, 0},
    {"MatMul", FUSES_ACT, Q_COMPUTE, S(0) | S(1), 0, 0, 0},
    {"Max", 0, Q_COMPUTE, ALL, ALL, 0, 0},
    {"MaxPool", 0, Q_SHARED, S(0), 0, 0, 0},
    {"Min", 0, Q_COMPUTE, ALL, ALL, 0, 0},
    {"Mul", 0, Q_COMPUTE, ALL, ALL, 0, 0},
    {"Multinomial", NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"OneHot", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"PRelu", 0, Q_OWN, ALL, FROM(1), 0, 0},
    {"Pad", 0, Q_SHARED, S(0), S(2), 0, S(1) | S(3)},
    {"Pow", 0, Q_OWN, S(0), S(1), 0, 0},
    {"QLinearConv", QUANT_FORM | NO_QDQ_FOLD, Q_NONE, 0, 0, 0, 0},
    {"QLinearMatMul", QUANT_FORM | NO_QDQ_FOLD, Q_NONE, 0, 0, 0, 0},
    {"QuantizeLinear", QUANT_FORM | NO_QDQ_FOLD | NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"RandomNormal", NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"RandomNormalLike", NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"RandomUniform", NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"RandomUniformLike", NO_CONST_FOLD, Q_NONE, 0, 0, 0, 0},
    {"Reciprocal", 0, Q_OWN, S(0), 0, 0, 0},
    {"ReduceL1", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"ReduceL2", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"ReduceLogSumExp", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"ReduceMax", COPIES_VALUES, Q_NONE, 0, 0, 0, FROM(1)},
    {"ReduceMean", 0, Q_OWN, S(0), 0, 0, FROM(1)},
    {"ReduceMin", COPIES_VALUES, Q_NONE, 0, 0, 0, FROM(1)},
    {"ReduceProd", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"ReduceSum", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"ReduceSumSquare", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"Relu", FUSABLE_ACT, Q_OWN, S(0), 0, 0, 0},
    {"Reshape", COPIES_VALUES, Q_SHARED, S(0), 0, 0, FROM(1)},
    {"Resize", 0, Q_SHARED, S(0), 0, S(1) | S(2), FROM(1)},
    {"ScatterND", 0, Q_SHARED, S(0) | S(2), S(2), 0, 0},
    {"Shape", NO_QDQ_FOLD, Q_NONE, 0, 0, 0, 0},
    {"Sigmoid", 0, Q_OWN, S(0), 0, 0, 0},
    {"Slice", COPIES_VALUES, Q_SHARED, S(0), 0, 0, FROM(1)},
    {"Softmax", 0, Q_OWN, S(0), 0, 0, 0},
    {"Split", COPIES_VALUES, Q_SHARED, S(0), 0, 0, FROM(1)},
    {"Sqrt", 0, Q_OWN, S(0), 0, 0, 0},
    {"Squeeze", COPIES_VALUES, Q_SHARED, S(0), 0, 0, FROM(1)},
    {"Sub", 0, Q_COMPUTE, ALL, ALL, 0, 0},
    {"Tanh", 0, Q_OWN, S(0), 0, 0, 0},
    {"Tile", COPIES_VALUES, Q_NONE, 0, 0, 0, FROM(1)},
    {"TopK", 0, Q_NONE, 0, 0, 0, FROM(1)},
    {"Transpose", COPIES_VALUES, Q_SHARED, S(0), 0, 0, 0},
    {"Unsqueeze", COPIES_VALUES, Q_SHARED, S(0), 0, 0, FROM(1)},
    {"Upsample", 0, Q_NONE, 0, 0, S(1), FROM(1)},
    {"Where", 0, Q_SHARED, FROM(1), FROM(1), 0, 0},
};

const int onnxop_traits_count = (int)(sizeof onnxop_traits_table / sizeof onnxop_traits_table[0]);

const onnxop_traits *onnxop_traits_find(const char *op_type)
{
    if (!op_type)
        return NULL;
    int lo = 0, hi = onnxop_traits_count; /* binary search: the runtime has no bsearch */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(op_type, onnxop_traits_table[mid].op_type);
        if (c == 0)
            return &onnxop_traits_table[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const onnxop_traits *onnxop_traits_of(const ir_node *n)
{
    if (!n || !n->domain || n->domain[0] != '\0') /* ai.onnx only, as ir_node_is */
        return NULL;
    return onnxop_traits_find(n->op_type);
}

bool onnxop_has(const ir_node *n, uint32_t flag)
{
    const onnxop_traits *t = onnxop_traits_of(n);
    return t && (t->flags & flag) != 0;
}

onnxop_qclass onnxop_qclass_of(const ir_node *n)
{
    const onnxop_traits *t = onnxop_traits_of(n);
    return t ? t->qclass : ONNXOP_Q_NONE;
}
