/* Small TOSA graphs run twice, on the reference interpreter and with the accelerated
 * operators of src/runtime/accel/ installed (one kernel variant forced), for the accel twin
 * tests: the two results must be byte-identical and the family must really have installed
 * itself. Header-only (static functions) so a test needs no CMake change; include it after
 * testutil.h (cmocka). */
#ifndef TOSAC_TESTS_ACCEL_RUN_TESTUTIL_H
#define TOSAC_TESTS_ACCEL_RUN_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_registry.h"
#include "interp/interp_state.h"
#include "kernels/isa.h"
#include "runtime/accel/rt_accel.h"
#include "tosac/tosa.h"
#include "util/arena.h"

static uint64_t g_at_seed = 0x2545f4914f6cdd1du;

/* Deterministic (xorshift64) integer in [lo, hi]. */
static inline int64_t at_rand(int64_t lo, int64_t hi)
{
    g_at_seed ^= g_at_seed << 13;
    g_at_seed ^= g_at_seed >> 7;
    g_at_seed ^= g_at_seed << 17;
    return lo + (int64_t)(g_at_seed % (uint64_t)(hi - lo + 1));
}

/* A graph with one block "main". */
static inline tosa_block *at_graph(tosa_graph **g)
{
    *g = tosa_graph_new(1, 0);
    tosa_region *r = tosa_graph_add_region(*g, "main");
    return tosa_region_add_block(r, "main");
}

static inline int at_tensor(tosa_block *b, tosac_dtype dt, int rank, const int64_t *shape)
{
    char name[32];
    snprintf(name, sizeof name, "t%d", b->n_tensors);
    return tosa_block_add_tensor(b, name, dt, rank, shape, NULL, 0, NULL);
}

/* A constant tensor and the CONST operator producing it, as the lowering emits them. */
static inline int at_const(tosa_block *b, tosac_dtype dt, int rank, const int64_t *shape,
                           const void *data, size_t bytes)
{
    char name[32];
    snprintf(name, sizeof name, "c%d", b->n_tensors);
    int t = tosa_block_add_tensor(b, name, dt, rank, shape, data, bytes, NULL);
    tosa_block_add_op(b, TOSA_OP_CONST, NULL, NULL, 0, &t, 1, NULL);
    return t;
}

static inline int at_const_i8(tosa_block *b, int8_t v)
{
    int64_t one = 1;
    return at_const(b, TOSAC_DT_I8, 1, &one, &v, 1);
}

static inline int at_const_i32(tosa_block *b, int32_t v)
{
    int64_t one = 1;
    return at_const(b, TOSAC_DT_I32, 1, &one, &v, 4);
}

/* RESCALE i32 -> i8 (random multipliers and shifts in the given ranges; multipliers left 0..0
 * take [2^30, 2^31)) and an optional CLAMP, the tail the conv families fuse. */
typedef struct at_q8 {
    int slo, shi;               /* shift range */
    int32_t mlo, mhi;           /* multiplier range */
    int ozp;
    int per_tensor;
    int rm;                     /* 0 SINGLE_ROUND, 1 INEXACT_ROUND, 2 DOUBLE_ROUND */
    int clamp, cmin, cmax;
} at_q8;

/* Adds the tail reading acc (int32, shape osh, C = osh[3] channels); returns its result. */
static inline int at_q8_tail(tosa_block *b, int acc, const int64_t *osh, const at_q8 *q)
{
    int64_t nc = q->per_tensor ? 1 : osh[3];
    int32_t mlo = q->mlo, mhi = q->mhi;
    if (!mlo && !mhi)
        mlo = 1 << 30, mhi = INT32_MAX;
    int32_t *mul = malloc(sizeof(int32_t) * (size_t)nc);
    int8_t *sh = malloc((size_t)nc);
    for (int i = 0; i < nc; i++) {
        mul[i] = (int32_t)at_rand(mlo, mhi);
        sh[i] = (int8_t)at_rand(q->slo, q->shi);
    }
    int tm = at_const(b, TOSAC_DT_I32, 1, &nc, mul, sizeof(int32_t) * (size_t)nc);
    int ts = at_const(b, TOSAC_DT_I8, 1, &nc, sh, (size_t)nc);
    int trz = at_const_i32(b, 0), toz = at_const_i8(b, (int8_t)q->ozp);
    int y = at_tensor(b, TOSAC_DT_I8, 4, osh);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.scale32 = true, a.per_channel = !q->per_tensor;
    a.rounding_mode = q->rm == 0   ? TOSA_ROUND_SINGLE
                      : q->rm == 1 ? TOSA_ROUND_INEXACT
                                   : TOSA_ROUND_DOUBLE;
    int rin[5] = {acc, tm, ts, trz, toz};
    tosa_block_add_op(b, TOSA_OP_RESCALE, &a, rin, 5, &y, 1, NULL);
    free(mul), free(sh);
    if (!q->clamp)
        return y;
    int z = at_tensor(b, TOSAC_DT_I8, 4, osh);
    memset(&a, 0, sizeof a);
    a.n_min_val = a.n_max_val = 1;
    a.min_val[0] = (uint8_t)(int8_t)q->cmin, a.max_val[0] = (uint8_t)(int8_t)q->cmax;
    tosa_block_add_op(b, TOSA_OP_CLAMP, &a, &y, 1, &z, 1, NULL);
    return z;
}

/* A serial stand-in for a thread pool: task i runs as thread i % n_threads, so per-thread
 * scratch slices and result slots are exercised without threads. */
static inline void at_serial_pool(void *pool, int n_tasks, tosac_rt_task task, void *ctx)
{
    const tosac_rt_parallel *p = pool;
    for (int i = n_tasks - 1; i >= 0; i--) /* reverse order: tasks must be independent */
        task(ctx, i, i % p->n_threads);
}

typedef struct at_result {
    tosac_code rc;      /* of interp_execute */
    void *out;          /* output 0's bytes (malloc'd), NULL on error */
    size_t bytes;
    int installed;      /* operators of the main block whose function was replaced */
} at_result;

/* Runs g on input (bound to the main block's one input). accel: install the accelerated
 * operators with the currently forced variant; n_threads > 1 uses at_serial_pool. */
static inline at_result at_run(const tosa_graph *g, const tosac_tensor *input, int accel,
                               int n_threads)
{
    at_result r = {TOSAC_ERR_INTERNAL, NULL, 0, 0};
    interp_state *st = NULL;
    tosac_error err = {0};
    if (interp_prepare(g, &st, &err) != TOSAC_OK)
        return r;
    size_t arena_bytes = (size_t)64 << 20;
    void *mem = malloc(arena_bytes);
    tosac_arena arena;
    tosac_arena_init(&arena, mem, arena_bytes);
    tosac_rt_parallel par = {n_threads, at_serial_pool, &par};
    rt_accel_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.n_threads = n_threads > 1 ? n_threads : 1;
    sh.par = n_threads > 1 ? &par : NULL;
    if (accel && (rt_accel_prepare(st, &arena, &sh, false, &err) != TOSAC_OK ||
                  rt_accel_finish(&sh, &arena, &err) != TOSAC_OK)) {
        interp_state_free(st);
        free(mem);
        return r;
    }
    const tosa_block *b = st->main->block;
    for (int i = 0; i < b->n_ops; i++)
        if (st->main->fns[i] != interp_find_op(b->ops[i].op))
            r.installed++;
    r.rc = interp_execute(st, input, 1, &err);
    if (r.rc == TOSAC_OK) {
        const tosac_tensor *o = interp_main_output(st, 0);
        r.bytes = o->nbytes;
        r.out = malloc(o->nbytes ? o->nbytes : 1);
        memcpy(r.out, o->data, o->nbytes);
    }
    interp_state_free(st);
    free(mem);
    return r;
}

/* The reference run, then every variant this machine runs (kern_isa_force) with 1 and 3
 * threads: each must replace `installed` operators of the main block and give the
 * reference's bytes, or fail where the reference fails (expect_error). */
static inline void at_check_variants(const tosa_graph *g, const tosac_tensor *in, int installed,
                                     int expect_error)
{
    at_result ref = at_run(g, in, 0, 1);
    assert_int_equal(ref.installed, 0);
    if (expect_error)
        assert_int_not_equal(ref.rc, TOSAC_OK);
    else
        assert_int_equal(ref.rc, TOSAC_OK);
    kern_isa saved = kern_isa_active();
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_available((kern_isa)v))
            continue;
        assert_int_equal(kern_isa_force((kern_isa)v), 0);
        for (int threads = 1; threads <= 3; threads += 2) {
            at_result r = at_run(g, in, 1, threads);
            assert_int_equal(r.installed, installed);
            if (expect_error) {
                assert_int_not_equal(r.rc, TOSAC_OK);
            } else {
                assert_int_equal(r.rc, TOSAC_OK);
                assert_int_equal(r.bytes, ref.bytes);
                assert_memory_equal(r.out, ref.out, ref.bytes);
            }
            free(r.out);
        }
    }
    kern_isa_force(saved);
    free(ref.out);
}

/* Random int8 values in [lo, hi], with the extremes forced at a few places. */
static inline void at_fill_i8(int8_t *v, size_t n, int lo, int hi)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (int8_t)at_rand(lo, hi);
    if (n > 2) {
        v[0] = (int8_t)lo;
        v[n - 1] = (int8_t)hi;
    }
}

/* Names the variants the test will run (the log shows which ran). */
static inline void at_print_variants(const char *family)
{
    for (int v = 0; v < KERN_ISA_COUNT; v++)
        if (kern_isa_available((kern_isa)v))
            printf("accel %s: variant %s\n", family, kern_isa_name((kern_isa)v));
}

/* t: a malloc'd int8 tensor of shape [4] with random values in [lo, hi] (extremes included). */
static inline void at_input_i8(tosac_tensor *t, const int64_t *shape, int lo, int hi)
{
    memset(t, 0, sizeof *t);
    t->dtype = TOSAC_DT_I8, t->rank = 4;
    memcpy(t->shape, shape, 4 * sizeof shape[0]);
    t->nbytes = (size_t)(shape[0] * shape[1] * shape[2] * shape[3]);
    t->data = malloc(t->nbytes ? t->nbytes : 1);
    at_fill_i8(t->data, t->nbytes, lo, hi);
}

#endif
