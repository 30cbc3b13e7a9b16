/* GridSample under TOSA-1.0+FP (lower_grid_sample.c): hand-computed values on a 2x2 image
 * through both the CPU executor and the compiled program (every value below is exact in
 * f32, so both must give it exactly), the program bit-identical to the CPU executor on
 * random data for every mode (linear, nearest, cubic, both opsets' spellings) x padding
 * (zeros, border) x align_corners it lowers (it repeats
 * kern_grid_sample's float operations in the same order; reflection within a stated
 * tolerance: the kernel reflects in double), degenerate images and a NaN coordinate, and the
 * refusals with their ONNX reasons (the CPU then runs the node). */
#include "lower_core_testutil.h"
#include "lower_testutil.h"

#include <stdlib.h>

#include "cpu/cpu_exec.h"
#include "tosac/compile.h"
#include "tosac/program.h"

typedef struct gs_form {
    int64_t opset;
    const char *mode, *pad; /* NULL: the attribute is absent (its default) */
    int align;
} gs_form;

static ir_model *gs_model(const gs_form *f, const int64_t xs[4], const int64_t gs[4])
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_int_equal(ir_model_set_opset(m, "", f->opset, &err), TOSAC_OK);
    ir_graph *g = m->graph;
    const int64_t ys[4] = {xs[0], xs[1], gs[1], gs[2]};
    int ins[2] = {lt_input(g, "x", TOSAC_DT_F32, 4, xs), lt_input(g, "grid", TOSAC_DT_F32, 4, gs)};
    int y = lt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    int k = ir_graph_add_node(g, "GridSample", NULL, "gs", ins, 2, &y, 1, &err);
    assert_true(k >= 0);
    if (f->mode)
        assert_int_equal(ir_node_set_string(g, k, "mode", f->mode, &err), TOSAC_OK);
    if (f->pad)
        assert_int_equal(ir_node_set_string(g, k, "padding_mode", f->pad, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_int(g, k, "align_corners", f->align, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(ir_model_infer_shapes(m, &err), TOSAC_OK);
    return m;
}

/* The CPU executor's output and the TOSA-1.0+FP program's (one delegate holding GATHER, no
 * CPU node), both for the same model and inputs. */
static void run_both(const gs_form *f, const int64_t xs[4], const float *xv, const int64_t gs[4],
                     const float *gv, tosac_tensor *cpu, tosac_tensor *prog)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_tensor in[2] = {lt_host(TOSAC_DT_F32, 4, xs, xv), lt_host(TOSAC_DT_F32, 4, gs, gv)};
    ir_model *m = gs_model(f, xs, gs);
    assert_int_equal(cpu_run_model(m, in, 2, cpu, 1, &err), TOSAC_OK);
    ir_model_free(m);
    tosac_program *p = bt_compile(gs_model(f, xs, gs), "TOSA-1.0+FP", NULL);
    assert_int_equal(tosac_program_n_delegates(p), 1);
    assert_non_null(lt_find_op(tosac_program_delegate(p, 0), TOSA_OP_GATHER, 0));
    const ir_graph *cg = tosac_program_cpu(p)->graph;
    assert_int_equal(cg->n_nodes, 1);
    assert_string_equal(cg->nodes[0].op_type, TOSAC_DELEGATE_OP);
    if (tosac_program_run(p, in, 2, prog, 1, &err))
        fail_msg("run: %s", err.msg);
    tosac_program_free(p);
}

static void expect_both(const gs_form *f, const float *gv, int n, const float *want)
{
    static const float xv[4] = {1, 2, 3, 4}; /* [[1, 2], [3, 4]] */
    const int64_t xs[4] = {1, 1, 2, 2}, gs[4] = {1, 1, n, 2};
    tosac_tensor cpu, prog;
    run_both(f, xs, xv, gs, gv, &cpu, &prog);
    lt_expect_f32(&cpu, want, n, 0, 0);
    lt_expect_f32(&prog, want, n, 0, 0);
    tosac_tensor_free(&cpu);
    tosac_tensor_free(&prog);
}

/* Grid points (x, y) on [[1, 2], [3, 4]], worked out from ONNX's definition. */
static void test_hand_values(void **state)
{
    (void)state;
    /* bilinear, zeros, align_corners 0: pixel = ((g + 1) * 2 - 1) / 2.
     * (0, 0) -> (0.5, 0.5): the mean 2.5; (-1, -1) -> (-0.5, -0.5): only pixel (0, 0) inside,
     * weight 1/4; (1, -1) -> (1.5, -0.5): only (0, 1) = 2 inside, weight 1/4; (0.5, 0) ->
     * (1, 0.5): column 1 exactly, rows 0 and 1 halved: (2 + 4) / 2 */
    const gs_form bil = {16, NULL, NULL, 0};
    const float g1[8] = {0, 0, -1, -1, 1, -1, 0.5f, 0}, w1[4] = {2.5f, 0.25f, 0.5f, 3};
    expect_both(&bil, g1, 4, w1);
    /* border: coordinates clamped into [0, 1] first: (-1, -1) -> pixel (0, 0); (1, -1) ->
     * (1, 0); (1, 1) -> (1, 1) */
    const gs_form border = {16, "bilinear", "border", 0};
    const float g2[8] = {0, 0, -1, -1, 1, -1, 1, 1}, w2[4] = {2.5f, 1, 2, 4};
    expect_both(&border, g2, 4, w2);
    /* opset 20 "linear", align_corners 1: pixel = (g + 1) / 2 * (len - 1): the corners are
     * pixel centres; (0.5, -1) -> (0.75, 0): 1/4 * 1 + 3/4 * 2 */
    const gs_form lin = {20, "linear", "zeros", 1};
    const float g3[8] = {-1, -1, 1, 1, 0, 0, 0.5f, -1}, w3[4] = {1, 4, 2.5f, 1.75f};
    expect_both(&lin, g3, 4, w3);
    /* nearest, zeros, align_corners 0, ties to even: (0, 0) -> (0.5, 0.5) -> (0, 0); (1, 0)
     * -> x 1.5 -> 2, outside: 0; (-1, 0.5) -> (-0.5, 1) -> (0, 1) = 3; (0.5, -0.5) -> (1, 0)
     * = 2 */
    const gs_form nea = {20, "nearest", NULL, 0};
    const float g4[8] = {0, 0, 1, 0, -1, 0.5f, 0.5f, -0.5f}, w4[4] = {1, 0, 3, 2};
    expect_both(&nea, g4, 4, w4);
    /* nearest, border: (1, 0) -> x clamped to 1 before rounding -> (1, 0) = 2 */
    const gs_form neb = {16, "nearest", "border", 0};
    const float g5[4] = {1, 0, 1, 1}, w5[2] = {2, 4};
    expect_both(&neb, g5, 2, w5);
    /* cubic (A = -0.75), align_corners 1: a pixel centre has weights (0, 1, 0, 0): the pixel
     * itself; the middle (0, 0) -> (0.5, 0.5) has weights (-3, 19, 19, -3) / 32 on taps -1..2:
     * under zeros only taps 0 and 1 are inside, 19/32 (19/32 (1 + 2)) + 19/32 (19/32 (3 + 4))
     * = 3610/1024; under border the taps clamp to 0, 0, 1, 1: 16/32 (1.5 + 3.5) = 2.5 */
    const gs_form cub = {20, "cubic", "zeros", 1};
    const float g6[8] = {-1, -1, 1, 1, 0, 0, 1, -1}, w6[4] = {1, 4, 3610.0f / 1024, 2};
    expect_both(&cub, g6, 4, w6);
    const gs_form cbb = {16, "bicubic", "border", 1};
    const float g7[4] = {0, 0, -1, -1}, w7[2] = {2.5f, 1};
    expect_both(&cbb, g7, 2, w7);
    /* reflection, align_corners 0: mirrored at the image edges -0.5 and 1.5 (span 2).
     * (-1, -1) -> (-0.5, -0.5): the taps -1 and 0 reflect to 0: pixel (0, 0); (-1.5, 0) ->
     * x -1 -> -0.5 + 0.5 = 0, y 0.5: column 0 halved, (1 + 3) / 2; (2, 0) -> x 2.5 -> 1.5 - 1
     * = 0.5: the mean; (3, 0) -> x 3.5, one span and 0 beyond (odd count) -> -0.5 + 0:
     * column 0; (-3.5, 0) -> x -3, one span and 0.5 beyond the left edge -> 1.5 - 0.5 = 1:
     * column 1, (2 + 4) / 2; (1.75, 0) -> x 2.25 -> 1.5 - 0.75 = 0.75: rows 0.25 * 1 + 0.75 *
     * 2 and 0.25 * 3 + 0.75 * 4, halved */
    const gs_form ref = {16, "bilinear", "reflection", 0};
    const float g8[12] = {-1, -1, -1.5f, 0, 2, 0, 3, 0, -3.5f, 0, 1.75f, 0};
    const float w8[6] = {1, 2, 2.5f, 2, 3, 2.75f};
    expect_both(&ref, g8, 6, w8);
    /* align_corners 1: mirrored at the pixel centres 0 and 1: (2, -1) -> x 1.5 -> 0.5, row 0 */
    const gs_form ref1 = {20, "linear", "reflection", 1};
    const float g9[2] = {2, -1}, w9[1] = {1.5f};
    expect_both(&ref1, g9, 1, w9);
}

static float rx[2 * 3 * 5 * 7], rg[2 * 4 * 6 * 2];

/* Every lowered form on random data: the program's bits equal the CPU executor's. */
static void test_random_bit_exact(void **state)
{
    (void)state;
    const int64_t xs[4] = {2, 3, 5, 7}, gs[4] = {2, 4, 6, 2};
    lc_fill(rx, 210, 31, 2.0f);
    lc_fill(rg, 96, 32, 1.3f); /* a quarter of the points outside [-1, 1] */
    static const gs_form forms[] = {
        {16, "bilinear", "zeros", 0}, {16, "bilinear", "zeros", 1},
        {16, "bilinear", "border", 0}, {20, "linear", "border", 1},
        {16, "nearest", "zeros", 0}, {20, "nearest", "zeros", 1},
        {16, "nearest", "border", 0}, {20, "nearest", "border", 1},
        {16, "bicubic", "zeros", 0}, {20, "cubic", "zeros", 1},
        {16, "bicubic", "border", 0}, {20, "cubic", "border", 1},
    };
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        tosac_tensor cpu, prog;
        run_both(&forms[k], xs, rx, gs, rg, &cpu, &prog);
        assert_int_equal(cpu.nbytes, prog.nbytes);
        assert_int_equal(tosac_tensor_numel(&cpu), 2 * 3 * 4 * 6);
        if (memcmp(cpu.data, prog.data, cpu.nbytes) != 0)
            fail_msg("%s %s align %d: the program's bits differ from the CPU executor's",
                     forms[k].mode, forms[k].pad, forms[k].align);
        tosac_tensor_free(&cpu);
        tosac_tensor_free(&prog);
    }
    /* reflection: the kernel reflects a coordinate in double, the program in f32, so a
     * reflected coordinate may differ by its f32 rounding (about 2^-24 * 2W); the output then
     * by that times the largest pixel step: 1e-5 (|ref| + max |ref|) holds it with room (the
     * backend matrix's float tolerance, lc_tol); taps reflect exactly */
    static const gs_form refl[] = {
        {16, "bilinear", "reflection", 0}, {20, "linear", "reflection", 1},
        {16, "nearest", "reflection", 0}, {20, "nearest", "reflection", 1},
        {16, "bicubic", "reflection", 0}, {20, "cubic", "reflection", 1},
    };
    lc_fill(rg, 96, 35, 5.0f); /* out to two spans each side: odd and even mirror counts */
    for (size_t k = 0; k < sizeof refl / sizeof refl[0]; k++) {
        tosac_tensor cpu, prog;
        run_both(&refl[k], xs, rx, gs, rg, &cpu, &prog);
        double emax = 0;
        for (int i = 0; i < 144; i++)
            emax = fmax(emax, fabs(((const float *)cpu.data)[i]));
        for (int i = 0; i < 144; i++) {
            double a = ((const float *)prog.data)[i], e = ((const float *)cpu.data)[i];
            if (!(fabs(a - e) <= lc_tol(0, 0, e, emax)))
                fail_msg("%s reflection align %d [%d]: %.9g vs the CPU's %.9g", refl[k].mode,
                         refl[k].align, i, a, e);
        }
        tosac_tensor_free(&cpu);
        tosac_tensor_free(&prog);
    }
}

/* All-zero and all-one images, an all-zero grid, and a NaN coordinate. */
static void test_degenerate(void **state)
{
    (void)state;
    const int64_t xs[4] = {2, 3, 5, 7}, gs[4] = {2, 4, 6, 2};
    static float zeros[210], ones[210], zgrid[96];
    for (int i = 0; i < 210; i++)
        ones[i] = 1.0f;
    lc_fill(rg, 96, 33, 1.3f);
    const gs_form bz = {16, "bilinear", "zeros", 0}, bb = {16, "bilinear", "border", 0};
    tosac_tensor cpu, prog;
    /* zeros in, zeros out (+0: the masked taps are SELECTed to +0, never -0) */
    run_both(&bz, xs, zeros, gs, rg, &cpu, &prog);
    for (int i = 0; i < 144; i++)
        assert_true(((const float *)prog.data)[i] == 0.0f && !signbit(((float *)prog.data)[i]));
    assert_memory_equal(cpu.data, prog.data, cpu.nbytes);
    tosac_tensor_free(&cpu);
    tosac_tensor_free(&prog);
    /* ones under border: the weights' sum, (1-dy)((1-dx) + dx) + dy((1-dx) + dx), within two
     * f32 roundings (2^-24 each) of 1; under zeros, the weight inside the image, in [0, 1] */
    run_both(&bb, xs, ones, gs, rg, &cpu, &prog);
    for (int i = 0; i < 144; i++)
        assert_true(fabs(((const float *)prog.data)[i] - 1.0) <= 0x1p-23);
    assert_memory_equal(cpu.data, prog.data, cpu.nbytes);
    tosac_tensor_free(&cpu);
    tosac_tensor_free(&prog);
    run_both(&bz, xs, ones, gs, rg, &cpu, &prog);
    int partial = 0;
    for (int i = 0; i < 144; i++) {
        float v = ((const float *)prog.data)[i];
        assert_true(v >= 0.0f && v <= 1.0f + 0x1p-23f);
        partial += v < 0.99f;
    }
    assert_true(partial > 0); /* the grid does reach outside the image */
    assert_memory_equal(cpu.data, prog.data, cpu.nbytes);
    tosac_tensor_free(&cpu);
    tosac_tensor_free(&prog);
    /* an all-zero grid samples the centre: H = 5, W = 7 -> pixel (3, 2) exactly, both modes */
    lc_fill(rx, 210, 34, 2.0f);
    const gs_form nz = {16, "nearest", "zeros", 0}, cz = {20, "cubic", "zeros", 0};
    const gs_form *zf[3] = {&bz, &nz, &cz};
    for (int k = 0; k < 3; k++) {
        run_both(zf[k], xs, rx, gs, zgrid, &cpu, &prog);
        for (int b = 0; b < 2; b++)
            for (int ch = 0; ch < 3; ch++)
                for (int i = 0; i < 24; i++)
                    assert_true(((const float *)prog.data)[(b * 3 + ch) * 24 + i] ==
                                rx[((b * 3 + ch) * 5 + 2) * 7 + 3]);
        assert_memory_equal(cpu.data, prog.data, cpu.nbytes);
        tosac_tensor_free(&cpu);
        tosac_tensor_free(&prog);
    }
    /* a NaN coordinate gives NaN in every channel (ONNX and the CPU executor), the others
     * their values */
    const float nan_grid[4] = {NAN, 0, 0, 0};
    const int64_t xs1[4] = {1, 1, 2, 2}, gs1[4] = {1, 1, 2, 2};
    static const float x4[4] = {1, 2, 3, 4};
    for (int k = 0; k < 3; k++) {
        run_both(zf[k], xs1, x4, gs1, nan_grid, &cpu, &prog);
        /* (0, 0), align_corners 0 -> (0.5, 0.5): linear the mean, nearest pixel (0, 0), cubic
         * weights (-3, 19, 19, -3) / 32 on taps -1..2 of which 0 and 1 are inside (as in
         * test_hand_values) */
        const float w[2] = {NAN, k == 0 ? 2.5f : k == 1 ? 1.0f : 3610.0f / 1024};
        lt_expect_f32(&cpu, w, 2, 0, 0);
        lt_expect_f32(&prog, w, 2, 0, 0);
        tosac_tensor_free(&cpu);
        tosac_tensor_free(&prog);
    }
}

/* A GridSample of dt tensors (string attribute attr = value unless NULL) refused by the trial
 * lowering with why. */
static void expect_trial(tosac_dtype dt, int r, const int64_t *xs, const int64_t *gs,
                         const int64_t *ys, const char *attr, const char *value, const char *why)
{
    ir_graph *g = ir_graph_new("g", NULL);
    int ins[2] = {lt_input(g, "x", dt, r, xs), lt_input(g, "grid", dt, r, gs)};
    int y = lt_tensor(g, "y", dt, r, ys);
    int k = lt_node(g, "GridSample", ins, 2, &y, 1);
    if (attr)
        assert_int_equal(ir_node_set_string(g, k, attr, value, NULL), TOSAC_OK);
    assert_string_equal(lt_trial("TOSA-1.0+FP", g, 0), why);
    ir_graph_free(g);
}

/* Forms not lowered: the trial lowering (the partitioner's check) gives the reason in ONNX
 * terms, and the CPU runs the node. */
static void test_refusals(void **state)
{
    (void)state;
    /* 3 spatial dims (opset 20 allows them): refused by the rule */
    const int64_t x5[5] = {1, 1, 2, 2, 2}, g5[5] = {1, 1, 1, 1, 3}, y5[5] = {1, 1, 1, 1, 1};
    expect_trial(TOSAC_DT_F32, 5, x5, g5, y5, NULL, NULL,
                 "GridSample: 3 spatial dims (only 2, X [N, C, H, W], are lowered)");
    /* a mode ONNX does not define (the CPU executor refuses it too) */
    const int64_t x4[4] = {1, 1, 2, 2}, g4[4] = {1, 1, 1, 2}, y4[4] = {1, 1, 1, 1};
    expect_trial(TOSAC_DT_F32, 4, x4, g4, y4, "mode", "area",
                 "GridSample: mode \"area\" (not a GridSample mode)");
    /* a padding mode ONNX does not define */
    expect_trial(TOSAC_DT_F32, 4, x4, g4, y4, "padding_mode", "wrap",
                 "GridSample: padding_mode \"wrap\" (not a GridSample padding mode)");
    /* the decomposition is fp32 */
    expect_trial(TOSAC_DT_F16, 4, x4, g4, y4, NULL, NULL,
                 "GridSample: a f16 X or grid (the decomposition is fp32)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_values),
        cmocka_unit_test(test_random_bit_exact),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
