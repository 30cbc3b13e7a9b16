/* Shape rules of the family files ir_shape_ops_{layout,conv,linalg,signal,image}.c: every
 * expected shape is derived by hand from the ONNX operator definitions (the formula is in the comment next to it). */
#include "ir_shape_testutil.h"

#include <stdint.h>
#include <string.h>

static int in(ir_model *m, const char *name, tosac_dtype dt, int rank, const int64_t *shape)
{
    int id = ir_graph_add_input(m->graph, name, dt, rank, shape, &err);
    assert_true(id >= 0);
    return id;
}

static int i64(ir_model *m, const char *name, int n, const int64_t *v)
{
    int64_t dims[1] = {n};
    int id = ir_graph_add_const(m->graph, name, TOSAC_DT_I64, n == 1 ? 0 : 1, dims, v,
                                sizeof(int64_t) * (size_t)n, &err);
    assert_true(id >= 0);
    return id;
}

static void infer_ok(ir_model *m, int out)
{
    ir_graph_mark_output(m->graph, out, &err);
    assert_int_equal(err.code, TOSAC_OK);
    assert_int_equal(ir_model_infer_shapes(m, &err), TOSAC_OK);
}

static void test_depth_space_gather_elements(void **state)
{
    (void)state;
    ir_model *m = new_model();
    ir_graph *g = m->graph;
    int x = in(m, "x", TOSAC_DT_F32, 4, (int64_t[]){1, 8, 2, 3});
    int d2s = t(m, "d2s"), s2d = t(m, "s2d"), ge = t(m, "ge");
    int n = ir_graph_add_node(g, "DepthToSpace", NULL, "", &x, 1, &d2s, 1, &err);
    ir_node_set_int(g, n, "blocksize", 2, &err);
    n = ir_graph_add_node(g, "SpaceToDepth", NULL, "", &d2s, 1, &s2d, 1, &err);
    ir_node_set_int(g, n, "blocksize", 2, &err);
    int idx = in(m, "idx", TOSAC_DT_I64, 4, (int64_t[]){1, 8, 2, 1});
    n = ir_graph_add_node(g, "GatherElements", NULL, "", (int[]){s2d, idx}, 2, &ge, 1, &err);
    ir_node_set_int(g, n, "axis", 3, &err);
    infer_ok(m, ge);
    /* [1, 8/4, 2*2, 3*2] */
    expect_shape(m, d2s, TOSAC_DT_F32, 4, (int64_t[]){1, 2, 4, 6});
    /* [1, 2*4, 4/2, 6/2] */
    expect_shape(m, s2d, TOSAC_DT_F32, 4, (int64_t[]){1, 8, 2, 3});
    /* indices' shape, data's type */
    expect_shape(m, ge, TOSAC_DT_F32, 4, (int64_t[]){1, 8, 2, 1});
    ir_model_free(m);
}

static void test_depth_to_space_indivisible(void **state)
{
    (void)state;
    ir_model *m = new_model();
    int x = in(m, "x", TOSAC_DT_F32, 4, (int64_t[]){1, 6, 2, 2}), y = t(m, "y");
    int n = ir_graph_add_node(m->graph, "DepthToSpace", NULL, "d2s", &x, 1, &y, 1, &err);
    ir_node_set_int(m->graph, n, "blocksize", 2, &err);
    ir_graph_mark_output(m->graph, y, &err);
    assert_int_equal(ir_model_infer_shapes(m, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "d2s"));
    assert_non_null(strstr(err.msg, "not divisible"));
    ir_model_free(m);
}

static void test_conv_transpose(void **state)
{
    (void)state;
    ir_model *m = new_model();
    ir_graph *g = m->graph;
    int x = in(m, "x", TOSAC_DT_F32, 4, (int64_t[]){1, 4, 5, 7});
    static float w[4 * 3 * 3 * 2];
    /* group 2: 2 output channels per group -> C_out = 3 * 2 = 6 */
    int wi = ir_graph_add_const(g, "w", TOSAC_DT_F32, 4, (int64_t[]){4, 3, 3, 2}, w, sizeof w, &err);
    int a = t(m, "a"), b = t(m, "b"), s = t(m, "s"), o = t(m, "o");
    int n = ir_graph_add_node(g, "ConvTranspose", NULL, "", (int[]){x, wi}, 2, &a, 1, &err);
    ir_node_set_int(g, n, "group", 2, &err);
    ir_node_set_ints(g, n, "strides", (int64_t[]){2, 3}, 2, &err);
    ir_node_set_ints(g, n, "dilations", (int64_t[]){2, 1}, 2, &err);
    ir_node_set_ints(g, n, "pads", (int64_t[]){1, 0, 2, 1}, 4, &err);
    ir_node_set_ints(g, n, "output_padding", (int64_t[]){1, 2}, 2, &err);
    n = ir_graph_add_node(g, "ConvTranspose", NULL, "", (int[]){x, wi}, 2, &b, 1, &err);
    ir_node_set_int(g, n, "group", 2, &err);
    ir_node_set_ints(g, n, "strides", (int64_t[]){2, 2}, 2, &err);
    ir_node_set_string(g, n, "auto_pad", "SAME_UPPER", &err);
    n = ir_graph_add_node(g, "ConvTranspose", NULL, "", (int[]){x, wi}, 2, &o, 1, &err);
    ir_node_set_int(g, n, "group", 2, &err);
    ir_node_set_ints(g, n, "strides", (int64_t[]){2, 2}, 2, &err);
    ir_node_set_ints(g, n, "output_shape", (int64_t[]){10, 15}, 2, &err);
    n = ir_graph_add_node(g, "ConvTranspose", NULL, "", (int[]){x, wi}, 2, &s, 1, &err);
    ir_node_set_int(g, n, "group", 2, &err);
    ir_graph_mark_output(g, a, &err);
    ir_graph_mark_output(g, b, &err);
    ir_graph_mark_output(g, o, &err);
    infer_ok(m, s);
    /* H: 2*(5-1) + 1 + (3-1)*2+1 - (1+2) = 8+1+5-3 = 11; W: 3*(7-1) + 2 + (2-1)*1+1 - (0+1) = 21 */
    expect_shape(m, a, TOSAC_DT_F32, 4, (int64_t[]){1, 6, 11, 21});
    /* SAME_UPPER: in * stride */
    expect_shape(m, b, TOSAC_DT_F32, 4, (int64_t[]){1, 6, 10, 14});
    /* output_shape wins */
    expect_shape(m, o, TOSAC_DT_F32, 4, (int64_t[]){1, 6, 10, 15});
    /* defaults: in + k - 1 */
    expect_shape(m, s, TOSAC_DT_F32, 4, (int64_t[]){1, 6, 7, 8});
    ir_model_free(m);
}

static void test_einsum(void **state)
{
    (void)state;
    ir_model *m = new_model();
    ir_graph *g = m->graph;
    int a = in(m, "a", TOSAC_DT_F32, 3, (int64_t[]){2, 3, 4});
    int b = in(m, "b", TOSAC_DT_F32, 3, (int64_t[]){2, 4, 5});
    int c = in(m, "c", TOSAC_DT_F32, 4, (int64_t[]){7, 1, 3, 4});
    int y = t(m, "y"), imp = t(m, "imp"), ell = t(m, "ell"), tr = t(m, "tr");
    int n = ir_graph_add_node(g, "Einsum", NULL, "", (int[]){a, b}, 2, &y, 1, &err);
    ir_node_set_string(g, n, "equation", "bij,bjk->bik", &err);
    n = ir_graph_add_node(g, "Einsum", NULL, "", (int[]){a, b}, 2, &imp, 1, &err);
    ir_node_set_string(g, n, "equation", "bij,bjk", &err);
    n = ir_graph_add_node(g, "Einsum", NULL, "", (int[]){c, a}, 2, &ell, 1, &err);
    ir_node_set_string(g, n, "equation", "...ij,...ij->...i", &err);
    n = ir_graph_add_node(g, "Einsum", NULL, "", &a, 1, &tr, 1, &err);
    ir_node_set_string(g, n, "equation", "ijk->kji", &err);
    /* implicit output in ASCII order, uppercase first (numpy's, and the CPU operator's: the
     * parser is onnxop_einsum.c for both) */
    int mixed = t(m, "mixed");
    n = ir_graph_add_node(g, "Einsum", NULL, "", &a, 1, &mixed, 1, &err);
    ir_node_set_string(g, n, "equation", "aBc", &err);
    ir_graph_mark_output(g, mixed, &err);
    ir_graph_mark_output(g, y, &err);
    ir_graph_mark_output(g, imp, &err);
    ir_graph_mark_output(g, ell, &err);
    infer_ok(m, tr);
    expect_shape(m, y, TOSAC_DT_F32, 3, (int64_t[]){2, 3, 5});
    /* implicit output: letters used once, alphabetically: i, k */
    expect_shape(m, imp, TOSAC_DT_F32, 2, (int64_t[]){3, 5});
    /* ellipsis [7, 1] broadcast with [2] -> [7, 2], then i = 3 */
    expect_shape(m, ell, TOSAC_DT_F32, 3, (int64_t[]){7, 2, 3});
    expect_shape(m, tr, TOSAC_DT_F32, 3, (int64_t[]){4, 3, 2});
    expect_shape(m, mixed, TOSAC_DT_F32, 3, (int64_t[]){3, 2, 4});
    ir_model_free(m);
}

static void test_signal(void **state)
{
    (void)state;
    ir_model *m = new_model();
    ir_graph *g = m->graph;
    int64_t ten = 10, bins = 8, dft = 16, rate = 8000, step = 4, len = 12;
    int teni = i64(m, "ten", 1, &ten), binsi = i64(m, "bins", 1, &bins);
    int dfti = i64(m, "dft", 1, &dft), ratei = i64(m, "rate", 1, &rate);
    int stepi = i64(m, "step", 1, &step), leni = i64(m, "len", 1, &len);
    float lo = 0, hi = 4000;
    int loi = ir_graph_add_const(g, "lo", TOSAC_DT_F32, 0, NULL, &lo, 4, &err);
    int hii = ir_graph_add_const(g, "hi", TOSAC_DT_F32, 0, NULL, &hi, 4, &err);
    int sig = in(m, "sig", TOSAC_DT_F32, 3, (int64_t[]){2, 50, 1});
    int win = t(m, "win"), mel = t(m, "mel"), d = t(m, "d"), d1 = t(m, "d1"), st = t(m, "st");
    int n = ir_graph_add_node(g, "HannWindow", NULL, "", &teni, 1, &win, 1, &err);
    ir_node_set_int(g, n, "output_datatype", 11, &err);
    ir_graph_add_node(g, "MelWeightMatrix", NULL, "", (int[]){binsi, dfti, ratei, loi, hii}, 5,
                      &mel, 1, &err);
    ir_graph_add_node(g, "DFT", NULL, "", &sig, 1, &d, 1, &err);
    n = ir_graph_add_node(g, "DFT", NULL, "", (int[]){sig, dfti}, 2, &d1, 1, &err);
    ir_node_set_int(g, n, "onesided", 1, &err);
    ir_graph_add_node(g, "STFT", NULL, "", (int[]){sig, stepi, -1, leni}, 4, &st, 1, &err);
    ir_graph_mark_output(g, win, &err);
    ir_graph_mark_output(g, mel, &err);
    ir_graph_mark_output(g, d, &err);
    ir_graph_mark_output(g, d1, &err);
    infer_ok(m, st);
    /* output_datatype 11 = double */
    expect_shape(m, win, TOSAC_DT_F64, 1, (int64_t[]){10});
    /* [16/2 + 1, 8] */
    expect_shape(m, mel, TOSAC_DT_F32, 2, (int64_t[]){9, 8});
    expect_shape(m, d, TOSAC_DT_F32, 3, (int64_t[]){2, 50, 2});
    /* onesided dft_length 16 -> 9 bins */
    expect_shape(m, d1, TOSAC_DT_F32, 3, (int64_t[]){2, 9, 2});
    /* frames (50 - 12) / 4 + 1 = 10, bins 12/2 + 1 = 7 */
    expect_shape(m, st, TOSAC_DT_F32, 4, (int64_t[]){2, 10, 7, 2});
    ir_model_free(m);
}

static void test_sampling_det_unpool(void **state)
{
    (void)state;
    ir_model *m = new_model();
    ir_graph *g = m->graph;
    int x = in(m, "x", TOSAC_DT_F32, 4, (int64_t[]){2, 3, 8, 9});
    int grid = in(m, "grid", TOSAC_DT_F32, 4, (int64_t[]){2, 5, 6, 2});
    int rois = in(m, "rois", TOSAC_DT_F32, 2, (int64_t[]){7, 4});
    int bi = in(m, "bi", TOSAC_DT_I64, 1, (int64_t[]){7});
    int mat = in(m, "mat", TOSAC_DT_F32, 3, (int64_t[]){4, 3, 3});
    int ind = in(m, "ind", TOSAC_DT_I64, 4, (int64_t[]){2, 3, 8, 9});
    int gs = t(m, "gs"), ra = t(m, "ra"), det = t(m, "det"), up = t(m, "up"), rs = t(m, "rs");
    int mvn = t(m, "mvn");
    ir_graph_add_node(g, "GridSample", NULL, "", (int[]){x, grid}, 2, &gs, 1, &err);
    int n = ir_graph_add_node(g, "RoiAlign", NULL, "", (int[]){x, rois, bi}, 3, &ra, 1, &err);
    ir_node_set_int(g, n, "output_height", 2, &err);
    ir_node_set_int(g, n, "output_width", 4, &err);
    ir_graph_add_node(g, "Det", NULL, "", &mat, 1, &det, 1, &err);
    n = ir_graph_add_node(g, "MaxUnpool", NULL, "", (int[]){x, ind}, 2, &up, 1, &err);
    ir_node_set_ints(g, n, "kernel_shape", (int64_t[]){2, 3}, 2, &err);
    ir_node_set_ints(g, n, "strides", (int64_t[]){2, 3}, 2, &err);
    ir_node_set_ints(g, n, "pads", (int64_t[]){0, 1, 0, 1}, 4, &err);
    ir_graph_add_node(g, "ReverseSequence", NULL, "", (int[]){mat, bi}, 2, &rs, 1, &err);
    ir_graph_add_node(g, "MeanVarianceNormalization", NULL, "", &x, 1, &mvn, 1, &err);
    ir_graph_mark_output(g, gs, &err);
    ir_graph_mark_output(g, ra, &err);
    ir_graph_mark_output(g, det, &err);
    ir_graph_mark_output(g, rs, &err);
    ir_graph_mark_output(g, mvn, &err);
    infer_ok(m, up);
    expect_shape(m, gs, TOSAC_DT_F32, 4, (int64_t[]){2, 3, 5, 6});
    expect_shape(m, ra, TOSAC_DT_F32, 4, (int64_t[]){7, 3, 2, 4});
    expect_shape(m, det, TOSAC_DT_F32, 1, (int64_t[]){4});
    /* H: (8-1)*2 + 2 - 0 = 16; W: (9-1)*3 + 3 - 2 = 25 */
    expect_shape(m, up, TOSAC_DT_F32, 4, (int64_t[]){2, 3, 16, 25});
    expect_shape(m, rs, TOSAC_DT_F32, 3, (int64_t[]){4, 3, 3});
    expect_shape(m, mvn, TOSAC_DT_F32, 4, (int64_t[]){2, 3, 8, 9});
    ir_model_free(m);
}

static void test_gather_nd_one_hot(void **state)
{
    (void)state;
    ir_model *m = new_model();
    ir_graph *g = m->graph;
    int x = in(m, "x", TOSAC_DT_I32, 4, (int64_t[]){2, 5, 6, 7});
    int idx = in(m, "idx", TOSAC_DT_I64, 3, (int64_t[]){2, 4, 2});
    int64_t depth = 10, vals[2] = {0, 1};
    int di = i64(m, "depth", 1, &depth), vi = i64(m, "vals", 2, vals);
    int gnd = t(m, "gnd"), oh = t(m, "oh");
    int n = ir_graph_add_node(g, "GatherND", NULL, "", (int[]){x, idx}, 2, &gnd, 1, &err);
    ir_node_set_int(g, n, "batch_dims", 1, &err);
    n = ir_graph_add_node(g, "OneHot", NULL, "", (int[]){idx, di, vi}, 3, &oh, 1, &err);
    ir_node_set_int(g, n, "axis", 1, &err);
    ir_graph_mark_output(g, gnd, &err);
    infer_ok(m, oh);
    /* [2, 4] + data.shape[1 + 2:] = [2, 4, 7] */
    expect_shape(m, gnd, TOSAC_DT_I32, 3, (int64_t[]){2, 4, 7});
    expect_shape(m, oh, TOSAC_DT_I64, 4, (int64_t[]){2, 10, 4, 2});
    ir_model_free(m);
}

/* Unique: the output size is data dependent, named in the error; a declared shape is used. */
static void test_data_dependent(void **state)
{
    (void)state;
    ir_model *m = new_model();
    int x = in(m, "x", TOSAC_DT_F32, 1, (int64_t[]){6}), y = t(m, "y");
    ir_graph_add_node(m->graph, "Unique", NULL, "uniq", &x, 1, &y, 1, &err);
    ir_graph_mark_output(m->graph, y, &err);
    assert_int_equal(ir_model_infer_shapes(m, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "uniq"));
    assert_non_null(strstr(err.msg, "depends on the input values"));
    ir_model_free(m);

    m = new_model();
    x = in(m, "x", TOSAC_DT_F32, 2, (int64_t[]){10, 4});
    int s = in(m, "s", TOSAC_DT_F32, 3, (int64_t[]){1, 2, 10});
    y = ir_graph_add_tensor(m->graph, "sel", TOSAC_DT_I64, 2, (int64_t[]){3, 3}, &err);
    ir_graph_add_node(m->graph, "NonMaxSuppression", NULL, "", (int[]){x, s}, 2, &y, 1, &err);
    infer_ok(m, y);
    expect_shape(m, y, TOSAC_DT_I64, 2, (int64_t[]){3, 3});
    ir_model_free(m);
}

static void test_recurrent_loss_tfidf(void **state)
{
    (void)state;
    ir_model *m = new_model();
    ir_graph *g = m->graph;
    /* LSTM, layout 1, bidirectional: X [B=2, S=5, I=3], W [2, 4*H=4*6, 3] */
    int x = in(m, "x", TOSAC_DT_F32, 3, (int64_t[]){2, 5, 3});
    static float w[2 * 24 * 3], r[2 * 24 * 6], gw[1 * 12 * 3], gr[1 * 12 * 4];
    int wi = ir_graph_add_const(g, "w", TOSAC_DT_F32, 3, (int64_t[]){2, 24, 3}, w, sizeof w, &err);
    int ri = ir_graph_add_const(g, "r", TOSAC_DT_F32, 3, (int64_t[]){2, 24, 6}, r, sizeof r, &err);
    int y = t(m, "y"), yh = t(m, "yh"), yc = t(m, "yc");
    int n = ir_graph_add_node(g, "LSTM", NULL, "", (int[]){x, wi, ri}, 3, (int[]){y, yh, yc}, 3, &err);
    ir_node_set_int(g, n, "layout", 1, &err);
    ir_node_set_string(g, n, "direction", "bidirectional", &err);
    /* GRU, layout 0, forward: X [S=2, B=5, I=3], W [1, 3*H=3*4, 3] */
    int gwi = ir_graph_add_const(g, "gw", TOSAC_DT_F32, 3, (int64_t[]){1, 12, 3}, gw, sizeof gw, &err);
    int gri = ir_graph_add_const(g, "gr", TOSAC_DT_F32, 3, (int64_t[]){1, 12, 4}, gr, sizeof gr, &err);
    int gy = t(m, "gy"), gh = t(m, "gh");
    ir_graph_add_node(g, "GRU", NULL, "", (int[]){x, gwi, gri}, 3, (int[]){gy, gh}, 2, &err);
    /* losses: scores [3, 4, 7], target [3, 7] */
    int sc = in(m, "sc", TOSAC_DT_F32, 3, (int64_t[]){3, 4, 7});
    int tg = in(m, "tg", TOSAC_DT_I64, 2, (int64_t[]){3, 7});
    int nll = t(m, "nll"), sce = t(m, "sce"), lp = t(m, "lp");
    n = ir_graph_add_node(g, "NegativeLogLikelihoodLoss", NULL, "", (int[]){sc, tg}, 2, &nll, 1, &err);
    ir_node_set_string(g, n, "reduction", "none", &err);
    ir_graph_add_node(g, "SoftmaxCrossEntropyLoss", NULL, "", (int[]){sc, tg}, 2, (int[]){sce, lp}, 2, &err);
    int tok = in(m, "tok", TOSAC_DT_I32, 2, (int64_t[]){2, 9}), tf = t(m, "tf");
    n = ir_graph_add_node(g, "TfIdfVectorizer", NULL, "", &tok, 1, &tf, 1, &err);
    ir_node_set_ints(g, n, "ngram_indexes", (int64_t[]){0, 4, 2}, 3, &err);
    const int ys[] = {y, yh, gy, gh, nll, sce, lp};
    for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++)
        ir_graph_mark_output(g, ys[i], &err);
    infer_ok(m, tf);
    expect_shape(m, y, TOSAC_DT_F32, 4, (int64_t[]){2, 5, 2, 6});
    expect_shape(m, yh, TOSAC_DT_F32, 3, (int64_t[]){2, 2, 6});
    expect_shape(m, yc, TOSAC_DT_F32, 3, (int64_t[]){2, 2, 6});
    expect_shape(m, gy, TOSAC_DT_F32, 4, (int64_t[]){2, 1, 5, 4});
    expect_shape(m, gh, TOSAC_DT_F32, 3, (int64_t[]){1, 5, 4});
    expect_shape(m, nll, TOSAC_DT_F32, 2, (int64_t[]){3, 7});
    expect_shape(m, sce, TOSAC_DT_F32, 0, NULL);
    expect_shape(m, lp, TOSAC_DT_F32, 3, (int64_t[]){3, 4, 7});
    /* max index 4 -> 5 columns */
    expect_shape(m, tf, TOSAC_DT_F32, 2, (int64_t[]){2, 5});
    ir_model_free(m);
}

/* Hostile attributes and values: one error naming the node and the problem, no overflow. */
static void expect_error(ir_model *m, int out, tosac_code code, const char *what)
{
    ir_graph_mark_output(m->graph, out, &err);
    assert_int_equal(ir_model_infer_shapes(m, &err), code);
    assert_non_null(strstr(err.msg, "'bad'"));
    assert_non_null(strstr(err.msg, what));
    ir_model_free(m);
}

static void test_hostile_inputs(void **state)
{
    (void)state;
    static float w[2 * 2 * 3 * 3];
    const int64_t ws[4] = {2, 2, 3, 3};
    ir_model *m = new_model();
    int x = in(m, "x", TOSAC_DT_F32, 4, (int64_t[]){1, 2, 4, 4}), y = t(m, "y");
    int wi = ir_graph_add_const(m->graph, "w", TOSAC_DT_F32, 4, ws, w, sizeof w, &err);
    int n = ir_graph_add_node(m->graph, "ConvTranspose", NULL, "bad", (int[]){x, wi}, 2, &y, 1, &err);
    ir_node_set_ints(m->graph, n, "pads", (int64_t[]){INT64_MAX, 0, INT64_MAX, 0}, 4, &err);
    expect_error(m, y, TOSAC_ERR_INPUT, "pads out of range");

    m = new_model();
    x = in(m, "x", TOSAC_DT_F32, 4, (int64_t[]){1, 2, 4, 4}), y = t(m, "y");
    wi = ir_graph_add_const(m->graph, "w", TOSAC_DT_F32, 4, ws, w, sizeof w, &err);
    n = ir_graph_add_node(m->graph, "ConvTranspose", NULL, "bad", (int[]){x, wi}, 2, &y, 1, &err);
    ir_node_set_ints(m->graph, n, "strides", (int64_t[]){INT64_MAX / 2, 1}, 2, &err);
    expect_error(m, y, TOSAC_ERR_INPUT, "invalid stride, dilation or kernel");

    m = new_model();
    int64_t neg = -3;
    int ni = i64(m, "neg", 1, &neg);
    y = t(m, "y");
    ir_graph_add_node(m->graph, "HannWindow", NULL, "bad", &ni, 1, &y, 1, &err);
    expect_error(m, y, TOSAC_ERR_INPUT, "negative window size");

    /* a runtime frame_step: the size is unknown and nothing is declared */
    m = new_model();
    x = in(m, "x", TOSAC_DT_F32, 3, (int64_t[]){1, 20, 1});
    int st = in(m, "st", TOSAC_DT_I64, 0, NULL);
    int64_t len = 8;
    int li = i64(m, "len", 1, &len);
    y = t(m, "y");
    ir_graph_add_node(m->graph, "STFT", NULL, "bad", (int[]){x, st, -1, li}, 4, &y, 1, &err);
    expect_error(m, y, TOSAC_ERR_UNSUPPORTED, "a size input is not a known constant");

    m = new_model();
    x = in(m, "x", TOSAC_DT_F32, 2, (int64_t[]){2, 3});
    y = t(m, "y");
    n = ir_graph_add_node(m->graph, "Einsum", NULL, "bad", &x, 1, &y, 1, &err);
    ir_node_set_string(m->graph, n, "equation", "ij->iz", &err);
    expect_error(m, y, TOSAC_ERR_INPUT, "names an index no input has");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depth_space_gather_elements),
        cmocka_unit_test(test_depth_to_space_indivisible),
        cmocka_unit_test(test_conv_transpose),
        cmocka_unit_test(test_einsum),
        cmocka_unit_test(test_signal),
        cmocka_unit_test(test_sampling_det_unpool),
        cmocka_unit_test(test_gather_nd_one_hot),
        cmocka_unit_test(test_data_dependent),
        cmocka_unit_test(test_recurrent_loss_tfidf),
        cmocka_unit_test(test_hostile_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
