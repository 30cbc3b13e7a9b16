/* Biases of quantized convolutions and linear layers (issue 8, defects 4 and 5), through the
 * CLI on small float models whose expected values are worked out here:
 *   - a16w8 with tiny activation and weight scales: the bias is millions of times the int32
 *     range in accumulator steps. `tosac quantize` keeps it float (ONNX has no 48-bit
 *     DequantizeLinear) and `tosac compile` holds it as the exact int48 round(b / (sx*sw)), so
 *     the program's output carries it (it used to be clamped to int32, silently, and lost);
 *   - the same model under a8w8 is an error naming the bias, never a clamp;
 *   - a QDQ model whose bias is float (Conv, Gemm) has it quantized at compile time and is
 *     delegated, matching the CPU executor; one that does not fit stays on the CPU, and the
 *     reason names the tensor;
 *   - Gemm with alpha 0.5 and beta 2 (its C stays float in the quantizer's output) is
 *     delegated under TOSA-1.0+INT and +FP and matches the CPU executor. */
#include "lower_core_testutil.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "util/json.h"

static char *g_dir;

static const char *path(const char *rel) { return tu_join(g_dir, rel); }

static void write_npy(const char *rel, int rank, const int64_t *shape, const float *v)
{
    tosac_tensor t;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, rank, shape, NULL), TOSAC_OK);
    memcpy(t.data, v, (size_t)tosac_tensor_numel(&t) * sizeof *v);
    assert_int_equal(tosac_npy_write(path(rel), &t, NULL), TOSAC_OK);
    tosac_tensor_free(&t);
}

static tosac_tensor read_npy(const char *rel)
{
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_npy_read(path(rel), &t, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(t.dtype, TOSAC_DT_F32);
    return t;
}

/* ---- the tiny-scale models: y = W x + B, two output channels ---- */

/* x in [-0.01, 0.01] (int16 step 3e-7); channel 0 has weights of 1e-3 (step 8e-6) and a bias
 * of 3, which is 3 / (3.05e-7 * 7.87e-6) = 1.25e12 accumulator steps: beyond int32 (2.1e9),
 * well inside int48 (1.4e14). Channel 1 is an ordinary one (weights 0.5, bias -0.25). */
static const float k_x[4] = {-0.01f, -0.004f, 0.0025f, 0.01f};
static const float k_w[2] = {1e-3f, 0.5f}, k_b[2] = {3.0f, -0.25f};

/* y = op(x, W, B) with the numbers above, written to rel:
 *   Conv: x [1,1,1,4], W [2,1,1,1], B [2] -> y [1,2,1,4] (y[c][i] = w[c] x[i] + b[c]);
 *   Gemm: A [4,1] = x as a column, B [1,2] = w ([K, N], per channel along N), C [2] = b
 *         -> y [4,2] (y[i][c] = x[i] w[c] + b[c]). */
static void write_model(const char *rel, const char *op)
{
    bool conv = strcmp(op, "Conv") == 0;
    const int64_t cx[4] = {1, 1, 1, 4}, cw[4] = {2, 1, 1, 1}, cy[4] = {1, 2, 1, 4};
    const int64_t gx[2] = {4, 1}, gw[2] = {1, 2}, gy[2] = {4, 2}, bs[1] = {2};
    int rank = conv ? 4 : 2;
    ir_model *m = ir_model_new();
    ir_model_set_opset(m, "", 13, NULL);
    ir_graph *g = m->graph;
    int ins[3] = {ir_graph_add_input(g, "x", TOSAC_DT_F32, rank, conv ? cx : gx, NULL),
                  ir_graph_add_const(g, "W", TOSAC_DT_F32, rank, conv ? cw : gw, k_w,
                                     sizeof k_w, NULL),
                  ir_graph_add_const(g, "B", TOSAC_DT_F32, 1, bs, k_b, sizeof k_b, NULL)};
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, rank, conv ? cy : gy, NULL);
    assert_true(ir_graph_add_node(g, op, NULL, conv ? "conv" : "gemm", ins, 3, &y, 1, NULL) >= 0);
    ir_graph_mark_output(g, y, NULL);
    assert_int_equal(onnx_export_file(m, path(rel), NULL), TOSAC_OK);
    ir_model_free(m);
}

static int setup(void **state)
{
    (void)state;
    g_dir = tu_mkdtemp();
    write_model("conv.onnx", "Conv");
    write_model("gemm.onnx", "Gemm");
    const int64_t cs[4] = {1, 1, 1, 4}, gs[2] = {4, 1};
    write_npy("conv_x.npy", 4, cs, k_x);
    write_npy("gemm_x.npy", 2, gs, k_x);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree_free(g_dir);
    return 0;
}

/* The float result y = w[c] x[i] + b[c] in double, and the a16w8 output scale the quantizer
 * must pick for it: max|y| / 32767 over the one calibration sample (the same x). */
static double expected(int c, int i) { return (double)k_w[c] * k_x[i] + k_b[c]; }

static float output_scale(void)
{
    double amax = 0;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 4; i++)
            amax = fmax(amax, fabs(expected(c, i)));
    return (float)(amax / 32767.0);
}

/* y (channel c, element i at y[c * cs + i * is]) is the float result to one int16 output step:
 * half a step of output rounding plus the 16-bit RESCALE multiplier of an int48 accumulator
 * (relative 2^-16, i.e. half a step at 32767). Without the bias channel 0 would be ~0.005,
 * 32700 steps off. */
static void check_output(const tosac_tensor *y, int64_t cs, int64_t is, const char *what)
{
    float sy = output_scale();
    const float *v = y->data;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 4; i++) {
            double got = v[c * cs + i * is] / (double)sy, want = expected(c, i) / sy;
            if (fabs(got - want) > 1.0)
                fail_msg("%s: y[%d][%d] = %.7g (%.2f steps), expected %.7g (%.2f steps)", what,
                         c, i, (double)v[c * cs + i * is], got, expected(c, i), want);
        }
}

/* The int48 bias the delegate holds: round(b[c] / (sx * sw[c])), with the a16w8 scales
 * sx = max|x| / 32767 and sw[c] = |w[c]| / 127 (as float, as the QDQ model stores them). */
static void check_bias(const char *tosa_rel)
{
    tosa_graph *tg = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosa_graph_read_file(path(tosa_rel), &tg, &err))
        fail_msg("%s", err.msg);
    const tosa_block *b = &tg->regions[0].blocks[0];
    const tosa_tensor *bias = NULL;
    for (int t = 0; t < b->n_tensors; t++)
        if (strcmp(b->tensors[t].name, "bias") == 0)
            bias = &b->tensors[t];
    assert_non_null(bias);
    assert_int_equal(bias->dtype, TOSAC_DT_I48);
    assert_int_equal(bias->data_size, 2 * sizeof(int64_t));
    double sx = (float)(0.01 / 32767.0);
    for (int c = 0; c < 2; c++) {
        double sw = (float)(fabs((double)k_w[c]) / 127.0);
        int64_t want = (int64_t)nearbyint(k_b[c] / (sx * sw));
        assert_int_equal(((const int64_t *)bias->data)[c], want);
    }
    /* channel 0 is the case: beyond int32 */
    assert_true(((const int64_t *)bias->data)[0] > (int64_t)INT32_MAX * 100);
    tosa_graph_free(tg);
}

static void compile_run_a16w8(const char *model, const char *x, const char *tag)
{
    char prog[64], emit[64], out[64], xin[1100];
    snprintf(prog, sizeof prog, "%s.prog", tag);
    snprintf(emit, sizeof emit, "%s_tosa", tag);
    snprintf(out, sizeof out, "%s_out", tag);
    snprintf(xin, sizeof xin, "x=%s", path(x));
    char *o = NULL, *e = NULL;
    int rc = tu_cli(&o, &e, "compile", path(model), "--spec", "TOSA-1.0+INT+int16", "--quantize",
                    "a16w8", "--calib", path(x), "-o", path(prog), "--emit-tosa", path(emit), NULL);
    if (rc != 0)
        fail_msg("compile %s: exit %d: %s", model, rc, e);
    free(o);
    free(e);
    char t0[80];
    snprintf(t0, sizeof t0, "%s/0.tosa", emit);
    check_bias(t0);
    rc = tu_cli(&o, &e, "run", path(prog), "--input", xin, "--output-dir", path(out), NULL);
    if (rc != 0)
        fail_msg("run %s: exit %d: %s", prog, rc, e);
    free(o);
    free(e);
}

/* `tosac quantize model --scheme scheme --calib x -o out`, which must succeed. */
static void quantize_ok(const char *model, const char *scheme, const char *x, const char *out)
{
    char *e = NULL;
    int rc = tu_cli(NULL, &e, "quantize", path(model), "--scheme", scheme, "--calib", path(x),
                    "-o", path(out), NULL);
    if (rc != 0)
        fail_msg("quantize %s %s: exit %d: %s", model, scheme, rc, e);
    free(e);
}

static void test_a16w8_tiny_scales_conv(void **state)
{
    (void)state;
    compile_run_a16w8("conv.onnx", "conv_x.npy", "conv16");
    tosac_tensor y = read_npy("conv16_out/y.npy");
    check_output(&y, 4, 1, "conv a16w8 program"); /* [1,2,1,4]: channel stride 4 */
    tosac_tensor_free(&y);
}

static void test_a16w8_tiny_scales_gemm(void **state)
{
    (void)state;
    compile_run_a16w8("gemm.onnx", "gemm_x.npy", "gemm16");
    tosac_tensor y = read_npy("gemm16_out/y.npy");
    check_output(&y, 1, 2, "gemm a16w8 program"); /* [4,2]: channel stride 1 */
    tosac_tensor_free(&y);
}

/* `tosac quantize` under a16w8 keeps the bias float (plain ONNX, which onnxruntime runs), and
 * the QDQ model run on the CPU carries it. */
static void test_a16w8_quantize_keeps_float_bias(void **state)
{
    (void)state;
    quantize_ok("conv.onnx", "a16w8", "conv_x.npy", "conv16_qdq.onnx");
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(path("conv16_qdq.onnx"), &m, NULL), TOSAC_OK);
    const ir_graph *g = m->graph;
    int conv = -1;
    for (int i = 0; i < g->n_nodes; i++)
        if (ir_node_is(&g->nodes[i], "Conv"))
            conv = i;
    assert_true(conv >= 0);
    const ir_tensor *b = &g->tensors[g->nodes[conv].inputs[2]];
    assert_string_equal(b->name, "B");
    assert_int_equal(b->dtype, TOSAC_DT_F32);
    assert_non_null(b->data);
    ir_model_free(m);
    char xin[1100];
    snprintf(xin, sizeof xin, "x=%s", path("conv_x.npy"));
    assert_int_equal(tu_cli(NULL, NULL, "run", path("conv16_qdq.onnx"), "--input", xin,
                            "--output-dir", path("conv16_qdq_out"), NULL), 0);
    tosac_tensor y = read_npy("conv16_qdq_out/y.npy");
    check_output(&y, 4, 1, "conv a16w8 QDQ model on the CPU");
    tosac_tensor_free(&y);
}

/* Under a8w8 the bias 3 is 3 / (sx * sw) = 3 / ((0.02 / 255) * (1e-3 / 127)) = 4.9e9 steps:
 * beyond int32, an error naming it, and no output written. */
static void test_a8w8_bias_beyond_int32(void **state)
{
    (void)state;
    const char *outs[2] = {"conv8_qdq.onnx", "conv8.prog"};
    for (int k = 0; k < 2; k++) {
        char *o = NULL, *e = NULL;
        int rc = k == 0 ? tu_cli(&o, &e, "quantize", path("conv.onnx"), "--scheme", "a8w8",
                                 "--calib", path("conv_x.npy"), "-o", path(outs[k]), NULL)
                        : tu_cli(&o, &e, "compile", path("conv.onnx"), "--spec", "TOSA-1.0+INT",
                                 "--quantize", "a8w8", "--calib", path("conv_x.npy"), "-o",
                                 path(outs[k]), NULL);
        assert_int_equal(rc, 2);
        assert_int_equal(tu_count_lines(e), 1);
        assert_non_null(strstr(e, "tosac: error: bias 'B' of node 0 (Conv 'conv'): element 0"));
        assert_non_null(strstr(e, "beyond the int32 of a8w8"));
        assert_int_equal(access(path(outs[k]), F_OK), -1);
        free(o);
        free(e);
    }
}

/* ---- QDQ models with a float bias, compiled ---- */

static float fx[64], fw[128], fb[8];

/* Conv(x [1,4,4,4], W [8,4,1,1], b [8] float) or Gemm(x [4,16], W [8,16]^T, C [8] float):
 * the bias is a plain float constant in every mode (lc_bias would quantize it). */
static void float_bias_model(lc_b *b, const void *arg)
{
    bool gemm = arg != NULL;
    const int64_t cxs[4] = {1, 4, 4, 4}, cws[4] = {8, 4, 1, 1}, gxs[2] = {4, 16}, gws[2] = {8, 16};
    const int64_t bs = 8;
    int x = lc_input(b, "x", gemm ? 2 : 4, gemm ? gxs : cxs, fx);
    int w = lc_weight(b, "w", gemm ? 2 : 4, gemm ? gws : cws, fw, 0);
    int bias = ir_graph_add_const(lc_graph(b), "b", TOSAC_DT_F32, 1, &bs, fb, sizeof fb, NULL);
    int ins[3] = {x, w, bias};
    int n = lc_node(b, gemm ? "Gemm" : "Conv", "op", ins, 3, 1);
    if (gemm)
        ir_node_set_int(lc_graph(b), n, "transB", 1, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_qdq_float_bias_delegated(void **state)
{
    (void)state;
    lc_fill(fx, 64, 21, 2.0f);
    lc_fill(fw, 128, 22, 0.5f);
    lc_fill(fb, 8, 23, 1.5f);
    for (int gemm = 0; gemm < 2; gemm++)
        for (int i = 0; i < 2; i++) { /* a8w8 (i32 bias), a16w8 (i48 bias) */
            lc_result r;
            lc_check(float_bias_model, gemm ? "gemm" : NULL, lc_modes[i].mode, lc_modes[i].spec,
                     1, &r);
            assert_int_equal(r.delegated, 1);
            assert_int_equal(r.n_delegates, 1);
            const lc_op_info *conv = lc_find(&r, TOSA_OP_CONV2D);
            assert_non_null(conv);
            assert_int_equal(conv->acc_type, lc_modes[i].acc);
            assert_true(r.dtypes[TOSAC_DT_F32] == 0); /* the float bias became an integer */
        }
}

/* a8w8 with weights of 1e-6 and a bias of 2: 2 / (sx * 1e-6/127) is about 2.5e10 steps for
 * the sx of x in [-2, 2]: the Conv stays on the CPU, and the reason names the bias. */
static void test_qdq_float_bias_beyond_int32(void **state)
{
    (void)state;
    lc_fill(fx, 64, 24, 2.0f);
    lc_fill(fw, 128, 25, 1e-6f);
    for (int i = 0; i < 8; i++)
        fb[i] = 2.0f;
    lc_result r;
    lc_check(float_bias_model, NULL, LC_A8W8, "TOSA-1.0+INT", 1, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "Conv: bias 'b' element 0 is"));
    assert_non_null(strstr(r.reasons, "beyond int32"));
    /* int48 holds it */
    lc_check(float_bias_model, NULL, LC_A16W8, "TOSA-1.0+INT+int16", 1, &r);
    assert_int_equal(r.delegated, 1);
}

/* ---- Gemm with alpha 0.5, beta 2 through the quantizer and in float ---- */

static const float k_ab_w[12] = {0.5f, -1.0f, 0.25f, 0.75f, -0.5f, 1.0f,
                                 0.125f, -0.25f, 0.375f, -0.75f, 0.625f, 0.875f};
static const float k_ab_c[3] = {0.5f, -1.5f, 2.0f};

/* x [2,4] -> Gemm(alpha 0.5, beta 2, transB) with W [3,4], C [3] -> y [2,3] */
static void write_gemm_alpha_beta(const char *rel, int trans_a)
{
    ir_model *m = ir_model_new();
    ir_model_set_opset(m, "", 13, NULL);
    ir_graph *g = m->graph;
    const int64_t xs[2] = {trans_a ? 4 : 2, trans_a ? 2 : 4}, ws[2] = {3, 4}, cs[1] = {3},
                  ys[2] = {2, 3};
    int ins[3] = {ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, xs, NULL),
                  ir_graph_add_const(g, "W", TOSAC_DT_F32, 2, ws, k_ab_w, sizeof k_ab_w, NULL),
                  ir_graph_add_const(g, "C", TOSAC_DT_F32, 1, cs, k_ab_c, sizeof k_ab_c, NULL)};
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, ys, NULL);
    int n = ir_graph_add_node(g, "Gemm", NULL, "gemm", ins, 3, &y, 1, NULL);
    ir_node_set_float(g, n, "alpha", 0.5f, NULL);
    ir_node_set_float(g, n, "beta", 2.0f, NULL);
    ir_node_set_int(g, n, "transB", 1, NULL);
    if (trans_a)
        ir_node_set_int(g, n, "transA", 1, NULL);
    ir_graph_mark_output(g, y, NULL);
    assert_int_equal(onnx_export_file(m, path(rel), NULL), TOSAC_OK);
    ir_model_free(m);
}

/* The report's placement of node `name`. */
static void assert_placement(const char *report, const char *name, const char *want)
{
    tosac_json *j = NULL;
    assert_int_equal(tosac_json_parse_file(report, &j, NULL), TOSAC_OK);
    const tosac_json *nodes = tosac_json_get(j, "nodes");
    const char *got = NULL;
    for (int i = 0; i < tosac_json_count(nodes); i++) {
        const tosac_json *n = tosac_json_at(nodes, i);
        const char *nm = tosac_json_string(tosac_json_get(n, "name"));
        if (nm && strcmp(nm, name) == 0)
            got = tosac_json_string(tosac_json_get(n, "placement"));
    }
    if (!got || strcmp(got, want) != 0)
        fail_msg("%s: '%s' placed %s, expected %s", report, name, got ? got : "nowhere", want);
    tosac_json_free(j);
}

/* Compiles model under spec (quantized by scheme when not NULL), checks the Gemm is
 * delegated, runs the program and the reference model on x; the outputs agree within atol,
 * or within `steps` output steps of the scheme (step = the output range / 255 for a8w8,
 * max|y| / 32767 for a16w8; the run input is the calibration sample, so max|ref| sets it). */
static void gemm_ab_case(const char *model, const char *reference, const char *spec,
                         const char *scheme, double atol, const char *tag)
{
    double steps = scheme ? atol : 0;
    char prog[64], rep[64], out[64], ref_out[64], xin[1100];
    snprintf(prog, sizeof prog, "%s.prog", tag);
    snprintf(rep, sizeof rep, "%s.json", tag);
    snprintf(out, sizeof out, "%s_out", tag);
    snprintf(ref_out, sizeof ref_out, "%s_ref", tag);
    snprintf(xin, sizeof xin, "x=%s", path("ab_x.npy"));
    char *o = NULL, *e = NULL;
    int rc = scheme ? tu_cli(&o, &e, "compile", path(model), "--spec", spec, "--quantize", scheme,
                             "--calib", path("ab_x.npy"), "-o", path(prog), "--report", path(rep),
                             NULL)
                    : tu_cli(&o, &e, "compile", path(model), "--spec", spec, "-o", path(prog),
                             "--report", path(rep), NULL);
    if (rc != 0)
        fail_msg("compile %s under %s: exit %d: %s", model, spec, rc, e);
    free(o);
    free(e);
    assert_placement(path(rep), "gemm", "delegate");
    assert_int_equal(tu_cli(NULL, NULL, "run", path(prog), "--input", xin, "--output-dir",
                            path(out), NULL), 0);
    assert_int_equal(tu_cli(NULL, NULL, "run", path(reference), "--input", xin, "--output-dir",
                            path(ref_out), NULL), 0);
    char yo[80], yr[80];
    snprintf(yo, sizeof yo, "%s/y.npy", out);
    snprintf(yr, sizeof yr, "%s/y.npy", ref_out);
    tosac_tensor y = read_npy(yo), ref = read_npy(yr);
    if (scheme) {
        double amax = 0;
        for (int64_t i = 0; i < tosac_tensor_numel(&ref); i++)
            amax = fmax(amax, fabs(((const float *)ref.data)[i]));
        atol = steps * amax * (strcmp(scheme, "a8w8") == 0 ? 2.0 / 255 : 1.0 / 32767) * 1.01;
    }
    lc_assert_close(&y, &ref, atol, tag);
    tosac_tensor_free(&y);
    tosac_tensor_free(&ref);
}

static void test_gemm_alpha_beta_delegated(void **state)
{
    (void)state;
    for (int trans_a = 0; trans_a < 2; trans_a++) {
        float xv[8];
        lc_fill(xv, 8, 31 + (unsigned)trans_a, 2.0f);
        const int64_t xs[2] = {trans_a ? 4 : 2, trans_a ? 2 : 4};
        write_npy("ab_x.npy", 2, xs, xv);
        write_gemm_alpha_beta("ab.onnx", trans_a);
        /* float: the same products in another order (1e-5 for float rounding) */
        gemm_ab_case("ab.onnx", "ab.onnx", "TOSA-1.0+FP", NULL, 1e-5, "ab_fp");
        /* quantized: against the QDQ model `tosac quantize` writes, run on the CPU executor.
         * C (float in that model) is rounded to an accumulator step at compile time (a tiny
         * fraction of an output step) and the integer RESCALE may round a tie the other way
         * than the float QuantizeLinear: 1 output step */
        quantize_ok("ab.onnx", "a8w8", "ab_x.npy", "ab_qdq.onnx");
        gemm_ab_case("ab.onnx", "ab_qdq.onnx", "TOSA-1.0+INT", "a8w8", 1, "ab_int");
        quantize_ok("ab.onnx", "a16w8", "ab_x.npy", "ab_qdq16.onnx");
        gemm_ab_case("ab.onnx", "ab_qdq16.onnx", "TOSA-1.0+INT+int16", "a16w8", 1, "ab_int16");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a16w8_tiny_scales_conv),
        cmocka_unit_test(test_a16w8_tiny_scales_gemm),
        cmocka_unit_test(test_a16w8_quantize_keeps_float_bias),
        cmocka_unit_test(test_a8w8_bias_beyond_int32),
        cmocka_unit_test(test_qdq_float_bias_delegated),
        cmocka_unit_test(test_qdq_float_bias_beyond_int32),
        cmocka_unit_test(test_gemm_alpha_beta_delegated),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
