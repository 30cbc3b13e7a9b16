/* The thread pool (src/util/threadpool.h) and the runtime's arena for threads
 * (tosac_rt_arena_size_ex, the RUNTIME record's thread_scratch).
 *
 * - test_pool_runs_every_task_once: for 1, 2, 3 and 8 threads and 0 to 1000 tasks, repeated
 *   40 times (and 70000 tasks once: more than one published batch), every task runs exactly
 *   once, on a thread index below n_threads; a pool of 1 thread runs everything on thread 0
 *   (the caller). Catches lost or repeated tasks (a racy claim, a worker running a stale
 *   run) and bad thread indices (scratch slices out of range).
 * - test_pool_sizes_refused: 0 and TOSAC_THREADPOOL_MAX + 1 threads are refused with a message.
 * - test_arena_size_for_threads: on a compiled QDQ convolution (its accelerated CONV2D takes
 *   im2col scratch): 3 threads need 2 * thread_scratch more than tosac_rt_arena_size, 1 thread
 *   or options.reference none more; init_ex in the 3-thread arena runs 3 threads, in
 *   tosac_rt_arena_size's (or with a record understating the slice) one; a misaligned or
 *   huge thread_scratch is refused with one line (untrusted program).
 * - test_threads_from_compiler: what the compiler records is the scratch stride the runtime
 *   lays out (rt_accel_shared.scratch_stride of a measured init), a multiple of 16. */
#include "testutil.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_testutil.h"
#include "tosac/compile.h"
#include "util/fileio.h"
#include "util/threadpool.h"

typedef struct counts {
    atomic_int *hits;
    atomic_int bad_thread;
    int n_threads;
} counts;

static void count_task(void *ctx, int i, int thread)
{
    counts *c = ctx;
    atomic_fetch_add(&c->hits[i], 1);
    if (thread < 0 || thread >= c->n_threads)
        atomic_fetch_add(&c->bad_thread, 1);
}

static void test_pool_runs_every_task_once(void **state)
{
    (void)state;
    static const int threads[] = {1, 2, 3, 8};
    static const int tasks[] = {0, 1, 2, 3, 7, 64, 1000, 70000}; /* 70000: two batches */
    tosac_error err;
    tosac_error_clear(&err);
    for (size_t a = 0; a < sizeof threads / sizeof threads[0]; a++) {
        tosac_threadpool *p = NULL;
        assert_int_equal(tosac_threadpool_create(threads[a], &p, &err), TOSAC_OK);
        const tosac_rt_parallel *par = tosac_threadpool_parallel(p);
        assert_int_equal(par->n_threads, threads[a]);
        for (int rep = 0; rep < 40; rep++)
            for (size_t b = 0; b < sizeof tasks / sizeof tasks[0]; b++) {
                int n = tasks[b];
                if (n > 1000 && rep > 0)
                    continue;
                counts c = {calloc((size_t)n + 1, sizeof(atomic_int)), 0, threads[a]};
                par->run(par->pool, n, count_task, &c);
                for (int i = 0; i < n; i++)
                    if (atomic_load(&c.hits[i]) != 1)
                        fail_msg("%d threads, %d tasks: task %d ran %d times", threads[a], n, i,
                                 atomic_load(&c.hits[i]));
                assert_int_equal(atomic_load(&c.bad_thread), 0);
                free(c.hits);
            }
        tosac_threadpool_free(p);
    }
}

static void test_pool_sizes_refused(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_threadpool *p = (tosac_threadpool *)&err;
    assert_int_equal(tosac_threadpool_create(0, &p, &err), TOSAC_ERR_INPUT);
    assert_null(p);
    assert_non_null(strstr(err.msg, "1 to 256 threads, not 0"));
    tosac_error_clear(&err);
    assert_int_equal(tosac_threadpool_create(TOSAC_THREADPOOL_MAX + 1, &p, &err), TOSAC_ERR_INPUT);
    tosac_threadpool_free(NULL);
}

/* A compiled program (a QDQ convolution of the zoo) in a malloc'd buffer. */
static void *compiled(size_t *len)
{
    char *dir = tu_mkdtemp();
    const char *prg = tu_join(dir, "conv.prg");
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = "TOSA-1.0+INT";
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosac_compile_file(tu_shared("models/synth_qdq_s8_op13_conv/model.onnx"),
                                       prg, &o, &err);
    if (rc)
        fail_msg("compile: %s", err.msg);
    void *bytes = NULL;
    assert_int_equal(tosac_read_file(prg, &bytes, len, &err), TOSAC_OK);
    tu_rmtree_free(dir);
    return bytes;
}

static void nothing(void *pool, int n, tosac_rt_task task, void *ctx)
{
    (void)pool;
    for (int i = 0; i < n; i++)
        task(ctx, i, 0);
}

/* init_ex in an arena of bytes; returns the accelerated kernels' threads. */
static int init_threads(const void *prog, size_t len, size_t bytes, const tosac_rt_options *o)
{
    void *arena = aligned_alloc(16, (bytes + 15) / 16 * 16 + 16);
    tosac_rt *rt = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosac_rt_init_ex(prog, len, arena, bytes, o, &rt, &err);
    if (rc)
        fail_msg("init: %s", err.msg);
    int n = rt->accel.n_threads;
    free(arena);
    return n;
}

static void test_arena_size_for_threads(void **state)
{
    (void)state;
    size_t len = 0;
    void *prog = compiled(&len);
    rt_runtime_rec *rr = tu_runtime_rec(prog, len);
    size_t ts = (size_t)rr->thread_scratch; /* the convolution's im2col slice */
    assert_true(ts > 0);
    tosac_error err;
    tosac_error_clear(&err);
    size_t one = 0, three = 0, ref = 0, single = 0;
    tosac_rt_parallel par = {3, nothing, NULL};
    tosac_rt_options o = {tosac_rt_ops_all, 0, &par};
    assert_int_equal(tosac_rt_arena_size(prog, len, &one, &err), TOSAC_OK);
    assert_int_equal(tosac_rt_arena_size_ex(prog, len, &o, &three, &err), TOSAC_OK);
    assert_int_equal(three, one + 2 * ts);
    assert_int_equal(init_threads(prog, len, three, &o), 3);
    /* tosac_rt_arena_size's bytes: no room for the further slices, one thread */
    assert_int_equal(init_threads(prog, len, one, &o), 1);
    /* a record claiming less than the kernels take: still one thread, never an overrun */
    rr->thread_scratch = ts / 2 / 16 * 16;
    assert_int_equal(tosac_rt_arena_size_ex(prog, len, &o, &three, &err), TOSAC_OK);
    assert_int_equal(init_threads(prog, len, three, &o), 1);
    rr->thread_scratch = ts;
    o.reference = 1;
    assert_int_equal(tosac_rt_arena_size_ex(prog, len, &o, &ref, &err), TOSAC_OK);
    assert_int_equal(ref, one);
    assert_int_equal(init_threads(prog, len, ref, &o), 1);
    o.reference = 0;
    par.n_threads = 1;
    assert_int_equal(tosac_rt_arena_size_ex(prog, len, &o, &single, &err), TOSAC_OK);
    assert_int_equal(single, one);
    assert_int_equal(tosac_rt_arena_size_ex(prog, len, NULL, &single, &err), TOSAC_OK);
    assert_int_equal(single, one);

    /* untrusted records */
    rr->thread_scratch = 4100;
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_arena_size(prog, len, &one, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "4100 bytes per thread is not 16-aligned"));
    rr->thread_scratch = (uint64_t)1 << 41;
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_arena_size(prog, len, &one, &err), TOSAC_ERR_INPUT);
    rr->thread_scratch = (uint64_t)1 << 39;
    par.n_threads = 5;
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_arena_size_ex(prog, len, &o, &one, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "5 threads' kernel scratch"));
    free(prog);
}

static void test_threads_from_compiler(void **state)
{
    (void)state;
    size_t len = 0;
    void *prog = compiled(&len);
    const rt_runtime_rec *rr = tu_runtime_rec(prog, len);
    size_t bytes = 0;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_arena_size(prog, len, &bytes, &err), TOSAC_OK);
    void *arena = aligned_alloc(16, (bytes + 15) / 16 * 16 + 16);
    tosac_rt *rt = NULL;
    assert_int_equal(tosac_rt_init(prog, len, arena, bytes, &rt, &err), TOSAC_OK);
    printf("conv program: %zu bytes of kernel scratch per thread\n", rt->accel.scratch_stride);
    assert_true(rt->accel.scratch_stride > 0);
    assert_int_equal(rr->thread_scratch, rt->accel.scratch_stride);
    assert_int_equal(rr->thread_scratch % 16, 0);
    assert_int_equal(rr->prepared_bytes, 0); /* the Conv is delegated: no CPU block */
    free(arena);
    free(prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_runs_every_task_once),
        cmocka_unit_test(test_pool_sizes_refused),
        cmocka_unit_test(test_arena_size_for_threads),
        cmocka_unit_test(test_threads_from_compiler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
