/* CenterCropPad (opset 18), the operator added end to end as the example of docs/ARCHITECTURE.md
 * "Adding an operator": the geometry (src/onnxop/onnxop_crop.c) against ONNX's reference
 * results written out here, through shape inference and the CPU executor; then delegated
 * under TOSA (float, int32, and a8w8 through tosac's own quantizer, which shares the input's
 * range with the output by the traits row) with outputs equal to the CPU executor's and every
 * delegate replayed bit-exactly (lc_check). */
#include "lower_core_testutil.h"

#include <string.h>

#include "cpu/cpu_exec.h"
#include "onnxop/onnxop_crop.h"

/* x f32[3,4] = 0..11 -> CenterCropPad(shape) along axes (NULL: all). */
static tosac_code run_cpu(const int64_t *target, int nt, const int64_t *axes, int na,
                          tosac_tensor *y, int64_t *inferred, char *msg)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_non_null(m);
    assert_int_equal(ir_model_set_opset(m, "", 18, &err), TOSAC_OK);
    ir_graph *g = m->graph;
    const int64_t xs[2] = {3, 4}, ss[1] = {nt};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, xs, &err);
    int s = ir_graph_add_const(g, "s", TOSAC_DT_I64, 1, ss, target, (size_t)nt * 8, &err);
    int out = ir_graph_add_tensor(g, "y", TOSAC_DT_UNKNOWN, -1, NULL, &err);
    int ins[2] = {x, s};
    int k = ir_graph_add_node(g, "CenterCropPad", NULL, "ccp", ins, 2, &out, 1, &err);
    assert_true(k >= 0);
    if (axes)
        assert_int_equal(ir_node_set_ints(g, k, "axes", axes, na, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, out, &err), TOSAC_OK);
    tosac_code rc = ir_model_infer_shapes(m, &err);
    if (!rc) {
        const ir_tensor *t = &g->tensors[out];
        assert_int_equal(t->rank, 2);
        assert_int_equal(t->dtype, TOSAC_DT_F32);
        inferred[0] = t->shape[0];
        inferred[1] = t->shape[1];
        tosac_tensor in;
        assert_int_equal(tosac_tensor_alloc(&in, TOSAC_DT_F32, 2, xs, &err), TOSAC_OK);
        for (int i = 0; i < 12; i++)
            ((float *)in.data)[i] = (float)i;
        rc = cpu_run_model(m, &in, 1, y, 1, &err);
        tosac_tensor_free(&in);
    }
    strcpy(msg, err.msg);
    ir_model_free(m);
    return rc;
}

static void expect(const tosac_tensor *y, int64_t d0, int64_t d1, const float *want)
{
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->shape[0], d0);
    assert_int_equal(y->shape[1], d1);
    for (int64_t i = 0; i < d0 * d1; i++)
        if (((const float *)y->data)[i] != want[i])
            fail_msg("element %lld: %g, want %g", (long long)i, ((const float *)y->data)[i],
                     want[i]);
}

/* ONNX's reference (onnx/reference/ops/op_center_crop_pad.py): an odd difference puts the
 * extra element after: 3 -> 2 keeps rows 0..1, 4 -> 7 pads 1 before and 2 after, 4 -> 2
 * keeps columns 1..2. */
static void test_cpu_reference(void **state)
{
    (void)state;
    tosac_tensor y;
    int64_t inf[2];
    char msg[256];
    const int64_t both[2] = {2, 7};
    assert_int_equal(run_cpu(both, 2, NULL, 0, &y, inf, msg), TOSAC_OK);
    assert_int_equal(inf[0], 2);
    assert_int_equal(inf[1], 7);
    const float want[14] = {0, 0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 7, 0, 0};
    expect(&y, 2, 7, want);
    tosac_tensor_free(&y);

    const int64_t last[1] = {2}, ax[1] = {-1};
    assert_int_equal(run_cpu(last, 1, ax, 1, &y, inf, msg), TOSAC_OK);
    assert_int_equal(inf[0], 3);
    assert_int_equal(inf[1], 2);
    const float want2[6] = {1, 2, 5, 6, 9, 10};
    expect(&y, 3, 2, want2);
    tosac_tensor_free(&y);

    const int64_t same[2] = {3, 4};
    assert_int_equal(run_cpu(same, 2, NULL, 0, &y, inf, msg), TOSAC_OK);
    float id[12];
    for (int i = 0; i < 12; i++)
        id[i] = (float)i;
    expect(&y, 3, 4, id);
    tosac_tensor_free(&y);
}

/* Bad geometry is a one-line error naming the node, from shape inference. */
static void test_errors(void **state)
{
    (void)state;
    tosac_tensor y;
    int64_t inf[2];
    char msg[256];
    const int64_t three[3] = {1, 2, 3};
    assert_int_equal(run_cpu(three, 3, NULL, 0, &y, inf, msg), TOSAC_ERR_INPUT);
    assert_non_null(strstr(msg, "node 'ccp' (CenterCropPad): shape has 3 values for 2 axes"));
    const int64_t two[2] = {2, 2}, dup[2] = {1, -1};
    assert_int_equal(run_cpu(two, 2, dup, 2, &y, inf, msg), TOSAC_ERR_INPUT);
    assert_non_null(strstr(msg, "axis 1 given twice"));
    const int64_t neg[2] = {2, -1};
    assert_int_equal(run_cpu(neg, 2, NULL, 0, &y, inf, msg), TOSAC_ERR_INPUT);
    assert_non_null(strstr(msg, "negative target length -1"));
    const int64_t one[1] = {2}, far[1] = {2};
    assert_int_equal(run_cpu(one, 1, far, 1, &y, inf, msg), TOSAC_ERR_INPUT);
    assert_non_null(strstr(msg, "axis 2 out of range for rank 2"));
}

typedef struct ccase {
    tosac_dtype dt;
    int64_t target[3];
    bool crop, pad;
} ccase;

static void ccp_model(lc_b *b, const void *arg)
{
    const ccase *k = arg;
    lc_set_opset(b, 18);
    const int64_t xs[3] = {2, 5, 6};
    /* static: lc_input borrows the samples past this call (calibration runs them later) */
    static float xf[60];
    static int32_t xi[60];
    lc_fill(xf, 60, 7, 4.0f);
    for (int i = 0; i < 60; i++)
        xi[i] = i * 1000 - 30000;
    int x = k->dt == TOSAC_DT_F32 ? lc_input(b, "x", 3, xs, xf)
                                  : lc_input_typed(b, "x", k->dt, 3, xs, xi);
    int ins[2] = {x, lc_ints(b, "shape", 3, k->target)};
    int n = lc_node(b, "CenterCropPad", "ccp", ins, 2, 1);
    if (k->dt == TOSAC_DT_F32)
        lc_output(b, lc_out(b, n, 0));
    else
        lc_output_plain(b, lc_out(b, n, 0));
}

static void check_ops(const lc_result *r, const ccase *k, tosac_dtype dt, int cpu)
{
    if (r->delegated != 1 || r->cpu != cpu || r->n_delegates != 1)
        fail_msg("%d delegated, %d on the CPU (%s: %s)", r->delegated, r->cpu, r->cpu_graph,
                 r->reasons);
    assert_int_equal(lc_count(r, TOSA_OP_SLICE, dt), k->crop ? 1 : 0);
    assert_int_equal(lc_count(r, TOSA_OP_PAD, dt), k->pad ? 1 : 0);
}

static const ccase k_cases[] = {
    {TOSAC_DT_F32, {2, 3, 9}, true, true},   /* crop axis 1, pad axis 2 */
    {TOSAC_DT_F32, {1, 2, 3}, true, false},  /* crops only */
    {TOSAC_DT_F32, {4, 8, 6}, false, true},  /* pads only */
};

static void test_delegated_float(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        lc_result r;
        lc_check(ccp_model, &k_cases[i], LC_FLOAT, "TOSA-1.0+FP", 0, &r);
        check_ops(&r, &k_cases[i], TOSAC_DT_F32, 0);
    }
}

static void test_delegated_int32(void **state)
{
    (void)state;
    ccase k = {TOSAC_DT_I32, {3, 4, 7}, true, true};
    lc_result r;
    lc_check(ccp_model, &k, LC_FLOAT, "TOSA-1.0+INT", 0, &r);
    check_ops(&r, &k, TOSAC_DT_I32, 0);
}

/* tosac's quantizer gives input and output one range (Q_SHARED): the padding is the zero
 * point, so the int8 result is the CPU's exactly (0 output steps). */
static void test_delegated_a8w8(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        lc_result r;
        lc_check_quantize(ccp_model, &k_cases[i], QUANT_A8W8, "TOSA-1.0+INT", 0, &r);
        check_ops(&r, &k_cases[i], TOSAC_DT_I8, 2); /* the edge Q and DQ */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_reference),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_delegated_float),
        cmocka_unit_test(test_delegated_int32),
        cmocka_unit_test(test_delegated_a8w8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
