/* The CPU executor on graphs built with the IR builder: values, constants, liveness across
 * several consumers, If/Loop bodies reading outer values, and the errors it reports.
 * Expected values are worked out by hand in the comments. */
#include "testutil.h"

#include <string.h>

#include "cpu/cpu_exec.h"
#include "cpu_testgraph.h"
#include "kernels/isa.h"

static int node(ir_graph *g, const char *op, const int *in, int n_in, const int *out, int n_out)
{
    tosac_error err;
    tosac_error_clear(&err);
    int k = ir_graph_add_node(g, op, NULL, op, in, n_in, out, n_out, &err);
    assert_true(k >= 0);
    return k;
}

static tosac_tensor tensor_f32(int rank, const int64_t *shape, const float *v)
{
    tosac_tensor t;
    tosac_error err;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, rank, shape, &err), TOSAC_OK);
    memcpy(t.data, v, t.nbytes);
    return t;
}

static void test_relu_add_and_reuse(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[2] = {2, 3}, s1[1] = {3};
    float bias[3] = {10, 20, 30};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, s, &err);
    int b = ir_graph_add_const(g, "b", TOSAC_DT_F32, 1, s1, bias, sizeof bias, &err);
    int r = ir_graph_add_tensor(g, "r", TOSAC_DT_F32, 2, s, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, s, &err);
    int z = ir_graph_add_tensor(g, "z", TOSAC_DT_F32, 2, s, &err);
    /* r = relu(x) is read by two nodes: it must stay alive until the second */
    node(g, "Relu", &x, 1, &r, 1);
    int in1[2] = {r, b}, in2[2] = {r, r};
    node(g, "Add", in1, 2, &y, 1);
    node(g, "Mul", in2, 2, &z, 1);
    ir_graph_mark_output(g, y, &err);
    ir_graph_mark_output(g, z, &err);
    float xv[6] = {-1, 2, -3, 4, -5, 6};
    tosac_tensor in = tensor_f32(2, s, xv), out[2];
    assert_int_equal(cpu_run_model(m, &in, 1, out, 2, &err), TOSAC_OK);
    float wy[6] = {10, 22, 30, 14, 20, 36}, wz[6] = {0, 4, 0, 16, 0, 36};
    for (int i = 0; i < 6; i++) {
        assert_true(((float *)out[0].data)[i] == wy[i]);
        assert_true(((float *)out[1].data)[i] == wz[i]);
    }
    assert_int_equal(out[0].rank, 2);
    assert_int_equal(out[0].shape[1], 3);
    tosac_tensor_free(&out[0]);
    tosac_tensor_free(&out[1]);
    /* an input of the wrong type or shape is refused by name */
    tosac_tensor bad;
    assert_int_equal(tosac_tensor_alloc(&bad, TOSAC_DT_I32, 2, s, &err), TOSAC_OK);
    tosac_error_clear(&err);
    assert_int_equal(cpu_run_model(m, &bad, 1, out, 2, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "'x' must be f32"));
    tosac_tensor_free(&bad);
    int64_t s3[2] = {3, 2};
    tosac_tensor wrong = tensor_f32(2, s3, xv);
    tosac_error_clear(&err);
    assert_int_equal(cpu_run_model(m, &wrong, 1, out, 2, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "must have shape"));
    tosac_tensor_free(&wrong);
    tosac_tensor_free(&in);
    ir_model_free(m);
}

static void test_errors(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {3}, si[1] = {1};
    int64_t idx = 5;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err);
    int i = ir_graph_add_const(g, "i", TOSAC_DT_I64, 1, si, &idx, sizeof idx, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, si, &err);
    int in[2] = {x, i};
    node(g, "Gather", in, 2, &y, 1);
    ir_graph_mark_output(g, y, &err);
    float xv[3] = {1, 2, 3};
    tosac_tensor t = tensor_f32(1, s, xv), out;
    /* index 5 into 3 elements: a data error naming the node */
    assert_int_equal(cpu_run_model(m, &t, 1, &out, 1, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "(Gather)"));
    assert_non_null(strstr(err.msg, "outside [-3, 3)"));
    /* an operator without implementation is refused when planning */
    int w = ir_graph_add_tensor(g, "w", TOSAC_DT_F32, 1, s, &err);
    ir_graph_add_node(g, "NoSuchOp", NULL, "n1", &x, 1, &w, 1, &err);
    cpu_plan *p;
    tosac_error_clear(&err);
    assert_int_equal(cpu_plan_create(g, 13, &p, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "NoSuchOp is not supported"));
    assert_false(cpu_op_supported("NoSuchOp"));
    assert_true(cpu_op_supported("Conv"));
    tosac_tensor_free(&t);
    ir_model_free(m);
}

/* If: then = Neg(x), else = Abs(x), both reading the outer x through a capture. */
static void test_if_reads_outer_scope(void **state)
{
    (void)state;
    ir_model *m = ct_if_model(2);
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {2};
    float xv[2] = {-1.5f, 2};
    tosac_tensor in[2];
    in[0] = tensor_f32(1, s, xv);
    assert_int_equal(tosac_tensor_alloc(&in[1], TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    tosac_tensor out;
    for (int v = 0; v < 2; v++) {
        *(uint8_t *)in[1].data = (uint8_t)v;
        assert_int_equal(cpu_run_model(m, in, 2, &out, 1, &err), TOSAC_OK);
        const float *o = out.data;
        if (v) /* then: -x */
            assert_true(o[0] == 1.5f && o[1] == -2);
        else /* else: |x| */
            assert_true(o[0] == 1.5f && o[1] == 2);
        tosac_tensor_free(&out);
    }
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
    ir_model_free(m);
}

/* Loop M=3 times: v' = v + iter, scan output v'. v: 0 -> 0 -> 1 -> 3; scan [0, 1, 3]. */
static void test_loop_carried_and_scan(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t three = 3, zero = 0;
    uint8_t yes = 1;
    int64_t s3[1] = {3};
    int tm = ir_graph_add_const(g, "M", TOSAC_DT_I64, 0, NULL, &three, 8, &err);
    int tc = ir_graph_add_const(g, "cond", TOSAC_DT_BOOL, 0, NULL, &yes, 1, &err);
    int tv = ir_graph_add_const(g, "v0", TOSAC_DT_I64, 0, NULL, &zero, 8, &err);
    int vf = ir_graph_add_tensor(g, "v_final", TOSAC_DT_I64, 0, NULL, &err);
    int sc = ir_graph_add_tensor(g, "scan", TOSAC_DT_I64, 1, s3, &err);
    int ins[3] = {tm, tc, tv}, outs[2] = {vf, sc};
    int k = node(g, "Loop", ins, 3, outs, 2);
    ir_graph *body = ir_graph_new("body", g);
    int bi = ir_graph_add_input(body, "i", TOSAC_DT_I64, 0, NULL, &err);
    int bc = ir_graph_add_input(body, "c_in", TOSAC_DT_BOOL, 0, NULL, &err);
    int bv = ir_graph_add_input(body, "v", TOSAC_DT_I64, 0, NULL, &err);
    int co = ir_graph_add_tensor(body, "c_out", TOSAC_DT_BOOL, 0, NULL, &err);
    int vo = ir_graph_add_tensor(body, "v_out", TOSAC_DT_I64, 0, NULL, &err);
    int so = ir_graph_add_tensor(body, "s_out", TOSAC_DT_I64, 0, NULL, &err);
    int add_in[2] = {bv, bi};
    node(body, "Identity", &bc, 1, &co, 1);
    node(body, "Add", add_in, 2, &vo, 1);
    node(body, "Identity", &vo, 1, &so, 1);
    ir_graph_mark_output(body, co, &err);
    ir_graph_mark_output(body, vo, &err);
    ir_graph_mark_output(body, so, &err);
    assert_int_equal(ir_node_set_graph(g, k, "body", body, &err), TOSAC_OK);
    ir_graph_mark_output(g, vf, &err);
    ir_graph_mark_output(g, sc, &err);
    tosac_tensor out[2];
    assert_int_equal(cpu_run_model(m, NULL, 0, out, 2, &err), TOSAC_OK);
    assert_int_equal(*(int64_t *)out[0].data, 3);
    assert_int_equal(out[1].rank, 1);
    assert_int_equal(out[1].shape[0], 3);
    const int64_t *sv = out[1].data;
    assert_true(sv[0] == 0 && sv[1] == 1 && sv[2] == 3);
    tosac_tensor_free(&out[0]);
    tosac_tensor_free(&out[1]);
    ir_model_free(m);
}

/* Conv packs constant weights once per plan (cpu_prepared) and never a weight that is an
 * input: a plan run twice with new weights gives the new products, and a plan whose kernel
 * variant changed between runs repacks. x = 1s, so y[m] = sum over the 8 channels of w[m, c]:
 * constant w1[m][c] = m + c gives 8m + 28, the input w2 = v everywhere gives 8v. */
static void test_conv_weights_prepared(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t xs[4] = {1, 8, 5, 5}, ws[4] = {6, 8, 1, 1}, ys[4] = {1, 6, 5, 5};
    float w1v[48], xv[200], w2v[48];
    for (int i = 0; i < 48; i++)
        w1v[i] = (float)(i / 8 + i % 8);
    for (int i = 0; i < 200; i++)
        xv[i] = 1;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, xs, &err);
    int w2 = ir_graph_add_input(g, "w2", TOSAC_DT_F32, 4, ws, &err);
    int w1 = ir_graph_add_const(g, "w1", TOSAC_DT_F32, 4, ws, w1v, sizeof w1v, &err);
    int y1 = ir_graph_add_tensor(g, "y1", TOSAC_DT_F32, 4, ys, &err);
    int y2 = ir_graph_add_tensor(g, "y2", TOSAC_DT_F32, 4, ys, &err);
    int in1[2] = {x, w1}, in2[2] = {x, w2};
    node(g, "Conv", in1, 2, &y1, 1);
    node(g, "Conv", in2, 2, &y2, 1);
    ir_graph_mark_output(g, y1, &err);
    ir_graph_mark_output(g, y2, &err);
    cpu_plan *p;
    assert_int_equal(cpu_plan_create(g, 13, &p, &err), TOSAC_OK);
    int runs = 0;
    for (int isa = KERN_ISA_COUNT - 1; isa >= 0; isa--) {
        if (kern_isa_force((kern_isa)isa))
            continue;
        for (int rep = 0; rep < 2; rep++, runs++) {
            const float v = (float)(runs + 1);
            for (int i = 0; i < 48; i++)
                w2v[i] = v;
            tosac_tensor in[2] = {tensor_f32(4, xs, xv), tensor_f32(4, ws, w2v)}, out[2];
            assert_int_equal(cpu_plan_run(p, in, 2, out, 2, &err), TOSAC_OK);
            for (int i = 0; i < 150; i++) {
                if (((float *)out[0].data)[i] != (float)(8 * (i / 25) + 28) ||
                    ((float *)out[1].data)[i] != 8 * v)
                    fail_msg("%s run %d: y1[%d] = %g, y2[%d] = %g", kern_isa_name((kern_isa)isa),
                             runs, i, ((float *)out[0].data)[i], i, ((float *)out[1].data)[i]);
            }
            for (int k = 0; k < 2; k++) {
                tosac_tensor_free(&in[k]);
                tosac_tensor_free(&out[k]);
            }
        }
    }
    assert_true(runs >= 2);
    kern_isa_force(KERN_ISA_PORTABLE);
    cpu_plan_free(p);
    ir_model_free(m);
}

/* The prepare step (cpu_internal.h): a Transpose's perm is parsed once, when the plan is made,
 * so an attribute changed afterwards does not reach the runs of that plan (a new plan reads
 * it). x = [[1, 2, 3], [4, 5, 6]] (2x3): perm (1, 0) gives [[1, 4], [2, 5], [3, 6]]. A
 * BitShift with a bad direction fails its prepare: the plan is still made (a node that never
 * runs must not stop a graph) and the run reports it, naming the node. */
static void test_attributes_prepared_once(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t xs[2] = {2, 3}, ys[2] = {3, 2};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, xs, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, ys, &err);
    int t = node(g, "Transpose", &x, 1, &y, 1);
    const int64_t perm[2] = {1, 0}, same[2] = {0, 1};
    ir_node_set_ints(g, t, "perm", perm, 2, &err);
    ir_graph_mark_output(g, y, &err);
    cpu_plan *p;
    assert_int_equal(cpu_plan_create(g, 13, &p, &err), TOSAC_OK);
    ir_node_set_ints(g, t, "perm", same, 2, &err); /* after planning: not seen by p */
    assert_int_equal(err.code, TOSAC_OK);
    const float xv[6] = {1, 2, 3, 4, 5, 6}, want[6] = {1, 4, 2, 5, 3, 6};
    tosac_tensor in = tensor_f32(2, xs, xv), out;
    assert_int_equal(cpu_plan_run(p, &in, 1, &out, 1, &err), TOSAC_OK);
    assert_int_equal(out.rank, 2);
    assert_int_equal(out.shape[0], 3);
    for (int i = 0; i < 6; i++)
        assert_true(((float *)out.data)[i] == want[i]);
    tosac_tensor_free(&out);
    cpu_plan_free(p);
    /* a new plan parses the changed perm: the identity */
    assert_int_equal(cpu_plan_create(g, 13, &p, &err), TOSAC_OK);
    assert_int_equal(cpu_plan_run(p, &in, 1, &out, 1, &err), TOSAC_OK);
    assert_int_equal(out.shape[0], 2);
    for (int i = 0; i < 6; i++)
        assert_true(((float *)out.data)[i] == xv[i]);
    tosac_tensor_free(&out);
    tosac_tensor_free(&in);
    cpu_plan_free(p);
    ir_model_free(m);

    m = ir_model_new();
    g = m->graph;
    int64_t s[1] = {2};
    int a = ir_graph_add_input(g, "a", TOSAC_DT_U8, 1, s, &err);
    int b = ir_graph_add_input(g, "b", TOSAC_DT_U8, 1, s, &err);
    int z = ir_graph_add_tensor(g, "z", TOSAC_DT_U8, 1, s, &err);
    int ab[2] = {a, b};
    int k = node(g, "BitShift", ab, 2, &z, 1);
    ir_node_set_string(g, k, "direction", "UP", &err);
    ir_graph_mark_output(g, z, &err);
    assert_int_equal(cpu_plan_create(g, 13, &p, &err), TOSAC_OK);
    tosac_tensor u[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tosac_tensor_alloc(&u[i], TOSAC_DT_U8, 1, s, &err), TOSAC_OK);
        memset(u[i].data, 1, 2);
    }
    assert_int_equal(cpu_plan_run(p, u, 2, &out, 1, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "node 'BitShift' (BitShift): direction must be LEFT or RIGHT, got 'UP'"));
    for (int i = 0; i < 2; i++)
        tosac_tensor_free(&u[i]);
    cpu_plan_free(p);
    ir_model_free(m);
}

/* Conv followed by Relu or by Clip with constant bounds is fused (cpu_fuse.c): the values
 * are those of the separate ops, on every variant; a Conv whose output something else also
 * reads (here: a graph output) is not fused, so that output stays unclipped. x has 2
 * channels of 1s and 2s over 4 x 8 pixels, w[m] = (a, b) gives y[m] = a + 2b everywhere:
 * -3, -0.5, 0, 2, 4, 6, 9, -5. */
static void test_conv_activation_fused(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t xs[4] = {1, 2, 4, 8}, ws[4] = {8, 2, 1, 1}, ys[4] = {1, 8, 4, 8};
    float wv[16] = {-3, 0, -1, 0.25f, 0, 0, 1, 0.5f, 2, 1, 5, 0.5f, 7, 1, 3, -4}, xv[64];
    for (int i = 0; i < 64; i++)
        xv[i] = i < 32 ? 1 : 2;
    float lo = -1, hi = 6;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, xs, &err);
    int w = ir_graph_add_const(g, "w", TOSAC_DT_F32, 4, ws, wv, sizeof wv, &err);
    int cl = ir_graph_add_const(g, "lo", TOSAC_DT_F32, 0, NULL, &lo, sizeof lo, &err);
    int ch = ir_graph_add_const(g, "hi", TOSAC_DT_F32, 0, NULL, &hi, sizeof hi, &err);
    int t[6], y[3];
    const char *names[6] = {"c0", "c1", "c2", "y0", "y1", "y2"};
    for (int i = 0; i < 6; i++)
        t[i] = ir_graph_add_tensor(g, names[i], TOSAC_DT_F32, 4, ys, &err);
    int cin[2] = {x, w};
    for (int i = 0; i < 3; i++)
        node(g, "Conv", cin, 2, &t[i], 1);
    int clip1[3] = {t[1], cl, ch}, clip2[3] = {t[2], cl, ch};
    node(g, "Relu", &t[0], 1, &t[3], 1);
    node(g, "Clip", clip1, 3, &t[4], 1);
    node(g, "Clip", clip2, 3, &t[5], 1);
    y[0] = t[3], y[1] = t[4], y[2] = t[5];
    for (int i = 0; i < 3; i++)
        ir_graph_mark_output(g, y[i], &err);
    ir_graph_mark_output(g, t[2], &err); /* c2 is read twice: not fused */
    static const float want[4][8] = {
        {0, 0, 0, 2, 4, 6, 9, 0},          /* Relu */
        {-1, -0.5f, 0, 2, 4, 6, 6, -1},    /* Clip [-1, 6] */
        {-1, -0.5f, 0, 2, 4, 6, 6, -1},    /* Clip [-1, 6], not fused */
        {-3, -0.5f, 0, 2, 4, 6, 9, -5},    /* the Conv itself */
    };
    cpu_plan *p;
    assert_int_equal(cpu_plan_create(g, 13, &p, &err), TOSAC_OK);
    assert_int_equal(cpu_plan_n_fused(p), 2);
    cpu_plan_free(p);
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (kern_isa_force((kern_isa)isa))
            continue;
        tosac_tensor in = tensor_f32(4, xs, xv), out[4];
        assert_int_equal(cpu_run_model(m, &in, 1, out, 4, &err), TOSAC_OK);
        for (int o = 0; o < 4; o++)
            for (int i = 0; i < 256; i++)
                if (((float *)out[o].data)[i] != want[o][i / 32])
                    fail_msg("%s output %d [%d] = %g, want %g", kern_isa_name((kern_isa)isa), o,
                             i, ((float *)out[o].data)[i], want[o][i / 32]);
        for (int o = 0; o < 4; o++)
            tosac_tensor_free(&out[o]);
        tosac_tensor_free(&in);
    }
    kern_isa_force(KERN_ISA_PORTABLE);
    ir_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relu_add_and_reuse),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_if_reads_outer_scope),
        cmocka_unit_test(test_loop_carried_and_scan),
        cmocka_unit_test(test_conv_weights_prepared),
        cmocka_unit_test(test_conv_activation_fused),
        cmocka_unit_test(test_attributes_prepared_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
