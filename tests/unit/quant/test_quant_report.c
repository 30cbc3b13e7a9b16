/* The quantizer's user-facing controls: --report (per-tensor range, scale, zero point, SQNR
 * checked against the QDQ graph and a hand computation), --exclude (nodes kept float, typos
 * refused), --calib-method reaching the parameters, the flat folder of .npy samples, and the
 * tosac quantize / compile command lines for them (outputs together or not at all, no
 * progress output when stderr is not a terminal). */
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

/* x [1,2,4,4] -> Conv(W [3,2,3,3], no bias) -> y: a one-input model. */
static ir_model *one_input(void)
{
    ir_model *m = ir_model_new();
    ir_model_set_opset(m, "", 13, NULL);
    ir_graph *g = m->graph;
    const int64_t xs[4] = {1, 2, 4, 4}, ys[4] = {1, 3, 2, 2}, ws[4] = {3, 2, 3, 3};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, xs, NULL);
    int in[2] = {x, qtg_const(g, "W", 4, ws, 7, 0.5f, 0.0f)};
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 4, ys, NULL);
    ir_graph_add_node(g, "Conv", NULL, "conv", in, 2, &y, 1, NULL);
    ir_graph_mark_output(g, y, NULL);
    return m;
}

static void write_x(const char *rel, float v0)
{
    const int64_t xs[4] = {1, 2, 4, 4};
    tosac_tensor t;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, 4, xs, NULL), TOSAC_OK);
    for (int64_t i = 0; i < 32; i++)
        ((float *)t.data)[i] = i == 0 ? v0 : qtg_val(9, i);
    assert_int_equal(tosac_npy_write(path(rel), &t, NULL), TOSAC_OK);
    tosac_tensor_free(&t);
}

static int setup(void **state)
{
    (void)state;
    g_dir = tu_mkdtemp();
    mkdir(path("flat"), 0755);
    /* name order b, c, d: first elements 1, 2, 3 */
    write_x("flat/c.npy", 2.0f);
    write_x("flat/b.npy", 1.0f);
    write_x("flat/d.npy", 3.0f);
    ir_model *m = one_input();
    assert_int_equal(onnx_export_file(m, path("one.onnx"), NULL), TOSAC_OK);
    ir_model_free(m);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree_free(g_dir);
    return 0;
}

/* Scale and zero point of the QuantizeLinear reading tensor `name`. */
static void q_params(const ir_graph *g, const char *name, float *scale, int64_t *zp)
{
    int t = ir_graph_find_tensor(g, name);
    assert_true(t >= 0);
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead || !ir_node_is(n, "QuantizeLinear") || n->inputs[0] != t)
            continue;
        tosac_tensor s, z;
        assert_true(ir_graph_const_value(g, n->inputs[1], &s));
        assert_true(ir_graph_const_value(g, n->inputs[2], &z));
        *scale = ((const float *)s.data)[0];
        *zp = ((const int8_t *)z.data)[0];
        return;
    }
    fail_msg("no QuantizeLinear reads %s", name);
}

static const tosac_json *report_tensor(const tosac_json *r, const char *name)
{
    const tosac_json *ts = tosac_json_get(r, "tensors");
    for (int i = 0; i < tosac_json_count(ts); i++)
        if (strcmp(tosac_json_string(tosac_json_get(tosac_json_at(ts, i), "name")), name) == 0)
            return tosac_json_at(ts, i);
    return NULL;
}

static double num(const tosac_json *o, const char *key)
{
    double v;
    assert_true(tosac_json_double(tosac_json_get(o, key), &v));
    return v;
}

static void test_report_matches_graph(void **state)
{
    (void)state;
    ir_model *m = qtg_conv_relu_add(13, 0);
    quant_calib c;
    qtg_samples(m, 3, &c);
    char *report = NULL;
    quant_options o = {.scheme = QUANT_A8W8, .report = &report}; /* the default method */
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_quantize(m, &o, &c, &err), TOSAC_OK);
    tosac_json *r = NULL;
    assert_int_equal(tosac_json_parse(report, strlen(report), &r, &err), TOSAC_OK);
    assert_string_equal(tosac_json_string(tosac_json_get(r, "method")), "mse");
    assert_int_equal(tosac_json_count(tosac_json_get(r, "tensors")), 4); /* x, skip, relu, out */
    assert_null(report_tensor(r, "conv_out")); /* fused into the Relu: no parameters */
    const tosac_json *x = report_tensor(r, "x");
    assert_non_null(x);
    float scale;
    int64_t zp;
    q_params(m->graph, "x", &scale, &zp);
    assert_true(num(x, "scale") == scale && num(x, "zero_point") == (double)zp);
    /* min/max over the samples, the range the parameters cover, and the SQNR, by hand */
    double lo = INFINITY, hi = -INFINITY, sig = 0, noise = 0;
    for (int s = 0; s < 3; s++) {
        const float *v = c.tensors[s * 2].data;
        for (int i = 0; i < 32; i++) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
            double q = fmin(127, fmax(-128, nearbyintf(v[i] / scale) + (double)zp));
            double e = v[i] - (q - (double)zp) * scale;
            sig += (double)v[i] * v[i];
            noise += e * e;
        }
    }
    assert_true(num(x, "min") == (float)lo && num(x, "max") == (float)hi);
    assert_float_equal(num(x, "range_lo"), (-128.0 - (double)zp) * scale, 1e-12);
    assert_float_equal(num(x, "range_hi"), (127.0 - (double)zp) * scale, 1e-12);
    assert_float_equal(num(x, "sqnr_db"), 10 * log10(sig / noise), 1e-9);
    assert_string_equal(tosac_json_string(tosac_json_get(x, "dtype")), "i8");
    assert_int_equal(tosac_json_count(tosac_json_get(r, "kept_float")), 0);
    tosac_json_free(r);
    free(report);
    quant_calib_free(&c);
    ir_model_free(m);
}

/* The Conv kept float: its weights stay a float initializer (no DequantizeLinear in front),
 * its output is quantized only because the (quantized) Relu reads it. */
static void test_exclude(void **state)
{
    (void)state;
    const char *lists[2] = {"conv", "Relu,Conv"}; /* by name; by operator types */
    for (int k = 0; k < 2; k++) {
        ir_model *m = qtg_conv_relu_add(13, 0);
        quant_calib c;
        qtg_samples(m, 2, &c);
        char *report = NULL;
        quant_options o = {.scheme = QUANT_A8W8, .exclude = lists[k], .report = &report};
        tosac_error err;
        tosac_error_clear(&err);
        assert_int_equal(tosac_quantize(m, &o, &c, &err), TOSAC_OK);
        const ir_graph *g = m->graph;
        const ir_node *conv = qtg_producer(g, "conv_out");
        assert_true(ir_node_is(conv, "Conv"));
        assert_string_equal(qtg_in(g, conv, 1)->name, "W");
        assert_true(qtg_in(g, conv, 1)->dtype == TOSAC_DT_F32);
        assert_string_equal(qtg_in(g, conv, 2)->name, "B");
        /* the Conv reads x itself: a graph input only kept-float nodes read stays float */
        assert_string_equal(qtg_in(g, conv, 0)->name, "x");
        /* skip, relu_out, out, and conv_out when the Relu is quantized (its input) */
        assert_int_equal(qtg_count(g, "QuantizeLinear"), k == 0 ? 4 : 3);
        assert_non_null(strstr(report, "\"kept_float\""));
        assert_non_null(strstr(report, k == 0 ? "\"conv\"" : "\"relu\""));
        free(report);
        quant_calib_free(&c);
        ir_model_free(m);
    }
    ir_model *m = qtg_conv_relu_add(13, 0);
    quant_calib c;
    qtg_samples(m, 1, &c);
    quant_options o = {.scheme = QUANT_A8W8, .exclude = "conv,Cnov"};
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_quantize(m, &o, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--exclude 'Cnov' names no node and no operator type"));
    quant_calib_free(&c);
    ir_model_free(m);
}

/* One sample's x[0] = 50 among 95 other values of x in [-2, 2): min/max spans it;
 * percentile=97 cuts each tail at 2.88 of the 96 values, so the top cut lies in the bulk. */
static void test_method_reaches_parameters(void **state)
{
    (void)state;
    float scales[2];
    const quant_calib_method methods[2] = {QUANT_CALIB_MINMAX, QUANT_CALIB_PERCENTILE};
    for (int k = 0; k < 2; k++) {
        ir_model *m = qtg_conv_relu_add(13, 0);
        quant_calib c;
        qtg_samples(m, 3, &c);
        ((float *)c.tensors[0].data)[0] = 50.0f;
        quant_options o = {.scheme = QUANT_A8W8, .method = methods[k], .percentile = 97.0};
        assert_int_equal(tosac_quantize(m, &o, &c, NULL), TOSAC_OK);
        int64_t zp;
        q_params(m->graph, "x", &scales[k], &zp);
        quant_calib_free(&c);
        ir_model_free(m);
    }
    assert_true(scales[0] >= (float)(50.0 / 255.0)); /* [lo <= 0, 50] */
    assert_true(scales[1] <= (float)(4.0 / 255.0));  /* inside [-2, 2) */
}

static void test_flat_folder(void **state)
{
    (void)state;
    ir_model *m = one_input();
    quant_calib c;
    const char *args[1] = {path("flat")};
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(quant_calib_load(m, args, 1, &c, &err), TOSAC_OK);
    assert_int_equal(c.n_samples, 3);
    for (int s = 0; s < 3; s++) /* b, c, d: name order */
        assert_true(((const float *)c.tensors[s].data)[0] == (float)(s + 1));
    quant_calib_free(&c);
    ir_model_free(m);
    m = qtg_conv_relu_add(13, 0); /* two inputs: the layout does not say which file is which */
    assert_int_equal(quant_calib_load(m, args, 1, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "one-input model (this one has 2 inputs)"));
    ir_model_free(m);
}

static void test_cli(void **state)
{
    (void)state;
    char *out = NULL, *errs = NULL;
    char q[1100], rep[1100];
    snprintf(q, sizeof q, "%s", path("q.onnx"));
    snprintf(rep, sizeof rep, "%s", path("r.json"));
    int rc = tu_cli(&out, &errs, "quantize", path("one.onnx"), "--scheme", "a8w8", "--calib",
                    path("flat"), "--calib-method", "mse", "--exclude", "Conv", "--report", rep,
                    "-o", q, NULL);
    if (rc != 0)
        fail_msg("quantize: %s", errs);
    assert_string_equal(errs, ""); /* stderr is not a terminal: no progress line */
    free(out);
    free(errs);
    tosac_json *r = NULL;
    assert_int_equal(tosac_json_parse_file(rep, &r, NULL), TOSAC_OK);
    assert_string_equal(tosac_json_string(tosac_json_get(r, "method")), "mse");
    assert_int_equal(tosac_json_count(tosac_json_get(r, "kept_float")), 1);
    int64_t n;
    assert_true(tosac_json_int(tosac_json_get(r, "samples"), &n) && n == 3);
    tosac_json_free(r);
    /* a bad --exclude writes neither file */
    unlink(q);
    unlink(rep);
    rc = tu_cli(&out, &errs, "quantize", path("one.onnx"), "--scheme", "a8w8", "--calib",
                path("flat"), "--exclude", "Gemm", "--report", rep, "-o", q, NULL);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(errs, "--exclude 'Gemm'"));
    assert_int_equal(tu_count_lines(errs), 1);
    assert_true(access(q, F_OK) != 0 && access(rep, F_OK) != 0);
    free(out);
    free(errs);
    /* --report must not overwrite a calibration file either */
    rc = tu_cli(&out, &errs, "quantize", path("one.onnx"), "--scheme", "a8w8", "--calib",
                path("flat/b.npy"), "--report", path("flat/b.npy"), "-o", q, NULL);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(errs, "--report"));
    assert_non_null(strstr(errs, "names a --calib input"));
    free(out);
    free(errs);
    rc = tu_cli(&out, &errs, "quantize", path("one.onnx"), "--scheme", "a8w8", "--calib",
                path("flat"), "--calib-method", "median", "-o", q, NULL);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(errs, "unknown calibration method 'median'"));
    free(out);
    free(errs);
    /* compile --quantize takes the same two options */
    rc = tu_cli(&out, &errs, "compile", path("one.onnx"), "--spec", "TOSA-1.0+INT", "--quantize",
                "a8w8", "--calib", path("flat"), "--calib-method", "percentile=99.9", "--exclude",
                "conv", "-o", path("p.tosac"), "--quiet", NULL);
    assert_int_equal(rc, 0);
    free(out);
    free(errs);
    rc = tu_cli(&out, &errs, "compile", path("one.onnx"), "--spec", "TOSA-1.0+INT", "--quantize",
                "a8w8", "--calib", path("flat"), "--exclude", "nothing", "-o", path("p2.tosac"),
                NULL);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(errs, "--exclude 'nothing'"));
    assert_true(access(path("p2.tosac"), F_OK) != 0);
    free(out);
    free(errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_matches_graph),
        cmocka_unit_test(test_exclude),
        cmocka_unit_test(test_method_reaches_parameters),
        cmocka_unit_test(test_flat_folder),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
