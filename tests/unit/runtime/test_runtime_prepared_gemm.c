/* The runtime's prepared blocks for matrix products (issue 10): a float Gemm or MatMul with a
 * constant B in the CPU part packs B once, at init (its pack step), into the region the
 * compiler measured, and every invoke reads it as it is (the per-invoke path packed B's
 * panels on every call).
 *
 * The program: x [8,300] -> Gemm (transB=1, W1 [40,300], bias [40]) -> Relu -> Gemm (transB=0,
 * W2 [40,24], C [24], alpha 0.5) -> MatMul (W3 [24,20]) -> y [8,20], compiled for
 * TOSA-1.0+INT without quantizing (nothing delegated). k = 300 spans two sgemm k blocks;
 * every n leaves a partial panel.
 *
 * - test_b_packed_once: the record's prepared_bytes is the three blocks (a 16-byte tag, then
 *   B as NR-wide panels over the whole k: round_up(n, 32) * k floats): 76816 + 5136 + 3088;
 *   init hands out exactly 3 fresh blocks and the region is then exactly full; over 5
 *   invokes no block is handed out again, none is refused, the region's bytes stay those of
 *   init; every output is bit-identical to the ONNX CPU executor's (cpu_run_model) on the
 *   same input; the allocator is not called during any invoke.
 * - test_per_invoke_packing_same_bits: the same program with prepared_bytes 0 (no region:
 *   B packed per call, as before) gives the same bits on the same inputs, each product's
 *   request refused on every invoke.
 * - test_arena_too_small: 16 bytes fewer than tosac_rt_arena_size says is refused at init
 *   with one line. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "runtime_testutil.h"
#include "tosac/compile.h"
#include "tosac/program.h"

#include "alloc_count_testutil.h" /* counting, n_alloc_calls */

#define M 8
#define K1 300
#define N1 40
#define N2 24
#define N3 20
#define NX (M * K1)
#define NY (M * N3)
#define N_PRODUCTS 3

/* Deterministic values in [-1, 1) (a small LCG): weights and inputs. */
static void fill(float *v, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)(seed >> 8) / (float)(1u << 23) - 1.0f;
    }
}

static ir_model *gemm_model(void)
{
    static float w1[N1 * K1], b1[N1], w2[N1 * N2], c2[N2], w3[N2 * N3];
    fill(w1, N1 * K1, 1);
    fill(b1, N1, 2);
    fill(w2, N1 * N2, 3);
    fill(c2, N2, 4);
    fill(w3, N2 * N3, 5);
    ir_model *m = ir_model_new();
    assert_int_equal(ir_model_set_opset(m, "", 13, NULL), TOSAC_OK);
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t xs[2] = {M, K1}, w1s[2] = {N1, K1}, b1s[1] = {N1}, hs[2] = {M, N1},
            w2s[2] = {N1, N2}, c2s[1] = {N2}, h2s[2] = {M, N2}, w3s[2] = {N2, N3},
            ys[2] = {M, N3};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, xs, &err);
    int tw1 = ir_graph_add_const(g, "w1", TOSAC_DT_F32, 2, w1s, w1, sizeof w1, &err);
    int tb1 = ir_graph_add_const(g, "b1", TOSAC_DT_F32, 1, b1s, b1, sizeof b1, &err);
    int tw2 = ir_graph_add_const(g, "w2", TOSAC_DT_F32, 2, w2s, w2, sizeof w2, &err);
    int tc2 = ir_graph_add_const(g, "c2", TOSAC_DT_F32, 1, c2s, c2, sizeof c2, &err);
    int tw3 = ir_graph_add_const(g, "w3", TOSAC_DT_F32, 2, w3s, w3, sizeof w3, &err);
    int h = ir_graph_add_tensor(g, "h", TOSAC_DT_F32, 2, hs, &err);
    int r = ir_graph_add_tensor(g, "r", TOSAC_DT_F32, 2, hs, &err);
    int h2 = ir_graph_add_tensor(g, "h2", TOSAC_DT_F32, 2, h2s, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, ys, &err);
    int in1[3] = {x, tw1, tb1}, in2[3] = {r, tw2, tc2}, in3[2] = {h2, tw3};
    int k1 = ir_graph_add_node(g, "Gemm", NULL, "gemm1", in1, 3, &h, 1, &err);
    assert_int_equal(ir_node_set_int(g, k1, "transB", 1, &err), TOSAC_OK);
    assert_true(ir_graph_add_node(g, "Relu", NULL, "relu", &h, 1, &r, 1, &err) >= 0);
    int k2 = ir_graph_add_node(g, "Gemm", NULL, "gemm2", in2, 3, &h2, 1, &err);
    assert_int_equal(ir_node_set_float(g, k2, "alpha", 0.5f, &err), TOSAC_OK);
    assert_true(ir_graph_add_node(g, "MatMul", NULL, "matmul", in3, 2, &y, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    if (err.code)
        fail_msg("%s", err.msg);
    return m;
}

static void *compiled(size_t *len)
{
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = "TOSA-1.0+INT";
    tosac_program *p = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_compile_model(gemm_model(), &o, &p, NULL, &err))
        fail_msg("compile: %s", err.msg);
    assert_int_equal(tosac_program_n_delegates(p), 0); /* every product on the CPU */
    void *bytes = NULL;
    if (tosac_program_build(p, &bytes, len, &err))
        fail_msg("build: %s", err.msg);
    tosac_program_free(p);
    return bytes;
}

/* The ONNX CPU executor's y for input x. */
static void reference(const float *x, float *y)
{
    ir_model *m = gemm_model();
    int64_t xs[2] = {M, K1};
    tosac_tensor in, out;
    tosac_error err;
    tosac_error_clear(&err);
    memset(&in, 0, sizeof in);
    in.dtype = TOSAC_DT_F32;
    in.rank = 2;
    memcpy(in.shape, xs, sizeof xs);
    in.data = (void *)x;
    in.nbytes = NX * sizeof(float);
    if (cpu_run_model(m, &in, 1, &out, 1, &err))
        fail_msg("cpu_run_model: %s", err.msg);
    assert_int_equal(out.nbytes, NY * sizeof(float));
    memcpy(y, out.data, out.nbytes);
    tosac_tensor_free(&out);
    ir_model_free(m);
}

typedef struct loaded {
    void *arena;
    size_t arena_bytes;
    tosac_rt *rt;
} loaded;

static void load(const void *prog, size_t len, loaded *l)
{
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_rt_arena_size(prog, len, &l->arena_bytes, &err))
        fail_msg("%s", err.msg);
    l->arena = aligned_alloc(16, (l->arena_bytes + 15) / 16 * 16);
    if (tosac_rt_init(prog, len, l->arena, l->arena_bytes, &l->rt, &err))
        fail_msg("%s", err.msg);
}

/* One invoke on the input of seed (kept in x): y into out, no allocator call during it. */
static void invoke(tosac_rt *rt, uint32_t seed, float *x, float *out)
{
    fill(x, NX, seed);
    tosac_tensor *in = tosac_rt_input(rt, 0);
    assert_int_equal(in->nbytes, NX * sizeof(float));
    memcpy(in->data, x, NX * sizeof(float));
    tosac_error err;
    tosac_error_clear(&err);
    n_alloc_calls = 0;
    counting = 1;
    tosac_code rc = tosac_rt_invoke(rt, &err);
    counting = 0;
    if (rc)
        fail_msg("invoke: %s", err.msg);
    assert_int_equal(n_alloc_calls, 0);
    const tosac_tensor *y = tosac_rt_output(rt, 0);
    assert_int_equal(y->nbytes, NY * sizeof(float));
    memcpy(out, y->data, NY * sizeof(float));
}

static void test_b_packed_once(void **state)
{
    (void)state;
    size_t len = 0;
    void *prog = compiled(&len);
    const rt_runtime_rec *rr = tu_runtime_rec(prog, len);
    /* tag + round_up(n, 32) * k floats per product */
    assert_int_equal(rr->prepared_bytes, (16 + 64 * K1 * 4) + (16 + 32 * N1 * 4) +
                                             (16 + 32 * N2 * 4));
    loaded l;
    load(prog, len, &l);
    assert_int_equal(l.rt->prepd.size, rr->prepared_bytes);
    assert_int_equal(l.rt->prep_fills, N_PRODUCTS); /* packed at init */
    assert_int_equal(l.rt->prepd.used, rr->prepared_bytes);
    static float x[NX], y[NY], want[NY];
    unsigned char *snap = malloc(rr->prepared_bytes);
    memcpy(snap, l.rt->prepd.base, rr->prepared_bytes);
    for (uint32_t run = 0; run < 5; run++) {
        invoke(l.rt, 100 + run, x, y);
        assert_int_equal(l.rt->prep_fills, N_PRODUCTS); /* never again */
        assert_int_equal(l.rt->prep_misses, 0);         /* and nothing packed per run */
        assert_int_equal(l.rt->prepd.used, rr->prepared_bytes);
        assert_memory_equal(snap, l.rt->prepd.base, rr->prepared_bytes);
        reference(x, want);
        assert_memory_equal(y, want, sizeof y);
    }
    free(snap);
    free(l.arena);
    free(prog);
}

static void test_per_invoke_packing_same_bits(void **state)
{
    (void)state;
    size_t len = 0;
    void *prog = compiled(&len);
    loaded with;
    load(prog, len, &with);
    tu_runtime_rec(prog, len)->prepared_bytes = 0; /* no region: packed per call */
    loaded l;
    load(prog, len, &l);
    assert_int_equal(with.arena_bytes - l.arena_bytes, with.rt->prepd.size);
    assert_int_equal(l.rt->prep_misses, N_PRODUCTS); /* init's pack steps found no region */
    static float x[NX], y0[NY], y1[NY];
    for (uint32_t run = 0; run < 3; run++) {
        invoke(l.rt, 7 + run, x, y0);
        invoke(with.rt, 7 + run, x, y1);
        assert_memory_equal(y0, y1, sizeof y0);
        assert_int_equal(l.rt->prep_misses, N_PRODUCTS * (run + 2)); /* each packs per run */
    }
    assert_int_equal(l.rt->prep_fills, 0);
    assert_int_equal(with.rt->prep_fills, N_PRODUCTS);
    free(l.arena);
    free(with.arena);
    free(prog);
}

static void test_arena_too_small(void **state)
{
    (void)state;
    size_t len = 0;
    void *prog = compiled(&len);
    tosac_error err;
    tosac_error_clear(&err);
    size_t bytes = 0;
    assert_int_equal(tosac_rt_arena_size(prog, len, &bytes, &err), TOSAC_OK);
    void *arena = aligned_alloc(16, bytes);
    tosac_rt *rt = NULL;
    assert_int_equal(tosac_rt_init(prog, len, arena, bytes - 16, &rt, &err), TOSAC_ERR_INPUT);
    assert_null(rt);
    assert_non_null(strstr(err.msg, "the arena has"));
    assert_null(strchr(err.msg, '\n'));
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_init(prog, len, arena, bytes, &rt, &err), TOSAC_OK);
    free(arena);
    free(prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b_packed_once),
        cmocka_unit_test(test_per_invoke_packing_same_bits),
        cmocka_unit_test(test_arena_too_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
