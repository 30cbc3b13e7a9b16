/* Softmax / LogSoftmax lowering: float decomposition, the quantized int8 (two exp tables)
 * and int16 (one interpolated exp table) forms with the INTDIV normalisation (Softmax) or
 * the CLZ-normalised log of the sum (LogSoftmax), the axis by
 * the model's opset, and the zoo's QDQ sigmoid / tanh / softmax models against onnxruntime. */
#include "lower_act_testutil.h"
#include "lower_core_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "tosac/program.h"

#define N 96
static const lat_op base = {"Softmax", 3, {2, 3, 16}, 0, {{0}}, NULL, 0};

static void axis_attr(ir_graph *g, int k, int64_t axis)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_int(g, k, "axis", axis, &err), TOSAC_OK);
}
static void axis_last(ir_graph *g, int k) { axis_attr(g, k, -1); }
static void axis_1(ir_graph *g, int k) { axis_attr(g, k, 1); }

/* int8 inputs on the grid of 0.05 (so only the operator is measured) */
static void inputs(float *x)
{
    for (int i = 0; i < N; i++)
        x[i] = 0.05f * (float)((i * 37) % 200 - 100);
}

static void test_float(void **s)
{
    (void)s;
    float x[N];
    inputs(x);
    lat_quant fp = {TOSAC_DT_F32, 0, 0, 0, 0};
    lat_op op = base;
    op.attrs = axis_last;
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "REDUCE_MAX SUB EXP REDUCE_SUM RECIPROCAL MUL");
    assert_int_equal(tosa_graph_main_block(r.tg)->ops[0].attr.axis, 2);
    lat_result_free(&r);
    op.op_type = "LogSoftmax";
    op.attrs = axis_1; /* along the middle axis: unambiguous when the dims after it are 1 */
    op.shape[1] = 48;
    op.shape[2] = 1;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_string_equal(r.ops, "REDUCE_MAX SUB EXP REDUCE_SUM LOG SUB");
    assert_int_equal(tosa_graph_main_block(r.tg)->ops[0].attr.axis, 1);
    lat_result_free(&r);
}

static void test_quantized_int8(void **s)
{
    (void)s;
    float x[N];
    inputs(x);
    lat_quant a8 = {TOSAC_DT_I8, 0.05f, 1.0f / 256.0f, 0, -128};
    lat_op op = base;
    op.attrs = axis_last;
    lat_result r;
    lat_run(&op, &a8, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "CAST REDUCE_MAX SUB RESCALE TABLE TABLE RESCALE RESCALE ADD "
                               "REDUCE_SUM MUL INTDIV RESCALE");
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_CAST, 0), TOSAC_DT_I32);
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_TABLE, 0), TOSAC_DT_I8);
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_REDUCE_SUM, 0), TOSAC_DT_I32);
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_RESCALE, 3), TOSAC_DT_I8);
    lat_result_free(&r);
}

/* Quantized LogSoftmax: the exp tables and sum of Softmax, log(sum) by CLZ normalisation and
 * a mantissa TABLE (int8: two byte tables on 8 bits of mantissa; int16: one interpolated
 * table), in int32 units of 2^-16, one RESCALE. Within 1 output step of the float function
 * on the ramp and on EXT's degenerate inputs: all zero and all one (every d = 0, so the sum
 * is len * 32767 exactly and the output log(1/len)). */
static void logsoftmax_cases(const lat_quant *q, const char *spec, int len, const char *ops)
{
    float x[N];
    lat_op op = base;
    op.op_type = "LogSoftmax";
    op.attrs = axis_last;
    op.shape[1] = N / 2 / len;
    op.shape[2] = len;
    for (int k = 0; k < 3; k++) {
        if (k == 0)
            inputs(x);
        for (int i = 0; k && i < N; i++)
            x[i] = k == 1 ? 0.0f : 1.0f;
        lat_result r;
        lat_run(&op, q, spec, x, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_string_equal(r.ops, ops);
        assert_int_equal(lat_count(&r, TOSA_OP_CLZ), 1);
        lat_result_free(&r);
    }
}

static void test_logsoftmax_int8(void **s)
{
    (void)s;
    lat_quant a8 = {TOSAC_DT_I8, 0.05f, 0.1f, 0, 127};
    logsoftmax_cases(&a8, "TOSA-1.0+INT", 16,
                     "CAST REDUCE_MAX SUB RESCALE TABLE TABLE RESCALE RESCALE ADD REDUCE_SUM RESCALE CLZ SUB "
                     "LOGICAL_RIGHT_SHIFT RESCALE SUB RESCALE TABLE TABLE RESCALE RESCALE ADD SUB "
                     "MUL SUB ADD SUB RESCALE");
    logsoftmax_cases(&a8, "TOSA-1.0+INT", 48,
                     "CAST REDUCE_MAX SUB RESCALE TABLE TABLE RESCALE RESCALE ADD REDUCE_SUM RESCALE CLZ SUB "
                     "LOGICAL_RIGHT_SHIFT RESCALE SUB RESCALE TABLE TABLE RESCALE RESCALE ADD SUB "
                     "MUL SUB ADD SUB RESCALE");
}

static void test_logsoftmax_int16(void **s)
{
    (void)s;
    lat_quant a16 = {TOSAC_DT_I16, 0.05f / 256.0f, 16.0f / 32767.0f, 0, 0};
    logsoftmax_cases(&a16, "TOSA-1.0+INT+int16", 16,
                     "CAST REDUCE_MAX SUB ADD RESCALE TABLE RESCALE REDUCE_SUM RESCALE CLZ SUB "
                     "LOGICAL_RIGHT_SHIFT RESCALE TABLE RESCALE MUL SUB ADD SUB RESCALE");
    logsoftmax_cases(&a16, "TOSA-1.0+INT+int16", 48,
                     "CAST REDUCE_MAX SUB ADD RESCALE TABLE RESCALE REDUCE_SUM RESCALE CLZ SUB "
                     "LOGICAL_RIGHT_SHIFT RESCALE TABLE RESCALE MUL SUB ADD SUB RESCALE");
    /* an input range of 2^14 or more is refused (on the CPU) */
    float x[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.5f * (float)((i * 37) % 20 - 10);
    lat_quant wide = {TOSAC_DT_I16, 0.5f, 16.0f / 32767.0f, 0, 0};
    lat_op op = base;
    op.op_type = "LogSoftmax";
    lat_result r;
    lat_run(&op, &wide, "TOSA-1.0+INT+int16", x, 1, &r);
    assert_int_equal(r.delegated, 0);
    lat_result_free(&r);
}

static void test_quantized_int16(void **s)
{
    (void)s;
    float x[N];
    inputs(x);
    lat_quant a16 = {TOSAC_DT_I16, 0.05f / 256.0f, 1.0f / 32767.0f, 0, 0};
    lat_op op = base;
    op.attrs = axis_1;
    op.shape[1] = 48;
    op.shape[2] = 1;
    lat_result r;
    /* 2 steps: the exp TABLE's entry rounding and displacement (see test_lower_activation)
     * and INTDIV's truncation of the normalised value come on top of the output's half step
     * the float reference does not round; measured 1.07 */
    lat_run(&op, &a16, "TOSA-1.0+INT+int16", x, 2, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "CAST REDUCE_MAX SUB ADD RESCALE TABLE RESCALE REDUCE_SUM MUL "
                               "INTDIV RESCALE");
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_RESCALE, 0), TOSAC_DT_I16);
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_TABLE, 0), TOSAC_DT_I32);
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_RESCALE, 2), TOSAC_DT_I16);
    lat_result_free(&r);
    /* int16 tables need the int16 extension */
    lat_run(&op, &a16, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 0);
    lat_result_free(&r);
}

/* The axis by the model's opset (lower_ctx.opset), on a [2,3,16] input; every case is run
 * against the CPU executor, which reads the opset on its own:
 *   - opset 21, no axis: axis -1 (REDUCE_MAX along 2);
 *   - opset 21, axis 1 (not the last): REDUCE_MAX along 1, no reshape;
 *   - opset 11, no axis or axis 1: coerced to [2, 48], the function along axis 1 of that
 *     view between two RESHAPEs (before, both cases stayed on the CPU);
 *   - opset 11 on a rank-2 input: the 2-D view is the input itself (no RESHAPE). */
static const tosa_operator *first_reduce_max_op(const lat_result *r)
{
    const tosa_block *b = tosa_graph_main_block(r->tg);
    for (int i = 0; i < b->n_ops; i++)
        if (b->ops[i].op == TOSA_OP_REDUCE_MAX)
            return &b->ops[i];
    fail_msg("no REDUCE_MAX");
    return NULL;
}

static int reduce_axis(const lat_result *r)
{
    return first_reduce_max_op(r)->attr.axis;
}

static void test_axis_by_opset(void **s)
{
    (void)s;
    float x[N];
    inputs(x);
    lat_quant fp = {TOSAC_DT_F32, 0, 0, 0, 0};
    lat_op op = base;
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(reduce_axis(&r), 2);
    lat_result_free(&r);
    op.attrs = axis_1;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(reduce_axis(&r), 1);
    assert_int_equal(lat_count(&r, TOSA_OP_RESHAPE), 0);
    lat_result_free(&r);
    op.opset = 11;
    for (int k = 0; k < 2; k++) {
        op.attrs = k ? axis_1 : NULL;
        lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_int_equal(reduce_axis(&r), 1);
        assert_int_equal(lat_count(&r, TOSA_OP_RESHAPE), 2);
        const tosa_block *b = tosa_graph_main_block(r.tg);
        const tosa_operator *rm = first_reduce_max_op(&r);
        assert_int_equal(b->tensors[rm->inputs[0]].rank, 2);
        assert_int_equal(b->tensors[rm->inputs[0]].shape[1], 48);
        lat_result_free(&r);
    }
    op.attrs = NULL;
    op.rank = 2;
    op.shape[0] = 6;
    op.shape[1] = 16;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(lat_count(&r, TOSA_OP_RESHAPE), 0);
    lat_result_free(&r);
}

/* Quantized, the same two non-last forms: int8 along axis 1 at opset 21, and the opset-11
 * 2-D view (one output step, the int8 softmax tests' bound). */
static void test_axis_by_opset_int8(void **s)
{
    (void)s;
    float x[N];
    inputs(x);
    lat_quant q = {TOSAC_DT_I8, 0.05f, 1.0f / 256.0f, 0, -128};
    lat_op op = base;
    op.attrs = axis_1;
    lat_result r;
    lat_run(&op, &q, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(reduce_axis(&r), 1);
    lat_result_free(&r);
    op.opset = 11;
    op.attrs = NULL;
    lat_run(&op, &q, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_int_equal(reduce_axis(&r), 1);
    assert_int_equal(lat_count(&r, TOSA_OP_RESHAPE), 2);
    lat_result_free(&r);
}

/* A zoo QDQ model under spec: one delegate holding `op`, and every sample within one output
 * step (+1e-3, rtol 1e-3) of onnxruntime; tol_steps > 1 only with a reason. */
static void zoo(const char *name, const char *spec, tosa_op op, float y_scale, double tol_steps)
{
    char path[512];
    snprintf(path, sizeof path, "models/%s/model.onnx", name);
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(tu_shared(path), &m, &err), TOSAC_OK);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    tosac_program *p = NULL;
    char *report = NULL;
    if (tosac_compile_model(m, &o, &p, &report, &err))
        fail_msg("%s: %s", name, err.msg);
    assert_non_null(strstr(report, "\"placement\": \"delegate\""));
    free(report);
    assert_int_equal(tosac_program_n_delegates(p), 1);
    const tosa_block *b = tosa_graph_main_block(tosac_program_delegate(p, 0));
    int found = 0;
    for (int i = 0; i < b->n_ops; i++)
        found += b->ops[i].op == op;
    assert_true(found >= 1);
    for (int sample = 0; sample < 4; sample++) {
        tosac_tensor x, y, e;
        snprintf(path, sizeof path, "models/%s/inputs/%02d/x.npy", name, sample);
        assert_int_equal(tosac_npy_read(tu_shared(path), &x, &err), TOSAC_OK);
        snprintf(path, sizeof path, "models/%s/expected/%02d/y.npy", name, sample);
        assert_int_equal(tosac_npy_read(tu_shared(path), &e, &err), TOSAC_OK);
        if (tosac_program_run(p, &x, 1, &y, 1, &err))
            fail_msg("%s: %s", name, err.msg);
        assert_int_equal(tosac_tensor_numel(&y), tosac_tensor_numel(&e));
        const float *g = y.data, *w = e.data;
        for (int64_t i = 0; i < tosac_tensor_numel(&y); i++)
            if (!(fabs((double)g[i] - w[i]) <= lc_tol(tol_steps, y_scale, w[i], 0)))
                fail_msg("%s sample %d element %lld: %.9g vs onnxruntime %.9g", name, sample,
                         (long long)i, g[i], w[i]);
        tosac_tensor_free(&x);
        tosac_tensor_free(&y);
        tosac_tensor_free(&e);
    }
    tosac_program_free(p);
}

/* y scales from each model's meta.json (quantization.tensor_qparams.y.scale) */
static void test_zoo_int8(void **s)
{
    (void)s;
    zoo("synth_qdq_s8_op13_sigmoid", "TOSA-1.0+INT", TOSA_OP_TABLE, 0.003921458963304758f, 1);
    zoo("synth_qdq_s8_op13_tanh", "TOSA-1.0+INT", TOSA_OP_TABLE, 0.007843137718737125f, 1);
    zoo("synth_qdq_s8_op13_softmax", "TOSA-1.0+INT", TOSA_OP_INTDIV, 0.001589772291481495f, 1);
}

static void test_zoo_int16(void **s)
{
    (void)s;
    const char *sp = "TOSA-1.0+INT+int16";
    zoo("synth_qdq_s16_op21_sigmoid", sp, TOSA_OP_TABLE, 3.051765452255495e-05f, 1);
    /* Tanh 4.75 and Softmax 2 steps: the int16 TABLE's error on these models' input steps,
     * derived in tests/zoo_compile/zoo_compile_test.c (qtol_of; measured 3 and 2) */
    zoo("synth_qdq_s16_op21_tanh", sp, TOSA_OP_TABLE, 3.051851308555342e-05f, 4.75);
    zoo("synth_qdq_s16_op21_softmax", sp, TOSA_OP_INTDIV, 1.237195738212904e-05f, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float),
        cmocka_unit_test(test_quantized_int8),
        cmocka_unit_test(test_quantized_int16),
        cmocka_unit_test(test_logsoftmax_int8),
        cmocka_unit_test(test_logsoftmax_int16),
        cmocka_unit_test(test_axis_by_opset),
        cmocka_unit_test(test_axis_by_opset_int8),
        cmocka_unit_test(test_zoo_int8),
        cmocka_unit_test(test_zoo_int16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
