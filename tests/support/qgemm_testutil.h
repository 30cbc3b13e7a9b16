/* Test helpers of the qgemm-based accelerated families (test_accel_conv.c,
 * test_accel_matmul.c): build a one-block TOSA graph, append the RESCALE (+CLAMP) the families
 * fuse, and run it on the reference interpreter and, for every kernel variant this build and
 * CPU can run (KERN_ISA_LIST), on a state the families prepared: same bytes or the same error
 * message, and exactly the expected number of operators replaced (a family that silently
 * declines fails). Header-only (static functions): a test file needs no CMake change. */
#ifndef TOSAC_QGEMM_TESTUTIL_H
#define TOSAC_QGEMM_TESTUTIL_H

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_registry.h"
#include "interp/interp_state.h"
#include "runtime/accel/rt_accel.h"
#include "tosac/tosa.h"

typedef struct cg {
    tosa_graph *g;
    tosa_block *b;
    int names;
} cg;

static void cg_new(cg *t)
{
    memset(t, 0, sizeof *t);
    t->g = tosa_graph_new(1, 0);
    t->b = tosa_region_add_block(tosa_graph_add_region(t->g, "main"), "main");
    assert_non_null(t->b);
}

static int cg_tensor(cg *t, tosac_dtype dt, int rank, const int64_t *shape, const void *data)
{
    char name[32];
    snprintf(name, sizeof name, "t%d", t->names++);
    size_t n = tosac_dtype_size(dt);
    for (int d = 0; d < rank; d++)
        n *= (size_t)shape[d];
    tosac_error err;
    tosac_error_clear(&err);
    int i = tosa_block_add_tensor(t->b, name, dt, rank, shape, data, data ? n : 0, &err);
    assert_true(i >= 0);
    return i;
}

/* A rank-1 constant of n values, stored as dt. */
static int cg_const(cg *t, tosac_dtype dt, int n, const int64_t *v)
{
    size_t esz = tosac_dtype_size(dt);
    unsigned char *buf = calloc((size_t)n, esz);
    for (int i = 0; i < n; i++)
        memcpy(buf + (size_t)i * esz, &v[i], esz);
    int64_t shape[1] = {n};
    int r = cg_tensor(t, dt, 1, shape, buf);
    free(buf);
    return r;
}

static int cg_scalar(cg *t, tosac_dtype dt, int64_t v) { return cg_const(t, dt, 1, &v); }

static void cg_op(cg *t, tosa_op op, const tosa_attr *a, const int *in, int n_in, int out)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_true(tosa_block_add_op(t->b, op, a, in, n_in, &out, 1, &err) >= 0);
}

static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)tu_below((uint32_t)(hi - lo + 1)); }

/* A random int8 tensor (owned: tosac_tensor_free). */
static void qt_random_i8(tosac_tensor *x, int rank, const int64_t *shape)
{
    memset(x, 0, sizeof *x);
    x->dtype = TOSAC_DT_I8;
    x->rank = rank;
    memcpy(x->shape, shape, sizeof(int64_t) * (size_t)rank);
    x->nbytes = (size_t)tosac_tensor_numel(x);
    x->data = malloc(x->nbytes + 1);
    x->owns_data = 1;
    for (size_t i = 0; i < x->nbytes; i++)
        ((int8_t *)x->data)[i] = (int8_t)rnd_in(-128, 127);
}

/* The RESCALE (int32 -> int8) and CLAMP after an accumulator. */
typedef struct qt_rq {
    int rescale, clamp, clamp_lo, clamp_hi, ozp;
    int shift_lo, shift_hi;     /* per-channel shifts drawn from here */
    int double_round, per_channel;
    int acc_bits;               /* log2 of the accumulators' typical size (picks multipliers) */
    int pow2;                   /* multipliers exactly 2^(k-1) (not wild ones): exact ties */
} qt_rq;

/* Appends q's RESCALE (+CLAMP) reading tensor acc (rank, shape; nc_all channels last);
 * returns the last tensor (acc when q asks for neither). */
static int qt_append_requant(cg *t, int acc, int rank, const int64_t *shape, int nc_all,
                             const qt_rq *q)
{
    int last = acc;
    tosa_attr a;
    if (q->rescale) {
        int nc = q->per_channel ? nc_all : 1;
        int64_t *mul = malloc(sizeof(int64_t) * (size_t)nc), *sh = malloc(sizeof(int64_t) * (size_t)nc);
        for (int i = 0; i < nc; i++) {
            /* one channel in 8 anywhere in 2..62 / 0..2^31-1 (mostly 0 or saturated) */
            int wild = tu_below(8) == 0;
            sh[i] = wild ? rnd_in(q->shift_lo < 32 ? q->shift_lo : 32, 62)
                         : rnd_in(q->shift_lo, q->shift_hi);
            /* otherwise results of about 2^5: multiplier ~ 2^(shift - log2|acc| + 5) */
            int k = (int)sh[i] - q->acc_bits + 5;
            k = k < 1 ? 1 : k > 31 ? 31 : k;
            mul[i] = wild ? (int64_t)(tu_rand() & 0x7fffffff)
                          : (int64_t)((q->pow2 ? 0 : tu_below(1u << (k - 1))) | (1u << (k - 1)));
        }
        int r_in[5] = {acc, cg_const(t, TOSAC_DT_I32, nc, mul), cg_const(t, TOSAC_DT_I8, nc, sh),
                       cg_scalar(t, TOSAC_DT_I32, 0), cg_scalar(t, TOSAC_DT_I8, q->ozp)};
        last = cg_tensor(t, TOSAC_DT_I8, rank, shape, NULL);
        memset(&a, 0, sizeof a);
        a.scale32 = true;
        a.per_channel = q->per_channel;
        a.rounding_mode = q->double_round ? TOSA_ROUND_DOUBLE : TOSA_ROUND_SINGLE;
        cg_op(t, TOSA_OP_RESCALE, &a, r_in, 5, last);
        free(mul);
        free(sh);
    }
    if (q->clamp) {
        int c_out = cg_tensor(t, TOSAC_DT_I8, rank, shape, NULL);
        memset(&a, 0, sizeof a);
        a.n_min_val = a.n_max_val = 1;
        a.min_val[0] = (uint8_t)(int8_t)q->clamp_lo;
        a.max_val[0] = (uint8_t)(int8_t)q->clamp_hi;
        cg_op(t, TOSA_OP_CLAMP, &a, &last, 1, c_out);
        last = c_out;
    }
    return last;
}

/* The fake pool of the threads tests: tasks backwards, thread ids cycling over 3. */
static void backwards(void *pool, int n, tosac_rt_task task, void *ctx)
{
    (void)pool;
    for (int i = n - 1; i >= 0; i--)
        task(ctx, i, i % 3);
}

/* Replaced operators; heads_only: only CONV2D and MATMUL (a declined group's RESCALE may
 * still be taken by another family, e.g. ewise's standalone RESCALE). */
static int installed(const interp_state *st, int heads_only)
{
    const interp_block_state *bs = st->main;
    int n = 0;
    for (int i = 0; i < bs->block->n_ops; i++) {
        tosa_op op = bs->block->ops[i].op;
        if (heads_only && op != TOSA_OP_CONV2D && op != TOSA_OP_MATMUL)
            continue;
        if (op != TOSA_OP_CONST && op != TOSA_OP_CONST_SHAPE && bs->fns[i] != interp_find_op(op))
            n++;
    }
    return n;
}

/* Runs t's graph (inputs in[0..n_in), freed here with the graph) on the reference and on
 * every available variant (threads: on the fake pool of 3); asserts the same bytes or the
 * same error and want_installed replaced operators. Returns 1 when the reference succeeded. */
static int qt_check(cg *tp, tosac_tensor *in, int n_in, int want_installed, int threads)
{
    cg t = *tp;
    tosac_error e0, e1;
    tosac_error_clear(&e0);
    interp_state *ref = NULL;
    assert_int_equal(interp_prepare(t.g, &ref, &e0), TOSAC_OK);
    tosac_code rc0 = interp_execute(ref, in, n_in, &e0);
    kern_isa before = kern_isa_active();
    tosac_rt_parallel par = {3, backwards, NULL};
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_available((kern_isa)isa))
            continue;
        assert_int_equal(kern_isa_force((kern_isa)isa), 0);
        interp_state *st = NULL;
        tosac_error_clear(&e1);
        assert_int_equal(interp_prepare(t.g, &st, &e1), TOSAC_OK);
        size_t cap = (size_t)16 << 20;
        void *mem = malloc(cap);
        tosac_arena arena;
        tosac_arena_init(&arena, mem, cap);
        rt_accel_shared sh;
        memset(&sh, 0, sizeof sh);
        sh.n_threads = threads ? 3 : 1;
        sh.par = threads ? &par : NULL;
        assert_int_equal(rt_accel_prepare(st, &arena, &sh, false, &e1), TOSAC_OK);
        assert_int_equal(rt_accel_finish(&sh, &arena, &e1), TOSAC_OK);
        int got = installed(st, want_installed == 0);
        if (got != want_installed)
            fail_msg("variant %s: %d operators accelerated, expected %d",
                     kern_isa_name((kern_isa)isa), got, want_installed);
        tosac_code rc1 = interp_execute(st, in, n_in, &e1);
        if (rc0 != rc1 || (rc0 && strcmp(e0.msg, e1.msg) != 0))
            fail_msg("variant %s: reference %d '%s', accelerated %d '%s'",
                     kern_isa_name((kern_isa)isa), rc0, rc0 ? e0.msg : "", rc1, rc1 ? e1.msg : "");
        if (!rc0) {
            const tosac_tensor *a = interp_main_output(ref, 0), *b = interp_main_output(st, 0);
            assert_int_equal(a->nbytes, b->nbytes);
            for (size_t k = 0; k < a->nbytes; k++)
                if (((const unsigned char *)a->data)[k] != ((const unsigned char *)b->data)[k])
                    fail_msg("variant %s: output byte %zu is %d, the reference's %d",
                             kern_isa_name((kern_isa)isa), k, ((const int8_t *)b->data)[k],
                             ((const int8_t *)a->data)[k]);
        }
        interp_state_free(st);
        free(mem);
    }
    kern_isa_force(before);
    interp_state_free(ref);
    for (int i = 0; i < n_in; i++)
        tosac_tensor_free(&in[i]);
    tosa_graph_free(t.g);
    return rc0 == TOSAC_OK;
}

static void qt_print_variants(const char *family)
{
    printf("accel %s: variants", family);
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++)
        if (kern_isa_available((kern_isa)isa))
            printf(" %s", kern_isa_name((kern_isa)isa));
    printf("\n");
}

#endif
