/* tosac_program_build + tosac_compile_verify, the checks behind every exit 0 of compile: a
 * good program (the zoo's int8 QDQ conv, compiled here) passes; the same program broken on
 * purpose in each way the checks cover fails naming what broke: bytes that do not load
 * (truncated), a delegate node wired to values of another type (when the runtime first loads
 * the program, measuring it), a delegate index out of range and a delegate whose operator never
 * gets its inputs (both refused by the planner), a CPU graph whose declared type is not what
 * its node computes, and an operator the spec does not allow. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/onnx.h"

static tosac_error E;

static tosac_program *compile_conv(void)
{
    ir_model *m = NULL;
    tosac_error_clear(&E);
    assert_int_equal(onnx_import_file(tu_shared("models/synth_qdq_s8_op13_conv/model.onnx"), &m,
                                      &E), TOSAC_OK);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = "TOSA-1.0+INT";
    tosac_program *p = NULL;
    if (tosac_compile_model(m, &o, &p, NULL, &E))
        fail_msg("compile: %s", E.msg);
    assert_int_equal(tosac_program_n_delegates(p), 1);
    return p;
}

/* Builds p as compile does (a failure there is the result) and verifies the bytes (less cut
 * at the end) under spec; returns the code, the message in E. */
static tosac_code verify(tosac_program *p, const char *spec_s, size_t cut)
{
    tosa_spec spec;
    void *b = NULL;
    size_t len = 0;
    tosac_error_clear(&E);
    assert_int_equal(tosa_spec_parse(spec_s, &spec, &E), TOSAC_OK);
    tosac_code rc = tosac_program_build(p, &b, &len, &E);
    if (!rc)
        rc = tosac_compile_verify(b, len - cut, &spec, &E);
    free(b);
    return rc;
}

static void expect_broken(tosac_program *p, const char *spec, size_t cut, const char *what,
                          const char *detail)
{
    assert_int_equal(verify(p, spec, cut), TOSAC_ERR_INTERNAL);
    if (!strstr(E.msg, what) || !strstr(E.msg, detail))
        fail_msg("expected '%s' and '%s' in: %s", what, detail, E.msg);
}

/* The CPU graph's TosaDelegate node. */
static int delegate_node(const tosac_program *p)
{
    const ir_graph *g = tosac_program_cpu(p)->graph;
    for (int i = 0; i < g->n_nodes; i++)
        if (strcmp(g->nodes[i].op_type, TOSAC_DELEGATE_OP) == 0)
            return i;
    fail_msg("no delegate node");
    return -1;
}

static void test_good_program_passes(void **state)
{
    (void)state;
    tosac_program *p = compile_conv();
    assert_int_equal(verify(p, "TOSA-1.0+INT", 0), TOSAC_OK);
    tosac_program_free(p);
}

static void test_truncated_bytes(void **state)
{
    (void)state;
    tosac_program *p = compile_conv();
    expect_broken(p, "TOSA-1.0+INT", 1, "does not load on the runtime", "truncated");
    tosac_program_free(p);
}

static void test_delegate_input_of_other_type(void **state)
{
    (void)state;
    tosac_program *p = compile_conv();
    ir_graph *g = tosac_program_cpu(p)->graph;
    int t = g->nodes[delegate_node(p)].inputs[0];
    g->tensors[t].dtype = TOSAC_DT_I16; /* the delegate reads int8 */
    expect_broken(p, "TOSA-1.0+INT", 0, "does not run on the runtime", "is i16");
    assert_non_null(strstr(E.msg, "but i8"));
    tosac_program_free(p);
}

static void test_delegate_index_out_of_range(void **state)
{
    (void)state;
    tosac_program *p = compile_conv();
    ir_graph *g = tosac_program_cpu(p)->graph; /* tampered with on purpose */
    assert_int_equal(ir_node_set_int(g, delegate_node(p), "index", 1, &E), TOSAC_OK);
    /* the planner refuses it first (then the writer, then program v2's loader would) */
    expect_broken(p, "TOSA-1.0+INT", 0, "cannot be planned", "delegate index 1 out of range");
    tosac_program_free(p);
}

static void test_delegate_not_preparable(void **state)
{
    (void)state;
    tosac_program *p = compile_conv();
    tosa_block *b = &tosac_program_delegate(p, 0)->regions[0].blocks[0];
    /* an ADD with one operand: the interpreter refuses it while preparing */
    int64_t shape[1] = {1};
    int x = tosa_block_add_tensor(b, "lone_in", TOSAC_DT_I32, 1, shape, NULL, 0, &E);
    int y = tosa_block_add_tensor(b, "lone_out", TOSAC_DT_I32, 1, shape, NULL, 0, &E);
    assert_true(x >= 0 && y >= 0);
    tosa_attr attr;
    memset(&attr, 0, sizeof attr);
    assert_true(tosa_block_add_op(b, TOSA_OP_ADD, &attr, &x, 1, &y, 1, &E) >= 0);
    /* the planner, which orders operators as the interpreter does, refuses it first */
    expect_broken(p, "TOSA-1.0+INT", 0, "cannot be planned", "1 operators never get their "
                                                             "inputs");
    tosac_program_free(p);
}

static void test_cpu_declared_type_lies(void **state)
{
    (void)state;
    tosac_program *p = compile_conv();
    ir_graph *g = tosac_program_cpu(p)->graph;
    g->tensors[g->outputs[0]].dtype = TOSAC_DT_F16; /* the DequantizeLinear computes f32 */
    expect_broken(p, "TOSA-1.0+INT", 0, "declared types do not hold", "inconsistent types");
    tosac_program_free(p);
}

static void test_operator_outside_the_spec(void **state)
{
    (void)state;
    tosac_program *p = compile_conv();
    /* int8 operators are no TOSA-1.0+FP forms: the first one is named */
    expect_broken(p, "TOSA-1.0+FP", 0, "breaks the spec", "is not legal under TOSA-1.0+FP");
    assert_non_null(strstr(E.msg, "delegate 0, block 'main', operator 0"));
    assert_non_null(strstr(E.msg, "=i8 needs PRO-INT"));
    tosac_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_program_passes),
        cmocka_unit_test(test_truncated_bytes),
        cmocka_unit_test(test_delegate_input_of_other_type),
        cmocka_unit_test(test_delegate_index_out_of_range),
        cmocka_unit_test(test_delegate_not_preparable),
        cmocka_unit_test(test_cpu_declared_type_lies),
        cmocka_unit_test(test_operator_outside_the_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
