/* Quantized If and Loop (issue 15): a float model's If/Loop quantized by tosac (a8w8 and
 * a16w8) compiles under TOSA-1.0+INT+cf (+int16) to one delegate holding COND_IF /
 * WHILE_LOOP whose edges are int8 / int16, runs on the runtime and stays within stated output
 * steps of the float model; calibration observes the bodies (both branches, every iteration)
 * and degenerate calibration data (all zero, all one) still gives a delegated program; a
 * hand-written QDQ model with Q/DQ in its branches lowers the same way. Expected values are
 * the float model's outputs on the CPU executor (or hand-derived, for the QDQ model). */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "quant/quant_internal.h"
#include "quant_testgraph.h"
#include "tosac/compile.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "tosac/program.h"
#include "tosac/quant.h"

#define N 24
static const int64_t XS[3] = {2, 3, 4};

/* y = If(ReduceMin(x) > 0, then: x * x, else: else_op(x)) */
static ir_model *if_model_else(const char *else_op)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    static const float zero = 0.0f;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 3, XS, NULL);
    int z = ir_graph_add_const(g, "zero", TOSAC_DT_F32, 0, NULL, &zero, sizeof zero, NULL);
    int mn = ir_graph_add_tensor(g, "mn", TOSAC_DT_F32, 0, NULL, NULL);
    int c = ir_graph_add_tensor(g, "c", TOSAC_DT_BOOL, 0, NULL, NULL);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 3, XS, NULL);
    int r = ir_graph_add_node(g, "ReduceMin", NULL, "min", &x, 1, &mn, 1, NULL);
    assert_int_equal(ir_node_set_int(g, r, "keepdims", 0, NULL), TOSAC_OK);
    int gin[2] = {mn, z};
    assert_true(ir_graph_add_node(g, "Greater", NULL, "positive", gin, 2, &c, 1, NULL) >= 0);
    int k = ir_graph_add_node(g, "If", NULL, "the_if", &c, 1, &y, 1, NULL);
    const char *names[2] = {"then_branch", "else_branch"}, *ops[2] = {"Mul", else_op};
    for (int b = 0; b < 2; b++) {
        ir_graph *sub = ir_graph_new(names[b], g);
        int cx = ir_graph_resolve_tensor(sub, "x", NULL);
        int o = ir_graph_add_tensor(sub, "o", TOSAC_DT_F32, 3, XS, NULL);
        int in2[2] = {cx, cx};
        assert_true(ir_graph_add_node(sub, ops[b], NULL, ops[b], in2, b == 0 ? 2 : 1, &o, 1,
                                      NULL) >= 0);
        assert_int_equal(ir_graph_mark_output(sub, o, NULL), TOSAC_OK);
        assert_int_equal(ir_node_set_graph(g, k, names[b], sub, NULL), TOSAC_OK);
    }
    assert_int_equal(ir_graph_mark_output(g, y, NULL), TOSAC_OK);
    assert_int_equal(ir_model_verify(m, NULL), TOSAC_OK);
    return m;
}

static ir_model *if_model(void) { return if_model_else("Neg"); }

/* y = Loop(M = 3, a0 = x; body a_out = a_in + x): 4 x */
static ir_model *loop_model(void)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    static const int64_t three = 3;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 3, XS, NULL);
    int mt = ir_graph_add_const(g, "M", TOSAC_DT_I64, 0, NULL, &three, sizeof three, NULL);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 3, XS, NULL);
    int ins[3] = {mt, -1, x};
    int k = ir_graph_add_node(g, "Loop", NULL, "the_loop", ins, 3, &y, 1, NULL);
    ir_graph *body = ir_graph_new("body", g);
    ir_graph_add_input(body, "i", TOSAC_DT_I64, 0, NULL, NULL);
    int ci = ir_graph_add_input(body, "c_in", TOSAC_DT_BOOL, 0, NULL, NULL);
    int ai = ir_graph_add_input(body, "a_in", TOSAC_DT_F32, 3, XS, NULL);
    int cx = ir_graph_resolve_tensor(body, "x", NULL);
    int co = ir_graph_add_tensor(body, "c_out", TOSAC_DT_BOOL, 0, NULL, NULL);
    int ao = ir_graph_add_tensor(body, "a_out", TOSAC_DT_F32, 3, XS, NULL);
    assert_true(ir_graph_add_node(body, "Identity", NULL, "keep", &ci, 1, &co, 1, NULL) >= 0);
    int add_in[2] = {ai, cx};
    assert_true(ir_graph_add_node(body, "Add", NULL, "step", add_in, 2, &ao, 1, NULL) >= 0);
    ir_graph_mark_output(body, co, NULL);
    ir_graph_mark_output(body, ao, NULL);
    assert_int_equal(ir_node_set_graph(g, k, "body", body, NULL), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, y, NULL), TOSAC_OK);
    assert_int_equal(ir_model_verify(m, NULL), TOSAC_OK);
    return m;
}

/* Samples: positive values in [0.25, 2] (lo > 0), negative in [-2, -0.25], or constant v. */
static tosac_tensor sample(int kind, float v)
{
    tosac_tensor t;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, 3, XS, NULL), TOSAC_OK);
    float *d = t.data;
    for (int i = 0; i < N; i++) {
        float u = 0.25f + 1.75f * (float)((i * 7) % N) / (float)(N - 1);
        d[i] = kind > 0 ? u : kind < 0 ? -u : v;
    }
    return t;
}


typedef struct outcome {
    int n_delegates, n_ctl;     /* delegates; COND_IF / WHILE_LOOP in delegate 0's main block */
    int n_cpu_nodes;            /* nodes of the program's CPU graph */
    bool edges_int;             /* every non-control edge of the control op is act_dt */
} outcome;

/* The control op's edges: COND_IF skips its bool condition, WHILE_LOOP its int32 counter
 * and bool condition (the first two of its list). */
static void inspect(const tosac_program *p, tosa_op want, tosac_dtype act_dt, outcome *o)
{
    memset(o, 0, sizeof *o);
    o->n_delegates = tosac_program_n_delegates(p);
    o->n_cpu_nodes = tosac_program_cpu(p)->graph->n_nodes;
    if (o->n_delegates < 1)
        return;
    const tosa_block *b = &tosac_program_delegate(p, 0)->regions[0].blocks[0];
    int skip = want == TOSA_OP_COND_IF ? 1 : 2;
    o->edges_int = true;
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *op = &b->ops[i];
        if (op->op != want)
            continue;
        o->n_ctl++;
        for (int k = skip; k < op->n_inputs; k++)
            o->edges_int &= b->tensors[op->inputs[k]].dtype == act_dt;
        for (int k = want == TOSA_OP_COND_IF ? 0 : 2; k < op->n_outputs; k++)
            o->edges_int &= b->tensors[op->outputs[k]].dtype == act_dt;
        o->edges_int &= op->n_inputs > skip;
    }
}

/* Quantizes build() on the calibration samples, compiles under spec, checks the program has
 * one delegate holding one control op with act_dt edges and nothing else on the CPU but the
 * input's Q and the output's DQ, and runs it on every run input: within qtol output steps of
 * the float model (qtol 0: equal). */
static void check(ir_model *(*build)(void), quant_scheme s, const char *spec, tosa_op want,
                  const tosac_tensor *calib, int n_calib, const tosac_tensor *runs, int n_runs,
                  double qtol)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *fm = build();
    tosac_tensor *ref = calloc((size_t)n_runs, sizeof *ref);
    for (int r = 0; r < n_runs; r++)
        assert_int_equal(cpu_run_model(fm, &runs[r], 1, &ref[r], 1, &err), TOSAC_OK);
    ir_model_free(fm);
    ir_model *m = build();
    quant_options qo = {.scheme = s, .bodies = true}; /* as compile under +cf */
    quant_calib cal = {n_calib, 1, (tosac_tensor *)calib};
    tosac_code rc = tosac_quantize(m, &qo, &cal, &err);
    if (rc)
        fail_msg("quantize: %s", err.msg);
    float so = qtg_output_scale(m->graph);
    assert_true(so > 0);
    tosac_compile_options co = {.spec = spec};
    tosac_program *p = NULL;
    rc = tosac_compile_model(m, &co, &p, NULL, &err);
    if (rc)
        fail_msg("compile: %s", err.msg);
    outcome o;
    tosac_dtype act = s == QUANT_A16W8 ? TOSAC_DT_I16 : TOSAC_DT_I8;
    inspect(p, want, act, &o);
    assert_int_equal(o.n_delegates, 1);
    assert_int_equal(o.n_ctl, 1);
    assert_true(o.edges_int);
    assert_int_equal(o.n_cpu_nodes, 3); /* QuantizeLinear, the delegate, DequantizeLinear */
    for (int r = 0; r < n_runs; r++) {
        tosac_tensor y;
        memset(&y, 0, sizeof y);
        rc = tosac_program_run(p, &runs[r], 1, &y, 1, &err);
        if (rc)
            fail_msg("run: %s", err.msg);
        const float *a = y.data, *b = ref[r].data;
        for (int i = 0; i < N; i++)
            if (!(fabs((double)a[i] - (double)b[i]) <= qtol * (double)so))
                fail_msg("%s run %d element %d: %g, float model %g (tolerance %g steps of %g)",
                         spec, r, i, (double)a[i], (double)b[i], qtol, (double)so);
        tosac_tensor_free(&y);
        tosac_tensor_free(&ref[r]);
    }
    free(ref);
    tosac_program_free(p);
}

/* Calibration runs the bodies: the Loop body's tensors take every iteration's values (x = 1:
 * a_in is 1, 2, 3 and a_out 2, 3, 4), the Loop's output the range of all of them; each If
 * branch's tensors take the samples where it ran (then: x * x of the positive sample, else:
 * -x of the negative one). */
static const quant_seen *body_seen(const quant_bodies *b, const char *graph, const char *tensor,
                                   int *id)
{
    for (int i = 0; i < b->n; i++)
        if (strcmp(b->b[i].g->name, graph) == 0) {
            *id = ir_graph_find_tensor(b->b[i].g, tensor);
            assert_true(*id >= 0);
            return &b->b[i].seen[*id];
        }
    fail_msg("no body %s", graph);
    return NULL;
}

static void calibrate(ir_model *m, const tosac_tensor *t, int n, quant_bodies *b,
                      quant_seen **top)
{
    tosac_error err;
    tosac_error_clear(&err);
    quant_options qo = {.scheme = QUANT_A8W8, .method = QUANT_CALIB_MINMAX};
    quant_calib cal = {n, 1, (tosac_tensor *)t};
    *top = calloc((size_t)m->graph->n_tensors + 1, sizeof **top);
    assert_int_equal(quant_bodies_collect(m->graph, b, &err), TOSAC_OK);
    assert_int_equal(quant_calibrate(m, &qo, &cal, *top, &err), TOSAC_OK);
    assert_int_equal(quant_bodies_calibrate(m, &qo, &cal, b, *top, &err), TOSAC_OK);
}

static void test_calibration_sees_bodies(void **state)
{
    (void)state;
    tosac_tensor one = sample(0, 1.0f);
    ir_model *m = loop_model();
    quant_bodies b;
    quant_seen *top;
    calibrate(m, &one, 1, &b, &top);
    assert_int_equal(b.n, 1);
    int id;
    const quant_seen *s = body_seen(&b, "body", "a_in", &id);
    assert_true(s->is_float);
    assert_float_equal(s->minmax.lo, 1.0f, 0);
    assert_float_equal(s->minmax.hi, 3.0f, 0);
    s = body_seen(&b, "body", "a_out", &id);
    assert_float_equal(s->minmax.lo, 2.0f, 0);
    assert_float_equal(s->minmax.hi, 4.0f, 0);
    const quant_seen *y = &top[ir_graph_find_tensor(m->graph, "y")];
    assert_float_equal(y->range.lo, 1.0f, 0);
    assert_float_equal(y->range.hi, 4.0f, 0);
    quant_bodies_free(&b);
    free(top);
    ir_model_free(m);
    tosac_tensor_free(&one);

    tosac_tensor t[2] = {sample(1, 0), sample(-1, 0)};
    m = if_model();
    calibrate(m, t, 2, &b, &top);
    assert_int_equal(b.n, 2);
    s = body_seen(&b, "then_branch", "o", &id);
    assert_float_equal(s->minmax.lo, 0.0625f, 0); /* 0.25^2 */
    assert_float_equal(s->minmax.hi, 4.0f, 0);
    s = body_seen(&b, "else_branch", "o", &id);
    assert_float_equal(s->minmax.lo, 0.25f, 0);
    assert_float_equal(s->minmax.hi, 2.0f, 0);
    /* the capture mirrors the outer x: both samples */
    s = body_seen(&b, "else_branch", "x", &id);
    assert_float_equal(s->minmax.lo, -2.0f, 0);
    assert_float_equal(s->minmax.hi, 2.0f, 0);
    quant_bodies_free(&b);
    free(top);
    ir_model_free(m);
    tosac_tensor_free(&t[0]);
    tosac_tensor_free(&t[1]);
}

/* --exclude If keeps the If float: its branches get no Q/DQ (as without bodies), only the
 * top-level nodes do; with bodies, each branch gets its output's Q -> DQ. */
static int n_quantize_nodes(const ir_graph *g)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && ir_node_is(&g->nodes[i], "QuantizeLinear");
    return n;
}

static void test_exclude_keeps_bodies_float(void **state)
{
    (void)state;
    tosac_tensor t[2] = {sample(1, 0), sample(-1, 0)};
    quant_calib cal = {2, 1, t};
    for (int ex = 0; ex < 2; ex++) {
        tosac_error err;
        tosac_error_clear(&err);
        ir_model *m = if_model();
        quant_options qo = {.scheme = QUANT_A8W8, .bodies = true, .exclude = ex ? "If" : NULL};
        assert_int_equal(tosac_quantize(m, &qo, &cal, &err), TOSAC_OK);
        const ir_node *n = &m->graph->nodes[0];
        for (int i = 0; i < m->graph->n_nodes; i++)
            if (ir_node_is(&m->graph->nodes[i], "If"))
                n = &m->graph->nodes[i];
        assert_true(ir_node_is(n, "If"));
        for (int b = 0; b < 2; b++)
            assert_int_equal(n_quantize_nodes(ir_node_subgraph(n, b)), ex ? 0 : 1);
        ir_model_free(m);
    }
    tosac_tensor_free(&t[0]);
    tosac_tensor_free(&t[1]);
}

static const struct {
    quant_scheme s;
    const char *spec;
} SCHEMES[2] = {{QUANT_A8W8, "TOSA-1.0+INT+cf"}, {QUANT_A16W8, "TOSA-1.0+INT+int16+cf"}};

/* 3 output steps: the output's rounding (half a step) plus x's half step carried through
 * x * x at |x| <= 2 (2 |x| s_x / 2 <= 2 steps: s_x <= s_out, x and y spanning [-2, 2] and
 * [0, 4]); the Neg branch has half a step of each. */
static void test_if_both_branches(void **state)
{
    (void)state;
    tosac_tensor t[2] = {sample(1, 0), sample(-1, 0)};
    for (int k = 0; k < 2; k++)
        check(if_model, SCHEMES[k].s, SCHEMES[k].spec, TOSA_OP_COND_IF, t, 2, t, 2, 3.0);
    tosac_tensor_free(&t[0]);
    tosac_tensor_free(&t[1]);
}

/* 3 output steps of y = 4 x: three Adds each rounded to the carried value's step (half a step
 * each) plus x's half step counted four times (s_x = s_out / 4: x spans [-2, 2], the
 * carried values [-8, 8]) */
static void test_loop_all_iterations(void **state)
{
    (void)state;
    tosac_tensor t[2] = {sample(1, 0), sample(-1, 0)};
    for (int k = 0; k < 2; k++)
        check(loop_model, SCHEMES[k].s, SCHEMES[k].spec, TOSA_OP_WHILE_LOOP, t, 2, t, 2, 3.0);
    tosac_tensor_free(&t[0]);
    tosac_tensor_free(&t[1]);
}

/* All-zero calibration: every range is one value (the scales of [-1, 1]); zero stays exact,
 * so the output is exactly 0. All-one: ranges [0, 1] (If: x*x = 1; Loop: 4), within one step
 * (the values are grid points up to float rounding). The untaken branch was never run and
 * still lowers. */
static void test_degenerate_calibration(void **state)
{
    (void)state;
    tosac_tensor zero = sample(0, 0.0f), one = sample(0, 1.0f);
    for (int k = 0; k < 2; k++) {
        check(if_model, SCHEMES[k].s, SCHEMES[k].spec, TOSA_OP_COND_IF, &zero, 1, &zero, 1, 0);
        check(loop_model, SCHEMES[k].s, SCHEMES[k].spec, TOSA_OP_WHILE_LOOP, &zero, 1, &zero, 1,
              0);
        check(if_model, SCHEMES[k].s, SCHEMES[k].spec, TOSA_OP_COND_IF, &one, 1, &one, 1, 1.0);
        check(loop_model, SCHEMES[k].s, SCHEMES[k].spec, TOSA_OP_WHILE_LOOP, &one, 1, &one, 1,
              1.0);
    }
    tosac_tensor_free(&zero);
    tosac_tensor_free(&one);
}

/* A hand-written QDQ model: x -Q-DQ-> xd captured by If(c, then: Relu(xd), else: Neg(xd)),
 * each branch output Q -> DQ at the If output's parameters, the If's output Q -> DQ too;
 * int8, scale 0.5, zero point 0 everywhere. */
static int q_pair(ir_graph *g, int t, const char *name, int rank, const int64_t *shape)
{
    static const float sc = 0.5f;
    static const int8_t zp = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s_scale", name);
    int s = ir_graph_add_const(g, buf, TOSAC_DT_F32, 0, NULL, &sc, sizeof sc, NULL);
    snprintf(buf, sizeof buf, "%s_zp", name);
    int z = ir_graph_add_const(g, buf, TOSAC_DT_I8, 0, NULL, &zp, sizeof zp, NULL);
    snprintf(buf, sizeof buf, "%s_q", name);
    int q = ir_graph_add_tensor(g, buf, TOSAC_DT_I8, rank, shape, NULL);
    snprintf(buf, sizeof buf, "%s_dq", name);
    int d = ir_graph_add_tensor(g, buf, TOSAC_DT_F32, rank, shape, NULL);
    int qin[3] = {t, s, z}, dqin[3] = {q, s, z};
    snprintf(buf, sizeof buf, "%s_Q", name);
    assert_true(ir_graph_add_node(g, "QuantizeLinear", NULL, buf, qin, 3, &q, 1, NULL) >= 0);
    snprintf(buf, sizeof buf, "%s_DQ", name);
    assert_true(ir_graph_add_node(g, "DequantizeLinear", NULL, buf, dqin, 3, &d, 1, NULL) >= 0);
    return d;
}

static ir_model *qdq_if_model(void)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    const int64_t s[1] = {2};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, NULL);
    int c = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, NULL);
    q_pair(g, x, "x", 1, s);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, NULL);
    int k = ir_graph_add_node(g, "If", NULL, "the_if", &c, 1, &y, 1, NULL);
    const char *names[2] = {"then_branch", "else_branch"}, *ops[2] = {"Relu", "Neg"};
    for (int b = 0; b < 2; b++) {
        ir_graph *sub = ir_graph_new(names[b], g);
        int cx = ir_graph_resolve_tensor(sub, "x_dq", NULL);
        int o = ir_graph_add_tensor(sub, "o", TOSAC_DT_F32, 1, s, NULL);
        assert_true(ir_graph_add_node(sub, ops[b], NULL, ops[b], &cx, 1, &o, 1, NULL) >= 0);
        ir_graph_mark_output(sub, q_pair(sub, o, "o", 1, s), NULL);
        assert_int_equal(ir_node_set_graph(g, k, names[b], sub, NULL), TOSAC_OK);
    }
    ir_graph_mark_output(g, q_pair(g, y, "y", 1, s), NULL);
    assert_int_equal(onnx_record_quant(g, NULL), TOSAC_OK);
    assert_int_equal(ir_model_verify(m, NULL), TOSAC_OK);
    return m;
}

static void test_qdq_if_lowers(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = qdq_if_model();
    tosac_compile_options co = {.spec = "TOSA-1.0+INT+cf"};
    tosac_program *p = NULL;
    if (tosac_compile_model(m, &co, &p, NULL, &err))
        fail_msg("compile: %s", err.msg);
    outcome o;
    inspect(p, TOSA_OP_COND_IF, TOSAC_DT_I8, &o);
    assert_int_equal(o.n_delegates, 1);
    assert_int_equal(o.n_ctl, 1);
    assert_true(o.edges_int);
    assert_int_equal(o.n_cpu_nodes, 3);
    const int64_t s[1] = {2};
    static const float xv[2] = {1.5f, -2.0f};
    static const float want[2][2] = {{1.5f, 0.0f}, {-1.5f, 2.0f}}; /* Relu, Neg */
    for (int b = 0; b < 2; b++) {
        uint8_t cv = b == 0;
        tosac_tensor in[2], y;
        assert_int_equal(tosac_tensor_describe(&in[0], TOSAC_DT_F32, 1, s, NULL), TOSAC_OK);
        assert_int_equal(tosac_tensor_describe(&in[1], TOSAC_DT_BOOL, 0, NULL, NULL), TOSAC_OK);
        in[0].data = (void *)xv;
        in[1].data = &cv;
        memset(&y, 0, sizeof y);
        if (tosac_program_run(p, in, 2, &y, 1, &err))
            fail_msg("run: %s", err.msg);
        assert_float_equal(((const float *)y.data)[0], want[b][0], 0);
        assert_float_equal(((const float *)y.data)[1], want[b][1], 0);
        tosac_tensor_free(&y);
    }
    tosac_program_free(p);
}

/* compile --quantize under +cf quantizes an If's bodies only where the If can become a
 * COND_IF: with a Shrink (no TOSA lowering) in its else branch it stays on the CPU, and its
 * bodies stay float (quantized, they would lose accuracy for no delegate: silero's If). */
static void test_compile_keeps_unlowerable_bodies_float(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char path[512];
    tosac_error err;
    tosac_error_clear(&err);
    for (int k = 0; k < 2; k++) {
        tosac_tensor t = sample(k ? -1 : 1, 0);
        snprintf(path, sizeof path, "%s/%02d.npy", dir, k);
        assert_int_equal(tosac_npy_write(path, &t, &err), TOSAC_OK);
        tosac_tensor_free(&t);
    }
    const char *calib[1] = {dir};
    for (int shrink = 0; shrink < 2; shrink++) {
        ir_model *m = if_model_else(shrink ? "Shrink" : "Neg");
        tosac_compile_options co = {.spec = "TOSA-1.0+INT+cf", .quantize = "a8w8",
                                    .calib = calib, .n_calib = 1};
        if (tosac_compile_quantize(m, &co, &err))
            fail_msg("quantize: %s", err.msg);
        const ir_node *n = NULL;
        for (int i = 0; i < m->graph->n_nodes; i++)
            if (ir_node_is(&m->graph->nodes[i], "If"))
                n = &m->graph->nodes[i];
        assert_non_null(n);
        for (int b = 0; b < 2; b++)
            assert_int_equal(n_quantize_nodes(ir_node_subgraph(n, b)), shrink ? 0 : 1);
        ir_model_free(m);
    }
    tu_rmtree_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibration_sees_bodies),
        cmocka_unit_test(test_exclude_keeps_bodies_float),
        cmocka_unit_test(test_if_both_branches),
        cmocka_unit_test(test_loop_all_iterations),
        cmocka_unit_test(test_degenerate_calibration),
        cmocka_unit_test(test_qdq_if_lowers),
        cmocka_unit_test(test_compile_keeps_unlowerable_bodies_float),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
