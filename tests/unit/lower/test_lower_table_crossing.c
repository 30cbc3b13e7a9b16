/* int16 TABLE where the function leaves the output range inside a segment (a steep
 * Reciprocal, Exp or Log saturating): the entry beyond the bound must keep its unclamped value
 * so the interpolated line reaches the bound where the function does, and the RESCALE clamps
 * after. Clamped entries made the line bend early, about 100 output steps short for
 * Reciprocal over [0.584, 2] (the backend matrix's a16w8 Reciprocal row).
 * Expected outputs are round(f(v * s_in) / s_out) computed here in plain C. */
#include "backend_testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/lower_table.h"
#include "tosac/interp.h"

static double ident(int64_t v, const void *a) { (void)a; return (double)v; }

/* raw(v) = v into an int8 output: entries 255..257 (v = -128, 0, 128) straddle the range
 * [-128, 127]; entries 254 and 257 are beyond it next to in-range ones, so they keep their
 * true values -256 and 128, and entry 258 (between two beyond-range entries) stays clamped.
 * The old builder clamped 257 to 127: v = 127 then gave (0 * 128 + 127 * 127) / 128 = 126. */
static void test_values_widened(void **s)
{
    (void)s;
    lower_table_spec sp = {ident, NULL, 0, -128, 127};
    int16_t t[513];
    int shift = -1;
    lower_table_values_i16(&sp, t, &shift);
    assert_int_equal(shift, 0);
    assert_int_equal(t[253], -128);
    assert_int_equal(t[254], -256);
    assert_int_equal(t[255], -128);
    assert_int_equal(t[256], 0);
    assert_int_equal(t[257], 128);
    assert_int_equal(t[258], 127);
}

static tosa_graph *lower_unary_i16(const char *op, float sx, float sy, int64_t n, ir_graph **gp)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t shp[1] = {n};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_I16, 1, shp, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_I16, 1, shp, &err);
    int64_t z = 0;
    assert_int_equal(ir_tensor_set_quant(g, x, &sx, &z, 1, -1, TOSAC_DT_I16, &err), TOSAC_OK);
    assert_int_equal(ir_tensor_set_quant(g, y, &sy, &z, 1, -1, TOSAC_DT_I16, &err), TOSAC_OK);
    assert_true(ir_graph_add_node(g, op, NULL, "n", &x, 1, &y, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    tosa_spec sp = bt_spec("TOSA-1.0+INT+int16");
    int node = 0;
    tosa_graph *tg = NULL;
    lower_subgraph(&sp, g, &node, 1, g->inputs, 1, g->outputs, 1, &tg, &err);
    assert_non_null(tg);
    *gp = g;
    return tg;
}

/* The RESCALE's shift: 37 - the table's shift (multiplier 2^30, scale 2^(shift - 7)). */
static int rescale_shift(const tosa_graph *tg)
{
    const tosa_block *b = tosa_graph_main_block(tg);
    for (int i = 0; i < b->n_ops; i++)
        if (b->ops[i].op == TOSA_OP_RESCALE) {
            assert_int_equal(*(const int32_t *)b->tensors[b->ops[i].inputs[1]].data, 1 << 30);
            return *(const int8_t *)b->tensors[b->ops[i].inputs[2]].data;
        }
    fail_msg("no RESCALE");
    return -1;
}

/* Every input of one segment [v0, v0 + 128) through the interpreter; the worst error in
 * output steps against f(v * sx) / sy rounded and saturated. */
static int worst_over_segment(const tosa_graph *tg, double (*f)(double), float sx, float sy,
                              int32_t v0)
{
    tosac_error err;
    tosac_error_clear(&err);
    const int64_t shp[1] = {128};
    tosac_tensor in, out;
    memset(&out, 0, sizeof out);
    assert_int_equal(tosac_tensor_alloc(&in, TOSAC_DT_I16, 1, shp, &err), TOSAC_OK);
    for (int i = 0; i < 128; i++)
        ((int16_t *)in.data)[i] = (int16_t)(v0 + i);
    if (tosa_interp_run(tg, &in, 1, &out, 1, &err) != TOSAC_OK)
        fail_msg("interpreter: %s", err.msg);
    int worst = 0;
    for (int i = 0; i < 128; i++) {
        double want = nearbyint(f((double)(v0 + i) * sx) / sy);
        want = want < -32768 ? -32768 : want > 32767 ? 32767 : want;
        int d = abs(((const int16_t *)out.data)[i] - (int)want);
        worst = d > worst ? d : worst;
    }
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
    return worst;
}

static double recip(double x) { return 1.0 / x; }

typedef struct crossing {
    const char *op;
    double (*f)(double);
    float sx, sy;   /* input and output scales (zero points 0) */
    int32_t v0;     /* the segment where f crosses an output bound */
    int shift;      /* the RESCALE shift expected: 37 - table shift */
    int tol;        /* output steps: entry rounding at the table shift, plus curvature */
} crossing;

/* Reciprocal: the backend matrix's scales (data in [0.5, 2], min 0.584): 1/x reaches
 * 32767.5 steps at v = 1 / (sx sy 32767.5) = 9788.4, in segment [9728, 9856); the pole at 0
 * forces table shift 2 (RESCALE 35). The old table erred 100 steps at v = 9792.
 * Exp over [-3, 1.33] (sx 3/32767, sy e^1.33/32767): saturates at v = 14526.5, segment
 * [14464, 14592); at table shift 0 an int16 output has no room beyond the bound, so the
 * builder takes shift 1 (RESCALE 36); the old table (shift 0) erred 95 steps.
 * Log over [0.3, 3.3] (sx 3.3/32767, sy 1.204/32767): falls below -32768.5 steps at
 * v = exp(-32768.5 sy) / sx = 2978.7, segment [2944, 3072); the old table erred 227 steps.
 * Tolerances: Reciprocal's entries are rounded to 4 steps (shift 2); Log bends by
 * |log''| h^2 / 8 = 11 * 0.0129^2 / 8 = 6 steps over a segment at 0.3, which the midpoint
 * correction halves. */
static void test_crossings(void **s)
{
    (void)s;
    const crossing cases[] = {
        {"Reciprocal", recip, 5.96417885e-05f, 5.22748196e-05f, 9728, 35, 3},
        {"Exp", exp, 3.0f / 32767, (float)(3.78104339 / 32767), 14464, 36, 2},
        {"Log", log, 3.3f / 32767, (float)(1.20397280 / 32767), 2944, 36, 4},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const crossing *c = &cases[k];
        ir_graph *g;
        tosa_graph *tg = lower_unary_i16(c->op, c->sx, c->sy, 128, &g);
        assert_int_equal(rescale_shift(tg), c->shift);
        int worst = worst_over_segment(tg, c->f, c->sx, c->sy, c->v0);
        if (worst > c->tol)
            fail_msg("%s: %d output steps off in segment [%d, %d)", c->op, worst, c->v0,
                     c->v0 + 128);
        tosa_graph_free(tg);
        ir_graph_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_widened),
        cmocka_unit_test(test_crossings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
