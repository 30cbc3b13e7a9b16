/* Calibration data loading (folders, NAME=FILE.npy, FILE.npy) and its errors, and the
 * tosac quantize command line: exit codes, messages naming the bad input, no output left
 * behind on failure. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quant_testgraph.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"

static char *g_dir;

static const char *path(const char *rel) { return tu_join(g_dir, rel); }

/* A float32 (or other dtype) .npy of shape, every element = v. */
static void write_npy(const char *rel, tosac_dtype dt, int rank, const int64_t *shape, float v)
{
    tosac_tensor t;
    assert_int_equal(tosac_tensor_alloc(&t, dt, rank, shape, NULL), TOSAC_OK);
    for (int64_t i = 0; i < tosac_tensor_numel(&t); i++) {
        if (dt == TOSAC_DT_F32)
            ((float *)t.data)[i] = v;
        else if (dt == TOSAC_DT_I32)
            ((int32_t *)t.data)[i] = (int32_t)v;
    }
    assert_int_equal(tosac_npy_write(path(rel), &t, NULL), TOSAC_OK);
    tosac_tensor_free(&t);
}

static const int64_t XS[4] = {1, 2, 4, 4}, SS[4] = {1, 3, 4, 4};

static int setup(void **state)
{
    (void)state;
    g_dir = tu_mkdtemp();
    mkdir(path("samples"), 0755);
    mkdir(path("samples/s1"), 0755);
    mkdir(path("samples/s0"), 0755);
    mkdir(path("empty"), 0755);
    write_npy("samples/s0/x.npy", TOSAC_DT_F32, 4, XS, 0.5f);
    write_npy("samples/s0/skip.npy", TOSAC_DT_F32, 4, SS, -1.0f);
    write_npy("samples/s1/x.npy", TOSAC_DT_F32, 4, XS, 1.5f);
    write_npy("samples/s1/skip.npy", TOSAC_DT_F32, 4, SS, 2.0f);
    write_npy("bad_shape.npy", TOSAC_DT_F32, 4, SS, 0.0f);
    write_npy("bad_dtype.npy", TOSAC_DT_I32, 4, XS, 1.0f);
    ir_model *m = qtg_conv_relu_add(13, 0);
    assert_int_equal(onnx_export_file(m, path("model.onnx"), NULL), TOSAC_OK);
    ir_model_free(m);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree_free(g_dir);
    return 0;
}

static tosac_code load(const char *const *args, int n, quant_calib *c, tosac_error *err)
{
    ir_model *m = qtg_conv_relu_add(13, 0);
    tosac_error_clear(err);
    tosac_code rc = quant_calib_load(m, args, n, c, err);
    ir_model_free(m);
    return rc;
}

static float first(const quant_calib *c, int s, int i)
{
    return ((const float *)c->tensors[s * c->n_inputs + i].data)[0];
}

static void test_load_sample_folders(void **state)
{
    (void)state;
    quant_calib c;
    tosac_error err;
    const char *args[1] = {path("samples")};
    assert_int_equal(load(args, 1, &c, &err), TOSAC_OK);
    assert_int_equal(c.n_samples, 2);
    assert_int_equal(c.n_inputs, 2);
    /* sorted by folder name: s0 then s1; inputs in graph order x, skip */
    assert_true(first(&c, 0, 0) == 0.5f && first(&c, 0, 1) == -1.0f);
    assert_true(first(&c, 1, 0) == 1.5f && first(&c, 1, 1) == 2.0f);
    quant_calib_free(&c);
    /* one sample folder given directly */
    args[0] = path("samples/s1");
    assert_int_equal(load(args, 1, &c, &err), TOSAC_OK);
    assert_int_equal(c.n_samples, 1);
    assert_true(first(&c, 0, 0) == 1.5f);
    quant_calib_free(&c);
}

static void test_load_named_files(void **state)
{
    (void)state;
    char a[4][1100];
    snprintf(a[0], sizeof a[0], "skip=%s", path("samples/s0/skip.npy"));
    snprintf(a[1], sizeof a[1], "x=%s", path("samples/s0/x.npy"));
    snprintf(a[2], sizeof a[2], "x=%s", path("samples/s1/x.npy"));
    snprintf(a[3], sizeof a[3], "skip=%s", path("samples/s1/skip.npy"));
    const char *args[4] = {a[0], a[1], a[2], a[3]};
    quant_calib c;
    tosac_error err;
    /* naming x again starts the second sample */
    assert_int_equal(load(args, 4, &c, &err), TOSAC_OK);
    assert_int_equal(c.n_samples, 2);
    assert_true(first(&c, 0, 0) == 0.5f && first(&c, 0, 1) == -1.0f);
    assert_true(first(&c, 1, 0) == 1.5f && first(&c, 1, 1) == 2.0f);
    quant_calib_free(&c);
    /* a sample without skip */
    assert_int_equal(load(args + 1, 2, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no value for input 'skip'"));
}

static void test_load_errors(void **state)
{
    (void)state;
    quant_calib c;
    tosac_error err;
    char a[1100];
    const char *args[1] = {a};
    /* a plain file for a two-input model */
    snprintf(a, sizeof a, "%s", path("samples/s0/x.npy"));
    assert_int_equal(load(args, 1, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "2 inputs"));
    /* missing file */
    snprintf(a, sizeof a, "x=%s", path("nope.npy"));
    assert_int_equal(load(args, 1, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "nope.npy"));
    /* wrong shape and wrong dtype name the input */
    snprintf(a, sizeof a, "x=%s", path("bad_shape.npy"));
    assert_int_equal(load(args, 1, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "input 'x'"));
    assert_non_null(strstr(err.msg, "shape [1,3,4,4]"));
    snprintf(a, sizeof a, "x=%s", path("bad_dtype.npy"));
    assert_int_equal(load(args, 1, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "input 'x'"));
    assert_non_null(strstr(err.msg, "dtype i32"));
    /* unknown input name, empty folder */
    snprintf(a, sizeof a, "y=%s", path("samples/s0/x.npy"));
    assert_int_equal(load(args, 1, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no input named 'y'"));
    snprintf(a, sizeof a, "%s", path("empty"));
    assert_int_equal(load(args, 1, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "neither x.npy nor sample sub-folders"));
    assert_int_equal(load(args, 0, &c, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no calibration data"));
}

static void test_cli_quantize(void **state)
{
    (void)state;
    char *out = NULL, *errs = NULL;
    const char *q = path("q.onnx");
    int rc = tu_cli(&out, &errs, "quantize", path("model.onnx"), "--scheme", "a8w8", "--calib",
                    path("samples"), "-o", q, NULL);
    assert_int_equal(rc, 0);
    free(out);
    free(errs);
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(q, &m, NULL), TOSAC_OK);
    assert_int_equal(qtg_count(m->graph, "QuantizeLinear"), 4);
    assert_int_equal(qtg_count(m->graph, "DequantizeLinear"), 6);
    /* the importer reads the recorded parameters back: x is int8 per tensor */
    const ir_tensor *xq = &m->graph->tensors[ir_graph_find_tensor(m->graph, "x_quantized")];
    assert_non_null(xq->quant);
    assert_int_equal(xq->quant->zp_dtype, TOSAC_DT_I8);
    ir_model_free(m);
}

/* Exit 2, one error line containing want, and no output file. */
static void expect_fail(const char *want, const char *const *args)
{
    char *out = NULL, *errs = NULL;
    unlink(path("fail.onnx"));
    int rc = tu_cli_argv(&out, &errs, args);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(errs, want));
    assert_int_equal(tu_count_lines(errs), 1);
    assert_int_equal(access(path("fail.onnx"), F_OK), -1);
    free(out);
    free(errs);
}

static void test_cli_errors(void **state)
{
    (void)state;
    char model[1100], samples[1100], o[1100], shape[1100], dtype[1100], missing[1100];
    snprintf(model, sizeof model, "%s", path("model.onnx"));
    snprintf(samples, sizeof samples, "%s", path("samples"));
    snprintf(o, sizeof o, "%s", path("fail.onnx"));
    snprintf(shape, sizeof shape, "x=%s", path("bad_shape.npy"));
    snprintf(dtype, sizeof dtype, "x=%s", path("bad_dtype.npy"));
    snprintf(missing, sizeof missing, "x=%s", path("missing.npy"));
    const char *bad_scheme[] = {"quantize", model, "--scheme", "a4", "--calib", samples, "-o", o, NULL};
    expect_fail("unknown quantization scheme 'a4'", bad_scheme);
    const char *no_calib[] = {"quantize", model, "--scheme", "a8w8", "-o", o, NULL};
    expect_fail("no --calib", no_calib);
    const char *no_out[] = {"quantize", model, "--scheme", "a8w8", "--calib", samples, NULL};
    expect_fail("no output", no_out);
    const char *miss[] = {"quantize", model, "--scheme", "a8w8", "--calib", missing, "-o", o, NULL};
    expect_fail("missing.npy", miss);
    const char *wshape[] = {"quantize", model, "--scheme", "a16w8", "--calib", shape, "-o", o, NULL};
    expect_fail("calibration input 'x'", wshape);
    const char *wdtype[] = {"quantize", model, "--scheme", "a8w8", "--calib", dtype, "-o", o, NULL};
    expect_fail("has dtype i32, the model expects f32", wdtype);
    const char *no_model[] = {"quantize", path("nomodel.onnx"), "--scheme", "a8w8", "--calib",
                              samples, "-o", o, NULL};
    expect_fail("nomodel.onnx", no_model);
    const char *opt[] = {"quantize", model, "--bogus", NULL};
    expect_fail("unknown option '--bogus'", opt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_sample_folders),
        cmocka_unit_test(test_load_named_files),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_cli_quantize),
        cmocka_unit_test(test_cli_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
