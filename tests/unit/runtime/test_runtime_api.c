/* The runtime (include/tosac/runtime.h) on compiled zoo programs, through its public API only.
 *
 * - test_zoo_outputs_bit_exact: int8 and int16 (a16w8) convolutions, a float program, a mostly
 *   CPU int64 program, MobileNetV2 int8 and Silero VAD v5 (25 If nodes, 68 delegates inside
 *   their bodies) compile with `tosac compile` and run on the runtime, twice, with every output
 *   byte-identical to what the pre-runtime executor wrote (tests/data/runtime_refs, see its
 *   README; Silero, whose program changed since, against onnxruntime within stated bounds); the allocator is not called once during either invoke (the test binary is linked
 *   with -Wl,--wrap for malloc, calloc, realloc, aligned_alloc and free, so every call the
 *   libraries make is counted).
 * - test_arena_too_small: one byte short, and a misaligned arena, are refused with a message;
 *   the exact size works.
 * - test_truncated_and_corrupted: every truncation and seeded byte flips of a program are
 *   refused with a message or run (ASan build: no read outside the buffer, no crash).
 * - test_resolver: tosac_rt_init_ex with a resolver of only the operator families the program
 *   uses runs it; a resolver without QuantizeLinear fails at init naming it.
 * - test_compile_names_missing_operator: a model whose CPU part needs an operator the runtime
 *   lacks (a node of another domain) is a compile error (exit 2) naming the operator, and
 *   nothing is written.
 * - test_loop_trip_count_from_input: a Loop whose trip count is a graph input (zero while the
 *   compiler measures: no iteration) runs 3 iterations on the runtime (its temporaries were
 *   measured over one iteration run for the purpose), with the exact result.
 * - test_inspect_memory_is_the_plan: `tosac inspect --json` gives the PLAN section's arena and
 *   bound and the runtime's whole arena (what tosac_rt_arena_size says). */
#include "cpu_testgraph.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_program.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "tosac/runtime.h"
#include "util/fileio.h"
#include "util/json.h"

#include "alloc_count_testutil.h" /* counting, n_alloc_calls */

#define REFS "tests/data/runtime_refs"

typedef struct zoo_case {
    const char *name;       /* directory under REFS */
    const char *model;      /* under the shared dir, or (source:) under the source tree */
    const char *inputs;     /* sample directory under the shared dir */
    const char *spec;
    const char *shapes[2];  /* --input-shape values, or NULL */
    /* NULL: outputs byte-identical to REFS/<name>/<sample> (the pre-runtime executor's);
     * else onnxruntime's float outputs under the source tree, within tol per output */
    const char *ort_ref;
    float tol[2];
} zoo_case;

static const zoo_case cases[] = {
    {"s8conv", "models/synth_qdq_s8_op13_conv/model.onnx", "models/synth_qdq_s8_op13_conv/inputs/00",
     "TOSA-1.0+INT", {NULL, NULL}, NULL, {0, 0}},
    {"s16conv", "models/synth_qdq_s16_op21_conv/model.onnx",
     "models/synth_qdq_s16_op21_conv/inputs/00", "TOSA-1.0+INT+int16", {NULL, NULL}, NULL, {0, 0}},
    {"f32conv", "models/synth_qdq_s8_op13_conv/float_reference.onnx",
     "models/synth_qdq_s8_op13_conv/inputs/00", "TOSA-1.0+FP", {NULL, NULL}, NULL, {0, 0}},
    {"int64", "models/synth_int64_ops_op13/model.onnx", "models/synth_int64_ops_op13/inputs/00",
     "TOSA-1.0+INT", {NULL, NULL}, NULL, {0, 0}},
    {"mnv2", "models/mobilenet_v2_qdq_u8s8_op13/model.onnx",
     "models/mobilenet_v2_qdq_u8s8_op13/inputs/00", "TOSA-1.0+INT", {NULL, NULL}, NULL, {0, 0}},
    {"silero_fp", "source:tests/data/silero_vad_v5/model.onnx",
     "models/silero_vad_op18_ifless/inputs/01", "TOSA-1.0+FP", {"input=1,576", "state=2,1,128"},
     /* float32 against onnxruntime: the delegated convolutions (1-D Conv as CONV2D since
      * issue 15) round once from double, onnxruntime sums in float32, so the bits differ from
      * the pre-runtime program's; the bounds are test_silero_v5's (probability in [0, 1],
      * measured 1.2e-7; the LSTM state drifts more, measured 3.8e-6) */
     "tests/data/silero_vad_v5/float/01", {1e-5f, 1e-4f}},
};

typedef struct loaded {
    void *prog;
    size_t len;
    void *arena;
    size_t arena_bytes;
    tosac_rt *rt;
} loaded;

/* `tosac compile` of c into dir/<name>.prog; returns the path (tu_join's buffer). */
static const char *compile_case(const zoo_case *c, const char *dir)
{
    char model[4096], prog[4200];
    if (!strncmp(c->model, "source:", 7))
        snprintf(model, sizeof model, "%s", tu_source(c->model + 7));
    else
        snprintf(model, sizeof model, "%s", tu_shared(c->model));
    snprintf(prog, sizeof prog, "%s/%s.prog", dir, c->name);
    const char *args[12] = {"compile", model, "--spec", c->spec, "-o", prog, "--quiet"};
    int n = 7;
    for (int k = 0; k < 2 && c->shapes[k]; k++) {
        args[n++] = "--input-shape";
        args[n++] = c->shapes[k];
    }
    args[n] = NULL;
    char *errs = NULL;
    int rc = tu_cli_argv(NULL, &errs, args);
    if (rc != 0)
        fail_msg("compile %s: exit %d: %s", c->name, rc, errs);
    free(errs);
    return tu_join(dir, strrchr(prog, '/') + 1);
}

static void load(const char *path, loaded *l)
{
    tosac_error err;
    memset(l, 0, sizeof *l);
    assert_int_equal(tosac_read_file(path, &l->prog, &l->len, &err), TOSAC_OK);
    assert_true((uintptr_t)l->prog % 16 == 0); /* malloc's alignment, as the API asks */
    if (tosac_rt_arena_size(l->prog, l->len, &l->arena_bytes, &err))
        fail_msg("%s: %s", path, err.msg);
    l->arena = aligned_alloc(16, (l->arena_bytes + 15) / 16 * 16);
    assert_non_null(l->arena);
    if (tosac_rt_init(l->prog, l->len, l->arena, l->arena_bytes, &l->rt, &err))
        fail_msg("%s: %s", path, err.msg);
}

static void unload(loaded *l)
{
    free(l->arena);
    free(l->prog);
}

/* Every input from dir/<name>.npy. */
static void fill_inputs(tosac_rt *rt, const char *dir)
{
    for (int i = 0; i < tosac_rt_n_inputs(rt); i++) {
        char f[4200];
        tosac_tensor t;
        tosac_error err;
        snprintf(f, sizeof f, "%s/%s.npy", dir, tosac_rt_input_name(rt, i));
        assert_int_equal(tosac_npy_read(tu_shared(f), &t, &err), TOSAC_OK);
        tosac_tensor *in = tosac_rt_input(rt, i);
        assert_int_equal(t.dtype, in->dtype);
        assert_int_equal(t.nbytes, in->nbytes);
        memcpy(in->data, t.data, t.nbytes);
        tosac_tensor_free(&t);
    }
}

static void check_outputs(const tosac_rt *rt, const zoo_case *c, const char *sample)
{
    const char *name = c->name;
    for (int i = 0; i < tosac_rt_n_outputs(rt); i++) {
        char f[4200];
        tosac_tensor want;
        tosac_error err;
        if (c->ort_ref)
            snprintf(f, sizeof f, "%s/%s.npy", c->ort_ref, tosac_rt_output_name(rt, i));
        else
            snprintf(f, sizeof f, REFS "/%s/%s/%s.npy", name, sample,
                     tosac_rt_output_name(rt, i));
        if (tosac_npy_read(tu_source(f), &want, &err))
            fail_msg("%s: %s", name, err.msg); /* a missing reference fails, never skips */
        const tosac_tensor *got = tosac_rt_output(rt, i);
        assert_int_equal(got->dtype, want.dtype);
        assert_true(tosac_shape_equal(got->rank, got->shape, want.rank, want.shape));
        assert_int_equal(got->nbytes, want.nbytes);
        if (c->ort_ref) {
            assert_true(i < 2 && got->dtype == TOSAC_DT_F32);
            const float *g = got->data, *w = want.data;
            for (int64_t e = 0; e < tosac_tensor_numel(got); e++)
                if (!(fabsf(g[e] - w[e]) <= c->tol[i]))
                    fail_msg("%s: output '%s'[%lld] = %g, onnxruntime %g (tolerance %g)", name,
                             tosac_rt_output_name(rt, i), (long long)e, g[e], w[e], c->tol[i]);
        } else if (memcmp(got->data, want.data, want.nbytes))
            fail_msg("%s: output '%s' differs from the pre-runtime executor's", name,
                     tosac_rt_output_name(rt, i));
        tosac_tensor_free(&want);
    }
}

static void test_zoo_outputs_bit_exact(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const zoo_case *c = &cases[k];
        loaded l;
        load(compile_case(c, dir), &l);
        fill_inputs(l.rt, c->inputs);
        for (int run = 0; run < 2; run++) { /* a second invoke: no state left over */
            tosac_error err;
            n_alloc_calls = 0;
            counting = 1;
            tosac_code rc = tosac_rt_invoke(l.rt, &err);
            counting = 0;
            if (rc)
                fail_msg("%s: %s", c->name, err.msg);
            if (n_alloc_calls)
                fail_msg("%s: %ld allocator calls during invoke", c->name, n_alloc_calls);
            check_outputs(l.rt, c, strrchr(c->inputs, '/') + 1);
            if (run == 0) /* the arena reuses input buffers: write them again */
                fill_inputs(l.rt, c->inputs);
        }
        unload(&l);
    }
    tu_rmtree_free(dir);
}

static void test_arena_too_small(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    loaded l;
    load(compile_case(&cases[0], dir), &l);
    tosac_rt *rt = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_init(l.prog, l.len, l.arena, l.arena_bytes - 1, &rt, &err),
                     TOSAC_ERR_INPUT);
    char want[128];
    snprintf(want, sizeof want, "the arena has %zu bytes, the program needs %zu",
             l.arena_bytes - 1, l.arena_bytes);
    assert_string_equal(err.msg, want);
    assert_null(rt);
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_init(l.prog, l.len, (char *)l.arena + 8, l.arena_bytes - 16, &rt,
                                   &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "16-aligned"));
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_init(l.prog, l.len, l.arena, l.arena_bytes, &rt, &err), TOSAC_OK);
    assert_non_null(rt);
    unload(&l);
    tu_rmtree_free(dir);
}

/* A program given to the runtime: refused with a message, or initialised and run (zero
 * inputs) to an outcome. Arenas beyond 64 MiB count as refused here (not allocated). */
static void try_program(const void *p, size_t len)
{
    void *copy = tu_memdup(p, len); /* exactly len bytes: ASan sees a read past the end */
    size_t need = 0;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_rt_arena_size(copy, len, &need, &err)) {
        assert_true(err.code != TOSAC_OK && err.msg[0]);
        free(copy);
        return;
    }
    if (need <= ((size_t)64 << 20)) {
        void *arena = aligned_alloc(16, (need + 15) / 16 * 16 + 16);
        tosac_rt *rt = NULL;
        if (tosac_rt_init(copy, len, arena, need, &rt, &err) == TOSAC_OK)
            tosac_rt_invoke(rt, &err);
        else
            assert_true(err.msg[0]);
        free(arena);
    }
    free(copy);
}

static void test_truncated_and_corrupted(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    loaded l;
    load(compile_case(&cases[0], dir), &l);
    for (size_t n = 0; n < l.len; n += n < 256 ? 1 : 97) {
        tosac_error err;
        size_t need;
        void *copy = tu_memdup(l.prog, n);
        tosac_error_clear(&err);
        assert_int_not_equal(tosac_rt_arena_size(copy, n, &need, &err), TOSAC_OK);
        assert_true(err.msg[0]);
        free(copy);
    }
    unsigned char *bad = malloc(l.len);
    tu_seed(9);
    for (int it = 0; it < 300; it++) {
        memcpy(bad, l.prog, l.len);
        for (int k = 0; k < 1 + (int)tu_below(4); k++) {
            /* mostly the header, section table and records (offsets, counts, ids) */
            size_t at = tu_below(4) ? tu_below((uint32_t)(l.len < 4096 ? l.len : 4096))
                                    : tu_below((uint32_t)l.len);
            bad[at] ^= (unsigned char)(1u << tu_below(8));
        }
        try_program(bad, l.len);
    }
    free(bad);
    unload(&l);
    tu_rmtree_free(dir);
}

/* A resolver of the one family s8conv's CPU part uses (its boundary QuantizeLinear and
 * DequantizeLinear), and one without it. */
static const tosac_rt_op *quant_only(const char *op) { return tosac_rt_ops_quant(op); }
static const tosac_rt_op *no_quant(const char *op)
{
    return tosac_rt_ops_quant(op) ? NULL : tosac_rt_ops_all(op);
}

static void test_resolver(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    loaded l;
    load(compile_case(&cases[0], dir), &l);
    tosac_rt_options o = {quant_only, 0, NULL};
    tosac_rt *rt = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_init_ex(l.prog, l.len, l.arena, l.arena_bytes, &o, &rt, &err),
                     TOSAC_OK);
    fill_inputs(rt, cases[0].inputs);
    assert_int_equal(tosac_rt_invoke(rt, &err), TOSAC_OK);
    check_outputs(rt, &cases[0], "00");
    o.resolve = no_quant;
    assert_int_equal(tosac_rt_init_ex(l.prog, l.len, l.arena, l.arena_bytes, &o, &rt, &err),
                     TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "operator QuantizeLinear is not in the runtime's operator "
                                    "table"));
    unload(&l);
    tu_rmtree_free(dir);
}

static void test_compile_names_missing_operator(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    ir_model *m = ir_model_new();
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s2[1] = {2};
    int x = ir_graph_add_input(m->graph, "x", TOSAC_DT_F32, 1, s2, &err);
    int y = ir_graph_add_tensor(m->graph, "y", TOSAC_DT_F32, 1, s2, &err);
    assert_true(ir_graph_add_node(m->graph, "Frobnicate", "com.example", "frob", &x, 1, &y, 1,
                                  &err) >= 0);
    assert_int_equal(ir_graph_mark_output(m->graph, y, &err), TOSAC_OK);
    assert_int_equal(ir_model_set_opset(m, "com.example", 1, &err), TOSAC_OK);
    const char *model = tu_join(dir, "custom.onnx"), *prog = tu_join(dir, "custom.prog");
    assert_int_equal(onnx_export_file(m, model, &err), TOSAC_OK);
    ir_model_free(m);
    char *errs = NULL;
    int rc = tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+FP", "-o", prog, NULL);
    /* (the compiler's own check names it before the runtime's would) */
    if (rc != 2 || !strstr(errs, "Frobnicate") || !strstr(errs, "'com.example' is not supported"))
        fail_msg("exit %d: %s", rc, errs);
    free(errs);
    FILE *f = fopen(prog, "rb");
    assert_null(f); /* nothing written */
    tu_rmtree_free(dir);
}

static void test_loop_trip_count_from_input(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s2[1] = {2};
    uint8_t yes = 1;
    int tm = ir_graph_add_input(g, "M", TOSAC_DT_I64, 0, NULL, &err);
    int a0 = ir_graph_add_input(g, "a0", TOSAC_DT_F32, 1, s2, &err);
    int tc = ir_graph_add_const(g, "cond", TOSAC_DT_BOOL, 0, NULL, &yes, 1, &err);
    int af = ir_graph_add_tensor(g, "acc", TOSAC_DT_F32, 1, s2, &err);
    int ins[3] = {tm, tc, a0};
    int k = ir_graph_add_node(g, "Loop", NULL, "loop", ins, 3, &af, 1, &err);
    ct_loop_body(g, k, 2, NULL); /* a_out = a + a */
    assert_int_equal(ir_graph_mark_output(g, af, &err), TOSAC_OK);
    const char *model = tu_join(dir, "loop.onnx"), *prog = tu_join(dir, "loop.prog");
    assert_int_equal(onnx_export_file(m, model, &err), TOSAC_OK);
    ir_model_free(m);
    char *errs = NULL;
    int rc = tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+FP", "-o", prog, NULL);
    if (rc)
        fail_msg("exit %d: %s", rc, errs);
    free(errs);
    loaded l;
    load(prog, &l);
    int im = strcmp(tosac_rt_input_name(l.rt, 0), "M") == 0 ? 0 : 1;
    *(int64_t *)tosac_rt_input(l.rt, im)->data = 3;
    float *a = tosac_rt_input(l.rt, 1 - im)->data;
    a[0] = 0.5f;
    a[1] = -1.25f;
    if (tosac_rt_invoke(l.rt, &err))
        fail_msg("%s", err.msg);
    const float *y = tosac_rt_output(l.rt, 0)->data;
    assert_true(y[0] == 4.0f && y[1] == -10.0f); /* doubled three times */
    unload(&l);
    tu_rmtree_free(dir);
}

/* A Range of a runtime start: its length depends on the data, and its slot is planned from
 * the shape the model declares. Declared [8], compile writes the program (its measuring run
 * on zero inputs, start 0, fills the 8 values); a start of -4 (12 values) is more than the
 * program planned: invoke says so with TOSAC_ERR_CAPACITY (exit 2); a start of 3 (5 values)
 * runs. Declared [0] (the fuzz find in fuzz/regress/compile), nothing is planned for it and
 * compile refuses the model (exit 2, the model's declaration named) by that error class,
 * where it once called the measuring run's overflow an internal error (exit 1). A slot
 * planned from a non-empty declared shape that zero inputs overflow is not refused: the
 * measuring run goes on past data-dependent failures, real inputs may fit. */
static const char *range_model(const char *dir, int64_t declared)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_model_set_opset(m, "", 13, &err), TOSAC_OK);
    const int64_t lim = 8, one = 1;
    int ins[3] = {ir_graph_add_input(g, "start", TOSAC_DT_I64, 0, NULL, &err),
                  ir_graph_add_const(g, "limit", TOSAC_DT_I64, 0, NULL, &lim, 8, &err),
                  ir_graph_add_const(g, "delta", TOSAC_DT_I64, 0, NULL, &one, 8, &err)};
    int r = ir_graph_add_tensor(g, "r", TOSAC_DT_I64, 1, &declared, &err);
    assert_true(ir_graph_add_node(g, "Range", NULL, "range", ins, 3, &r, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, r, &err), TOSAC_OK);
    char name[32];
    snprintf(name, sizeof name, "range%d.onnx", (int)declared);
    const char *model = tu_join(dir, name);
    assert_int_equal(onnx_export_file(m, model, &err), TOSAC_OK);
    ir_model_free(m);
    return model;
}

static void test_data_larger_than_planned(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    const char *prog = tu_join(dir, "range.prog");
    char *errs = NULL;
    int rc = tu_cli(NULL, &errs, "compile", range_model(dir, 0), "--spec", "TOSA-1.0+FP", "-o",
                    prog, NULL);
    if (rc != 2 || !strstr(errs, "larger than the shape the model declares") ||
        !strstr(errs, "'r' needs 64 bytes, 0 planned"))
        fail_msg("exit %d: %s", rc, errs);
    free(errs);
    errs = NULL;
    rc = tu_cli(NULL, &errs, "compile", range_model(dir, 8), "--spec", "TOSA-1.0+FP", "-o", prog,
                NULL);
    if (rc)
        fail_msg("exit %d: %s", rc, errs);
    free(errs);
    loaded l;
    load(prog, &l);
    tosac_error err;
    tosac_error_clear(&err);
    *(int64_t *)tosac_rt_input(l.rt, 0)->data = -4;
    assert_int_equal(tosac_rt_invoke(l.rt, &err), TOSAC_ERR_CAPACITY);
    assert_non_null(strstr(err.msg, "'r' needs 96 bytes, 64 planned"));
    assert_int_equal(tosac_exit_status(err.code), 2);
    tosac_error_clear(&err);
    *(int64_t *)tosac_rt_input(l.rt, 0)->data = 3;
    if (tosac_rt_invoke(l.rt, &err))
        fail_msg("%s", err.msg);
    const tosac_tensor *y = tosac_rt_output(l.rt, 0);
    assert_int_equal(tosac_tensor_numel(y), 5);
    const int64_t want[5] = {3, 4, 5, 6, 7};
    assert_memory_equal(y->data, want, sizeof want);
    unload(&l);
    tu_rmtree_free(dir);
}

static void test_inspect_memory_is_the_plan(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    const char *path = compile_case(&cases[4], dir); /* MobileNetV2: a real plan */
    loaded l;
    load(path, &l);
    rt_program v;
    tosac_error err;
    assert_int_equal(rt_program_load(l.prog, l.len, &v, &err), TOSAC_OK);
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "inspect", path, "--json", NULL), 0);
    tosac_json *j = NULL;
    assert_int_equal(tosac_json_parse(out, strlen(out), &j, &err), TOSAC_OK);
    const tosac_json *mem = tosac_json_get(j, "memory");
    int64_t arena, lower, whole;
    assert_true(tosac_json_int(tosac_json_get(mem, "arena_bytes"), &arena));
    assert_true(tosac_json_int(tosac_json_get(mem, "arena_lower_bound_bytes"), &lower));
    assert_true(tosac_json_int(tosac_json_get(mem, "runtime_arena_bytes"), &whole));
    assert_true(arena > 0 && (uint64_t)arena == v.plan->arena_bytes);
    assert_true((uint64_t)lower == v.plan->lower_bound_bytes && lower <= arena);
    assert_true((size_t)whole == l.arena_bytes && whole > arena);
    tosac_json_free(j);
    free(out);
    unload(&l);
    tu_rmtree_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zoo_outputs_bit_exact),
        cmocka_unit_test(test_arena_too_small),
        cmocka_unit_test(test_truncated_and_corrupted),
        cmocka_unit_test(test_resolver),
        cmocka_unit_test(test_compile_names_missing_operator),
        cmocka_unit_test(test_loop_trip_count_from_input),
        cmocka_unit_test(test_inspect_memory_is_the_plan),
        cmocka_unit_test(test_data_larger_than_planned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
