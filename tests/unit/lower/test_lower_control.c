/* ONNX If as TOSA COND_IF under +cf (src/lower/lower_control.c): the If with both branches in
 * one delegate, captured outer tensors as explicit COND_IF inputs, both branches taken, the
 * program file and the MLIR text keeping the branch blocks, and the CPU fallback (with its
 * reason) without +cf or where a branch has no legal form. Expected values are hand-derived
 * (small models; float results exact: adds and negations of small binary fractions). */
#include "backend_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "tosac/program.h"
#include "tosac/tosa.h"
#include "util/fileio.h"

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
    return bt_compile(m, spec, report);
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

/* The If stays on the CPU, with the reason in the report: without +cf (its branches are then
 * delegated on their own), and for a float If under INT+cf (its branches have no integer
 * form). */
static void test_if_on_cpu(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *reason;
    } cases[] = {
        {"TOSA-1.0+FP", "If: control flow need +cf (TOSA-1.0+FP+cf)"},
        {"TOSA-1.0+INT+cf", "If: float32 operands need +FP"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *report = NULL;
        tosac_program *p = compile(if_model(TOSAC_DT_F32), cases[i].spec, &report);
        const ir_graph *g = tosac_program_cpu(p)->graph;
        assert_int_equal(g->n_nodes, 1);
        assert_string_equal(g->nodes[0].op_type, "If");
        assert_non_null(strstr(report, cases[i].reason));
        run_if(p, TOSAC_DT_F32);
        free(report);
        tosac_program_free(p);
    }
}

/* The MLIR text holds the branches as the cond_if's two regions, x their one block argument. */
static void test_if_mlir(void **state)
{
    (void)state;
    tosac_program *p = compile(if_model(TOSAC_DT_F32), "TOSA-1.0+FP+cf", NULL);
    const tosa_graph *tg = tosac_program_delegate(p, 0);
    const char *name = "delegate_0";
    char *text = NULL;
    size_t len = 0;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosa_graphs_to_mlir(&tg, &name, 1, &text, &len, &err), TOSAC_OK);
    const char *ci = strstr(text, "\"tosa.cond_if\"");
    assert_non_null(ci);
    const char *add = strstr(ci, "\"tosa.add\""), *neg = strstr(ci, "\"tosa.negate\"");
    assert_non_null(add);
    assert_non_null(neg);
    assert_true(add < neg); /* then region first */
    assert_non_null(strstr(ci, "^bb0(%v1_0: tensor<2xf32>)"));
    assert_non_null(strstr(ci, "\"tosa.yield\""));
    free(text);
    tosac_program_free(p);
}

/* The CLI: compile (with --emit-mlir) and run the program against `tosac run model.onnx`,
 * bit for bit, for both values of the condition. */
static void test_if_cli_matches_model(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char model[4096], prog[4096], mlir[4096], xin[4096], cin[4096];
    snprintf(model, sizeof model, "%s/if.onnx", dir);
    snprintf(prog, sizeof prog, "%s/if.prog", dir);
    snprintf(mlir, sizeof mlir, "%s/if.mlir", dir);
    snprintf(xin, sizeof xin, "x=%s/x.npy", dir);
    snprintf(cin, sizeof cin, "c=%s/c.npy", dir);
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = if_model(TOSAC_DT_F32);
    assert_int_equal(onnx_export_file(m, model, &err), TOSAC_OK);
    ir_model_free(m);
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+FP+cf", "-o", prog,
                            "--emit-mlir", mlir, NULL), 0);
    void *text = NULL;
    size_t len = 0;
    assert_int_equal(tosac_read_file(mlir, &text, &len, &err), TOSAC_OK);
    assert_non_null(strstr(text, "\"tosa.cond_if\""));
    free(text);
    int64_t s[1] = {2};
    tosac_tensor x, c;
    assert_int_equal(tosac_tensor_alloc(&x, TOSAC_DT_F32, 1, s, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&c, TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    ((float *)x.data)[0] = -1.25f;
    ((float *)x.data)[1] = 3.5f;
    snprintf(xin, sizeof xin, "%s/x.npy", dir);
    assert_int_equal(tosac_npy_write(xin, &x, &err), TOSAC_OK);
    for (int v = 0; v < 2; v++) {
        *(uint8_t *)c.data = (uint8_t)v;
        snprintf(cin, sizeof cin, "%s/c.npy", dir);
        assert_int_equal(tosac_npy_write(cin, &c, &err), TOSAC_OK);
        char xa[4200], ca[4200], od[2][4200];
        snprintf(xa, sizeof xa, "x=%s", xin);
        snprintf(ca, sizeof ca, "c=%s", cin);
        for (int r = 0; r < 2; r++) {
            snprintf(od[r], sizeof od[r], "%s/out%d", dir, r);
            assert_int_equal(tu_cli(NULL, NULL, "run", r ? model : prog, "--input", xa, "--input",
                                    ca, "--output-dir", od[r], NULL), 0);
        }
        tosac_tensor y[2];
        for (int r = 0; r < 2; r++) {
            char f[8800];
            snprintf(f, sizeof f, "%s/y.npy", od[r]);
            assert_int_equal(tosac_npy_read(f, &y[r], &err), TOSAC_OK);
        }
        assert_int_equal(y[0].nbytes, 8);
        assert_int_equal(y[1].nbytes, 8);
        assert_memory_equal(y[0].data, y[1].data, 8);
        const float *o = y[0].data;
        /* then: relu([0.75, 0.5]); else: [1.25, -3.5] */
        assert_true(o[0] == (v ? 0.75f : 1.25f));
        assert_true(o[1] == (v ? 0.5f : -3.5f));
        tosac_tensor_free(&y[0]);
        tosac_tensor_free(&y[1]);
    }
    tosac_tensor_free(&x);
    tosac_tensor_free(&c);
    tu_rmtree(dir);
    free(dir);
}

/* One-node body graph of parent: out = op(ins named by n1, n2 (NULL: unary)) through
 * captures, f32[2]. */
static ir_graph *one_op_body(ir_graph *parent, const char *name, const char *op, const char *n1,
                             const char *n2)
{
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    ir_graph *sub = ir_graph_new(name, parent);
    int in[2] = {ir_graph_resolve_tensor(sub, n1, &err), n2 ? ir_graph_resolve_tensor(sub, n2, &err) : -1};
    int o = ir_graph_add_tensor(sub, "o", TOSAC_DT_F32, 1, s, &err);
    assert_true(in[0] >= 0 && (!n2 || in[1] >= 0) && o >= 0);
    assert_true(ir_graph_add_node(sub, op, NULL, op, in, n2 ? 2 : 1, &o, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(sub, o, &err), TOSAC_OK);
    return sub;
}

/* r = Relu(x) in the main graph, k = [1, -1] an initializer; If(c, then: r + k, else: x - r):
 * the branches capture a value the delegate computes, a constant, and (else only) a graph
 * input. x = [-1.5, 2]: r = [0, 2]; then [1, 1], else [-1.5, 0]. */
static void test_if_captures(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    float kv[2] = {1, -1};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err);
    int cnd = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err);
    assert_true(ir_graph_add_const(g, "k", TOSAC_DT_F32, 1, s, kv, sizeof kv, &err) >= 0);
    int r = ir_graph_add_tensor(g, "r", TOSAC_DT_F32, 1, s, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &err);
    assert_true(ir_graph_add_node(g, "Relu", NULL, "relu", &x, 1, &r, 1, &err) >= 0);
    int k = ir_graph_add_node(g, "If", NULL, "the_if", &cnd, 1, &y, 1, &err);
    assert_true(k >= 0);
    assert_int_equal(ir_node_set_graph(g, k, "then_branch",
                                       one_op_body(g, "then_branch", "Add", "r", "k"), &err),
                     TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, k, "else_branch",
                                       one_op_body(g, "else_branch", "Sub", "x", "r"), &err),
                     TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(ir_model_verify(m, &err), TOSAC_OK);
    tosac_program *p = compile(m, "TOSA-1.0+FP+cf", NULL);
    assert_int_equal(tosac_program_n_delegates(p), 1);
    assert_int_equal(tosac_program_cpu(p)->graph->n_nodes, 1);
    const tosa_graph *tg = tosac_program_delegate(p, 0);
    const tosa_block *mb = tosa_graph_main_block(tg);
    const tosa_operator *ci = NULL;
    for (int i = 0; i < mb->n_ops; i++)
        if (mb->ops[i].op == TOSA_OP_COND_IF)
            ci = &mb->ops[i];
    assert_non_null(ci);
    assert_int_equal(ci->n_inputs, 4); /* c, then r and k (then's), then x (else's) */
    const tosa_block *tb = tosa_graph_find_block(tg, ci->attr.then_graph);
    const tosa_block *eb = tosa_graph_find_block(tg, ci->attr.else_graph);
    assert_int_equal(tb->n_inputs, 3);
    assert_int_equal(eb->n_inputs, 3);
    tosac_tensor in[2], out;
    assert_int_equal(tosac_tensor_alloc(&in[0], TOSAC_DT_F32, 1, s, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&in[1], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    ((float *)in[0].data)[0] = -1.5f;
    ((float *)in[0].data)[1] = 2.0f;
    for (int v = 0; v < 2; v++) {
        *(uint8_t *)in[1].data = (uint8_t)v;
        assert_int_equal(tosac_program_run(p, in, 2, &out, 1, &err), TOSAC_OK);
        const float *o = out.data;
        assert_true(o[0] == (v ? 1.0f : -1.5f));
        assert_true(o[1] == (v ? 1.0f : 0.0f));
        tosac_tensor_free(&out);
    }
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
    tosac_program_free(p);
}

/* An If inside a branch: If(c, then: If(d, then: Neg(x), else: x + x), else: Abs(x)); the inner
 * branches read x and the inner If reads d through the outer then branch. x = [-1.5, 2]. */
static void test_if_nested(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    assert_true(ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err) >= 0);
    int cnd = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err);
    assert_true(ir_graph_add_input(g, "d", TOSAC_DT_BOOL, 0, NULL, &err) >= 0);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &err);
    int k = ir_graph_add_node(g, "If", NULL, "outer", &cnd, 1, &y, 1, &err);
    ir_graph *then = ir_graph_new("then_branch", g);
    int td = ir_graph_resolve_tensor(then, "d", &err);
    int to = ir_graph_add_tensor(then, "inner_y", TOSAC_DT_F32, 1, s, &err);
    int ik = ir_graph_add_node(then, "If", NULL, "inner", &td, 1, &to, 1, &err);
    assert_true(k >= 0 && ik >= 0);
    assert_int_equal(ir_node_set_graph(then, ik, "then_branch",
                                       one_op_body(then, "then_branch", "Neg", "x", NULL), &err),
                     TOSAC_OK);
    assert_int_equal(ir_node_set_graph(then, ik, "else_branch",
                                       one_op_body(then, "else_branch", "Add", "x", "x"), &err),
                     TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(then, to, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, k, "then_branch", then, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, k, "else_branch",
                                       one_op_body(g, "else_branch", "Abs", "x", NULL), &err),
                     TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(ir_model_verify(m, &err), TOSAC_OK);
    tosac_program *p = compile(m, "TOSA-1.0+FP+cf", NULL);
    assert_int_equal(tosac_program_n_delegates(p), 1);
    assert_int_equal(tosac_program_cpu(p)->graph->n_nodes, 1);
    const tosa_graph *tg = tosac_program_delegate(p, 0);
    assert_int_equal(tg->regions[0].n_blocks, 5); /* main, outer's two, inner's two */
    assert_non_null(tosa_graph_find_block(tg, "outer_then_inner_then"));
    static const float want[3][2] = {{1.5f, -2.0f}, {-3.0f, 4.0f}, {1.5f, 2.0f}};
    tosac_tensor in[3], out;
    assert_int_equal(tosac_tensor_alloc(&in[0], TOSAC_DT_F32, 1, s, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&in[1], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&in[2], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    ((float *)in[0].data)[0] = -1.5f;
    ((float *)in[0].data)[1] = 2.0f;
    for (int v = 0; v < 3; v++) { /* (c, d) = (1, 1), (1, 0), (0, 1) */
        *(uint8_t *)in[1].data = v < 2;
        *(uint8_t *)in[2].data = v != 1;
        tosac_code rc = tosac_program_run(p, in, 3, &out, 1, &err);
        if (rc)
            fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, TOSAC_OK);
        const float *o = out.data;
        assert_true(o[0] == want[v][0]);
        assert_true(o[1] == want[v][1]);
        tosac_tensor_free(&out);
    }
    for (int i = 0; i < 3; i++)
        tosac_tensor_free(&in[i]);
    tosac_program_free(p);
}

/* ---- Loop -> WHILE_LOOP ---- */

/* Loop(M, c, a0) with a body (i, c_in, a) -> (c_out, a + x), x captured; dt F32 or I32;
 * m < 0: M omitted; with_cond: cond is the graph input "c", else omitted; limit > 0: c_out =
 * limit > ReduceSum(a + x) (the condition turns false), else c_out = c_in. Extras for the
 * refusals: scan (a + x also a scan output), read_iter (the body adds Cast(i) to a). */
typedef struct loop_opts {
    tosac_dtype dt;
    int64_t m;
    bool with_cond;
    double limit;
    bool scan, read_iter;
} loop_opts;

static ir_model *loop_model(const loop_opts *lo)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2}, s32[2] = {3, 2};
    tosac_dtype dt = lo->dt;
    int x = ir_graph_add_input(g, "x", dt, 1, s, &err);
    int a0 = ir_graph_add_input(g, "a0", dt, 1, s, &err);
    int cnd = lo->with_cond ? ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err) : -1;
    int tm = -1;
    if (lo->m >= 0)
        tm = ir_graph_add_const(g, "M", TOSAC_DT_I64, 0, NULL, &lo->m, 8, &err);
    int af = ir_graph_add_tensor(g, "a", dt, 1, s, &err);
    int outs[2] = {af, lo->scan ? ir_graph_add_tensor(g, "scan", dt, 2, s32, &err) : -1};
    int ins[3] = {tm, cnd, a0};
    int k = ir_graph_add_node(g, "Loop", NULL, "loop", ins, 3, outs, lo->scan ? 2 : 1, &err);
    assert_true(x >= 0 && a0 >= 0 && af >= 0 && k >= 0);
    ir_graph *body = ir_graph_new("body", g);
    int bi = ir_graph_add_input(body, "i", TOSAC_DT_I64, 0, NULL, &err);
    int bc = ir_graph_add_input(body, "c_in", TOSAC_DT_BOOL, 0, NULL, &err);
    int ba = ir_graph_add_input(body, "a_in", dt, 1, s, &err);
    int bx = ir_graph_resolve_tensor(body, "x", &err);
    int ao = ir_graph_add_tensor(body, "a_out", dt, 1, s, &err);
    int co = ir_graph_add_tensor(body, "c_out", TOSAC_DT_BOOL, 0, NULL, &err);
    int add_in[2] = {ba, bx};
    if (lo->read_iter) {
        int ic = ir_graph_add_tensor(body, "i_cast", dt, 0, NULL, &err);
        int ax = ir_graph_add_tensor(body, "a_plus_i", dt, 1, s, &err);
        int cn = ir_graph_add_node(body, "Cast", NULL, "cast_i", &bi, 1, &ic, 1, &err);
        assert_int_equal(ir_node_set_int(body, cn, "to", dt == TOSAC_DT_F32 ? 1 : 6, &err),
                         TOSAC_OK);
        int pin[2] = {ba, ic};
        assert_true(ir_graph_add_node(body, "Add", NULL, "add_i", pin, 2, &ax, 1, &err) >= 0);
        add_in[0] = ax;
    }
    assert_true(ir_graph_add_node(body, "Add", NULL, "add", add_in, 2, &ao, 1, &err) >= 0);
    if (lo->limit > 0) {
        int sum = ir_graph_add_tensor(body, "sum", dt, 0, NULL, &err);
        float fl = (float)lo->limit;
        int32_t il = (int32_t)lo->limit;
        int lim = ir_graph_add_const(body, "limit", dt, 0, NULL,
                                     dt == TOSAC_DT_F32 ? (void *)&fl : (void *)&il, 4, &err);
        int rs = ir_graph_add_node(body, "ReduceSum", NULL, "sum", &ao, 1, &sum, 1, &err);
        assert_int_equal(ir_node_set_int(body, rs, "keepdims", 0, &err), TOSAC_OK);
        int gin[2] = {lim, sum};
        assert_true(ir_graph_add_node(body, "Greater", NULL, "below", gin, 2, &co, 1, &err) >= 0);
    } else {
        assert_true(ir_graph_add_node(body, "Identity", NULL, "keep", &bc, 1, &co, 1, &err) >= 0);
    }
    assert_int_equal(ir_graph_mark_output(body, co, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(body, ao, &err), TOSAC_OK);
    if (lo->scan) {
        int so = ir_graph_add_tensor(body, "scan_out", dt, 1, s, &err);
        assert_true(ir_graph_add_node(body, "Identity", NULL, "scan_id", &ao, 1, &so, 1, &err) >= 0);
        assert_int_equal(ir_graph_mark_output(body, so, &err), TOSAC_OK);
    }
    assert_int_equal(ir_node_set_graph(g, k, "body", body, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, af, &err), TOSAC_OK);
    if (lo->scan)
        assert_int_equal(ir_graph_mark_output(g, outs[1], &err), TOSAC_OK);
    assert_int_equal(ir_model_verify(m, &err), TOSAC_OK);
    return m;
}

/* Runs p on x = [1, 2], a0 = [0.5, -1] (f32) or [5, -1] (i32), c = cond (when the model has
 * it); the result must be a0 + iters * x, exactly. */
static void run_loop(tosac_program *p, const loop_opts *lo, bool cond, int iters)
{
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    tosac_tensor in[3], out;
    for (int i = 0; i < 2; i++)
        assert_int_equal(tosac_tensor_alloc(&in[i], lo->dt, 1, s, &err), TOSAC_OK);
    double xv[2] = {1, 2}, av[2] = {lo->dt == TOSAC_DT_F32 ? 0.5 : 5, -1};
    for (int i = 0; i < 2; i++) {
        if (lo->dt == TOSAC_DT_F32) {
            ((float *)in[0].data)[i] = (float)xv[i];
            ((float *)in[1].data)[i] = (float)av[i];
        } else {
            ((int32_t *)in[0].data)[i] = (int32_t)xv[i];
            ((int32_t *)in[1].data)[i] = (int32_t)av[i];
        }
    }
    int n_in = 2;
    if (lo->with_cond) {
        assert_int_equal(tosac_tensor_alloc(&in[2], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
        *(uint8_t *)in[2].data = cond;
        n_in = 3;
    }
    tosac_code rc = tosac_program_run(p, in, n_in, &out, 1, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, TOSAC_OK);
    assert_int_equal(out.dtype, lo->dt);
    for (int i = 0; i < 2; i++) {
        double want = av[i] + iters * xv[i];
        double have = lo->dt == TOSAC_DT_F32 ? ((float *)out.data)[i] : ((int32_t *)out.data)[i];
        if (have != want)
            fail_msg("element %d: %g, want %g (%d iterations)", i, have, want, iters);
    }
    tosac_tensor_free(&out);
    for (int i = 0; i < n_in; i++)
        tosac_tensor_free(&in[i]);
}

/* The Loop in one delegate as a WHILE_LOOP whose cond and body are blocks of its own. */
static void check_while_delegate(const tosac_program *p)
{
    assert_int_equal(tosac_program_n_delegates(p), 1);
    const ir_graph *g = tosac_program_cpu(p)->graph;
    assert_int_equal(g->n_nodes, 1);
    assert_string_equal(g->nodes[0].op_type, TOSAC_DELEGATE_OP);
    const tosa_graph *tg = tosac_program_delegate(p, 0);
    const tosa_block *mb = tosa_graph_main_block(tg);
    assert_int_equal(count_op(mb, TOSA_OP_WHILE_LOOP), 1);
    const tosa_operator *wl = NULL;
    for (int i = 0; i < mb->n_ops; i++)
        if (mb->ops[i].op == TOSA_OP_WHILE_LOOP)
            wl = &mb->ops[i];
    const tosa_block *cb = tosa_graph_find_block(tg, wl->attr.cond_graph);
    const tosa_block *bb = tosa_graph_find_block(tg, wl->attr.body_graph);
    assert_non_null(cb);
    assert_non_null(bb);
    assert_int_equal(cb->n_inputs, wl->n_inputs);
    assert_int_equal(bb->n_inputs, wl->n_inputs);
    assert_int_equal(bb->n_outputs, wl->n_outputs);
    assert_int_equal(cb->n_outputs, 1);
    assert_int_equal(cb->tensors[cb->outputs[0]].dtype, TOSAC_DT_BOOL);
    assert_int_equal(count_op(bb, TOSA_OP_ADD), 2); /* a + x, and the counter (when M) */
}

static tosac_program *compile_loop(const loop_opts *lo, const char *spec)
{
    return compile(loop_model(lo), spec, NULL);
}

/* 0, 1 and several iterations of a counted loop, float under FP (the counter compared as
 * float32) and int32 under INT (compared as int32). */
static void test_loop_counted(void **state)
{
    (void)state;
    static const struct {
        tosac_dtype dt;
        const char *spec;
    } cfg[] = {{TOSAC_DT_F32, "TOSA-1.0+FP+cf"}, {TOSAC_DT_I32, "TOSA-1.0+INT+cf"},
               {TOSAC_DT_F32, "TOSA-1.0+INT+FP+cf"}};
    const int64_t trips[] = {0, 1, 3, 7};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++)
        for (size_t t = 0; t < sizeof trips / sizeof trips[0]; t++) {
            loop_opts lo = {cfg[c].dt, trips[t], false, 0, false, false};
            tosac_program *p = compile_loop(&lo, cfg[c].spec);
            check_while_delegate(p);
            run_loop(p, &lo, true, (int)trips[t]);
            tosac_program_free(p);
        }
}

/* The condition: a false cond input runs no iteration; a body condition turning false stops
 * the loop early (sum(a) = -0.5 + 3k in float, 4 + 3k in int32: below 6 for k = 1, 2 in float
 * and k = 1 in int32... see the counts); no trip count at all (M omitted). */
static void test_loop_condition(void **state)
{
    (void)state;
    for (int f = 0; f < 2; f++) {
        tosac_dtype dt = f ? TOSAC_DT_F32 : TOSAC_DT_I32;
        const char *spec = f ? "TOSA-1.0+FP+cf" : "TOSA-1.0+INT+cf";
        /* runtime cond, M = 5: true runs 5, false none */
        loop_opts lo = {dt, 5, true, 0, false, false};
        tosac_program *p = compile_loop(&lo, spec);
        check_while_delegate(p);
        run_loop(p, &lo, true, 5);
        run_loop(p, &lo, false, 0);
        tosac_program_free(p);
        /* the body's condition 6 > sum(a + x): float sums 2.5, 5.5, 8.5 stop after 3
         * iterations; int32 sums 7 (5 - 1 + 3) stops after 1; M = 10 is not reached */
        loop_opts early = {dt, 10, true, 6, false, false};
        p = compile_loop(&early, spec);
        check_while_delegate(p);
        run_loop(p, &early, true, f ? 3 : 1);
        tosac_program_free(p);
        /* M omitted: the condition alone (limit 12: float sums 2.5, 5.5, 8.5, 11.5, 14.5 stop
         * after 5 iterations, int32 sums 7, 10, 13 after 3) */
        loop_opts no_m = {dt, -1, true, 12, false, false};
        p = compile_loop(&no_m, spec);
        assert_int_equal(tosac_program_n_delegates(p), 1);
        run_loop(p, &no_m, true, f ? 5 : 3);
        run_loop(p, &no_m, false, 0);
        tosac_program_free(p);
    }
    /* a trip count beyond int32 (kept as int64 under +int64) with a condition: the int32
     * counter is left out, the condition stops the loop (int32 sums 7, 10, 13: 3 iterations) */
    loop_opts big = {TOSAC_DT_I32, INT64_C(1) << 40, true, 12, false, false};
    tosac_program *p = compile_loop(&big, "TOSA-1.1+INT+int64+cf");
    assert_int_equal(tosac_program_n_delegates(p), 1);
    assert_int_equal(tosac_program_cpu(p)->graph->n_nodes, 1);
    run_loop(p, &big, true, 3);
    tosac_program_free(p);
}

/* Where WHILE_LOOP has no form the Loop stays on the CPU (and still computes), the reason
 * naming the ONNX node's terms. */
static void test_loop_refusals(void **state)
{
    (void)state;
    static const struct {
        loop_opts lo;
        const char *spec, *reason;
    } cases[] = {
        {{TOSAC_DT_F32, 3, false, 0, false, false}, "TOSA-1.0+FP",
         "Loop: control flow need +cf (TOSA-1.0+FP+cf)"},
        {{TOSAC_DT_F32, 3, false, 0, true, false}, "TOSA-1.0+FP+cf",
         "Loop: 1 scan output (values stacked over the iterations) have no WHILE_LOOP form"},
        {{TOSAC_DT_F32, 3, false, 0, false, true}, "TOSA-1.0+FP+cf",
         "Loop: the body reads its int64 iteration number 'i'"},
        {{TOSAC_DT_F32, (INT64_C(1) << 24) + 1, false, 0, false, false}, "TOSA-1.0+FP+cf",
         "Loop: its trip count M = 16777217 is beyond 2^24"},
        {{TOSAC_DT_I32, INT64_C(1) << 40, false, 0, false, false}, "TOSA-1.1+INT+int64+cf",
         "Loop: its trip count M = 1099511627776 is not within int32 and there is no condition"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *report = NULL;
        tosac_program *p = compile(loop_model(&cases[i].lo), cases[i].spec, &report);
        const ir_graph *g = tosac_program_cpu(p)->graph;
        bool loop_on_cpu = false;
        for (int k = 0; k < g->n_nodes; k++)
            loop_on_cpu |= strcmp(g->nodes[k].op_type, "Loop") == 0;
        if (!loop_on_cpu || !strstr(report, cases[i].reason))
            fail_msg("case %zu: Loop on the CPU %d, want reason '%s' in\n%s", i, loop_on_cpu,
                     cases[i].reason, report);
        if (i == 0)
            run_loop(p, &cases[i].lo, true, 3);
        free(report);
        tosac_program_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_float_delegated),
        cmocka_unit_test(test_if_int32_delegated),
        cmocka_unit_test(test_if_on_cpu),
        cmocka_unit_test(test_if_captures),
        cmocka_unit_test(test_if_nested),
        cmocka_unit_test(test_if_mlir),
        cmocka_unit_test(test_if_cli_matches_model),
        cmocka_unit_test(test_loop_counted),
        cmocka_unit_test(test_loop_condition),
        cmocka_unit_test(test_loop_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
