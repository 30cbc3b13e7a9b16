/* Zoo accelerated-kernel suite: every zoo program gives the same bytes with the accelerated
 * kernels as on the reference interpreter.
 *
 * For the case named on the command line (one ctest per case, see CMakeLists.txt): compile
 * the zoo model (the QDQ models as they are, float models quantized a16w8 on their own
 * samples, or kept float under +FP), then run the samples of meta.json (the large models:
 * the first one or two)
 *   - with options.reference = 1 (the interpreter only: the expected bytes),
 *   - with the accelerated kernels for EVERY variant of KERN_ISA_LIST this machine runs
 *     (kern_isa_force, as TOSAC_KERNEL_ISA does in the CLI), one thread,
 *   - with the best variant on a thread pool of 2 and of 3 threads (an odd split),
 * and asserts every output equal byte for byte. It prints how many delegate operators each
 * configuration replaced, and requires some for the int8 CNNs once any family exists (so a
 * family list that silently declines everything is noticed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_registry.h"
#include "kernels/isa.h"
#include "runtime/rt_internal.h"
#include "testutil.h"
#include "tosac/compile.h"
#include "tosac/npy.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/threadpool.h"

typedef struct zcase {
    const char *name;        /* the ctest's: zoo_accel_<name> */
    const char *model;       /* folder in the zoo */
    const char *spec;
    const char *quantize;    /* NULL, or the scheme (calibrated on the model's inputs/) */
    const char *input_shape; /* for dynamic input dimensions */
    int want_accel;          /* 1: some operator must be accelerated (once families exist) */
    int max_samples;         /* 0: every sample */
} zcase;

#define S8 "TOSA-1.0+INT"
#define S16 "TOSA-1.0+INT+int16"
/* The large models run one sample (or two): every run of the reference interpreter takes
 * about a second on the 2-core machine, and one image already passes every operator. */
static const zcase cases[] = {
    {"resnet18_qdq_u8s8_op13", "resnet18_qdq_u8s8_op13", S8, NULL, NULL, 1, 1},
    {"mobilenet_v2_qdq_u8s8_op13", "mobilenet_v2_qdq_u8s8_op13", S8, NULL, NULL, 1, 2},
    {"mobilenet_v2_a16w8", "mobilenet_v2_f32_op13", S16, "a16w8", NULL, 0, 1},
    {"ppocr_mobile_v2_cls_a16w8", "ppocr_mobile_v2_cls", S16, "a16w8", "x=1,3,48,192", 0, 2},
    {"mobilenet_v2_f32_op13", "mobilenet_v2_f32_op13", "TOSA-1.0+FP", NULL, NULL, 0, 1},
    {"ppocr_mobile_v2_cls", "ppocr_mobile_v2_cls", "TOSA-1.0+FP", NULL, "x=1,3,48,192", 0, 1},
};

static const char *case_name;
static tosac_error E;

static void ok(tosac_code rc)
{
    if (rc)
        print_error("tosac error: %s\n", E.msg);
    assert_int_equal(rc, TOSAC_OK);
}

/* The outputs of every sample under one configuration. */
typedef struct run_result {
    tosac_tensor *outs;  /* n_samples * n_outputs */
    int accelerated;     /* delegate operators not on their reference function */
    int threads;
} run_result;

typedef struct zoo_prog {
    void *bytes;
    size_t len;
    int n_samples, n_in, n_out;
    tosac_tensor *ins;   /* n_samples * n_in, in the runtime's input order */
} zoo_prog;

static int count_accelerated(const tosac_rt *rt)
{
    int n = 0;
    for (int d = 0; d < rt->n_delegates; d++)
        for (interp_block_state *bs = rt->delegates[d].st->blocks; bs; bs = bs->next)
            for (int i = 0; i < bs->block->n_ops; i++)
                n += bs->fns[i] != interp_find_op(bs->block->ops[i].op);
    return n;
}

/* Runs every sample of z on a fresh runtime with o. */
static void run_all(const zoo_prog *z, const tosac_rt_options *o, run_result *r)
{
    size_t bytes = 0;
    ok(tosac_rt_arena_size_ex(z->bytes, z->len, o, &bytes, &E));
    void *arena = aligned_alloc(16, (bytes + 15) / 16 * 16);
    assert_non_null(arena);
    tosac_rt *rt = NULL;
    ok(tosac_rt_init_ex(z->bytes, z->len, arena, bytes, o, &rt, &E));
    r->accelerated = count_accelerated(rt);
    r->threads = rt->accel.n_threads;
    r->outs = calloc((size_t)(z->n_samples * z->n_out) + 1, sizeof *r->outs);
    assert_non_null(r->outs);
    for (int s = 0; s < z->n_samples; s++) {
        for (int i = 0; i < z->n_in; i++) {
            tosac_tensor *in = tosac_rt_input(rt, i);
            const tosac_tensor *src = &z->ins[s * z->n_in + i];
            assert_int_equal(in->nbytes, src->nbytes);
            memcpy(in->data, src->data, in->nbytes);
        }
        ok(tosac_rt_invoke(rt, &E));
        for (int k = 0; k < z->n_out; k++) {
            const tosac_tensor *src = tosac_rt_output(rt, k);
            tosac_tensor *dst = &r->outs[s * z->n_out + k];
            ok(tosac_tensor_alloc(dst, src->dtype, src->rank, src->shape, &E));
            memcpy(dst->data, src->data, src->nbytes);
        }
    }
    free(arena);
}

static void free_result(const zoo_prog *z, run_result *r)
{
    for (int i = 0; i < z->n_samples * z->n_out; i++)
        tosac_tensor_free(&r->outs[i]);
    free(r->outs);
}

static void assert_same(const zoo_prog *z, const run_result *ref, const run_result *got,
                        const char *what)
{
    for (int s = 0; s < z->n_samples; s++)
        for (int k = 0; k < z->n_out; k++) {
            const tosac_tensor *a = &ref->outs[s * z->n_out + k], *b = &got->outs[s * z->n_out + k];
            assert_int_equal(a->dtype, b->dtype);
            assert_int_equal(a->nbytes, b->nbytes);
            if (memcmp(a->data, b->data, a->nbytes) != 0)
                fail_msg("%s %s: sample %d output %d differs from the reference", case_name,
                         what, s, k);
        }
}

/* Compiles c and loads every sample's inputs (by the program's input names). */
static void load_case(const zcase *c, zoo_prog *z)
{
    memset(z, 0, sizeof *z);
    char mdir[1024], onnx[1100], meta_path[1100], calib[1100];
    snprintf(mdir, sizeof mdir, "%s/%s", tu_shared("models"), c->model);
    snprintf(onnx, sizeof onnx, "%s/model.onnx", mdir);
    snprintf(meta_path, sizeof meta_path, "%s/meta.json", mdir);
    snprintf(calib, sizeof calib, "%s/inputs", mdir);
    char *dir = tu_mkdtemp();
    const char *prg = tu_join(dir, "model.prg");
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = c->spec;
    o.quantize = c->quantize;
    const char *cal[1] = {calib};
    if (c->quantize) {
        o.calib = cal;
        o.n_calib = 1;
    }
    if (c->input_shape) {
        o.input_shapes = &c->input_shape;
        o.n_input_shapes = 1;
    }
    tosac_error_clear(&E);
    ok(tosac_compile_file(onnx, prg, &o, &E));
    ok(tosac_read_file(prg, &z->bytes, &z->len, &E));
    tu_rmtree_free(dir);

    /* the program's signature, from a reference runtime */
    size_t bytes = 0;
    ok(tosac_rt_arena_size(z->bytes, z->len, &bytes, &E));
    void *arena = aligned_alloc(16, (bytes + 15) / 16 * 16);
    tosac_rt *rt = NULL;
    ok(tosac_rt_init(z->bytes, z->len, arena, bytes, &rt, &E));
    z->n_in = tosac_rt_n_inputs(rt);
    z->n_out = tosac_rt_n_outputs(rt);
    tosac_json *meta = NULL;
    ok(tosac_json_parse_file(meta_path, &meta, &E));
    const tosac_json *samples = tosac_json_get(meta, "samples");
    z->n_samples = tosac_json_count(samples);
    assert_true(z->n_samples > 0);
    if (c->max_samples && z->n_samples > c->max_samples)
        z->n_samples = c->max_samples;
    z->ins = calloc((size_t)(z->n_samples * z->n_in) + 1, sizeof *z->ins);
    for (int s = 0; s < z->n_samples; s++)
        for (int i = 0; i < z->n_in; i++) {
            const tosac_json *e = tosac_json_get(tosac_json_get(tosac_json_at(samples, s),
                                                                "inputs"),
                                                 tosac_rt_input_name(rt, i));
            assert_non_null(e);
            char fp[1400];
            snprintf(fp, sizeof fp, "%s/%s", mdir, tosac_json_string(tosac_json_get(e, "file")));
            tosac_tensor *t = &z->ins[s * z->n_in + i];
            ok(tosac_npy_read(fp, t, &E));
            const tosac_tensor *want = tosac_rt_input(rt, i);
            assert_int_equal(t->dtype, want->dtype);
            assert_int_equal(t->nbytes, want->nbytes);
        }
    tosac_json_free(meta);
    free(arena);
}

static void test_zoo_accel(void **state)
{
    (void)state;
    const zcase *c = NULL;
    static zcase synth;
    static char sname[96], smodel[96];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(cases[i].name, case_name) == 0)
            c = &cases[i];
    if (!c && strncmp(case_name, "synth_qdq_s", 11) == 0) { /* the synthetic QDQ models */
        snprintf(sname, sizeof sname, "%s", case_name);
        snprintf(smodel, sizeof smodel, "%s", case_name);
        synth = (zcase){sname, smodel, strncmp(case_name, "synth_qdq_s16", 13) ? S8 : S16,
                        NULL, NULL, 0, 0};
        c = &synth;
    }
    if (!c)
        fail_msg("no zoo_accel case %s", case_name);
    zoo_prog z;
    load_case(c, &z);

    tosac_rt_options o = {tosac_rt_ops_all, 1, NULL};
    run_result ref;
    run_all(&z, &o, &ref);
    assert_int_equal(ref.accelerated, 0);
    printf("zoo_accel %s (%s%s%s): %d samples, %d outputs each\n", c->name, c->spec,
           c->quantize ? " --quantize " : "", c->quantize ? c->quantize : "", z.n_samples,
           z.n_out);

    kern_isa best = kern_isa_active();
    o.reference = 0;
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_available((kern_isa)v))
            continue;
        assert_int_equal(kern_isa_force((kern_isa)v), 0);
        run_result r;
        run_all(&z, &o, &r);
        printf("zoo_accel %s [%s]: %d operators accelerated, outputs identical\n", c->name,
               kern_isa_name((kern_isa)v), r.accelerated);
        assert_same(&z, &ref, &r, kern_isa_name((kern_isa)v));
        if (c->want_accel && rt_accel_families[0])
            assert_true(r.accelerated > 0);
        free_result(&z, &r);
    }
    assert_int_equal(kern_isa_force(best), 0);
    for (int n = 2; n <= 3; n++) {
        tosac_threadpool *pool = NULL;
        ok(tosac_threadpool_create(n, &pool, &E));
        o.parallel = tosac_threadpool_parallel(pool);
        run_result r;
        run_all(&z, &o, &r);
        assert_int_equal(r.threads, n);
        char what[64];
        snprintf(what, sizeof what, "[%s, %d threads]", kern_isa_name(best), n);
        printf("zoo_accel %s %s: %d operators accelerated, outputs identical\n", c->name, what,
               r.accelerated);
        assert_same(&z, &ref, &r, what);
        free_result(&z, &r);
        tosac_threadpool_free(pool);
    }
    free_result(&z, &ref);
    for (int i = 0; i < z.n_samples * z.n_in; i++)
        tosac_tensor_free(&z.ins[i]);
    free(z.ins);
    free(z.bytes);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: zoo_accel_test CASE\n");
        return 2;
    }
    case_name = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zoo_accel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
