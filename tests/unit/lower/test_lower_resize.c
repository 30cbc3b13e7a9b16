/* Lowering Resize / Upsample to RESIZE: scale/offset/border per coordinate mode and nearest
 * mode, NCHW<->NHWC transposes, int8 bilinear (i32 result, zero point ADD, one RESCALE),
 * rejections, interpreter runs against the ONNX backend-test outputs, and nearest-mode ties
 * compiled and run as programs. */
#include "lower_testutil.h"

#include "cpu/cpu_exec.h"
#include "tosac/compile.h"
#include "tosac/onnx.h"
#include "tosac/program.h"

/* one channel: the NCHW <-> NHWC transposes around RESIZE only move a size-1 dimension and
 * the cleanup turns them into RESHAPEs */
static const int64_t in_s[4] = {1, 1, 2, 2}, out_s[4] = {1, 1, 4, 4};
static const float in_v[4] = {1, 2, 3, 4};

static void set_str(ir_graph *g, int node, const char *name, const char *v)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_string(g, node, name, v, &err), TOSAC_OK);
}

/* Resize(X, roi omitted, scales omitted, sizes) [1,1,2,2] -> [1,1,4,4]. */
static ir_graph *resize_to_4x4(tosac_dtype dt, const char *mode, const char *coord, int *node)
{
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t four = 4;
    int x = lt_input(g, "x", dt, 4, in_s);
    int sz = lt_const(g, "sizes", TOSAC_DT_I64, 1, &four, out_s);
    int y = lt_tensor(g, "y", dt, 4, out_s);
    int ins[4] = {x, -1, -1, sz};
    *node = lt_node(g, "Resize", ins, 4, &y, 1);
    set_str(g, *node, "mode", mode);
    if (coord)
        set_str(g, *node, "coordinate_transformation_mode", coord);
    return g;
}

static const int64_t *shape_operand(const tosa_graph *tg, const tosa_operator *o, int i)
{
    return tosa_graph_main_block(tg)->tensors[o->inputs[i]].data;
}

/* Upsample (opset 9) nearest x2: asymmetric + floor. */
static void test_upsample_nearest(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t four = 4;
    const float sc[4] = {1, 1, 2, 2};
    int x = lt_input(g, "x", TOSAC_DT_F32, 4, in_s);
    int s = lt_const(g, "scales", TOSAC_DT_F32, 1, &four, sc);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 4, out_s);
    int ins[2] = {x, s};
    lt_node(g, "Upsample", ins, 2, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    assert_string_equal(lt_ops(tg), "RESHAPE RESIZE RESHAPE");
    const tosa_operator *o = lt_find_op(tg, TOSA_OP_RESIZE, 0);
    assert_int_equal(o->attr.mode, TOSA_RESIZE_NEAREST);
    /* scale 2/1 doubled for floor: N=4, D=2; offset -N/2*2 = -2; border 3*2 - 1*4 - 2 = 0 */
    const int64_t *scale = shape_operand(tg, o, 1), *off = shape_operand(tg, o, 2),
                  *border = shape_operand(tg, o, 3);
    assert_int_equal(scale[0], 4);
    assert_int_equal(scale[1], 2);
    assert_int_equal(off[0], -2);
    assert_int_equal(border[0], 0);
    tosac_tensor in = lt_host(TOSAC_DT_F32, 4, in_s, in_v), out;
    lt_run(tg, &in, 1, &out);
    const float want[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
    lt_expect_f32(&out, want, 16, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* Linear half_pixel x2 (ONNX test_resize_upsample_scales_linear) and align_corners
 * (test_resize_upsample_scales_linear_align_corners). */
static void test_linear_float(void **state)
{
    (void)state;
    static const float half_pixel[16] = {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f,
                                         2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4};
    static const float corners[16] = {1, 1.33333333f, 1.66666667f, 2,
                                      1.66666667f, 2, 2.33333333f, 2.66666667f,
                                      2.33333333f, 2.66666667f, 3, 3.33333333f,
                                      3, 3.33333333f, 3.66666667f, 4};
    for (int k = 0; k < 2; k++) {
        int node;
        ir_graph *g = resize_to_4x4(TOSAC_DT_F32, "linear", k ? "align_corners" : NULL, &node);
        tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
        const tosa_operator *o = lt_find_op(tg, TOSA_OP_RESIZE, 0);
        assert_int_equal(o->attr.mode, TOSA_RESIZE_BILINEAR);
        const int64_t *scale = shape_operand(tg, o, 1), *off = shape_operand(tg, o, 2);
        /* half_pixel: N = 2*2, D = 2*1, offset d - n = -1; align_corners: 3/1, offset 0 */
        assert_int_equal(scale[0], k ? 3 : 4);
        assert_int_equal(scale[1], k ? 1 : 2);
        assert_int_equal(off[0], k ? 0 : -1);
        tosac_tensor in = lt_host(TOSAC_DT_F32, 4, in_s, in_v), out;
        lt_run(tg, &in, 1, &out);
        lt_expect_f32(&out, k ? corners : half_pixel, 16, 1e-6, 1e-6);
        tosac_tensor_free(&out);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
}

/* Default Resize nearest (half_pixel, round_prefer_floor), scales 0.6: ONNX
 * test_resize_downsample_scales_nearest, [[1,2,3,4],[5,6,7,8]] -> [[1,3]]. */
static void test_nearest_downsample(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[4] = {1, 1, 2, 4}, ys[4] = {1, 1, 1, 2}, four = 4;
    const float sc[4] = {1, 1, 0.6f, 0.6f};
    int x = lt_input(g, "x", TOSAC_DT_F32, 4, xs);
    int s = lt_const(g, "scales", TOSAC_DT_F32, 1, &four, sc);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    int ins[3] = {x, -1, s};
    lt_node(g, "Resize", ins, 3, &y, 1);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+FP", g);
    const float xv[8] = {1, 2, 3, 4, 5, 6, 7, 8}, want[2] = {1, 3};
    tosac_tensor in = lt_host(TOSAC_DT_F32, 4, xs, xv), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_f32(&out, want, 2, 0, 0);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int8 linear half_pixel x2 at (0.5, zp -2): real input [1,2,3,4] is q [0,2,4,6]. RESIZE
 * gives i32 at 16x (N_y = N_x = 4), ADD 16*2 removes the zero point, RESCALE by 1/16 and adds
 * zp -2: q = round_half_up(2 * real) - 2 for the float outputs above. */
static void test_int8_bilinear(void **state)
{
    (void)state;
    int node;
    ir_graph *g = resize_to_4x4(TOSAC_DT_I8, "linear", NULL, &node);
    lt_quant(g, g->inputs[0], 0.5f, -2);
    lt_quant(g, g->outputs[0], 0.5f, -2);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "RESHAPE RESIZE ADD RESCALE RESHAPE");
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_RESIZE, 0)), TOSAC_DT_I32);
    const int8_t xq[4] = {0, 2, 4, 6};
    const int8_t want[16] = {0, 1, 2, 2, 1, 2, 3, 3, 3, 4, 5, 5, 4, 5, 6, 6};
    tosac_tensor in = lt_host(TOSAC_DT_I8, 4, in_s, xq), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_bytes(&out, TOSAC_DT_I8, want, 16);
    static const float ref[16] = {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f,
                                  2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4};
    lt_expect_dequant(&out, 0.5f, -2, ref, 16);
    tosac_tensor_free(&out);
    tosa_graph_free(tg);
    ir_graph_free(g);

    /* nearest keeps the integers: no RESCALE */
    g = resize_to_4x4(TOSAC_DT_I8, "nearest", "asymmetric", &node);
    lt_quant(g, g->inputs[0], 0.5f, -2);
    lt_quant(g, g->outputs[0], 0.5f, -2);
    tg = lt_lower_ok("TOSA-1.0+INT", g);
    assert_string_equal(lt_ops(tg), "RESHAPE RESIZE RESHAPE");
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_RESIZE, 0)), TOSAC_DT_I8);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

/* int16 linear x2 at (0.5, zp 0): RESIZE gives i48 (EXT-INT16), the RESCALE from i48 uses
 * 16-bit multipliers; q = round_half_up(2 * real) for the float outputs above. */
static void test_int16_bilinear(void **state)
{
    (void)state;
    int node;
    ir_graph *g = resize_to_4x4(TOSAC_DT_I16, "linear", NULL, &node);
    lt_quant(g, g->inputs[0], 0.5f, 0);
    lt_quant(g, g->outputs[0], 0.5f, 0);
    tosa_graph *tg = lt_lower_ok("TOSA-1.0+INT+int16", g);
    assert_string_equal(lt_ops(tg), "RESHAPE RESIZE RESCALE RESHAPE");
    assert_int_equal(lt_out_dtype(tg, lt_find_op(tg, TOSA_OP_RESIZE, 0)), TOSAC_DT_I48);
    assert_false(lt_find_op(tg, TOSA_OP_RESCALE, 0)->attr.scale32);
    const int16_t xq[4] = {2, 4, 6, 8};
    const int16_t want[16] = {2, 3, 4, 4, 3, 4, 5, 5, 5, 6, 7, 7, 6, 7, 8, 8};
    tosac_tensor in = lt_host(TOSAC_DT_I16, 4, in_s, xq), out;
    lt_run(tg, &in, 1, &out);
    lt_expect_bytes(&out, TOSAC_DT_I16, want, 16);
    tosac_tensor_free(&out);
    assert_string_equal(lt_trial("TOSA-1.0+INT", g, 0),
                        "RESIZE: in_t=i16 out_t=i48 needs EXT-INT16");
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_rejections(void **state)
{
    (void)state;
    int node;
    ir_graph *g = resize_to_4x4(TOSAC_DT_F32, "cubic", NULL, &node);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), "Resize: mode 'cubic'");
    ir_graph_free(g);
    g = resize_to_4x4(TOSAC_DT_F32, "linear", "tf_crop_and_resize", &node);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0),
                        "Resize: coordinate_transformation_mode 'tf_crop_and_resize'");
    ir_graph_free(g);

    g = ir_graph_new("g", NULL);
    const int64_t four = 4, ys[4] = {1, 1, 2, 2};
    const float sc[4] = {1, 1, 1.2345678f, 1};
    int x = lt_input(g, "x", TOSAC_DT_F32, 4, in_s);
    int s = lt_const(g, "scales", TOSAC_DT_F32, 1, &four, sc);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    int ins[3] = {x, -1, s};
    lt_node(g, "Resize", ins, 3, &y, 1);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0),
                        "Resize: scale 1.23457 is not a ratio of small integers");
    ir_graph_free(g);
}

/* ---- nearest-mode ties through the whole compile path ----
 * Resize nearest on a model compiled by tosac_compile_model and run as a program, float and
 * int8 (Q/DQ at scale 1, zp 0: the values are the indices' own integers), each ONNX
 * nearest_mode, where every sampling position is a tie or an exact index:
 *  - half_pixel x0.5 on 8 columns: x_orig = (o + 0.5) * 2 - 0.5 = 2o + 0.5, a tie for every o;
 *  - asymmetric x2 on 4 columns: x_orig = o / 2, a tie at every odd o, clamped to column 3.
 * x[c] = 10 * c + 1, so the output names the chosen column. The CPU executor (the ONNX
 * semantics) gives the same values. */
typedef struct nearest_tie {
    const char *coord, *mode;
    int in_w, out_w;
    float scale;
    int col[8]; /* the column each output samples */
} nearest_tie;

static ir_model *nearest_model(const nearest_tie *t, int quantized)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_int_equal(ir_model_set_opset(m, "", 13, &err), TOSAC_OK);
    ir_graph *g = m->graph;
    const int64_t xs[4] = {1, 1, 1, t->in_w}, ys[4] = {1, 1, 1, t->out_w}, four = 4;
    const float sc[4] = {1, 1, 1, t->scale}, one = 1.0f;
    const int8_t zero = 0;
    int x = lt_input(g, "x", TOSAC_DT_F32, 4, xs), r_in = x;
    int s = lt_const(g, "scales", TOSAC_DT_F32, 1, &four, sc);
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 4, ys), r_out = y;
    int sq = -1, zq = -1;
    if (quantized) {
        sq = lt_const(g, "s", TOSAC_DT_F32, 0, NULL, &one);
        zq = lt_const(g, "z", TOSAC_DT_I8, 0, NULL, &zero);
        int xq = lt_tensor(g, "x_q", TOSAC_DT_I8, 4, xs);
        r_in = lt_tensor(g, "x_f", TOSAC_DT_F32, 4, xs);
        int qi[3] = {x, sq, zq}, di[3] = {xq, sq, zq};
        assert_true(ir_graph_add_node(g, "QuantizeLinear", NULL, "q", qi, 3, &xq, 1, &err) >= 0);
        assert_true(ir_graph_add_node(g, "DequantizeLinear", NULL, "dq", di, 3, &r_in, 1, &err) >= 0);
        r_out = lt_tensor(g, "r_f", TOSAC_DT_F32, 4, ys);
    }
    int ins[3] = {r_in, -1, s};
    int n = ir_graph_add_node(g, "Resize", NULL, "resize", ins, 3, &r_out, 1, &err);
    assert_true(n >= 0);
    set_str(g, n, "mode", "nearest");
    set_str(g, n, "coordinate_transformation_mode", t->coord);
    set_str(g, n, "nearest_mode", t->mode);
    if (quantized) {
        int rq = lt_tensor(g, "r_q", TOSAC_DT_I8, 4, ys);
        int qi[3] = {r_out, sq, zq}, di[3] = {rq, sq, zq};
        assert_true(ir_graph_add_node(g, "QuantizeLinear", NULL, "q2", qi, 3, &rq, 1, &err) >= 0);
        assert_true(ir_graph_add_node(g, "DequantizeLinear", NULL, "dq2", di, 3, &y, 1, &err) >= 0);
    }
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(onnx_record_quant(g, &err), TOSAC_OK);
    return m;
}

static void test_nearest_ties_compiled(void **state)
{
    (void)state;
    static const nearest_tie ties[] = {
        {"half_pixel", "round_prefer_floor", 8, 4, 0.5f, {0, 2, 4, 6}},
        {"half_pixel", "round_prefer_ceil", 8, 4, 0.5f, {1, 3, 5, 7}},
        {"half_pixel", "floor", 8, 4, 0.5f, {0, 2, 4, 6}},
        {"half_pixel", "ceil", 8, 4, 0.5f, {1, 3, 5, 7}},
        {"asymmetric", "round_prefer_floor", 4, 8, 2.0f, {0, 0, 1, 1, 2, 2, 3, 3}},
        {"asymmetric", "round_prefer_ceil", 4, 8, 2.0f, {0, 1, 1, 2, 2, 3, 3, 3}},
        {"asymmetric", "floor", 4, 8, 2.0f, {0, 0, 1, 1, 2, 2, 3, 3}},
        {"asymmetric", "ceil", 4, 8, 2.0f, {0, 1, 1, 2, 2, 3, 3, 3}},
    };
    for (size_t k = 0; k < sizeof ties / sizeof ties[0]; k++)
        for (int quantized = 0; quantized < 2; quantized++) {
            const nearest_tie *t = &ties[k];
            float xv[8], want[8];
            for (int i = 0; i < t->in_w; i++)
                xv[i] = (float)(10 * i + 1);
            for (int i = 0; i < t->out_w; i++)
                want[i] = xv[t->col[i]];
            const int64_t xs[4] = {1, 1, 1, t->in_w};
            tosac_tensor in = lt_host(TOSAC_DT_F32, 4, xs, xv), ref, got;
            tosac_error err;
            tosac_error_clear(&err);
            ir_model *rm = nearest_model(t, quantized);
            assert_int_equal(cpu_run_model(rm, &in, 1, &ref, 1, &err), TOSAC_OK);
            ir_model_free(rm);
            lt_expect_f32(&ref, want, t->out_w, 0, 0);
            tosac_compile_options o;
            memset(&o, 0, sizeof o);
            o.spec = quantized ? "TOSA-1.0+INT" : "TOSA-1.0+FP";
            tosac_program *p = NULL;
            if (tosac_compile_model(nearest_model(t, quantized), &o, &p, NULL, &err))
                fail_msg("%s %s: compile: %s", t->coord, t->mode, err.msg);
            assert_int_equal(tosac_program_n_delegates(p), 1);
            assert_non_null(lt_find_op(tosac_program_delegate(p, 0), TOSA_OP_RESIZE, 0));
            if (tosac_program_run(p, &in, 1, &got, 1, &err))
                fail_msg("%s %s: run: %s", t->coord, t->mode, err.msg);
            if (memcmp(got.data, want, (size_t)t->out_w * sizeof *want) != 0)
                print_error("%s %s %s: output differs\n", t->coord, t->mode,
                            quantized ? "int8" : "float");
            lt_expect_f32(&got, want, t->out_w, 0, 0);
            tosac_tensor_free(&got);
            tosac_tensor_free(&ref);
            tosac_program_free(p);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upsample_nearest),
        cmocka_unit_test(test_linear_float),
        cmocka_unit_test(test_nearest_downsample),
        cmocka_unit_test(test_int8_bilinear),
        cmocka_unit_test(test_int16_bilinear),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_nearest_ties_compiled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
