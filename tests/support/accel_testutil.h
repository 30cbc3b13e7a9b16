/* Test helpers for the accelerated operator families (src/runtime/accel/): build a small
 * one-block TOSA graph, run it on the reference interpreter and, for every kernel variant of
 * KERN_ISA_LIST this build and CPU can run, on an interpreter state the families prepared
 * (rt_accel_prepare), and assert the outputs are byte for byte the reference's (or that both
 * fail with the same message), and that the expected operators were replaced. Header-only
 * (static functions) so a test file needs no CMake change. */
#ifndef TOSAC_ACCEL_TESTUTIL_H
#define TOSAC_ACCEL_TESTUTIL_H

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_registry.h"
#include "interp/interp_state.h"
#include "runtime/accel/rt_accel.h"
#include "tosac/tosa.h"

typedef struct at_graph {
    tosa_graph *g;
    tosa_block *b;
    int n_names;
} at_graph;

static inline void at_new(at_graph *t)
{
    memset(t, 0, sizeof *t);
    t->g = tosa_graph_new(1, 0);
    assert_non_null(t->g);
    tosa_region *r = tosa_graph_add_region(t->g, "main");
    assert_non_null(r);
    t->b = tosa_region_add_block(r, "main");
    assert_non_null(t->b);
}

static inline void at_free(at_graph *t) { tosa_graph_free(t->g); }

/* A tensor (a constant when data is given: bytes of its in-memory form); returns its index. */
static inline int at_tensor(at_graph *t, tosac_dtype dt, int rank, const int64_t *shape,
                     const void *data)
{
    char name[32];
    snprintf(name, sizeof name, "t%d", t->n_names++);
    size_t n = tosac_dtype_size(dt);
    for (int d = 0; d < rank; d++)
        n *= (size_t)shape[d];
    tosac_error err;
    tosac_error_clear(&err);
    int i = tosa_block_add_tensor(t->b, name, dt, rank, shape, data, data ? n : 0, &err);
    assert_true(i >= 0);
    return i;
}

/* A rank-1 integer constant of n values converted to dt (I8/I16/I32/I48/SHAPE). */
static inline int at_const(at_graph *t, tosac_dtype dt, int n, const int64_t *vals)
{
    size_t esz = tosac_dtype_size(dt);
    unsigned char *buf = calloc((size_t)n + 1, esz);
    for (int i = 0; i < n; i++) {
        int64_t v = vals[i];
        memcpy(buf + (size_t)i * esz, &v, esz); /* little-endian low bytes */
    }
    int64_t shape[1] = {n};
    int r = at_tensor(t, dt, 1, shape, buf);
    free(buf);
    return r;
}

static inline int at_scalar(at_graph *t, tosac_dtype dt, int64_t v) { return at_const(t, dt, 1, &v); }

static inline void at_op(at_graph *t, tosa_op op, const tosa_attr *attr, const int *in, int n_in,
                  int out)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    assert_true(tosa_block_add_op(t->b, op, attr ? attr : &a, in, n_in, &out, 1, &err) >= 0);
}

static inline void at_io(at_graph *t, const int *in, int n_in, const int *out, int n_out)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosa_block_set_io(t->b, in, n_in, out, n_out, &err), TOSAC_OK);
}

/* The tail the a16w8 families fuse after an int48 accumulator acc of the given shape: a
 * RESCALE (scale16, SINGLE_ROUND) to int8 (output zero point ozp8) or int16, multipliers
 * random in [0, 2^15], shifts in shift_lo .. shift_lo + 3 (nc of each: per channel or 1),
 * then, when clamp, a CLAMP to [lo, hi]. Returns the tail's last tensor. */
static inline int at_i48_tail(at_graph *t, int acc, int rank, const int64_t *shape, int nc,
                              bool per_channel, int shift_lo, bool out8, int ozp8, bool clamp,
                              int16_t lo, int16_t hi)
{
    int64_t *mul = calloc((size_t)nc, sizeof *mul), *sh = calloc((size_t)nc, sizeof *sh);
    for (int i = 0; i < nc; i++) {
        mul[i] = tu_below(INT16_MAX + 1);
        sh[i] = shift_lo + (int)tu_below(4);
    }
    tosac_dtype odt = out8 ? TOSAC_DT_I8 : TOSAC_DT_I16;
    int q = at_tensor(t, odt, rank, shape, NULL);
    int rin[5] = {acc, at_const(t, TOSAC_DT_I16, nc, mul), at_const(t, TOSAC_DT_I8, nc, sh),
                  at_scalar(t, TOSAC_DT_I48, 0), at_scalar(t, odt, out8 ? ozp8 : 0)};
    free(mul);
    free(sh);
    tosa_attr r;
    memset(&r, 0, sizeof r);
    r.scale32 = false;
    r.per_channel = per_channel;
    r.rounding_mode = TOSA_ROUND_SINGLE;
    at_op(t, TOSA_OP_RESCALE, &r, rin, 5, q);
    if (!clamp)
        return q;
    int y = at_tensor(t, odt, rank, shape, NULL);
    tosa_attr c;
    memset(&c, 0, sizeof c);
    memcpy(c.min_val, &lo, 2);
    memcpy(c.max_val, &hi, 2);
    c.n_min_val = c.n_max_val = out8 ? 1 : 2;
    at_op(t, TOSA_OP_CLAMP, &c, &q, 1, y);
    return y;
}

/* A tensor of the given type filled with tu_rand bytes (then clipped to [lo, hi] for
 * integers when lo < hi); owned: free with tosac_tensor_free. */
static inline void at_random(tosac_tensor *x, tosac_dtype dt, int rank, const int64_t *shape,
                      int64_t lo, int64_t hi)
{
    memset(x, 0, sizeof *x);
    x->dtype = dt;
    x->rank = rank;
    memcpy(x->shape, shape, sizeof(int64_t) * (size_t)rank);
    int64_t n = tosac_tensor_numel(x);
    size_t esz = tosac_dtype_size(dt);
    x->nbytes = (size_t)n * esz;
    x->data = calloc(x->nbytes + 1, 1);
    x->owns_data = 1;
    unsigned char *p = x->data;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)(((uint64_t)tu_rand() << 32) | tu_rand());
        if (lo < hi)
            v = lo + (int64_t)((uint64_t)v % (uint64_t)(hi - lo + 1));
        memcpy(p + (size_t)i * esz, &v, esz);
    }
}

/* Operators of the main block the families replaced (not CONST). */
static inline int at_installed(const interp_state *st)
{
    const interp_block_state *bs = st->main;
    int n = 0;
    for (int i = 0; i < bs->block->n_ops; i++) {
        tosa_op op = bs->block->ops[i].op;
        if (op != TOSA_OP_CONST && op != TOSA_OP_CONST_SHAPE && bs->fns[i] != interp_find_op(op))
            n++;
    }
    return n;
}

/* A thread pool stand-in: runs every task in order, on "thread" i % n_threads, so the
 * kernels' task split and per-thread scratch slices run without threads. */
static void at_pool_run(void *pool, int n_tasks, tosac_rt_task task, void *ctx)
{
    const tosac_rt_parallel *par = pool;
    for (int i = n_tasks - 1; i >= 0; i--) /* backwards: no task may rely on the order */
        task(ctx, i, i % par->n_threads);
}

/* Operators of the main block turned into interp_op_nop (the non-first members of a fused
 * group that writes its result in place). */
static inline int at_nops(const interp_state *st)
{
    const interp_block_state *bs = st->main;
    int n = 0;
    for (int i = 0; i < bs->block->n_ops; i++)
        n += bs->fns[i] == interp_op_nop;
    return n;
}

/* Runs t's graph on the reference and, accelerated, on every available variant (with one
 * thread and with a 3-thread pool stand-in); the outputs (or the error messages) must be
 * identical, exactly want_installed operators must have been
 * replaced, want_nops of them by interp_op_nop (members of fused groups; -1: any number).
 * Returns 1 when the reference succeeded. */
static inline int at_check(at_graph *t, const tosac_tensor *inputs, int n_in, int want_installed,
                    int want_nops)
{
    tosac_error e0, e1;
    interp_state *ref = NULL;
    tosac_error_clear(&e0);
    assert_int_equal(interp_prepare(t->g, &ref, &e0), TOSAC_OK);
    tosac_code rc0 = interp_execute(ref, inputs, n_in, &e0);
    int ok = rc0 == TOSAC_OK;
    kern_isa before = kern_isa_active();
    for (int run = 0; run < 2 * KERN_ISA_COUNT; run++) {
        int isa = run / 2, threads = run % 2 ? 3 : 1;
        if (!kern_isa_available((kern_isa)isa))
            continue;
        assert_int_equal(kern_isa_force((kern_isa)isa), 0);
        interp_state *st = NULL;
        tosac_error_clear(&e1);
        assert_int_equal(interp_prepare(t->g, &st, &e1), TOSAC_OK);
        size_t cap = (size_t)64 << 20;
        void *mem = malloc(cap);
        tosac_arena arena;
        tosac_arena_init(&arena, mem, cap);
        rt_accel_shared sh;
        memset(&sh, 0, sizeof sh);
        tosac_rt_parallel par = {threads, at_pool_run, &par};
        sh.n_threads = threads;
        sh.par = threads > 1 ? &par : NULL;
        assert_int_equal(rt_accel_prepare(st, &arena, &sh, false, &e1), TOSAC_OK);
        assert_int_equal(rt_accel_finish(&sh, &arena, &e1), TOSAC_OK);
        int got = at_installed(st);
        if (got != want_installed)
            fail_msg("variant %s: %d operators accelerated, expected %d",
                     kern_isa_name((kern_isa)isa), got, want_installed);
        if (want_nops >= 0 && at_nops(st) != want_nops)
            fail_msg("variant %s: %d operators fused away, expected %d",
                     kern_isa_name((kern_isa)isa), at_nops(st), want_nops);
        tosac_code rc1 = interp_execute(st, inputs, n_in, &e1);
        if (rc0 != rc1 || (!ok && strcmp(e0.msg, e1.msg) != 0))
            fail_msg("variant %s: reference %d '%s', accelerated %d '%s'",
                     kern_isa_name((kern_isa)isa), rc0, rc0 ? e0.msg : "",
                     rc1, rc1 ? e1.msg : "");
        for (int i = 0; ok && i < t->b->n_outputs; i++) {
            const tosac_tensor *a = interp_main_output(ref, i), *b = interp_main_output(st, i);
            assert_int_equal(a->nbytes, b->nbytes);
            if (memcmp(a->data, b->data, a->nbytes) != 0) {
                size_t k = 0;
                while (((const unsigned char *)a->data)[k] == ((const unsigned char *)b->data)[k])
                    k++;
                fail_msg("variant %s: output %d differs from the reference at byte %zu",
                         kern_isa_name((kern_isa)isa), i, k);
            }
        }
        interp_state_free(st);
        free(mem);
    }
    kern_isa_force(before);
    interp_state_free(ref);
    return ok;
}

/* Prints the variants a test runs (once per test program). */
static inline void at_print_variants(const char *family)
{
    printf("%s: variants", family);
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++)
        if (kern_isa_available((kern_isa)isa))
            printf(" %s", kern_isa_name((kern_isa)isa));
    printf("\n");
}

#endif
