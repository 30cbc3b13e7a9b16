/* pass_narrow_int64: int64 becomes int32 only where the range provably fits, never with
 * +int64; values beyond int32 (2^40) show that nothing is narrowed unseen. The zoo's int64
 * graph compiles under TOSA-1.0+INT (also quantized), TOSA-1.1+INT+int64 and
 * TOSA-1.1+FP+int64 and the program's outputs equal onnxruntime's exactly. The spec matrix
 * of the int64 rule is test_int64_policy.c. */
#include "passes_testutil.h"

#include "tosac/compile.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "tosac/program.h"

static const int64_t s2x4[2] = {2, 4}, s2[1] = {2};
static const float scores[8] = {0.5f, 3.0f, -1.0f, 2.0f, 9.0f, 1.0f, 0.0f, 4.0f};

/* ArgMax(x) + c -> out (int64 graph output) */
static ir_graph *argmax_add(int64_t cval)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 2, s2x4);
    int idx = pt_tensor(g, "idx", TOSAC_DT_I64, 1, s2);
    int k = pt_node(g, "ArgMax", &x, 1, &idx, 1);
    assert_int_equal(ir_node_set_int(g, k, "axis", 1, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_int(g, k, "keepdims", 0, &err), TOSAC_OK);
    int64_t cv[2] = {cval, cval};
    int in[2] = {idx, pt_const(g, "c", TOSAC_DT_I64, 1, s2, cv)};
    int out = pt_tensor(g, "out", TOSAC_DT_I64, 1, s2);
    pt_node(g, "Add", in, 2, &out, 1);
    pt_output(g, out);
    return g;
}

static void run_x(ir_graph *g, int64_t *out)
{
    tosac_tensor in = pt_host(TOSAC_DT_F32, 2, s2x4, scores), o;
    pt_cpu(g, &in, 1, &o, 1);
    assert_int_equal(o.dtype, TOSAC_DT_I64);
    memcpy(out, o.data, 2 * sizeof(int64_t));
    tosac_tensor_free(&o);
}

static void test_argmax_plus_constant_narrowed(void **state)
{
    (void)state;
    ir_graph *g = argmax_add(1000);
    int64_t before[2], after[2];
    run_x(g, before);
    assert_int_equal(before[0], 1001); /* argmax of row 0 is 1, of row 1 is 0 */
    assert_int_equal(before[1], 1000);
    pt_run(g, pass_narrow_int64, "TOSA-1.0+INT");
    int c = ir_graph_find_tensor(g, "c");
    assert_int_equal(g->tensors[c].dtype, TOSAC_DT_I32);
    assert_int_equal(((int32_t *)g->tensors[c].data)[1], 1000);
    /* the graph output stays int64, written by a Cast from the int32 Add */
    assert_int_equal(g->tensors[g->outputs[0]].dtype, TOSAC_DT_I64);
    int add = pt_find(g, "Add");
    assert_int_equal(g->tensors[g->nodes[add].outputs[0]].dtype, TOSAC_DT_I32);
    assert_int_equal(g->tensors[g->nodes[add].inputs[0]].dtype, TOSAC_DT_I32);
    run_x(g, after);
    assert_memory_equal(before, after, sizeof before);
    ir_graph_free(g);
}

static void test_constant_beyond_int32_is_an_error(void **state)
{
    (void)state;
    ir_graph *g = argmax_add((int64_t)1 << 40);
    tosac_error err;
    tosac_error_clear(&err);
    tosa_spec sp = bt_spec("TOSA-1.0+INT");
    pass_ctx c = {&sp, 13};
    assert_int_equal(pass_narrow_int64(g, &c, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "int64 constant 'c'"));
    assert_non_null(strstr(err.msg, "1099511627776"));
    assert_non_null(strstr(err.msg, "int32"));
    ir_graph_free(g);
}

static void test_keeps_int64_with_extension(void **state)
{
    (void)state;
    ir_graph *g = argmax_add((int64_t)1 << 40);
    pt_run(g, pass_narrow_int64, "TOSA-1.1+INT+int64");
    assert_int_equal(g->tensors[ir_graph_find_tensor(g, "c")].dtype, TOSAC_DT_I64);
    assert_int_equal(pt_count(g, "Cast"), 0);
    int64_t out[2];
    run_x(g, out);
    assert_int_equal(out[0], ((int64_t)1 << 40) + 1);
    ir_graph_free(g);
}

/* A node staying on the CPU writes a narrowed graph output (the TopK of issue 8): it writes
 * the output itself, in int64 under its name, and the delegated reader gets an int32 Cast of
 * it. Before, the CPU node wrote int64 into an int32 twin, which the CPU executor refuses. */
static void test_cpu_node_writing_graph_output(void **state)
{
    (void)state;
    ir_graph *g = argmax_add(1000);
    int idx = ir_graph_find_tensor(g, "idx");
    pt_output(g, idx);
    pt_run(g, pass_narrow_int64, "TOSA-1.0+INT"); /* ARGMAX of f32 needs PRO-FP: CPU */
    int am = pt_find(g, "ArgMax"), add = pt_find(g, "Add");
    assert_int_equal(g->nodes[am].outputs[0], idx);
    assert_int_equal(g->tensors[idx].dtype, TOSAC_DT_I64);
    assert_int_equal(g->outputs[1], idx); /* outputs: out, idx */
    int a32 = g->nodes[add].inputs[0], cast = ir_graph_producer(g, a32);
    assert_int_equal(g->tensors[a32].dtype, TOSAC_DT_I32);
    assert_true(cast >= 0 && ir_node_is(&g->nodes[cast], "Cast"));
    assert_int_equal(g->nodes[cast].inputs[0], idx);
    assert_int_equal(pt_count(g, "Cast"), 2); /* idx -> int32, Add's int32 result -> out */
    tosac_tensor in = pt_host(TOSAC_DT_F32, 2, s2x4, scores), o[2];
    pt_cpu(g, &in, 1, o, 2);
    assert_int_equal(o[0].dtype, TOSAC_DT_I64);
    assert_int_equal(o[1].dtype, TOSAC_DT_I64);
    assert_int_equal(((int64_t *)o[0].data)[0], 1001); /* out = idx + 1000 */
    assert_int_equal(((int64_t *)o[0].data)[1], 1000);
    assert_int_equal(((int64_t *)o[1].data)[0], 1); /* idx: argmax of [0.5 3 -1 2], [9 1 0 4] */
    assert_int_equal(((int64_t *)o[1].data)[1], 0);
    tosac_tensor_free(&o[0]);
    tosac_tensor_free(&o[1]);
    ir_graph_free(g);
}

/* A value an If branch reads through a capture keeps int64 (the branch declares it so),
 * though its producer and its other reader could compute in int32. */
static void test_captured_value_kept(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_I16, 1, s2), a = pt_tensor(g, "a", TOSAC_DT_I64, 1, s2);
    int cast = pt_node(g, "Cast", &x, 1, &a, 1);
    assert_int_equal(ir_node_set_int(g, cast, "to", 7, &err), TOSAC_OK);
    int64_t cv[2] = {1000, 1000};
    int in[2] = {a, pt_const(g, "c", TOSAC_DT_I64, 1, s2, cv)};
    int out = pt_tensor(g, "out", TOSAC_DT_I64, 1, s2);
    pt_node(g, "Add", in, 2, &out, 1);
    int cnd = pt_input(g, "flag", TOSAC_DT_BOOL, 0, NULL), y = pt_tensor(g, "y", TOSAC_DT_I64, 1, s2);
    int k = pt_node(g, "If", &cnd, 1, &y, 1);
    for (int b = 0; b < 2; b++) {
        ir_graph *br = ir_graph_new(b ? "else_branch" : "then_branch", g);
        int64_t v[2] = {b ? -7 : 7, b ? -7 : 7};
        int bin[2] = {ir_graph_resolve_tensor(br, "a", &err), pt_const(br, "k", TOSAC_DT_I64, 1, s2, v)};
        int o = pt_tensor(br, "o", TOSAC_DT_I64, 1, s2);
        pt_node(br, "Add", bin, 2, &o, 1);
        pt_output(br, o);
        assert_int_equal(ir_node_set_graph(g, k, b ? "else_branch" : "then_branch", br, &err),
                         TOSAC_OK);
    }
    pt_output(g, out);
    pt_output(g, y);
    pt_run(g, pass_narrow_int64, "TOSA-1.0+INT");
    assert_int_equal(g->tensors[a].dtype, TOSAC_DT_I64);
    int16_t xv[2] = {-32768, 32767};
    uint8_t flag = 1;
    tosac_tensor ins[2] = {pt_host(TOSAC_DT_I16, 1, s2, xv), pt_host(TOSAC_DT_BOOL, 0, NULL, &flag)}, o[2];
    pt_cpu(g, ins, 2, o, 2);
    assert_int_equal(((int64_t *)o[0].data)[0], -32768 + 1000);
    assert_int_equal(((int64_t *)o[1].data)[0], -32768 + 7); /* then: a + 7 */
    assert_int_equal(((int64_t *)o[1].data)[1], 32767 + 7);
    tosac_tensor_free(&o[0]);
    tosac_tensor_free(&o[1]);
    ir_graph_free(g);
}

/* A runtime int64 input has no known range: it and its Add stay int64. */
static void test_runtime_input_stays_int64(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int b = pt_input(g, "base", TOSAC_DT_I64, 1, s2);
    int64_t cv[2] = {5, -5};
    int in[2] = {b, pt_const(g, "c", TOSAC_DT_I64, 1, s2, cv)};
    int out = pt_tensor(g, "out", TOSAC_DT_I64, 1, s2);
    pt_node(g, "Add", in, 2, &out, 1);
    pt_output(g, out);
    pt_run(g, pass_narrow_int64, "TOSA-1.0+INT");
    assert_int_equal(g->tensors[ir_graph_find_tensor(g, "c")].dtype, TOSAC_DT_I64);
    assert_int_equal(g->tensors[out].dtype, TOSAC_DT_I64);
    const int64_t bv[2] = {(int64_t)1 << 40, -((int64_t)1 << 40)};
    tosac_tensor t = pt_host(TOSAC_DT_I64, 1, s2, bv), o;
    pt_cpu(g, &t, 1, &o, 1);
    assert_int_equal(((int64_t *)o.data)[0], ((int64_t)1 << 40) + 5);
    assert_int_equal(((int64_t *)o.data)[1], -((int64_t)1 << 40) - 5);
    tosac_tensor_free(&o);
    ir_graph_free(g);
}

/* The zoo graph (values 2^31..2^62): compiled (quantized first when scheme), run, exact;
 * int64 tensors in the delegates only under +int64. */
static void zoo(const char *spec, const char *scheme, bool want_i64)
{
    static const char *const outs[] = {"argmax", "topk_idx", "arange", "picked", "cumsum",
                                       "base_x2p20", "div7", "rowsum", "where", "shape_big",
                                       "base_gap"};
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(tu_shared("models/synth_int64_ops_op13/model.onnx"), &m,
                                      &err), TOSAC_OK);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    char calib_dir[512]; /* tu_shared's buffer is reused below */
    snprintf(calib_dir, sizeof calib_dir, "%s", tu_shared("models/synth_int64_ops_op13/inputs"));
    const char *calib[1] = {calib_dir};
    o.quantize = scheme;
    o.calib = calib;
    o.n_calib = 1;
    tosac_program *p = NULL;
    tosac_code rc = scheme ? tosac_compile_quantize(m, &o, &err) : TOSAC_OK;
    if (rc)
        ir_model_free(m);
    else
        rc = tosac_compile_model(m, &o, &p, NULL, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, TOSAC_OK);
    assert_true(tosac_program_n_delegates(p) >= 1);
    int i64 = 0;
    for (int k = 0; k < tosac_program_n_delegates(p); k++) {
        const tosa_block *b = tosa_graph_main_block(tosac_program_delegate(p, k));
        for (int t = 0; t < b->n_tensors; t++)
            i64 += b->tensors[t].dtype == TOSAC_DT_I64;
    }
    assert_int_equal(i64 > 0, want_i64);
    tosac_tensor in[3], res[11];
    const char *names[3] = {"scores", "base", "offsets"};
    char rel[256];
    for (int i = 0; i < 3; i++) {
        snprintf(rel, sizeof rel, "models/synth_int64_ops_op13/inputs/03/%s.npy", names[i]);
        assert_int_equal(tosac_npy_read(tu_shared(rel), &in[i], &err), TOSAC_OK);
    }
    rc = tosac_program_run(p, in, 3, res, 11, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, TOSAC_OK);
    for (int i = 0; i < 11; i++) {
        tosac_tensor e;
        snprintf(rel, sizeof rel, "models/synth_int64_ops_op13/expected/03/%s.npy", outs[i]);
        assert_int_equal(tosac_npy_read(tu_shared(rel), &e, &err), TOSAC_OK);
        assert_int_equal(res[i].dtype, TOSAC_DT_I64);
        assert_int_equal(res[i].nbytes, e.nbytes);
        assert_memory_equal(res[i].data, e.data, e.nbytes);
        tosac_tensor_free(&e);
        tosac_tensor_free(&res[i]);
    }
    for (int i = 0; i < 3; i++)
        tosac_tensor_free(&in[i]);
    tosac_program_free(p);
}

static void test_zoo_int32_spec(void **state)
{
    (void)state;
    zoo("TOSA-1.0+INT", NULL, false);
}

/* Issue 8: quantized, TopK (CPU) wrote int64 into the int32 twin of its graph output and the
 * run failed "input 'topk_idx_i32' must be i32, got i64". */
static void test_zoo_quantized_int32_spec(void **state)
{
    (void)state;
    zoo("TOSA-1.0+INT", "a8w8", false);
}

static void test_zoo_int64_spec(void **state)
{
    (void)state;
    zoo("TOSA-1.1+INT+int64", NULL, true);
}

static void test_zoo_fp_int64_spec(void **state)
{
    (void)state;
    zoo("TOSA-1.1+FP+int64", NULL, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argmax_plus_constant_narrowed),
        cmocka_unit_test(test_constant_beyond_int32_is_an_error),
        cmocka_unit_test(test_keeps_int64_with_extension),
        cmocka_unit_test(test_runtime_input_stays_int64),
        cmocka_unit_test(test_cpu_node_writing_graph_output),
        cmocka_unit_test(test_captured_value_kept),
        cmocka_unit_test(test_zoo_int32_spec),
        cmocka_unit_test(test_zoo_quantized_int32_spec),
        cmocka_unit_test(test_zoo_int64_spec),
        cmocka_unit_test(test_zoo_fp_int64_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
