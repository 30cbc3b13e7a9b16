/* Zoo x spec suite: every model of the shared zoo compiled by the tosac CLI under every spec
 * column of the backend matrix plus TOSA-1.1+FP+int64, TOSA-1.1+INT+FP+int64 and the U55
 * subset, float models also with --quantize a8w8 and --quantize a16w8 (calibrated on all
 * their shared input samples), and every program that compile writes run by the CLI on every
 * sample against onnxruntime's stored outputs.
 *
 * `zoo_specs_test MODEL COLUMN SCHEME` is one cell (one ctest, see CMakeLists.txt); the
 * expected outcome of every cell is written in `expects` below, never derived from tosac:
 *   - exit 0: `tosac inspect PROGRAM` succeeds, and `tosac run PROGRAM` succeeds on every
 *     sample of the model and matches the reference (tolerances in `models`, with reasons);
 *   - exit 2: exactly one stderr line holding the stated substring, and no program written.
 * An exit status other than the expected one fails the cell, and so does a program that
 * compile wrote (exit 0) but that does not run. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tosac/npy.h"
#include "util/json.h"

/* Spec columns: the backend matrix's (tests/backend_matrix) plus FP with int64, both
 * profiles with int64, and the U55 subset. */
#define NCOLS 7
static const struct {
    const char *key, *spec;
    bool int_fp; /* FP profile: a graph input's QuantizeLinear runs in the delegate (as a
                  * multiplication by 1/scale), also under FP alone: QDQ models delegate as float */
} cols[NCOLS] = {
    {"int8", "TOSA-1.0+INT", false},
    {"int16", "TOSA-1.0+INT+int16", false},
    {"fp", "TOSA-1.0+FP", true},
    {"int64_1_1", "TOSA-1.1+INT+int64", false},
    {"fp_int64", "TOSA-1.1+FP+int64", true},
    {"int_fp_int64", "TOSA-1.1+INT+FP+int64", true},
    {"u55", "TOSA-1.0+INT+u55", false},
};

enum { S_NONE, S_A8W8, S_A16W8, NSCHEMES };
static const char *const schemes[NSCHEMES] = {"none", "a8w8", "a16w8"};

/* Outcomes of a cell. */
typedef enum outcome {
    OK,   /* exit 0; the program runs and matches the reference */
    NOQ,  /* exit 2: a float model on an integer-only spec without --quantize that delegates
           * nothing; the message suggests --quantize */
    N16,  /* exit 2: a16w8 needs +int16 */
    NINT, /* exit 2: an integer scheme needs the INT profile */
} outcome;
static const struct {
    int status;
    const char *msg;   /* substring of the one stderr line */
    bool names_scheme; /* the line also names the --quantize scheme */
} outcomes[] = {
    [OK] = {0, NULL, false},
    [NOQ] = {2, "--quantize a8w8", false},
    [N16] = {2, "+int16", true},
    [NINT] = {2, "INT", true},
};

/* The expected outcome per model and scheme, one entry per column in `cols` order:
 *                int8 int16 fp    int64_1_1 fp_int64 int_fp_int64 u55 */
#define QDQ_ROW(m) {m, S_NONE, {OK, OK, OK, OK, OK, OK, OK}}
#define FLOAT_ROWS(m)                                                                          \
    {m, S_NONE, {NOQ, NOQ, OK, NOQ, OK, OK, NOQ}},                                             \
    {m, S_A8W8, {OK, OK, NINT, OK, NINT, OK, OK}},                                             \
    {m, S_A16W8, {N16, OK, NINT, N16, NINT, N16, N16}}
typedef struct expect {
    const char *model;
    int scheme;
    outcome col[NCOLS];
} expect;
static const expect expects[] = {
    FLOAT_ROWS("mobilenet_v2_f32_op13"),
    FLOAT_ROWS("ppocr_mobile_v2_cls"),
    /* silero under TOSA-1.1+INT+int64 delegates its int64 `sr` test (3 of 4 top-level nodes),
     * so it is not "a float model that delegates nothing": exit 0, the float work on the CPU */
    {"silero_vad_op18_ifless", S_NONE, {NOQ, NOQ, OK, OK, OK, OK, NOQ}},
    {"silero_vad_op18_ifless", S_A8W8, {OK, OK, NINT, OK, NINT, OK, OK}},
    {"silero_vad_op18_ifless", S_A16W8, {N16, OK, NINT, N16, NINT, N16, N16}},
    /* int64 values beyond int32 from runtime inputs: without EXT-INT64 they stay on the CPU
     * (docs/USAGE.md), so every spec gives a program with exact results; the model also
     * delegates int32-range shape arithmetic under INT alone, so it is not "a float model
     * that delegates nothing" */
    {"synth_int64_ops_op13", S_NONE, {OK, OK, OK, OK, OK, OK, OK}},
    {"synth_int64_ops_op13", S_A8W8, {OK, OK, NINT, OK, NINT, OK, OK}},
    {"synth_int64_ops_op13", S_A16W8, {N16, OK, NINT, N16, NINT, N16, N16}},
    /* QDQ models run wherever their integer types are not delegable, on the CPU */
    QDQ_ROW("mobilenet_v2_qdq_u8s8_op13"), QDQ_ROW("resnet18_qdq_u8s8_op13"),
    QDQ_ROW("synth_qdq_s8_op13_add"), QDQ_ROW("synth_qdq_s16_op21_add"),
    QDQ_ROW("synth_qdq_s8_op13_concat"), QDQ_ROW("synth_qdq_s16_op21_concat"),
    QDQ_ROW("synth_qdq_s8_op13_conv"), QDQ_ROW("synth_qdq_s16_op21_conv"),
    QDQ_ROW("synth_qdq_s8_op13_conv_dw"), QDQ_ROW("synth_qdq_s16_op21_conv_dw"),
    QDQ_ROW("synth_qdq_s8_op13_gemm"), QDQ_ROW("synth_qdq_s16_op21_gemm"),
    QDQ_ROW("synth_qdq_s8_op13_matmul"), QDQ_ROW("synth_qdq_s16_op21_matmul"),
    QDQ_ROW("synth_qdq_s8_op13_mul"), QDQ_ROW("synth_qdq_s16_op21_mul"),
    QDQ_ROW("synth_qdq_s8_op13_sigmoid"), QDQ_ROW("synth_qdq_s16_op21_sigmoid"),
    QDQ_ROW("synth_qdq_s8_op13_softmax"), QDQ_ROW("synth_qdq_s16_op21_softmax"),
    QDQ_ROW("synth_qdq_s8_op13_split_matmul"), QDQ_ROW("synth_qdq_s16_op21_split_matmul"),
    QDQ_ROW("synth_qdq_s8_op13_tanh"), QDQ_ROW("synth_qdq_s16_op21_tanh"),
};

/* How a model is compiled and checked (zero fields take the defaults in brackets).
 * Float runs (no --quantize): every float output within ftol [1e-4] * max(1, max |reference|)
 * of onnxruntime's (models/README.md: 1e-4, deep models up to 1e-3); integer outputs exact.
 * QDQ models: within qtol [1] output steps (qtol_int_fp [qtol] with the FP profile) + spread
 * + f32 rounding of the dequantized value, the step being the scale of the output's
 * quantization (meta.json quantization.tensor_qparams, else `step` here) and the spread
 * onnxruntime's own fused-vs-unfused difference (meta.json reference); integers exact.
 * Quantized float models, against the float reference over all samples together: each float
 * output's cosine similarity at least cos8 / cos16 and its largest error at most steps8 /
 * steps16 output steps, a step being the reference's range over the samples / 255 (a8w8) or
 * max |reference| / 32767 (a16w8): the output scale the quantizer picks when, as here, the
 * calibration samples are the compared ones. Integer outputs exact. The bounds are those of
 * the same quantized model run on the CPU (`tosac quantize` then `tosac run MODEL.onnx`, the
 * figures below), with room for the delegates' integer rounding. */
typedef struct model_info {
    const char *name;
    const char *shapes[3]; /* --input-shape arguments for compiles without --quantize */
    double ftol, qtol, qtol_int_fp, step;
    double cos8, steps8, cos16, steps16;
} model_info;

static const model_info models[] = {
    /* random weights, real BatchNorm statistics: a8w8 loses a lot; torch's own PTQ of the same
     * weights (mobilenet_v2_qdq_u8s8_op13) has cosine 0.954..0.968 and 36..49 steps against
     * these float outputs, the CPU run of tosac's a8w8 0.970 / 36 steps; a16w8 keeps int8
     * weights, which dominate its error: CPU run 0.989 / 5041 int16 steps (20 int8 steps) */
    {.name = "mobilenet_v2_f32_op13", .cos8 = 0.95, .steps8 = 50, .cos16 = 0.98,
     .steps16 = 6000},
    /* saturated class probabilities (0 and 1 within 1e-6): quantization leaves them within
     * rounding (CPU runs: 2.3e-6 off), so the check is that the classes stay right */
    {.name = "ppocr_mobile_v2_cls", .shapes = {"x=1,3,48,192"}, .cos8 = 0.9999, .steps8 = 1,
     .cos16 = 0.9999, .steps16 = 1},
    /* CPU runs: a8w8 speech probability 11.5 steps / cosine 0.9997, state 2.9 steps / 0.998;
     * a16w8 2.4 steps / 0.9999999 */
    {.name = "silero_vad_op18_ifless", .shapes = {"input=1,576", "state=2,1,128"},
     .cos8 = 0.995, .steps8 = 20, .cos16 = 0.9999, .steps16 = 10},
    /* the final DequantizeLinear's scale in model.onnx (meta.json has none) */
    {.name = "mobilenet_v2_qdq_u8s8_op13", .step = 0.00977361575},
    {.name = "resnet18_qdq_u8s8_op13", .step = 0.0253029391},
    /* int16 TABLE: 513 entries with linear interpolation between them. With the FP profile
     * the input's QuantizeLinear is a float multiplication by 1/scale in the delegate (TOSA has
     * no float division): an input within an ulp of a rounding midpoint may take the other
     * neighbour (sample 02 element 518: x/scale = -2488.50024, x*(1/scale) = -2488.5), one
     * input step, which tanh's slope near 0 makes 11.6 output steps (input scale / output
     * scale) */
    {.name = "synth_qdq_s16_op21_tanh", .qtol = 4, .qtol_int_fp = 12},
    /* exp by an int16 TABLE, then an integer division by the sum: two roundings */
    {.name = "synth_qdq_s16_op21_softmax", .qtol = 2},
};

static const char *model_name;
static int col, scheme;
static char mdir[2048];
static tosac_error E;
/* What a cell holds, released by the teardown also when the cell fails. */
static char *dir, *err;
static tosac_json *meta;

static void ok(tosac_code rc)
{
    if (rc)
        print_error("tosac error: %s\n", E.msg);
    assert_int_equal(rc, TOSAC_OK);
}

static const model_info *info_of(const char *m)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, m) == 0)
            return &models[i];
    static const model_info none;
    return &none;
}

/* Accumulated comparison of one output over the samples. */
typedef struct acc {
    double dot, nr, ng, maxd, lo, hi, maxabs; /* float outputs */
    int64_t int_diffs;                        /* integer outputs */
} acc;

static void accumulate(acc *a, const tosac_tensor *got, const tosac_tensor *want,
                       const char *what)
{
    char sa[128], sb[128];
    if (got->dtype != want->dtype || !tosac_shape_equal(got->rank, got->shape, want->rank,
                                                        want->shape))
        fail_msg("%s: got %s%s, expected %s%s", what, tosac_dtype_name(got->dtype),
                 tosac_shape_str(got->rank, got->shape, sa, sizeof sa),
                 tosac_dtype_name(want->dtype),
                 tosac_shape_str(want->rank, want->shape, sb, sizeof sb));
    for (int64_t i = 0; i < tosac_tensor_numel(want); i++) {
        if (!tosac_dtype_is_float(want->dtype)) {
            a->int_diffs += tosac_tensor_int_at(got, i) != tosac_tensor_int_at(want, i);
            continue;
        }
        double g = tosac_tensor_f64_at(got, i), r = tosac_tensor_f64_at(want, i);
        double d = fabs(g - r);
        if (isnan(d))
            d = INFINITY;
        a->maxd = fmax(a->maxd, d);
        a->dot += g * r;
        a->nr += r * r;
        a->ng += g * g;
        a->lo = fmin(a->lo, r);
        a->hi = fmax(a->hi, r);
        a->maxabs = fmax(a->maxabs, fabs(r));
    }
}

/* Scale of output `name` from meta.json quantization.tensor_qparams, or 0. */
static double meta_step(const tosac_json *m, const char *name)
{
    double s = 0;
    const tosac_json *q = tosac_json_get(tosac_json_get(m, "quantization"), "tensor_qparams");
    tosac_json_double(tosac_json_get(tosac_json_get(q, name), "scale"), &s);
    return s;
}

static void expect_refusal(const char *prg, int rc, const char *err, outcome o)
{
    printf("zoo_specs %s %s %s: compile exit %d: %s%s", model_name, cols[col].spec,
           schemes[scheme], rc, err, *err && err[strlen(err) - 1] == '\n' ? "" : "\n");
    if (rc != outcomes[o].status)
        fail_msg("exit %d, expected %d with a message holding '%s'", rc, outcomes[o].status,
                 outcomes[o].msg);
    assert_int_equal(tu_count_lines(err), 1);
    assert_true(strncmp(err, "tosac: error: ", 14) == 0);
    if (!strstr(err, outcomes[o].msg))
        fail_msg("the message does not hold '%s'", outcomes[o].msg);
    if (outcomes[o].names_scheme && !strstr(err, schemes[scheme]))
        fail_msg("the message does not name %s", schemes[scheme]);
    struct stat st;
    assert_true(stat(prg, &st) != 0);
}

/* Runs the program on one sample; outputs into odir. */
static void run_sample(const char *prg, const tosac_json *sm, const char *odir)
{
    const tosac_json *ins = tosac_json_get(sm, "inputs");
    const char *args[64];
    char bufs[16][4096];
    int n = 0;
    args[n++] = "run";
    args[n++] = prg;
    assert_true(ins && ins->type == TOSAC_JSON_OBJECT && ins->n <= 16);
    for (int i = 0; i < ins->n; i++) {
        snprintf(bufs[i], sizeof bufs[i], "%s=%s/%s", ins->keys[i], mdir,
                 tosac_json_string(tosac_json_get(&ins->items[i], "file")));
        args[n++] = "--input";
        args[n++] = bufs[i];
    }
    args[n++] = "--output-dir";
    args[n++] = odir;
    args[n] = NULL;
    free(err);
    err = NULL;
    int rc = tu_cli_argv(NULL, &err, args);
    if (rc != 0)
        fail_msg("compile exited 0 but `tosac run` of its program exits %d on sample %s: %s", rc,
                 tosac_json_string(tosac_json_get(sm, "id")), err);
}

static void test_cell(void **state)
{
    (void)state;
    const expect *ex = NULL;
    for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++)
        if (strcmp(expects[i].model, model_name) == 0 && expects[i].scheme == scheme)
            ex = &expects[i];
    if (!ex)
        fail_msg("no expected outcome for %s with scheme %s", model_name, schemes[scheme]);
    outcome o = ex->col[col];
    const model_info *mi = info_of(model_name);
    snprintf(mdir, sizeof mdir, "%s", tu_shared("models"));
    size_t ml = strlen(mdir);
    snprintf(mdir + ml, sizeof mdir - ml, "/%s", model_name);

    dir = tu_mkdtemp();
    char onnx[4096], prg[4096], calib[4096], metap[4096];
    snprintf(onnx, sizeof onnx, "%s/model.onnx", mdir);
    snprintf(prg, sizeof prg, "%s/model.prg", dir);
    snprintf(calib, sizeof calib, "%s/inputs", mdir);
    snprintf(metap, sizeof metap, "%s/meta.json", mdir);
    const char *args[32];
    int n = 0;
    args[n++] = "compile";
    args[n++] = onnx;
    args[n++] = "--spec";
    args[n++] = cols[col].spec;
    args[n++] = "-o";
    args[n++] = prg;
    if (scheme != S_NONE) {
        args[n++] = "--quantize";
        args[n++] = schemes[scheme];
        args[n++] = "--calib";
        args[n++] = calib;
    }
    for (int i = 0; scheme == S_NONE && i < 3 && mi->shapes[i]; i++) {
        args[n++] = "--input-shape";
        args[n++] = mi->shapes[i];
    }
    args[n] = NULL;
    int rc = tu_cli_argv(NULL, &err, args);
    if (outcomes[o].status != 0) {
        expect_refusal(prg, rc, err, o);
        return;
    }
    printf("zoo_specs %s %s %s: compile exit %d: %s%s", model_name, cols[col].spec,
           schemes[scheme], rc, err, *err && err[strlen(err) - 1] == '\n' ? "" : "\n");
    if (rc != 0)
        fail_msg("compile exits %d, expected 0", rc);
    /* the program reads back: inspect loads it with its report */
    free(err);
    err = NULL;
    rc = tu_cli(NULL, &err, "inspect", prg, (char *)NULL);
    if (rc != 0)
        fail_msg("compile exited 0 but `tosac inspect` of its program exits %d: %s", rc, err);

    ok(tosac_json_parse_file(metap, &meta, &E));
    const tosac_json *samples = tosac_json_get(meta, "samples");
    const tosac_json *outs = tosac_json_get(meta, "outputs");
    int n_out = tosac_json_count(outs), n_run = 0;
    assert_true(n_out > 0 && n_out <= 16);
    acc a[16];
    for (int k = 0; k < n_out; k++)
        a[k] = (acc){.lo = INFINITY, .hi = -INFINITY};
    for (int s = 0; s < tosac_json_count(samples); s++) {
        const tosac_json *sm = tosac_json_at(samples, s);
        const char *id = tosac_json_string(tosac_json_get(sm, "id"));
        n_run++;
        char odir[1024];
        snprintf(odir, sizeof odir, "%s/out%s", dir, id);
        run_sample(prg, sm, odir);
        for (int k = 0; k < n_out; k++) {
            const tosac_json *om = tosac_json_at(outs, k);
            const char *name = tosac_json_string(tosac_json_get(om, "name"));
            char gp[4096], wp[4096], what[512];
            snprintf(gp, sizeof gp, "%s/%s", odir,
                     tosac_json_string(tosac_json_get(om, "file_name")));
            snprintf(wp, sizeof wp, "%s/%s", mdir,
                     tosac_json_string(tosac_json_get(
                         tosac_json_get(tosac_json_get(sm, "expected"), name), "file")));
            snprintf(what, sizeof what, "sample %s output %s", id, name);
            tosac_tensor got, want;
            ok(tosac_npy_read(gp, &got, &E));
            ok(tosac_npy_read(wp, &want, &E));
            accumulate(&a[k], &got, &want, what);
            tosac_tensor_free(&got);
            tosac_tensor_free(&want);
        }
    }
    assert_true(n_run > 0);

    const tosac_json *spread = tosac_json_get(tosac_json_get(meta, "reference"),
                                              "max_abs_diff_vs_graph_optimization_disabled");
    bool qdq = strcmp(tosac_json_string(tosac_json_get(meta, "format")), "qdq") == 0;
    int bad = 0;
    for (int k = 0; k < n_out; k++) {
        const tosac_json *om = tosac_json_at(outs, k);
        const char *name = tosac_json_string(tosac_json_get(om, "name"));
        const acc *x = &a[k];
        printf("zoo_specs %s %s %s: output %s over %d samples: ", model_name, cols[col].spec,
               schemes[scheme], name, n_run);
        if (x->lo > x->hi) { /* integer output */
            printf("%lld elements differ\n", (long long)x->int_diffs);
            bad += x->int_diffs != 0;
            continue;
        }
        double cos = x->dot / (sqrt(x->nr) * sqrt(x->ng) + 1e-30);
        if (scheme == S_NONE) {
            double tol;
            if (qdq) {
                double sp = 0, st = meta_step(meta, name);
                tosac_json_double(tosac_json_get(spread, name), &sp);
                double q = mi->qtol > 0 ? mi->qtol : 1;
                if (cols[col].int_fp && mi->qtol_int_fp > 0)
                    q = mi->qtol_int_fp;
                tol = q * (st > 0 ? st : mi->step) + sp + 1e-6 * (1 + x->maxabs);
            } else {
                tol = (mi->ftol > 0 ? mi->ftol : 1e-4) * fmax(1.0, x->maxabs);
            }
            printf("max |diff| %.3g (tolerance %.3g), cosine %.6f\n", x->maxd, tol, cos);
            bad += !(x->maxd <= tol);
            continue;
        }
        double step = scheme == S_A8W8 ? (fmax(x->hi, 0) - fmin(x->lo, 0)) / 255
                                       : x->maxabs / 32767;
        double cmin = scheme == S_A8W8 ? mi->cos8 : mi->cos16;
        double smax = scheme == S_A8W8 ? mi->steps8 : mi->steps16;
        double steps = step > 0 ? x->maxd / step : (x->maxd > 0 ? INFINITY : 0);
        printf("max |diff| %.3g = %.2f steps of %.3g (at most %g), cosine %.6f (at least %g)\n",
               x->maxd, steps, step, smax, cos, cmin);
        bad += !(steps <= smax) || !(cos >= cmin);
    }
    if (bad)
        fail_msg("%d output%s outside tolerance", bad, bad == 1 ? "" : "s");
}

static int teardown(void **state)
{
    (void)state;
    if (dir)
        tu_rmtree(dir);
    free(dir);
    free(err);
    tosac_json_free(meta);
    dir = err = NULL;
    meta = NULL;
    return 0;
}

int main(int argc, char **argv)
{
    col = scheme = -1;
    for (int i = 0; argc == 4 && i < NCOLS; i++)
        if (strcmp(argv[2], cols[i].key) == 0)
            col = i;
    for (int i = 0; argc == 4 && i < NSCHEMES; i++)
        if (strcmp(argv[3], schemes[i]) == 0)
            scheme = i;
    if (col < 0 || scheme < 0) {
        fprintf(stderr, "usage: zoo_specs_test MODEL "
                        "int8|int16|fp|int64_1_1|fp_int64|int_fp_int64|u55 none|a8w8|a16w8\n");
        return 2;
    }
    model_name = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_cell, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
