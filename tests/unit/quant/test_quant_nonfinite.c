/* Calibration data that says little (issue 8, defect 8), through `tosac quantize` and
 * `tosac compile --quantize`:
 *   - a NaN or inf in a calibration input is an error naming the file (exit 2, nothing
 *     written): it used to give every range NaN, every scale 1 and garbage, with exit 0;
 *   - non-finite intermediates (log of 0) are left out of the ranges, and one warning line
 *     names the tensors that had them; the scales come from the finite values;
 *   - a tensor that took one value on every sample gets a warning naming it; an all-zero one
 *     the parameters of [-1, 1] instead of the scale 1 it silently got. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quant_testgraph.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "util/json.h"

static char *g_dir;

static const char *path(const char *rel) { return tu_join(g_dir, rel); }

static const int64_t XS[4] = {1, 1, 1, 4};

static void write_x(const char *rel, const float *v, int rank, const int64_t *shape)
{
    tosac_tensor t;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, rank, shape, NULL), TOSAC_OK);
    for (int64_t i = 0; i < tosac_tensor_numel(&t); i++)
        ((float *)t.data)[i] = v[i % 4];
    assert_int_equal(tosac_npy_write(path(rel), &t, NULL), TOSAC_OK);
    tosac_tensor_free(&t);
}

/* x [1,1,1,4] -> Log -> log_out; y = log_out + x */
static void write_log_model(void)
{
    ir_model *m = ir_model_new();
    ir_model_set_opset(m, "", 13, NULL);
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, XS, NULL);
    int l = ir_graph_add_tensor(g, "log_out", TOSAC_DT_F32, 4, XS, NULL);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 4, XS, NULL);
    assert_true(ir_graph_add_node(g, "Log", NULL, "log", &x, 1, &l, 1, NULL) >= 0);
    int ins[2] = {l, x};
    assert_true(ir_graph_add_node(g, "Add", NULL, "add", ins, 2, &y, 1, NULL) >= 0);
    ir_graph_mark_output(g, y, NULL);
    assert_int_equal(onnx_export_file(m, path("log.onnx"), NULL), TOSAC_OK);
    ir_model_free(m);
}

static int setup(void **state)
{
    (void)state;
    g_dir = tu_mkdtemp();
    write_log_model();
    ir_model *m = qtg_conv_relu_add(13, 0); /* inputs x [1,2,4,4], skip [1,3,4,4] */
    assert_int_equal(onnx_export_file(m, path("conv.onnx"), NULL), TOSAC_OK);
    ir_model_free(m);
    const float nan4[4] = {1.0f, 2.0f, NAN, 3.0f}, inf4[4] = {1.0f, INFINITY, 0.0f, 0.0f};
    const float ninf4[4] = {-INFINITY, 0.0f, 0.0f, 0.0f}, logx[4] = {0.0f, 1.0f, 2.0f, 4.0f};
    write_x("nan.npy", nan4, 4, XS);
    write_x("inf.npy", inf4, 4, XS);
    write_x("log_x.npy", logx, 4, XS);
    /* a folder of samples, the second holding -inf */
    mkdir(path("samples"), 0755);
    mkdir(path("samples/a"), 0755);
    mkdir(path("samples/b"), 0755);
    write_x("samples/a/x.npy", logx, 4, XS);
    write_x("samples/b/x.npy", ninf4, 4, XS);
    const int64_t cx[4] = {1, 2, 4, 4}, cs[4] = {1, 3, 4, 4};
    const float zero[4] = {0, 0, 0, 0}, half[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    const float vary[4] = {-1.0f, 0.5f, 2.0f, 1.0f};
    write_x("zero_x.npy", zero, 4, cx);
    write_x("zero_skip.npy", zero, 4, cs);
    write_x("half_x.npy", half, 4, cx);
    write_x("vary_skip.npy", vary, 4, cs);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree_free(g_dir);
    return 0;
}

/* Runs `tosac quantize MODEL --scheme S --calib ARGS... -o OUT` and, with compile, the same
 * through `tosac compile --quantize` (spec for the scheme; delegates emitted into
 * OUT_tosa/); returns the exit status. */
static int quantize(bool compile, const char *model, const char *scheme, const char *out,
                    const char *const *calib, int n_calib, char **errs)
{
    const char *args[32];
    int n = 0;
    args[n++] = compile ? "compile" : "quantize";
    args[n++] = path(model);
    if (compile) {
        args[n++] = "--spec";
        args[n++] = strcmp(scheme, "a8w8") == 0 ? "TOSA-1.0+INT" : "TOSA-1.0+INT+int16";
    }
    args[n++] = compile ? "--quantize" : "--scheme";
    args[n++] = scheme;
    for (int i = 0; i < n_calib; i++) {
        args[n++] = "--calib";
        args[n++] = calib[i];
    }
    char emit[1100];
    if (compile) {
        snprintf(emit, sizeof emit, "%s_tosa", path(out));
        args[n++] = "--emit-tosa";
        args[n++] = emit;
    }
    args[n++] = "-o";
    args[n++] = path(out);
    args[n] = NULL;
    unlink(args[n - 1]);
    return tu_cli_argv(NULL, errs, args);
}

/* The scale and zero point of the QuantizeLinear reading `tensor` (or its graph-output form
 * "<tensor>_float") in the QDQ model at rel. */
static void qparams_of(const char *rel, const char *tensor, float *scale, int64_t *zp)
{
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(path(rel), &m, NULL), TOSAC_OK);
    const ir_graph *g = m->graph;
    char alt[300];
    snprintf(alt, sizeof alt, "%s_float", tensor);
    bool found = false;
    for (int i = 0; i < g->n_nodes && !found; i++) {
        const ir_node *n = &g->nodes[i];
        const char *in = g->tensors[n->inputs[0]].name;
        if (!ir_node_is(n, "QuantizeLinear") || (strcmp(in, tensor) && strcmp(in, alt)))
            continue;
        tosac_tensor s, z;
        assert_true(ir_graph_const_value(g, n->inputs[1], &s));
        assert_true(ir_graph_const_value(g, n->inputs[2], &z));
        *scale = ((const float *)s.data)[0];
        *zp = tosac_tensor_int_at(&z, 0);
        found = true;
    }
    ir_model_free(m);
    if (!found)
        fail_msg("%s: no QuantizeLinear for '%s'", rel, tensor);
}

/* prefix + the path of rel, into buf (a --calib argument that outlives path()'s buffers). */
static const char *hold(char *buf, const char *prefix, const char *rel)
{
    snprintf(buf, 1100, "%s%s", prefix, path(rel));
    return buf;
}

/* The scale and zero point of delegate input or output (`side`) `name` in the I/O metadata
 * at rel. */
static void delegate_qparams(const char *rel, const char *side, const char *name, double *scale,
                             int64_t *zp)
{
    tosac_json *j = NULL;
    assert_int_equal(tosac_json_parse_file(path(rel), &j, NULL), TOSAC_OK);
    const tosac_json *ins = tosac_json_get(j, side);
    bool found = false;
    for (int i = 0; i < tosac_json_count(ins) && !found; i++) {
        const tosac_json *in = tosac_json_at(ins, i);
        if (strcmp(tosac_json_string(tosac_json_get(in, "name")), name) != 0)
            continue;
        assert_true(tosac_json_double(tosac_json_get(in, "scale"), scale));
        assert_true(tosac_json_int(tosac_json_get(in, "zero_point"), zp));
        found = true;
    }
    tosac_json_free(j);
    if (!found)
        fail_msg("%s: no delegate %s '%s'", rel, side, name);
}

static void test_nonfinite_inputs_refused(void **state)
{
    (void)state;
    char b[4][1100];
    const struct {
        const char *calib, *want;
    } cases[] = {
        {hold(b[0], "", "nan.npy"), "nan.npy): element 2 is NaN; calibration data must be finite"},
        {hold(b[1], "", "inf.npy"), "inf.npy): element 1 is inf;"},
        {hold(b[2], "", "samples"), "samples/b/x.npy): element 0 is -inf;"},
        {hold(b[3], "x=", "nan.npy"), "nan.npy): element 2 is NaN"},
    };
    for (int compile = 0; compile < 2; compile++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            char *errs = NULL;
            int rc = quantize(compile, "log.onnx", "a8w8", "out.onnx", &cases[i].calib, 1, &errs);
            assert_int_equal(rc, 2);
            assert_int_equal(tu_count_lines(errs), 1);
            assert_non_null(strstr(errs, "tosac: error: calibration input 'x' ("));
            if (!strstr(errs, cases[i].want))
                fail_msg("expected '%s' in: %s", cases[i].want, errs);
            assert_int_equal(access(path("out.onnx"), F_OK), -1);
            free(errs);
        }
}

/* x = {0, 1, 2, 4}: log_out = {-inf, 0, ln 2, ln 4}, y = {-inf, 1, ln 2 + 2, ln 4 + 4}. The
 * -inf is left out: a8w8 ranges [0, ln 4] and [0, ln 4 + 4] (0 included), zero point -128. */
static void test_nonfinite_intermediates_warn(void **state)
{
    (void)state;
    char buf[1100];
    const char *calib = hold(buf, "", "log_x.npy");
    const char *want = "tosac: warning: calibration: non-finite values (NaN or inf) in 2 "
                       "tensors: 'log_out' (1 value), 'y' (1 value); their ranges come from the "
                       "finite values only\n";
    char *errs = NULL;
    assert_int_equal(quantize(false, "log.onnx", "a8w8", "log_q.onnx", &calib, 1, &errs), 0);
    assert_string_equal(errs, want); /* the one line, nothing else */
    free(errs);
    float ln4 = (float)log(4.0), s;
    int64_t zp;
    qparams_of("log_q.onnx", "log_out", &s, &zp);
    assert_true(s == (float)((double)ln4 / 255.0));
    assert_int_equal(zp, -128);
    qparams_of("log_q.onnx", "y", &s, &zp);
    assert_true(s == (float)((double)(ln4 + 4.0f) / 255.0));
    assert_int_equal(zp, -128);
    assert_int_equal(quantize(true, "log.onnx", "a8w8", "log.prog", &calib, 1, &errs), 0);
    assert_non_null(strstr(errs, want));
    free(errs);
    double ds; /* the delegate (Log, Add) writes y with its finite range's parameters */
    delegate_qparams("log.prog_tosa/0.json", "outputs", "y_quantized", &ds, &zp);
    assert_true((float)ds == (float)((double)(ln4 + 4.0f) / 255.0));
    assert_int_equal(zp, -128);
}

static void test_degenerate_range_warns(void **state)
{
    (void)state;
    char b[4][1100];
    /* all zero: x and skip get [-1, 1] (a8w8: scale 2/255, zp -128 - round(-1 / scale) = -1;
     * a16w8: 1/32767), named in one warning line */
    const char *zero[2] = {hold(b[0], "x=", "zero_x.npy"), hold(b[1], "skip=", "zero_skip.npy")};
    const char *want = "tosac: warning: calibration: a degenerate range (one value, or none, "
                       "on every sample) in 2 tensors: 'x' (always 0, scale 0.00784314 of "
                       "[-1, 1]), 'skip' (always 0, scale 0.00784314 of [-1, 1]); their scales "
                       "do not come from the data (calibrate with varied samples)\n";
    char *errs = NULL;
    assert_int_equal(quantize(false, "conv.onnx", "a8w8", "zero_q.onnx", zero, 2, &errs), 0);
    assert_string_equal(errs, want);
    free(errs);
    float s;
    int64_t zp;
    const char *names[2] = {"x", "skip"};
    for (int i = 0; i < 2; i++) {
        qparams_of("zero_q.onnx", names[i], &s, &zp);
        assert_true(s == (float)(2.0 / 255.0));
        assert_int_equal(zp, -1);
    }
    assert_int_equal(quantize(false, "conv.onnx", "a16w8", "zero_q16.onnx", zero, 2, &errs), 0);
    assert_non_null(strstr(errs, "'x' (always 0, scale 3.05185e-05 of [-1, 1])"));
    free(errs);
    qparams_of("zero_q16.onnx", "x", &s, &zp);
    assert_true(s == (float)(1.0 / 32767.0));
    assert_int_equal(zp, 0);
    assert_int_equal(quantize(true, "conv.onnx", "a8w8", "zero.prog", zero, 2, &errs), 0);
    assert_non_null(strstr(errs, want));
    free(errs);
    double ds; /* the delegate reads x with those parameters */
    delegate_qparams("zero.prog_tosa/0.json", "inputs", "x_quantized", &ds, &zp);
    assert_true((float)ds == (float)(2.0 / 255.0));
    assert_int_equal(zp, -1);
    /* a constant 0.5: its range [0, 0.5] is a range (scale 0.5/255), still named; skip varies */
    const char *half[2] = {hold(b[2], "x=", "half_x.npy"), hold(b[3], "skip=", "vary_skip.npy")};
    assert_int_equal(quantize(false, "conv.onnx", "a8w8", "half_q.onnx", half, 2, &errs), 0);
    assert_int_equal(tu_count_lines(errs), 1);
    assert_non_null(strstr(errs, "on every sample) in 1 tensor: 'x'"));
    assert_non_null(strstr(errs, "'x' (always 0.5, scale 0.00196078)"));
    free(errs);
    qparams_of("half_q.onnx", "x", &s, &zp);
    assert_true(s == (float)(0.5 / 255.0));
    assert_int_equal(zp, -128);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonfinite_inputs_refused),
        cmocka_unit_test(test_nonfinite_intermediates_warn),
        cmocka_unit_test(test_degenerate_range_warns),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
