/* Zoo compile suite: one QDQ model of /work/shared/models compiled for TOSA and run end to end.
 *
 * For the model named on the command line (one ctest per model, see CMakeLists.txt):
 *   - compile with tosac_compile_file under TOSA-1.0+INT (the int16 "s16" models under
 *     TOSA-1.0+INT+int16, the float models mobilenet_v2_f32 and ppocr under TOSA-1.0+FP),
 *     writing the program, the report and every delegate (--emit-tosa);
 *   - read every emitted .tosa back with our reader, and its .json metadata (I/O counts match);
 *   - run the program on every sample: each output within one output step (qtol where a
 *     model states why) plus spread of onnxruntime's, no fixed floor (output step: the scale
 *     of the DequantizeLinear producing it; spread: meta.json
 *     reference.max_abs_diff_vs_graph_optimization_disabled for that output); float models
 *     within 1e-5 relative (lc_tol);
 *   - every emitted .tosa, run alone on the interpreter with the values the program fed that
 *     delegate, gives bit-identical outputs (lower_core_testutil.h);
 *   - print the delegated/total node counts and check them exactly: one delegate, only the
 *     boundary Q/DQ on the CPU (see expects). */
#include "lower_core_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "util/fileio.h"
#include "util/json.h"

typedef struct expect {
    const char *model;
    const char *spec;
    const char *input_shape;  /* --input-shape, for models with dynamic input dimensions */
    int delegated;            /* model nodes placed in the delegate (all in one) */
} expect;

/* Every model compiles to exactly one delegate; what stays on the CPU is only the Q at each
 * graph input and the DQ at each graph output (the boundary rule: INT delegates read and
 * write integers), and nothing at all for the float models under TOSA-1.0+FP. The counts are
 * the models' compute nodes (Q/DQ pairs, constants and BatchNormalization fold away). */
#define S8 "TOSA-1.0+INT"
#define S16 "TOSA-1.0+INT+int16"
static const expect expects[] = {
    {"mobilenet_v2_qdq_u8s8_op13", S8, NULL, 100}, {"resnet18_qdq_u8s8_op13", S8, NULL, 49},
    {"synth_qdq_s8_op13_add", S8, NULL, 1}, {"synth_qdq_s16_op21_add", S16, NULL, 1},
    {"synth_qdq_s8_op13_concat", S8, NULL, 1}, {"synth_qdq_s16_op21_concat", S16, NULL, 1},
    {"synth_qdq_s8_op13_conv", S8, NULL, 1}, {"synth_qdq_s16_op21_conv", S16, NULL, 1},
    {"synth_qdq_s8_op13_conv_dw", S8, NULL, 1}, {"synth_qdq_s16_op21_conv_dw", S16, NULL, 1},
    {"synth_qdq_s8_op13_gemm", S8, NULL, 1}, {"synth_qdq_s16_op21_gemm", S16, NULL, 1},
    {"synth_qdq_s8_op13_matmul", S8, NULL, 1}, {"synth_qdq_s16_op21_matmul", S16, NULL, 1},
    {"synth_qdq_s8_op13_mul", S8, NULL, 1}, {"synth_qdq_s16_op21_mul", S16, NULL, 1},
    {"synth_qdq_s8_op13_sigmoid", S8, NULL, 1}, {"synth_qdq_s16_op21_sigmoid", S16, NULL, 1},
    {"synth_qdq_s8_op13_softmax", S8, NULL, 1}, {"synth_qdq_s16_op21_softmax", S16, NULL, 1},
    {"synth_qdq_s8_op13_split_matmul", S8, NULL, 3},
    {"synth_qdq_s16_op21_split_matmul", S16, NULL, 3},
    {"synth_qdq_s8_op13_tanh", S8, NULL, 1}, {"synth_qdq_s16_op21_tanh", S16, NULL, 1},
    /* float models, delegated in floating point */
    {"mobilenet_v2_f32_op13", "TOSA-1.0+FP", NULL, 100},
    {"ppocr_mobile_v2_cls", "TOSA-1.0+FP", "x=1,3,48,192", 180},
};

/* Output steps allowed besides onnxruntime's spread: 1, except where the int16 TABLE is
 * farther from the float value: its entries are rounded (0.5 step) and displaced by half
 * their segment's midpoint error (lower_table_values_i16), a residual of about
 * h^2/16 max|f''| with h = 128 input steps, the RESCALE after it rounds (0.5) and
 * onnxruntime's own output is rounded (0.5).
 *   - Tanh (input step 3.547e-4, h = 0.0454, max|tanh''| = 0.770, output step 3.05e-5):
 *     residual 3.25 steps, bound 4.75; measured 3.00.
 *   - Softmax (the exp table): 2; measured 2.00. */
static double qtol_of(const char *model)
{
    if (strcmp(model, "synth_qdq_s16_op21_tanh") == 0)
        return 4.75;
    return strcmp(model, "synth_qdq_s16_op21_softmax") == 0 ? 2 : 1;
}

static const char *model_name;
static tosac_error E;

static void ok(tosac_code rc)
{
    if (rc)
        print_error("tosac error: %s\n", E.msg);
    assert_int_equal(rc, TOSAC_OK);
}

static char *path_of(const char *fmt, const char *a, const char *b)
{
    char *p = malloc(1024);
    snprintf(p, 1024, fmt, a, b);
    return p;
}

/* Scale of the DequantizeLinear producing graph output t (largest, if per axis), else 0. */
static double output_step(const ir_graph *g, int t)
{
    int p = ir_graph_producer(g, t);
    if (p < 0 || !ir_node_is(&g->nodes[p], "DequantizeLinear"))
        return 0;
    const ir_tensor *q = &g->tensors[g->nodes[p].inputs[0]];
    double s = 0;
    for (int i = 0; q->quant && i < q->quant->n; i++)
        s = q->quant->scale[i] > s ? q->quant->scale[i] : s;
    return s;
}

/* Delegated nodes of the report; asserts every CPU node is a boundary Q/DQ and every node
 * the passes made is attributed to a model node. */
static int count_delegated(const char *report, int *total, int *cpu)
{
    tosac_json *j = NULL;
    ok(tosac_json_parse(report, strlen(report), &j, &E));
    const tosac_json *nodes = tosac_json_get(j, "nodes");
    int n = 0;
    *total = tosac_json_count(nodes);
    *cpu = 0;
    for (int i = 0; i < *total; i++) {
        const tosac_json *nd = tosac_json_at(nodes, i);
        const char *pl = tosac_json_string(tosac_json_get(nd, "placement"));
        n += strcmp(pl, "delegate") == 0;
        assert_null(tosac_json_get(nd, "origin"));
        if (strcmp(pl, "cpu") != 0)
            continue;
        (*cpu)++;
        const char *op = tosac_json_string(tosac_json_get(nd, "op_type"));
        if (strcmp(op, "QuantizeLinear") != 0 && strcmp(op, "DequantizeLinear") != 0)
            fail_msg("%s %s on the CPU: %s", op,
                     tosac_json_string(tosac_json_get(nd, "name")),
                     tosac_json_string(tosac_json_get(nd, "reason")));
        assert_string_equal(tosac_json_string(tosac_json_get(nd, "category")), "boundary rule");
    }
    tosac_json_free(j);
    return n;
}

static void test_zoo_model(void **state)
{
    (void)state;
    const char *m = model_name;
    const expect *ex = NULL;
    for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++)
        if (strcmp(expects[i].model, m) == 0)
            ex = &expects[i];
    if (!ex)
        fail_msg("no expectation for model %s", m);
    char *dir = tu_mkdtemp();
    char *mdir = strdup(tu_shared("models"));
    char *onnx = path_of("%s/%s/model.onnx", mdir, m);
    char *prg = path_of("%s/%s", dir, "model.prg");
    char *emit = path_of("%s/%s", dir, "emit");
    char *rep = path_of("%s/%s", dir, "report.json");
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = ex->spec;
    o.emit_dir = emit;
    if (ex->input_shape) {
        o.input_shapes = &ex->input_shape;
        o.n_input_shapes = 1;
    }
    o.report_path = rep;
    tosac_error_clear(&E);
    ok(tosac_compile_file(onnx, prg, &o, &E));

    /* report: delegation counts */
    void *text = NULL;
    size_t len = 0;
    ok(tosac_read_file(rep, &text, &len, &E));
    int total = 0, cpu = 0, delegated = count_delegated(text, &total, &cpu);
    free(text);
    tosac_program *p = NULL;
    ok(tosac_program_read_file(prg, &p, &E));
    printf("zoo_compile %s (%s): delegated %d of %d nodes, %d on the CPU, %d delegate%s\n", m,
           o.spec, delegated, total, cpu, tosac_program_n_delegates(p),
           tosac_program_n_delegates(p) == 1 ? "" : "s");
    assert_int_equal(delegated, ex->delegated);
    assert_int_equal(tosac_program_n_delegates(p), 1);
    /* edge Q/DQ only: one per graph input and output of a QDQ model, none for float ones */
    bool qdq = strstr(ex->spec, "+FP") == NULL;
    const ir_graph *cg = tosac_program_cpu(p)->graph;
    assert_int_equal(cpu, qdq ? cg->n_inputs + cg->n_outputs : 0);

    /* every emitted delegate reads back; its metadata matches its I/O */
    tosa_graph **emitted = calloc((size_t)tosac_program_n_delegates(p) + 1, sizeof *emitted);
    for (int k = 0; k < tosac_program_n_delegates(p); k++) {
        char kk[16];
        snprintf(kk, sizeof kk, "%d", k);
        char *tp = path_of("%s/%s.tosa", emit, kk), *jp = path_of("%s/%s.json", emit, kk);
        ok(tosa_graph_read_file(tp, &emitted[k], &E));
        tosac_json *meta = NULL;
        ok(tosac_json_parse_file(jp, &meta, &E));
        const tosa_block *b = tosa_graph_main_block(emitted[k]);
        assert_int_equal(tosac_json_count(tosac_json_get(meta, "inputs")), b->n_inputs);
        assert_int_equal(tosac_json_count(tosac_json_get(meta, "outputs")), b->n_outputs);
        tosac_json_free(meta);
        free(tp);
        free(jp);
    }

    /* output scales from the model itself; the reference spread from meta.json */
    ir_model *orig = NULL;
    ok(onnx_import_file(onnx, &orig, &E));
    char *metap = path_of("%s/%s/meta.json", mdir, m);
    tosac_json *meta = NULL;
    ok(tosac_json_parse_file(metap, &meta, &E));
    const tosac_json *spread = tosac_json_get(tosac_json_get(meta, "reference"),
                                              "max_abs_diff_vs_graph_optimization_disabled");
    const ir_graph *g = tosac_program_cpu(p)->graph;
    int n_in = g->n_inputs, n_out = g->n_outputs;
    const tosac_json *samples = tosac_json_get(meta, "samples");
    assert_true(tosac_json_count(samples) > 0);
    for (int s = 0; s < tosac_json_count(samples); s++) {
        const tosac_json *sm = tosac_json_at(samples, s);
        tosac_tensor ins[8], outs[8];
        assert_true(n_in <= 8 && n_out <= 8);
        for (int i = 0; i < n_in; i++) {
            const tosac_json *e = tosac_json_get(tosac_json_get(sm, "inputs"),
                                                 g->tensors[g->inputs[i]].name);
            assert_non_null(e);
            char *f = path_of("%s/%s/", mdir, m);
            char *fp = path_of("%s%s", f, tosac_json_string(tosac_json_get(e, "file")));
            ok(tosac_npy_read(fp, &ins[i], &E));
            free(f);
            free(fp);
        }
        lc_run_program_checked(p, ins, n_in, outs, n_out, emitted);
        for (int k = 0; k < n_out; k++) {
            const char *name = g->tensors[g->outputs[k]].name;
            const tosac_json *e = tosac_json_get(tosac_json_get(sm, "expected"), name);
            assert_non_null(e);
            char *f = path_of("%s/%s/", mdir, m);
            char *fp = path_of("%s%s", f, tosac_json_string(tosac_json_get(e, "file")));
            tosac_tensor want;
            ok(tosac_npy_read(fp, &want, &E));
            int ot = ir_graph_find_tensor(orig->graph, name);
            assert_true(ot >= 0);
            double sp = 0;
            tosac_json_double(tosac_json_get(spread, name), &sp);
            char what[300];
            snprintf(what, sizeof what, "%s sample %d output %s", m, s, name);
            double step = output_step(orig->graph, ot);
            if (step > 0) /* one step, plus onnxruntime's own spread in steps */
                lc_assert_steps(&outs[k], &want, step, qtol_of(ex->model) + sp / step, what);
            else
                lc_assert_steps(&outs[k], &want, 0, 0, what);
            tosac_tensor_free(&want);
            tosac_tensor_free(&outs[k]);
            free(f);
            free(fp);
        }
        for (int i = 0; i < n_in; i++)
            tosac_tensor_free(&ins[i]);
    }
    tosac_json_free(meta);
    ir_model_free(orig);
    for (int k = 0; k < tosac_program_n_delegates(p); k++)
        tosa_graph_free(emitted[k]);
    free(emitted);
    tosac_program_free(p);
    free(metap);
    free(onnx);
    free(prg);
    free(emit);
    free(rep);
    free(mdir);
    tu_rmtree(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: zoo_compile_test MODEL_NAME\n");
        return 2;
    }
    model_name = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zoo_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
