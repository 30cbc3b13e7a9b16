/* The partitioner: maximal, acyclic, never-empty delegates, a reason for every CPU node, and
 * the INT-only boundary regression of the issue (int16 conv -> shared Split -> batch MatMul
 * that Ethos-U55 cannot take), on IR-built graphs and on the zoo's split_matmul models. */
#include "lower_core_testutil.h"

#include <stdlib.h>
#include <string.h>

#include "partition/partition.h"
#include "tosac/compile.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"

static const int64_t shp[2] = {2, 3};

/* A float graph: ops[i] is (op_type, in0, in1) over tensors t0 = input, t1.. = node outputs;
 * "X" is an operator no rule lowers. */
typedef struct gnode {
    const char *op;
    int a, b;
} gnode;

static ir_graph *graph_of(const gnode *nodes, int n)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int t[32];
    t[0] = ir_graph_add_input(g, "in", TOSAC_DT_F32, 2, shp, &err);
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i + 1);
        t[i + 1] = ir_graph_add_tensor(g, name, TOSAC_DT_F32, 2, shp, &err);
        int ins[2] = {t[nodes[i].a], nodes[i].b >= 0 ? t[nodes[i].b] : -1};
        bool custom = strcmp(nodes[i].op, "X") == 0;
        snprintf(name, sizeof name, "n%d", i + 1);
        assert_true(ir_graph_add_node(g, custom ? "Frob" : nodes[i].op, custom ? "test" : NULL,
                                      name, ins, nodes[i].b >= 0 ? 2 : 1, &t[i + 1], 1,
                                      &err) >= 0);
    }
    ir_graph_mark_output(g, t[n], &err);
    return g;
}

/* Properties every plan must have: each delegate index 0..n_parts-1 has a node; a node is on
 * the CPU exactly when it has a reason; the graph of delegates and CPU nodes is acyclic. */
static void check_plan(const ir_graph *g, const partition_plan *p)
{
    int units = g->n_nodes + p->n_parts; /* CPU node i -> unit i; delegate k -> n + k */
    for (int k = 0; k < p->n_parts; k++) {
        int cnt = 0;
        for (int i = 0; i < g->n_nodes; i++)
            cnt += p->part[i] == k;
        assert_true(cnt > 0);
    }
    for (int i = 0; i < g->n_nodes; i++)
        assert_true((p->part[i] < 0) == (p->reason[i] != NULL));
    /* edges between units; Kahn's algorithm must consume every unit */
    unsigned char *adj = calloc((size_t)(units * units), 1);
    int *indeg = calloc((size_t)units, sizeof *indeg);
    for (int v = 0; v < g->n_nodes; v++)
        for (int i = 0; i < g->nodes[v].n_inputs; i++) {
            int t = g->nodes[v].inputs[i], u = t >= 0 ? ir_graph_producer(g, t) : -1;
            if (u < 0)
                continue;
            int a = p->part[u] >= 0 ? g->n_nodes + p->part[u] : u;
            int b = p->part[v] >= 0 ? g->n_nodes + p->part[v] : v;
            if (a != b && !adj[a * units + b]) {
                adj[a * units + b] = 1;
                indeg[b]++;
            }
        }
    int done = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (int a = 0; a < units; a++) {
            if (indeg[a] != 0)
                continue;
            indeg[a] = -1;
            done++;
            progress = true;
            for (int b = 0; b < units; b++)
                if (adj[a * units + b])
                    indeg[b]--;
        }
    }
    assert_int_equal(done, units);
    free(adj);
    free(indeg);
}

static partition_plan plan_of(ir_graph *g, const char *spec)
{
    tosa_spec sp = bt_spec(spec);
    partition_plan p;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(partition_graph(&sp, g, &p, &err), TOSAC_OK);
    check_plan(g, &p);
    return p;
}

static void test_maximal_chain(void **state)
{
    (void)state;
    const gnode chain[] = {{"Add", 0, 0}, {"Mul", 1, 0}, {"Sub", 2, 1}, {"Transpose", 3, -1}};
    ir_graph *g = graph_of(chain, 4);
    partition_plan p = plan_of(g, "TOSA-1.0+FP");
    assert_int_equal(p.n_parts, 1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(p.part[i], 0);
    partition_plan_free(&p);
    /* the same float graph under INT: nothing delegated, every node says why */
    p = plan_of(g, "TOSA-1.0+INT");
    assert_int_equal(p.n_parts, 0);
    for (int i = 0; i < 4; i++)
        assert_non_null(strstr(p.reason[i], "float32 operands need +FP (TOSA-1.0+INT+FP)"));
    partition_plan_free(&p);
    ir_graph_free(g);
}

/* n1 -> n2 -> n4, n1 -> n3 (CPU) -> n4: one group {n1, n2, n4} would need n3's result while
 * n3 needs n1's: the partitioner must cut. */
static void test_acyclic_cut(void **state)
{
    (void)state;
    const gnode dia[] = {{"Add", 0, 0}, {"Mul", 1, 1}, {"X", 1, -1}, {"Add", 2, 3}};
    ir_graph *g = graph_of(dia, 4);
    partition_plan p = plan_of(g, "TOSA-1.0+FP");
    assert_int_equal(p.n_parts, 2);
    assert_int_equal(p.part[0], p.part[1]);
    assert_int_equal(p.part[2], -1);
    assert_true(p.part[3] >= 0 && p.part[3] != p.part[0]);
    assert_string_equal(p.reason[2], "test.Frob: tosac has no lowering for this operator yet");
    /* boundary of the first delegate: reads the input, writes n1 (for n3) and n2 (for n4) */
    int *ins, n_in, *outs, n_out;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(partition_io(g, &p, p.part[0], &ins, &n_in, &outs, &n_out, &err), TOSAC_OK);
    assert_int_equal(n_in, 1);
    assert_int_equal(n_out, 2);
    assert_string_equal(g->tensors[outs[0]].name, "t1");
    assert_string_equal(g->tensors[outs[1]].name, "t2");
    free(ins);
    free(outs);
    partition_plan_free(&p);
    ir_graph_free(g);
}

/* Two independent supported islands separated by a CPU node stay two delegates; a CPU node
 * between them in a chain never produces an empty delegate. */
static void test_islands(void **state)
{
    (void)state;
    const gnode isl[] = {{"Add", 0, 0}, {"X", 1, -1}, {"Mul", 2, 2}, {"X", 3, -1}};
    ir_graph *g = graph_of(isl, 4);
    partition_plan p = plan_of(g, "TOSA-1.0+FP");
    assert_int_equal(p.n_parts, 2);
    assert_int_equal(p.part[0], 0);
    assert_int_equal(p.part[2], 1);
    assert_int_equal(p.part[1], -1);
    assert_int_equal(p.part[3], -1);
    partition_plan_free(&p);
    ir_graph_free(g);
}

/* ---- the boundary regression ----
 * x -> Conv (a16w8) -> c [1,4,6,6] -> Split(axis 1) -> q, k [1,2,6,6];
 * attn = MatMul(q, k) (batch 2, both runtime); outputs attn and k. */
static float rx[1 * 3 * 6 * 6], rw[4 * 3 * 3 * 3], rb[4];

static void regression_model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t xs[4] = {1, 3, 6, 6}, ws[4] = {4, 3, 3, 3}, pads[4] = {1, 1, 1, 1};
    int x = lc_input(b, "x", 4, xs, rx);
    int w = lc_weight(b, "w", 4, ws, rw, 0);
    int ins[3] = {x, w, lc_bias(b, "b", 4, rb, x, w)};
    int conv = lc_node(b, "Conv", "conv", ins, 3, 1);
    ir_node_set_ints(lc_graph(b), conv, "pads", pads, 4, NULL);
    int c = lc_q(b, lc_out(b, conv, 0));
    int split = lc_node(b, "Split", "split", &c, 1, 2);
    ir_node_set_int(lc_graph(b), split, "axis", 1, NULL);
    int q = lc_q(b, lc_out(b, split, 0)), k = lc_q(b, lc_out(b, split, 1));
    int mm[2] = {q, k};
    lc_output(b, lc_out(b, lc_node(b, "MatMul", "attn", mm, 2, 1), 0));
    lc_output(b, k);
}

static void test_int16_boundary_regression(void **state)
{
    (void)state;
    lc_fill(rx, 108, 1, 2.0f);
    lc_fill(rw, 108, 2, 0.5f);
    lc_fill(rb, 4, 3, 0.5f);
    lc_result r;
    /* 2 steps: the int16 Conv's 16-bit RESCALE multiplier (see test_lower_layout_propagate)
     * can leave k one step off, which the MatMul on the CPU turns into up to 2 output steps
     * (measured 2.00). */
    lc_check(regression_model, NULL, LC_A16W8, "TOSA-1.0+INT+int16+u55", 2, &r);
    /* delegate int16 {Conv, Split} -> CPU [DQ -> MatMul f32 -> Q -> DQ], [DQ -> k] */
    assert_int_equal(r.n_delegates, 1);
    assert_int_equal(r.delegated, 2);
    assert_non_null(strstr(r.reasons, "MatMul: U55 restriction: MATMUL of int16 activations is "
                                      "not supported on Ethos-U55"));
    assert_int_equal(r.n_boundary, 2);
    assert_int_equal(r.boundary[0], TOSAC_DT_I16);
    assert_int_equal(r.boundary[1], TOSAC_DT_I16);
    /* everything reading the delegate's integer outputs on the CPU is a DequantizeLinear */
    assert_string_equal(r.delegate_readers,
                        "DequantizeLinear DequantizeLinear DequantizeLinear");
    assert_non_null(strstr(r.cpu_graph, "MatMul"));
    assert_int_equal(lc_count(&r, TOSA_OP_CONV2D, TOSAC_DT_I48), 1);
    assert_int_equal(lc_count(&r, TOSA_OP_SLICE, TOSAC_DT_I16), 2);
    /* without the u55 subset the MatMul joins the delegate (i16 x i16 -> i48) */
    lc_check(regression_model, NULL, LC_A16W8, "TOSA-1.0+INT+int16", 2, &r);
    assert_int_equal(r.n_delegates, 1);
    assert_int_equal(r.delegated, 3);
    assert_int_equal(lc_count(&r, TOSA_OP_MATMUL, TOSAC_DT_I48), 1);
}

/* ---- the zoo's split_matmul models (compiled from their files, run on every sample) ---- */
static void zoo_split_matmul(const char *model, const char *spec, int delegated,
                             const double step[2], bool u55)
{
    char path[512];
    snprintf(path, sizeof path, "models/%s/model.onnx", model);
    ir_model *m = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(onnx_import_file(tu_shared(path), &m, &err), TOSAC_OK);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    tosac_program *p = NULL;
    char *report = NULL;
    assert_int_equal(tosac_compile_model(m, &o, &p, &report, &err), TOSAC_OK);
    int n = 0;
    for (const char *s = report; (s = strstr(s, "\"placement\": \"delegate\"")); s++)
        n++;
    assert_int_equal(n, delegated);
    assert_int_equal(tosac_program_n_delegates(p), 1);
    if (u55)
        assert_non_null(strstr(report, "U55 restriction: MATMUL of int16 activations"));
    free(report);
    const tosa_block *blk = tosa_graph_main_block(tosac_program_delegate(p, 0));
    for (int i = 0; i < blk->n_outputs; i++) /* integer boundary: the zoo's activation type */
        assert_int_equal(blk->tensors[blk->outputs[i]].dtype,
                         strstr(model, "s16") ? TOSAC_DT_I16 : TOSAC_DT_I8);
    for (int s = 0; s < 4; s++) {
        tosac_tensor x, outs[2], e;
        snprintf(path, sizeof path, "models/%s/inputs/%02d/x.npy", model, s);
        assert_int_equal(tosac_npy_read(tu_shared(path), &x, &err), TOSAC_OK);
        /* a fresh copy of the program per run: the checker adds outputs to it */
        void *buf;
        size_t len;
        tosac_program *q = NULL;
        assert_int_equal(tosac_program_to_bytes(p, &buf, &len, &err), TOSAC_OK);
        assert_int_equal(tosac_program_from_bytes(buf, len, &q, &err), TOSAC_OK);
        free(buf);
        lc_run_program_checked(q, &x, 1, outs, 2, NULL);
        const char *names[2] = {"attn", "k"};
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "models/%s/expected/%02d/%s.npy", model, s, names[k]);
            assert_int_equal(tosac_npy_read(tu_shared(path), &e, &err), TOSAC_OK);
            lc_assert_steps(&outs[k], &e, step[k], 1, names[k]);
            tosac_tensor_free(&e);
            tosac_tensor_free(&outs[k]);
        }
        tosac_tensor_free(&x);
        tosac_program_free(q);
    }
    tosac_program_free(p);
}

/* Output scales of attn and k: meta.json quantization.tensor_qparams (the reference spread
 * recorded there, max_abs_diff_vs_graph_optimization_disabled, is 0 for these models). */
static void test_zoo_split_matmul_int16(void **state)
{
    (void)state;
    const double steps[2] = {0.0007769435760565102, 0.00012077130668330938};
    zoo_split_matmul("synth_qdq_s16_op21_split_matmul", "TOSA-1.0+INT+int16", 3, steps, false);
    zoo_split_matmul("synth_qdq_s16_op21_split_matmul", "TOSA-1.0+INT+int16+u55", 2, steps,
                     true);
}

static void test_zoo_split_matmul_int8(void **state)
{
    (void)state;
    const double steps[2] = {0.1923638880252838, 0.030376261100172997};
    zoo_split_matmul("synth_qdq_s8_op13_split_matmul", "TOSA-1.0+INT", 3, steps, false);
    /* Ethos-U55 takes the int8 MATMUL of two activations: the same delegate as under INT */
    zoo_split_matmul("synth_qdq_s8_op13_split_matmul", "TOSA-1.0+INT+u55", 3, steps, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maximal_chain),
        cmocka_unit_test(test_acyclic_cut),
        cmocka_unit_test(test_islands),
        cmocka_unit_test(test_int16_boundary_regression),
        cmocka_unit_test(test_zoo_split_matmul_int16),
        cmocka_unit_test(test_zoo_split_matmul_int8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
