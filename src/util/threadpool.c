/* The thread pool (see threadpool.h).
 *
 * One 64-bit atomic `state` holds the current run: generation (32 bits), task count and next
 * task index (16 bits each). A thread claims task i of generation g with a compare-and-swap
 * that checks g is still current and i is below the count, so a worker waking late can never
 * take a task of another run. The caller returns once `completed` reaches the count: it does
 * not wait for workers that never woke (on a loaded machine the caller may do every task
 * itself), only for tasks someone claimed. The run's fields (task, ctx, base) are written
 * before the state is published and read only by a thread holding an unfinished task of that
 * run, which keeps the caller from starting the next one. */
#include "util/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Polls of a worker for the next run (and of the caller for claimed tasks to finish) before
 * sleeping: tens of microseconds, longer than the gap between two accelerated operators. */
#define SPIN_POLLS 20000
#define TASKS_MAX 0xffff /* per published run; larger runs go in batches */

typedef struct worker {
    struct tosac_threadpool *pool;
    int thread;
    pthread_t id;
} worker;

struct tosac_threadpool {
    tosac_rt_parallel par;
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    _Atomic uint64_t state;     /* generation << 32 | n_tasks << 16 | next */
    atomic_int completed;       /* tasks of the current run finished */
    atomic_bool stop;
    int sleepers;               /* workers waiting on start (under mu) */
    uint32_t generation;        /* the caller's: the last published */
    tosac_rt_task task;
    void *ctx;
    int base;                   /* index of the batch's task 0 */
    int n_workers;              /* started (n_threads - 1 once create succeeded) */
    worker *workers;
};

static inline uint32_t gen_of(uint64_t s) { return (uint32_t)(s >> 32); }

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* The next task of generation g, or -1 when g is over or has none left. */
static int claim(tosac_threadpool *p, uint32_t g)
{
    uint64_t s = atomic_load(&p->state);
    for (;;) {
        uint32_t n = (uint32_t)(s >> 16) & 0xffff, i = (uint32_t)s & 0xffff;
        if (gen_of(s) != g || i >= n)
            return -1;
        if (atomic_compare_exchange_weak(&p->state, &s, s + 1))
            return (int)i;
    }
}

static void work(tosac_threadpool *p, uint32_t g, int thread)
{
    for (int i; (i = claim(p, g)) >= 0;) {
        /* this run cannot end before task i does: its fields are stable until then */
        int n = (int)(atomic_load(&p->state) >> 16 & 0xffff);
        p->task(p->ctx, p->base + i, thread);
        if (atomic_fetch_add(&p->completed, 1) + 1 == n) { /* the last one wakes the caller */
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    tosac_threadpool *p = w->pool;
    uint32_t seen = 0;
    for (;;) {
        uint32_t g = gen_of(atomic_load(&p->state));
        for (int k = 0; g == seen && !atomic_load(&p->stop) && k < SPIN_POLLS; k++) {
            cpu_relax();
            g = gen_of(atomic_load(&p->state));
        }
        if (g == seen && !atomic_load(&p->stop)) {
            pthread_mutex_lock(&p->mu);
            p->sleepers++;
            while ((g = gen_of(atomic_load(&p->state))) == seen && !atomic_load(&p->stop))
                pthread_cond_wait(&p->start, &p->mu);
            p->sleepers--;
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop))
            return NULL;
        seen = g;
        work(p, g, w->thread);
    }
}

static void run_batch(tosac_threadpool *p, int base, int n, tosac_rt_task task, void *ctx)
{
    pthread_mutex_lock(&p->mu);
    p->task = task;
    p->ctx = ctx;
    p->base = base;
    atomic_store(&p->completed, 0);
    uint32_t g = ++p->generation;
    atomic_store(&p->state, (uint64_t)g << 32 | (uint64_t)n << 16);
    if (p->sleepers)
        pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    work(p, g, 0);
    for (int k = 0; atomic_load(&p->completed) < n && k < SPIN_POLLS; k++)
        cpu_relax();
    if (atomic_load(&p->completed) < n) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load(&p->completed) < n)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}

void tosac_threadpool_run(void *pool, int n_tasks, tosac_rt_task task, void *ctx)
{
    tosac_threadpool *p = pool;
    if (p->n_workers == 0 || n_tasks == 1) {
        for (int i = 0; i < n_tasks; i++)
            task(ctx, i, 0);
        return;
    }
    for (int base = 0; base < n_tasks; base += TASKS_MAX)
        run_batch(p, base, n_tasks - base < TASKS_MAX ? n_tasks - base : TASKS_MAX, task, ctx);
}

const tosac_rt_parallel *tosac_threadpool_parallel(const tosac_threadpool *p)
{
    return &p->par;
}

void tosac_threadpool_free(tosac_threadpool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_workers; i++)
        pthread_join(p->workers[i].id, NULL);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p->workers);
    free(p);
}

tosac_code tosac_threadpool_create(int n_threads, tosac_threadpool **out, tosac_error *err)
{
    *out = NULL;
    if (n_threads < 1 || n_threads > TOSAC_THREADPOOL_MAX)
        return tosac_fail(err, TOSAC_ERR_INPUT, "a thread pool takes 1 to %d threads, not %d",
                          TOSAC_THREADPOOL_MAX, n_threads);
    tosac_threadpool *p = calloc(1, sizeof *p);
    if (!p || !(p->workers = calloc((size_t)n_threads, sizeof *p->workers))) {
        free(p);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory for a thread pool");
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->state, 0);
    atomic_init(&p->completed, 0);
    atomic_init(&p->stop, false);
    p->par.n_threads = n_threads;
    p->par.run = tosac_threadpool_run;
    p->par.pool = p;
    for (int t = 1; t < n_threads; t++) {
        worker *w = &p->workers[p->n_workers];
        w->pool = p;
        w->thread = t;
        int e = pthread_create(&w->id, NULL, worker_main, w);
        if (e) {
            tosac_threadpool_free(p);
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "cannot start thread %d of %d: %s", t,
                              n_threads, strerror(e));
        }
        p->n_workers++;
    }
    *out = p;
    return TOSAC_OK;
}
