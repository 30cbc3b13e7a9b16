/* QuantizeLinear / DequantizeLinear inside a delegate under TOSA-1.0+INT+FP and TOSA-1.0+FP
 * (PRO-FP operators only: CAST, MUL, ADD, SUB), left on the CPU under TOSA-1.0+INT; results
 * equal the CPU executor's exactly
 * (power-of-two scales: 1/scale is exact, so MUL by it is the division ONNX specifies). */
#include "backend_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "tosac/compile.h"
#include "tosac/onnx.h"
#include "tosac/program.h"

#define N 12
static const int64_t shp[2] = {3, 4};

static int scalar(ir_graph *g, const char *name, tosac_dtype dt, const void *v)
{
    tosac_error err;
    tosac_error_clear(&err);
    int t = ir_graph_add_const(g, name, dt, 0, NULL, v, tosac_dtype_size(dt), &err);
    assert_true(t >= 0);
    return t;
}

/* x f32 -Q(0.25, zp)-> x_q -DQ-> y f32 */
static ir_model *qdq_model(tosac_dtype dt, int64_t zp)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_int_equal(ir_model_set_opset(m, "", 21, &err), TOSAC_OK);
    ir_graph *g = m->graph;
    float sc = 0.25f;
    int8_t z8 = (int8_t)zp;
    int16_t z16 = (int16_t)zp;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, shp, &err);
    int s = scalar(g, "s", TOSAC_DT_F32, &sc);
    int z = scalar(g, "z", dt, dt == TOSAC_DT_I8 ? (const void *)&z8 : (const void *)&z16);
    int q = ir_graph_add_tensor(g, "x_q", dt, 2, shp, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, shp, &err);
    int qi[3] = {x, s, z}, di[3] = {q, s, z};
    assert_true(ir_graph_add_node(g, "QuantizeLinear", NULL, "q", qi, 3, &q, 1, &err) >= 0);
    assert_true(ir_graph_add_node(g, "DequantizeLinear", NULL, "dq", di, 3, &y, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(onnx_record_quant(g, &err), TOSAC_OK);
    return m;
}

/* ties (x/0.25 = k + 0.5) round to even; values past the range saturate */
static const float xs[N] = {0.125f, 0.375f, -0.125f, -0.375f, 1.0f, -1.0f,
                            100.0f, -100.0f, 10000.0f, -10000.0f, 3.3f, -7.9f};

static void check(tosac_dtype dt, int64_t zp, const char *spec, int delegated, const char *ops)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_tensor in;
    memset(&in, 0, sizeof in);
    in.dtype = TOSAC_DT_F32;
    in.rank = 2;
    memcpy(in.shape, shp, sizeof shp);
    in.data = (void *)xs;
    in.nbytes = sizeof xs;
    ir_model *ref_m = qdq_model(dt, zp);
    tosac_tensor ref, got;
    assert_int_equal(cpu_run_model(ref_m, &in, 1, &ref, 1, &err), TOSAC_OK);
    ir_model_free(ref_m);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    tosac_program *p = NULL;
    char *report = NULL;
    if (tosac_compile_model(qdq_model(dt, zp), &o, &p, &report, &err))
        fail_msg("compile: %s", err.msg);
    int n = 0;
    for (const char *c = report; (c = strstr(c, "\"placement\": \"delegate\"")); c++)
        n++;
    assert_int_equal(n, delegated);
    free(report);
    if (ops) {
        char buf[256] = "";
        const tosa_block *b = tosa_graph_main_block(tosac_program_delegate(p, 0));
        for (int i = 0; i < b->n_ops; i++)
            if (b->ops[i].op != TOSA_OP_CONST && b->ops[i].op != TOSA_OP_CONST_SHAPE)
                snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? " " : "",
                         tosa_op_name(b->ops[i].op));
        assert_string_equal(buf, ops);
    }
    assert_int_equal(tosac_program_run(p, &in, 1, &got, 1, &err), TOSAC_OK);
    assert_memory_equal(got.data, ref.data, sizeof xs);
    tosac_tensor_free(&got);
    tosac_tensor_free(&ref);
    tosac_program_free(p);
}

static void test_int8(void **s)
{
    (void)s;
    /* Q: MUL 1/s, CAST to i32 (round half to even) and back, ADD zp, CAST to i8 (saturating);
     * DQ: CAST, SUB zp, MUL s */
    check(TOSAC_DT_I8, -3, "TOSA-1.0+INT+FP", 2, "MUL CAST CAST ADD CAST CAST SUB MUL");
    /* zero point 0: the CAST to i8 rounds and saturates alone */
    check(TOSAC_DT_I8, 0, "TOSA-1.0+INT+FP", 2, "MUL CAST CAST MUL");
    /* no PRO-INT needed: the same under a float-only spec */
    check(TOSAC_DT_I8, -3, "TOSA-1.0+FP", 2, "MUL CAST CAST ADD CAST CAST SUB MUL");
    check(TOSAC_DT_I8, -3, "TOSA-1.0+INT", 0, NULL);
}

/* int16: the same sequence (CAST f32 -> i16 saturates to the int16 range) */
static void test_int16(void **s)
{
    (void)s;
    check(TOSAC_DT_I16, 5, "TOSA-1.0+INT+FP+int16", 2, "MUL CAST CAST ADD CAST CAST SUB MUL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int8),
        cmocka_unit_test(test_int16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
