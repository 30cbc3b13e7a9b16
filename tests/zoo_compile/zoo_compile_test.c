/* Zoo compile suite: one QDQ model of /work/shared/models compiled for TOSA and run end to end.
 *
 * For the model named on the command line (one ctest per model, see CMakeLists.txt):
 *   - compile with tosac_compile_file under TOSA-1.0+INT (the int16 "s16" models under
 *     TOSA-1.0+INT+int16), writing the program, the report and every delegate (--emit-tosa);
 *   - read every emitted .tosa back with our reader, and its .json metadata (I/O counts match);
 *   - run the program on every sample: each output within
 *       1e-3 + 1 * output_scale + spread + 1e-3 * |expected|
 *     of onnxruntime's (output_scale: the scale of the DequantizeLinear producing it; spread:
 *     meta.json reference.max_abs_diff_vs_graph_optimization_disabled for that output);
 *   - every emitted .tosa, run alone on the interpreter with the values the program fed that
 *     delegate, gives bit-identical outputs (lower_core_testutil.h);
 *   - print the delegated/total node counts, and check the delegated count is at least the
 *     one below (rules still being written elsewhere raise it; tighten when they land). */
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
    int min_delegated;   /* model nodes placed in delegates, at least */
} expect;

/* Counts the rules decide today: one op per synth graph (Sigmoid/Tanh/Softmax wait for the
 * lower-act rules; split_matmul = Split + Transpose + MatMul); the torch QDQ networks (uint8
 * activations made int8 by the passes) delegate every Conv, Add, pool, Flatten and Gemm while
 * their Relu nodes wait for lower-act. */
static const expect expects[] = {
    {"mobilenet_v2_qdq_u8s8_op13", 65}, {"resnet18_qdq_u8s8_op13", 32},
    {"synth_qdq_s8_op13_add", 1}, {"synth_qdq_s16_op21_add", 1},
    {"synth_qdq_s8_op13_concat", 1}, {"synth_qdq_s16_op21_concat", 1},
    {"synth_qdq_s8_op13_conv", 1}, {"synth_qdq_s16_op21_conv", 1},
    {"synth_qdq_s8_op13_conv_dw", 1}, {"synth_qdq_s16_op21_conv_dw", 1},
    {"synth_qdq_s8_op13_gemm", 1}, {"synth_qdq_s16_op21_gemm", 1},
    {"synth_qdq_s8_op13_matmul", 1}, {"synth_qdq_s16_op21_matmul", 1},
    {"synth_qdq_s8_op13_mul", 1}, {"synth_qdq_s16_op21_mul", 1},
    {"synth_qdq_s8_op13_sigmoid", 0}, {"synth_qdq_s16_op21_sigmoid", 0},
    {"synth_qdq_s8_op13_softmax", 0}, {"synth_qdq_s16_op21_softmax", 0},
    {"synth_qdq_s8_op13_split_matmul", 3}, {"synth_qdq_s16_op21_split_matmul", 3},
    {"synth_qdq_s8_op13_tanh", 0}, {"synth_qdq_s16_op21_tanh", 0},
};

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

static int count_placements(const char *report, const char *placement, int *total)
{
    tosac_json *j = NULL;
    ok(tosac_json_parse(report, strlen(report), &j, &E));
    const tosac_json *nodes = tosac_json_get(j, "nodes");
    int n = 0;
    *total = tosac_json_count(nodes);
    for (int i = 0; i < *total; i++)
        n += strcmp(tosac_json_string(tosac_json_get(tosac_json_at(nodes, i), "placement")),
                    placement) == 0;
    tosac_json_free(j);
    return n;
}

static const char *spec_for(const char *model)
{
    return strstr(model, "_s16_") ? "TOSA-1.0+INT+int16" : "TOSA-1.0+INT";
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
    o.spec = spec_for(m);
    o.emit_dir = emit;
    o.report_path = rep;
    tosac_error_clear(&E);
    ok(tosac_compile_file(onnx, prg, &o, &E));

    /* report: delegation counts */
    void *text = NULL;
    size_t len = 0;
    ok(tosac_read_file(rep, &text, &len, &E));
    int total = 0, delegated = count_placements(text, "delegate", &total);
    free(text);
    tosac_program *p = NULL;
    ok(tosac_program_read_file(prg, &p, &E));
    printf("zoo_compile %s (%s): delegated %d of %d nodes, %d delegate%s\n", m, o.spec,
           delegated, total, p->n_delegates, p->n_delegates == 1 ? "" : "s");
    assert_true(delegated >= ex->min_delegated);

    /* every emitted delegate reads back; its metadata matches its I/O */
    tosa_graph **emitted = calloc((size_t)p->n_delegates + 1, sizeof *emitted);
    for (int k = 0; k < p->n_delegates; k++) {
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
    const ir_graph *g = p->cpu->graph;
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
            lc_assert_close(&outs[k], &want, 1e-3 + output_step(orig->graph, ot) + sp, what);
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
    for (int k = 0; k < p->n_delegates; k++)
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
