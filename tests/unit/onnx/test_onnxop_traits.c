/* The operator-traits table (src/onnxop/onnxop_traits.c): sorted (lookups are a binary search),
 * and every column equal to the per-pass lists it replaced, written out here literally as they
 * stood before the table (quant_plan.c, pass_fold_qdq.c, pass_fold_constants.c, quant.c,
 * pass_narrow_int64.c), for every listed operator and input slots 0..40. */
#include "testutil.h"

#include <string.h>

#include "onnxop/onnxop_traits.h"
#include "quant/quant_internal.h"

static bool in(const char *op, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(op, list[i]) == 0)
            return true;
    return false;
}

static const char *const k_compute[] = {"Conv", "ConvTranspose", "Gemm", "MatMul", "Add",
                                        "Sub", "Mul", "Max", "Min", NULL};
static const char *const k_shared[] = {"Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze",
                                       "Slice", "Split", "Gather", "MaxPool", "AveragePool",
                                       "GlobalAveragePool", "Resize", "Concat", "Pad", "Where",
                                       "ScatterND", NULL};
static const char *const k_own[] = {"Relu", "Clip", "Sigmoid", "Tanh", "Softmax", "HardSigmoid",
                                    "HardSwish", "Exp", "Erf", "Gelu", "LeakyRelu",
                                    "ReduceMean", "PRelu", "Sqrt", "Reciprocal", "Floor", "Log",
                                    "Pow", NULL};
static const char *const k_fuses[] = {"Conv", "Gemm", "MatMul", "Add", NULL};
static const char *const k_fusable[] = {"Relu", "Clip", NULL};
static const char *const k_never_fold[] = {"QuantizeLinear", "DequantizeLinear", "Constant",
                                           "Shape", "Cast", "QLinearConv", "QLinearMatMul", NULL};
static const char *const k_index[] = {"ArgMax", "ArgMin", "Equal", "Greater", "GreaterOrEqual",
                                      "Less", "LessOrEqual", NULL};
static const char *const k_no_const_fold[] = {
    "QuantizeLinear", "DequantizeLinear", "RandomNormal", "RandomUniform", "RandomNormalLike",
    "RandomUniformLike", "Multinomial", "Bernoulli", "Constant", NULL};
static const char *const k_quant_form[] = {"QuantizeLinear", "DequantizeLinear", "QLinearConv",
                                           "QLinearMatMul", "DynamicQuantizeLinear", NULL};
static const char *const k_same[] = {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
                                     "Transpose", "Slice", "Expand", "Tile", "ReduceMax",
                                     "ReduceMin", "Split", "Gather", "GatherElements",
                                     "GatherND", "Dropout", NULL};

#define IS(x) (strcmp(op, x) == 0)

static bool old_act_slot(const char *op, int k)
{
    if (IS("Conv") || IS("ConvTranspose"))
        return k == 0;
    if (IS("ScatterND"))
        return k == 0 || k == 2;
    if (IS("Gemm") || IS("MatMul"))
        return k <= 1;
    if (IS("Add") || IS("Sub") || IS("Mul") || IS("Concat") || IS("Max") || IS("Min") ||
        IS("PRelu"))
        return true;
    if (IS("Where"))
        return k >= 1;
    return k == 0;
}

static bool old_shared_slot(const char *op, int k)
{
    if (IS("Concat"))
        return true;
    if (IS("Where"))
        return k >= 1;
    if (IS("ScatterND"))
        return k == 0 || k == 2;
    return k == 0;
}

static bool old_const_act_slot(const char *op, int k)
{
    if (IS("PRelu") || IS("Where"))
        return k >= 1;
    if (IS("Pad"))
        return k == 2;
    if (IS("Gather"))
        return k == 0;
    if (IS("ScatterND"))
        return k == 2;
    if (IS("Pow"))
        return k == 1;
    return IS("Add") || IS("Sub") || IS("Mul") || IS("Concat") || IS("Max") || IS("Min");
}

static bool old_const_shares_output(const char *op, int k)
{
    return IS("Concat") || (IS("Where") && k >= 1) || (IS("Pad") && k == 2) ||
           (IS("Gather") && k == 0) || (IS("ScatterND") && k == 2);
}

static bool old_float_param(const char *op, int slot)
{
    return (IS("Clip") && (slot == 1 || slot == 2)) ||
           ((IS("Conv") || IS("Gemm") || IS("ConvTranspose")) && slot == 2) ||
           (IS("Resize") && (slot == 1 || slot == 2)) || (IS("Upsample") && slot == 1);
}

static bool old_control_slot(const char *op, int slot)
{
    static const struct { const char *op; int first; } ops[] = {
        {"Reshape", 1}, {"Expand", 1}, {"Tile", 1}, {"Slice", 1}, {"Unsqueeze", 1},
        {"Squeeze", 1}, {"TopK", 1}, {"Resize", 1}, {"Split", 1}, {"CumSum", 1},
        {"OneHot", 1}, {"Upsample", 1}, {"ConstantOfShape", 0}, {"ReduceSum", 1},
        {"ReduceMax", 1}, {"ReduceMin", 1}, {"ReduceMean", 1}, {"ReduceProd", 1},
        {"ReduceL1", 1}, {"ReduceL2", 1}, {"ReduceSumSquare", 1}, {"ReduceLogSumExp", 1}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (IS(ops[i].op))
            return slot >= ops[i].first;
    if (IS("Pad"))
        return slot == 1 || slot == 3;
    return false;
}

static void test_sorted_unique(void **state)
{
    (void)state;
    assert_true(onnxop_traits_count > 0);
    for (int i = 1; i < onnxop_traits_count; i++)
        if (strcmp(onnxop_traits_table[i - 1].op_type, onnxop_traits_table[i].op_type) >= 0)
            fail_msg("row %d '%s' not after '%s'", i, onnxop_traits_table[i].op_type,
                     onnxop_traits_table[i - 1].op_type);
    for (int i = 0; i < onnxop_traits_count; i++)
        assert_ptr_equal(onnxop_traits_find(onnxop_traits_table[i].op_type),
                         &onnxop_traits_table[i]);
    assert_null(onnxop_traits_find("NoSuchOp"));
    assert_null(onnxop_traits_find("conv")); /* case matters, as ir_node_is */
    assert_null(onnxop_traits_find(NULL));
}

static ir_node node(const char *op, const char *domain)
{
    ir_node n;
    memset(&n, 0, sizeof n);
    n.op_type = op;
    n.domain = domain;
    return n;
}

/* Every operator any old list named, plus one none named. */
static const char *const *const k_lists[] = {k_compute, k_shared, k_own, k_fuses, k_fusable,
                                             k_never_fold, k_index, k_no_const_fold,
                                             k_quant_form, k_same};

/* Changed since the lists: the comparisons are quantized (issue 15: an If condition computed
 * from an activation is integer, so the If delegates under INT); test_added_rows checks them. */
static const char *const k_cmp[] = {"Greater", "GreaterOrEqual", "Less", "LessOrEqual", NULL};

static void check_op(const char *op)
{
    ir_node n = node(op, "");
    bool quantized = in(op, k_compute) || in(op, k_shared) || in(op, k_own) || in(op, k_cmp);
    onnxop_qclass want = in(op, k_compute) || in(op, k_cmp) ? ONNXOP_Q_COMPUTE
                         : in(op, k_shared) ? ONNXOP_Q_SHARED
                         : in(op, k_own)    ? ONNXOP_Q_OWN
                                            : ONNXOP_Q_NONE;
    if (onnxop_qclass_of(&n) != want || quant_op_is_quantized(&n) != quantized)
        fail_msg("%s: class %d, want %d", op, (int)onnxop_qclass_of(&n), (int)want);
    const struct { uint32_t flag; const char *const *list; } flags[] = {
        {ONNXOP_FUSES_ACT, k_fuses},         {ONNXOP_FUSABLE_ACT, k_fusable},
        {ONNXOP_NO_QDQ_FOLD, k_never_fold},  {ONNXOP_INDEX_RESULT, k_index},
        {ONNXOP_NO_CONST_FOLD, k_no_const_fold}, {ONNXOP_QUANT_FORM, k_quant_form},
        {ONNXOP_COPIES_VALUES, k_same}};
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
        if (onnxop_has(&n, flags[f].flag) != in(op, flags[f].list))
            fail_msg("%s: flag 0x%x is %d", op, (unsigned)flags[f].flag,
                     (int)onnxop_has(&n, flags[f].flag));
    const onnxop_traits *t = onnxop_traits_of(&n);
    if (in(op, k_cmp))
        return; /* the slots changed with the class: test_added_rows */
    for (int k = 0; k <= 40; k++) {
        uint32_t z = 0;
        if (quantized && onnxop_slot_in(t->q_data, k) != old_act_slot(op, k))
            fail_msg("%s: q_data slot %d", op, k);
        if (in(op, k_shared) && onnxop_slot_in(t->q_data, k) != old_shared_slot(op, k))
            fail_msg("%s: shared slot %d", op, k);
        if (quant_const_act_slot(&n, k) != old_const_act_slot(op, k))
            fail_msg("%s: const act slot %d", op, k);
        if (quant_const_shares_output(&n, k) != old_const_shares_output(op, k))
            fail_msg("%s: const shares output slot %d", op, k);
        if (onnxop_slot_in(t ? t->float_params : z, k) != old_float_param(op, k))
            fail_msg("%s: float param slot %d", op, k);
        if (onnxop_slot_in(t ? t->int_params : z, k) != old_control_slot(op, k))
            fail_msg("%s: int param slot %d", op, k);
    }
}

static void test_columns_match_old_lists(void **state)
{
    (void)state;
    for (size_t l = 0; l < sizeof k_lists / sizeof k_lists[0]; l++)
        for (int i = 0; k_lists[l][i]; i++)
            check_op(k_lists[l][i]);
    const char *extra[] = {"Upsample", "Resize", "Pad", "TopK", "CumSum", "OneHot",
                           "ConstantOfShape", "ReduceSum", "ReduceL1", "Abs", "Mod", "If"};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        check_op(extra[i]);
    /* every row is named by some old list (or is an operator added since, checked below):
     * the table added no operator silently */
    for (int r = 0; r < onnxop_traits_count; r++) {
        const char *op = onnxop_traits_table[r].op_type;
        bool named = strcmp(op, "CenterCropPad") == 0 || old_control_slot(op, 1) || old_control_slot(op, 0) ||
                     old_float_param(op, 1) || old_float_param(op, 2);
        for (size_t l = 0; l < sizeof k_lists / sizeof k_lists[0]; l++)
            named |= in(op, k_lists[l]);
        if (!named)
            fail_msg("row '%s' is in no old list", op);
    }
}

/* Added after the old lists: CenterCropPad passes values through (shares its input's range),
 * its shape input is an integer compile-time parameter. */
static void test_added_rows(void **state)
{
    (void)state;
    ir_node n = node("CenterCropPad", "");
    const onnxop_traits *t = onnxop_traits_of(&n);
    assert_non_null(t);
    assert_int_equal(t->qclass, ONNXOP_Q_SHARED);
    assert_int_equal(t->q_data, ONNXOP_SLOT(0));
    assert_int_equal(t->q_const, 0);
    assert_int_equal(t->float_params, 0);
    assert_int_equal(t->int_params, ONNXOP_SLOT(1));
    assert_int_equal(t->flags, 0);
    /* the comparisons: both operands activations, a constant one quantized per tensor, the
     * bool result an index (folds on the dequantized inputs) */
    for (int i = 0; k_cmp[i]; i++) {
        n = node(k_cmp[i], "");
        t = onnxop_traits_of(&n);
        assert_non_null(t);
        assert_int_equal(t->qclass, ONNXOP_Q_COMPUTE);
        assert_int_equal(t->q_data, ONNXOP_SLOTS_ALL);
        assert_int_equal(t->q_const, ONNXOP_SLOTS_ALL);
        assert_int_equal(t->float_params, 0);
        assert_int_equal(t->int_params, 0);
        assert_int_equal(t->flags, ONNXOP_INDEX_RESULT);
    }
}

static void test_domain_and_slots(void **state)
{
    (void)state;
    ir_node other = node("Conv", "com.microsoft"), onnx = node("Conv", "");
    assert_null(onnxop_traits_of(&other)); /* only ai.onnx, as ir_node_is */
    assert_false(onnxop_has(&other, ONNXOP_FUSES_ACT));
    assert_true(onnxop_has(&onnx, ONNXOP_FUSES_ACT));
    assert_true(onnxop_slot_in(ONNXOP_SLOTS_ALL, 1000)); /* bit 31: every later slot */
    assert_false(onnxop_slot_in(ONNXOP_SLOT(2), 1000));
    assert_true(onnxop_slot_in(ONNXOP_SLOTS_FROM(1), 31));
    assert_false(onnxop_slot_in(ONNXOP_SLOTS_FROM(1), 0));
    assert_false(onnxop_slot_in(ONNXOP_SLOTS_ALL, -1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_unique),
        cmocka_unit_test(test_columns_match_old_lists),
        cmocka_unit_test(test_added_rows),
        cmocka_unit_test(test_domain_and_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
