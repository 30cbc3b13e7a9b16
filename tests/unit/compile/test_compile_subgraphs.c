/* TOSA delegates inside If bodies: the compiler partitions and lowers the branches of an If
 * left on the CPU, the program file keeps them, and the runner executes them through the CPU
 * executor's op hook. Expected values: hand-derived (small If model) or onnxruntime's outputs
 * stored with the zoo (silero_vad). */
#include "backend_testutil.h"
#include "cpu_testgraph.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "tosac/program.h"

static bool is_delegate(const ir_node *n)
{
    return strcmp(n->domain, IR_DOMAIN_TOSAC) == 0 && strcmp(n->op_type, TOSAC_DELEGATE_OP) == 0;
}

/* Counts TosaDelegate nodes in g's bodies (recursively; the top level itself not counted
 * when top), marking each delegate index seen in seen[] (fails on a repeat). */
static int body_delegates(const ir_graph *g, bool top, int *seen, int n_seen)
{
    int cnt = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (!top && is_delegate(n)) {
            int64_t idx = ir_node_attr_int(n, "index", -1);
            assert_true(idx >= 0 && idx < n_seen);
            assert_int_equal(seen[idx], 0); /* indices are global: no two nodes share one */
            seen[idx] = 1;
            cnt++;
        }
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            cnt += body_delegates(sub, false, seen, n_seen);
    }
    return cnt;
}

/* Compiles m (consumed) under TOSA-1.0+FP. */
static tosac_program *compile_fp(ir_model *m, char **report)
{
    return bt_compile(m, "TOSA-1.0+FP", report);
}

/* y = If(c, then: Relu(x + [2, -3]), else: Neg(x)); x is read from the outer scope. */
static ir_model *if_model(void)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    assert_true(ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err) >= 0);
    int cnd = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &err);
    int k = ir_graph_add_node(g, "If", NULL, "the_if", &cnd, 1, &y, 1, &err);
    assert_true(cnd >= 0 && y >= 0 && k >= 0);
    ir_graph *then = ir_graph_new("then_branch", g), *els = ir_graph_new("else_branch", g);
    int tx = ir_graph_resolve_tensor(then, "x", &err);
    float bias[2] = {2, -3};
    int tb = ir_graph_add_const(then, "b", TOSAC_DT_F32, 1, s, bias, sizeof bias, &err);
    int ts = ir_graph_add_tensor(then, "sum", TOSAC_DT_F32, 1, s, &err);
    int to = ir_graph_add_tensor(then, "o_then", TOSAC_DT_F32, 1, s, &err);
    int add_in[2] = {tx, tb};
    assert_true(ir_graph_add_node(then, "Add", NULL, "add", add_in, 2, &ts, 1, &err) >= 0);
    assert_true(ir_graph_add_node(then, "Relu", NULL, "relu", &ts, 1, &to, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(then, to, &err), TOSAC_OK);
    int ex = ir_graph_resolve_tensor(els, "x", &err);
    int eo = ir_graph_add_tensor(els, "o_else", TOSAC_DT_F32, 1, s, &err);
    assert_true(ir_graph_add_node(els, "Neg", NULL, "neg", &ex, 1, &eo, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(els, eo, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, k, "then_branch", then, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, k, "else_branch", els, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    return m;
}

/* in[0] = x = [-1.5, 2] (f32), in[1] = c (bool scalar, set by the caller). */
static void if_inputs(tosac_tensor *in)
{
    tosac_error err;
    int64_t s[1] = {2};
    assert_int_equal(tosac_tensor_alloc(&in[0], TOSAC_DT_F32, 1, s, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&in[1], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    ((float *)in[0].data)[0] = -1.5f;
    ((float *)in[0].data)[1] = 2.0f;
}

static void run_if(tosac_program *p)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_tensor in[2], out;
    if_inputs(in);
    for (int v = 0; v < 2; v++) {
        *(uint8_t *)in[1].data = (uint8_t)v;
        assert_int_equal(tosac_program_run(p, in, 2, &out, 1, &err), TOSAC_OK);
        const float *o = out.data;
        assert_int_equal(out.rank, 1);
        assert_int_equal(out.shape[0], 2);
        if (v) { /* then: relu([-1.5 + 2, 2 - 3]) = [0.5, 0] */
            assert_true(o[0] == 0.5f);
            assert_true(o[1] == 0.0f);
        } else { /* else: -x */
            assert_true(o[0] == 1.5f);
            assert_true(o[1] == -2.0f);
        }
        tosac_tensor_free(&out);
    }
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
}

static void test_if_branches_become_delegates(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    char *report = NULL;
    tosac_program *p = compile_fp(if_model(), &report);
    /* the If itself stays on the CPU; each branch is one delegate */
    assert_non_null(strstr(report, "\"the_if\""));
    assert_non_null(strstr(report, "\"n_delegates\": 0,"));
    assert_non_null(strstr(report, "\"body_delegates\": 2,"));
    assert_int_equal(tosac_program_n_delegates(p), 2);
    const ir_graph *g = tosac_program_cpu(p)->graph;
    assert_int_equal(g->n_nodes, 1);
    assert_string_equal(g->nodes[0].op_type, "If");
    for (int b = 0; b < 2; b++) {
        const ir_graph *sub = ir_node_subgraph(&g->nodes[0], b);
        assert_int_equal(sub->n_nodes, 1);
        assert_true(is_delegate(&sub->nodes[0]));
    }
    int seen[2] = {0, 0};
    assert_int_equal(body_delegates(g, true, seen, 2), 2);
    run_if(p);

    /* through the program file: the bodies' delegate nodes survive serialisation */
    char *dir = tu_mkdtemp();
    char path[4096];
    snprintf(path, sizeof path, "%s/if.prog", dir);
    assert_int_equal(tosac_program_write_file(p, path, &err), TOSAC_OK);
    tosac_program *q = NULL;
    assert_int_equal(tosac_program_read_file(path, &q, &err), TOSAC_OK);
    assert_int_equal(tosac_program_n_delegates(q), 2);
    run_if(q);
    tosac_program_free(q);
    tosac_program_free(p);
    free(report);
    tu_rmtree(dir);
    free(dir);
}

/* r = Relu(x) is delegated at the top level and read only by the If's branches through
 * captures: the delegate must still export r (y = then ? -r : |r|). */
static void test_delegate_output_read_by_captures(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err);
    int cnd = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err);
    int r = ir_graph_add_tensor(g, "r", TOSAC_DT_F32, 1, s, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &err);
    assert_true(ir_graph_add_node(g, "Relu", NULL, "relu", &x, 1, &r, 1, &err) >= 0);
    int k = ir_graph_add_node(g, "If", NULL, "the_if", &cnd, 1, &y, 1, &err);
    const char *names[2] = {"then_branch", "else_branch"}, *ops[2] = {"Neg", "Abs"};
    for (int b = 0; b < 2; b++) {
        ir_graph *sub = ir_graph_new(names[b], g);
        int cr = ir_graph_resolve_tensor(sub, "r", &err);
        int o = ir_graph_add_tensor(sub, "o", TOSAC_DT_F32, 1, s, &err);
        assert_true(ir_graph_add_node(sub, ops[b], NULL, ops[b], &cr, 1, &o, 1, &err) >= 0);
        assert_int_equal(ir_graph_mark_output(sub, o, &err), TOSAC_OK);
        assert_int_equal(ir_node_set_graph(g, k, names[b], sub, &err), TOSAC_OK);
    }
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    tosac_program *p = compile_fp(m, NULL);
    assert_int_equal(tosac_program_n_delegates(p), 3); /* relu, then: neg, else: abs */
    /* the top level's delegate keeps index 0 (the report's numbering); the bodies' follow */
    int top = 0;
    for (int i = 0; i < tosac_program_cpu(p)->graph->n_nodes; i++)
        if (is_delegate(&tosac_program_cpu(p)->graph->nodes[i])) {
            assert_int_equal(ir_node_attr_int(&tosac_program_cpu(p)->graph->nodes[i], "index", -1),
                             0);
            top++;
        }
    assert_int_equal(top, 1);
    int seen[3] = {0, 0, 0};
    assert_int_equal(body_delegates(tosac_program_cpu(p)->graph, true, seen, 3), 2);
    assert_int_equal(seen[0], 0);
    tosac_tensor in[2], out;
    if_inputs(in);
    for (int v = 0; v < 2; v++) {
        *(uint8_t *)in[1].data = (uint8_t)v;
        tosac_code rc = tosac_program_run(p, in, 2, &out, 1, &err);
        if (rc)
            fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, TOSAC_OK);
        const float *ov = out.data; /* r = [0, 2] */
        assert_true(ov[0] == 0.0f);
        assert_true(ov[1] == (v ? -2.0f : 2.0f));
        tosac_tensor_free(&out);
    }
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
    tosac_program_free(p);
}

/* Loop M=3: acc' = acc + x (x captured from the outer scope), acc0 = [0.5, -1], x = [1, 2]:
 * acc = [3.5, 5]. The body's Add becomes a delegate run on every iteration. */
static void test_loop_body_delegate(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t three = 3, s[1] = {2};
    uint8_t yes = 1;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err);
    int a0 = ir_graph_add_input(g, "acc0", TOSAC_DT_F32, 1, s, &err);
    int tm = ir_graph_add_const(g, "M", TOSAC_DT_I64, 0, NULL, &three, 8, &err);
    int tc = ir_graph_add_const(g, "cond", TOSAC_DT_BOOL, 0, NULL, &yes, 1, &err);
    int af = ir_graph_add_tensor(g, "acc", TOSAC_DT_F32, 1, s, &err);
    int ins[3] = {tm, tc, a0};
    int k = ir_graph_add_node(g, "Loop", NULL, "loop", ins, 3, &af, 1, &err);
    assert_true(x >= 0 && k >= 0);
    ct_loop_body(g, k, 2, "x");
    assert_int_equal(ir_graph_mark_output(g, af, &err), TOSAC_OK);
    tosac_program *p = compile_fp(m, NULL);
    /* the body's Identity (cond) and Add share no edge, so they are two delegates */
    assert_int_equal(tosac_program_n_delegates(p), 2);
    int seen[2] = {0, 0};
    int nd = tosac_program_n_delegates(p);
    assert_int_equal(body_delegates(tosac_program_cpu(p)->graph, true, seen, nd), nd);
    const ir_graph *b = ir_node_subgraph(&tosac_program_cpu(p)->graph->nodes[0], 0);
    for (int i = 0; i < b->n_nodes; i++) /* the Add went into a delegate */
        assert_string_not_equal(b->nodes[i].op_type, "Add");
    tosac_tensor in[2], out;
    float xv[2] = {1, 2}, av[2] = {0.5f, -1};
    assert_int_equal(tosac_tensor_alloc(&in[0], TOSAC_DT_F32, 1, s, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&in[1], TOSAC_DT_F32, 1, s, &err), TOSAC_OK);
    memcpy(in[0].data, xv, sizeof xv);
    memcpy(in[1].data, av, sizeof av);
    tosac_code rc = tosac_program_run(p, in, 2, &out, 1, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, TOSAC_OK);
    assert_true(((float *)out.data)[0] == 3.5f);
    assert_true(((float *)out.data)[1] == 5.0f);
    tosac_tensor_free(&out);
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
    tosac_program_free(p);
}

/* Reads models/silero_vad_op18_ifless/<kind>/<sample>/<name>.npy; false when absent. */
static bool read_npy(const char *kind, const char *sample, const char *name, tosac_tensor *t)
{
    char rel[256];
    snprintf(rel, sizeof rel, "models/silero_vad_op18_ifless/%s/%s/%s.npy", kind, sample, name);
    tosac_error err;
    return tosac_npy_read(tu_shared(rel), t, &err) == TOSAC_OK;
}

static void test_silero_vad_if_bodies_delegated(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    char *dir = tu_mkdtemp();
    char path[4096];
    snprintf(path, sizeof path, "%s/s.prog", dir);
    const char *shapes[2] = {"input=1,576", "state=2,1,128"};
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = "TOSA-1.0+FP";
    o.input_shapes = shapes;
    o.n_input_shapes = 2;
    assert_int_equal(
        tosac_compile_file(tu_shared("models/silero_vad_op18_ifless/model.onnx"), path, &o, &err),
        TOSAC_OK);
    tosac_program *p = NULL;
    assert_int_equal(tosac_program_read_file(path, &p, &err), TOSAC_OK);
    /* the top level (Reshape/Gather/Equal on int64 sr, If) stays on the CPU: every delegate
     * lives inside a branch, and both branches have some */
    const ir_graph *g = tosac_program_cpu(p)->graph;
    assert_true(tosac_program_n_delegates(p) >= 2);
    int *seen = calloc((size_t)tosac_program_n_delegates(p), sizeof *seen);
    assert_non_null(seen);
    int nd = tosac_program_n_delegates(p);
    assert_int_equal(body_delegates(g, true, seen, nd), nd);
    free(seen);
    for (int i = 0; i < g->n_nodes; i++) {
        assert_false(is_delegate(&g->nodes[i]));
        if (strcmp(g->nodes[i].op_type, "If") != 0)
            continue;
        for (int b = 0; b < 2; b++) {
            int here = 0;
            const ir_graph *sub = ir_node_subgraph(&g->nodes[i], b);
            for (int n = 0; n < sub->n_nodes; n++)
                here += is_delegate(&sub->nodes[n]);
            assert_true(here > 0);
        }
    }
    int samples = 0;
    for (int s = 0; s < 100; s++) {
        char sample[16];
        snprintf(sample, sizeof sample, "%02d", s);
        tosac_tensor in[3], want[2], out[2];
        if (!read_npy("inputs", sample, "input", &in[0]))
            break;
        /* graph input order: input, sr, state */
        assert_true(read_npy("inputs", sample, "sr", &in[1]));
        assert_true(read_npy("inputs", sample, "state", &in[2]));
        assert_true(read_npy("expected", sample, "output", &want[0]));
        assert_true(read_npy("expected", sample, "stateN", &want[1]));
        tosac_code rc = tosac_program_run(p, in, 3, out, 2, &err);
        if (rc)
            fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, TOSAC_OK);
        for (int k = 0; k < 2; k++) {
            assert_int_equal(out[k].dtype, TOSAC_DT_F32);
            assert_int_equal(tosac_tensor_numel(&out[k]), tosac_tensor_numel(&want[k]));
            /* relative to the largest |reference| (as `tosac compare` measures): the
             * CPU-only run of this model is off by the same ~1e-5 of it in stateN */
            const float *a = out[k].data, *w = want[k].data;
            int64_t ne = tosac_tensor_numel(&want[k]);
            float peak = 0;
            for (int64_t e = 0; e < ne; e++)
                peak = fabsf(w[e]) > peak ? fabsf(w[e]) : peak;
            for (int64_t e = 0; e < ne; e++)
                if (!(fabsf(a[e] - w[e]) <= 1e-4f * peak)) {
                    fprintf(stderr, "sample %s output %d[%lld]: %g vs %g\n", sample, k,
                            (long long)e, a[e], w[e]);
                    fail();
                }
            tosac_tensor_free(&out[k]);
            tosac_tensor_free(&want[k]);
        }
        for (int k = 0; k < 3; k++)
            tosac_tensor_free(&in[k]);
        samples++;
    }
    assert_int_equal(samples, 8);
    tosac_program_free(p);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_branches_become_delegates),
        cmocka_unit_test(test_delegate_output_read_by_captures),
        cmocka_unit_test(test_loop_body_delegate),
        cmocka_unit_test(test_silero_vad_if_bodies_delegated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
