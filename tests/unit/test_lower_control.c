/* ONNX If as TOSA COND_IF under +cf (src/lower/lower_control.c): the If with both branches in
 * one delegate, captured outer tensors as explicit COND_IF inputs, both branches taken, the
 * program file and the MLIR text keeping the branch blocks, and the CPU fallback (with its
 * reason) without +cf or where a branch has no legal form. Expected values are hand-derived
 * (small models; float results exact: adds and negations of small binary fractions). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/program.h"
#include "tosac/tosa.h"

/* y = If(c, then: Relu(x + [2, -3]), else: Neg(x)) with x read from the outer scope;
 * dt F32, or I32 (then: x + [2, -3] without the Relu, else: Neg). */
static ir_model *if_model(tosac_dtype dt)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    assert_true(ir_graph_add_input(g, "x", dt, 1, s, &err) >= 0);
    int cnd = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err);
    int y = ir_graph_add_tensor(g, "y", dt, 1, s, &err);
    int k = ir_graph_add_node(g, "If", NULL, "the_if", &cnd, 1, &y, 1, &err);
    assert_true(cnd >= 0 && y >= 0 && k >= 0);
    ir_graph *then = ir_graph_new("then_branch", g), *els = ir_graph_new("else_branch", g);
    int tx = ir_graph_resolve_tensor(then, "x", &err);
    float fb[2] = {2, -3};
    int32_t ib[2] = {2, -3};
    int tb = ir_graph_add_const(then, "b", dt, 1, s, dt == TOSAC_DT_F32 ? (void *)fb : (void *)ib,
                                8, &err);
    int ts = ir_graph_add_tensor(then, "sum", dt, 1, s, &err);
    int add_in[2] = {tx, tb};
    assert_true(ir_graph_add_node(then, "Add", NULL, "add", add_in, 2, &ts, 1, &err) >= 0);
    int to = ts;
    if (dt == TOSAC_DT_F32) {
        to = ir_graph_add_tensor(then, "o_then", dt, 1, s, &err);
        assert_true(ir_graph_add_node(then, "Relu", NULL, "relu", &ts, 1, &to, 1, &err) >= 0);
    }
    assert_int_equal(ir_graph_mark_output(then, to, &err), TOSAC_OK);
    int ex = ir_graph_resolve_tensor(els, "x", &err);
    int eo = ir_graph_add_tensor(els, "o_else", dt, 1, s, &err);
    assert_true(ir_graph_add_node(els, "Neg", NULL, "neg", &ex, 1, &eo, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(els, eo, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, k, "then_branch", then, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, k, "else_branch", els, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(ir_model_verify(m, &err), TOSAC_OK);
    return m;
}

static tosac_program *compile(ir_model *m, const char *spec, char **report)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    tosac_program *p = NULL;
    tosac_code rc = tosac_compile_model(m, &o, &p, report, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", spec, err.msg);
    assert_int_equal(rc, TOSAC_OK);
    return p;
}

/* x = [-1.5, 2] (f32) or [-7, 5] (i32); c true, then false. */
static void run_if(tosac_program *p, tosac_dtype dt)
{
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    tosac_tensor in[2], out;
    assert_int_equal(tosac_tensor_alloc(&in[0], dt, 1, s, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&in[1], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    if (dt == TOSAC_DT_F32) {
        ((float *)in[0].data)[0] = -1.5f;
        ((float *)in[0].data)[1] = 2.0f;
    } else {
        ((int32_t *)in[0].data)[0] = -7;
        ((int32_t *)in[0].data)[1] = 5;
    }
    for (int v = 1; v >= 0; v--) {
        *(uint8_t *)in[1].data = (uint8_t)v;
        tosac_code rc = tosac_program_run(p, in, 2, &out, 1, &err);
        if (rc)
            fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, TOSAC_OK);
        assert_int_equal(out.dtype, dt);
        assert_int_equal(out.rank, 1);
        assert_int_equal(out.shape[0], 2);
        if (dt == TOSAC_DT_F32) {
            const float *o = out.data;
            /* then: relu([-1.5 + 2, 2 - 3]) = [0.5, 0]; else: -x */
            assert_true(o[0] == (v ? 0.5f : 1.5f));
            assert_true(o[1] == (v ? 0.0f : -2.0f));
        } else {
            const int32_t *o = out.data;
            assert_int_equal(o[0], v ? -5 : 7);
            assert_int_equal(o[1], v ? 2 : -5);
        }
        tosac_tensor_free(&out);
    }
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
}

static int count_op(const tosa_block *b, tosa_op op)
{
    int n = 0;
    for (int i = 0; i < b->n_ops; i++)
        n += b->ops[i].op == op;
    return n;
}

/* The one delegate's graph: COND_IF in main reading the condition and the captured x, the
 * branches as blocks taking x as their one input. */
static void check_cond_if_delegate(const tosac_program *p, tosa_op then_op, tosa_op else_op)
{
    assert_int_equal(tosac_program_n_delegates(p), 1);
    const ir_graph *g = tosac_program_cpu(p)->graph;
    assert_int_equal(g->n_nodes, 1);
    assert_string_equal(g->nodes[0].op_type, TOSAC_DELEGATE_OP);
    const tosa_graph *tg = tosac_program_delegate(p, 0);
    const tosa_block *mb = tosa_graph_main_block(tg);
    assert_int_equal(mb->n_inputs, 2);
    assert_int_equal(count_op(mb, TOSA_OP_COND_IF), 1);
    const tosa_operator *ci = NULL;
    for (int i = 0; i < mb->n_ops; i++)
        if (mb->ops[i].op == TOSA_OP_COND_IF)
            ci = &mb->ops[i];
    assert_int_equal(ci->n_inputs, 2); /* the condition, then x */
    assert_int_equal(mb->tensors[ci->inputs[0]].dtype, TOSAC_DT_BOOL);
    assert_string_equal(mb->tensors[ci->inputs[1]].name, "x");
    const tosa_block *tb = tosa_graph_find_block(tg, ci->attr.then_graph);
    const tosa_block *eb = tosa_graph_find_block(tg, ci->attr.else_graph);
    assert_non_null(tb);
    assert_non_null(eb);
    assert_string_equal(ci->attr.then_graph, "the_if_then");
    assert_string_equal(ci->attr.else_graph, "the_if_else");
    assert_int_equal(tb->n_inputs, 1);
    assert_int_equal(eb->n_inputs, 1);
    assert_int_equal(tb->n_outputs, 1);
    assert_int_equal(eb->n_outputs, 1);
    assert_int_equal(count_op(tb, then_op), 1);
    assert_int_equal(count_op(eb, else_op), 1);
}

static void test_if_float_delegated(void **state)
{
    (void)state;
    char *report = NULL;
    tosac_program *p = compile(if_model(TOSAC_DT_F32), "TOSA-1.0+FP+cf", &report);
    check_cond_if_delegate(p, TOSA_OP_ADD, TOSA_OP_NEGATE);
    assert_non_null(strstr(report, "\"n_delegates\": 1,"));
    run_if(p, TOSAC_DT_F32);
    /* the program file keeps the branch blocks */
    tosac_error err;
    tosac_error_clear(&err);
    void *buf = NULL;
    size_t len = 0;
    assert_int_equal(tosac_program_to_bytes(p, &buf, &len, &err), TOSAC_OK);
    tosac_program *q = NULL;
    assert_int_equal(tosac_program_from_bytes(buf, len, &q, &err), TOSAC_OK);
    check_cond_if_delegate(q, TOSA_OP_ADD, TOSA_OP_NEGATE);
    run_if(q, TOSAC_DT_F32);
    tosac_program_free(q);
    free(buf);
    free(report);
    tosac_program_free(p);
}

/* An integer model under INT: the int32 branches need no quantization. */
static void test_if_int32_delegated(void **state)
{
    (void)state;
    tosac_program *p = compile(if_model(TOSAC_DT_I32), "TOSA-1.0+INT+cf", NULL);
    check_cond_if_delegate(p, TOSA_OP_ADD, TOSA_OP_NEGATE);
    run_if(p, TOSAC_DT_I32);
    tosac_program_free(p);
}

/* Without +cf the If stays on the CPU (its branches delegated on their own) and the report
 * says +cf is what it needs. */
static void test_if_without_cf_on_cpu(void **state)
{
    (void)state;
    char *report = NULL;
    tosac_program *p = compile(if_model(TOSAC_DT_F32), "TOSA-1.0+FP", &report);
    const ir_graph *g = tosac_program_cpu(p)->graph;
    assert_int_equal(g->n_nodes, 1);
    assert_string_equal(g->nodes[0].op_type, "If");
    assert_non_null(strstr(report, "If: control flow need +cf (TOSA-1.0+FP+cf)"));
    run_if(p, TOSAC_DT_F32);
    free(report);
    tosac_program_free(p);
}

/* A float If under INT+cf: the branches have no integer form, so the If stays on the CPU with
 * the branch's reason. */
static void test_if_float_branches_under_int(void **state)
{
    (void)state;
    char *report = NULL;
    tosac_program *p = compile(if_model(TOSAC_DT_F32), "TOSA-1.0+INT+cf", &report);
    const ir_graph *g = tosac_program_cpu(p)->graph;
    assert_int_equal(g->n_nodes, 1);
    assert_string_equal(g->nodes[0].op_type, "If");
    assert_non_null(strstr(report, "If: float32 operands need +FP"));
    run_if(p, TOSAC_DT_F32);
    free(report);
    tosac_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_float_delegated),
        cmocka_unit_test(test_if_int32_delegated),
        cmocka_unit_test(test_if_without_cf_on_cpu),
        cmocka_unit_test(test_if_float_branches_under_int),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
