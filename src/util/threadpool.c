/* The thread pool (see threadpool.h).
 *
 * A run publishes (task, ctx, n_tasks), resets the task counter, sets `busy` to the number of
 * workers and bumps `generation`, all under the mutex. Every worker, seeing a new
 * generation, takes tasks until the counter passes n_tasks and then checks out (busy - 1);
 * the caller takes tasks too, then waits for busy == 0, so the run's fields stay valid until
 * every worker is done with them and the next run cannot mix with a late worker. */
#include "util/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Polls of a worker for the next run (and of the caller for the workers' check-out) before
 * sleeping: about 20-50 us, longer than the gap between two accelerated operators. */
#define SPIN_POLLS 20000

typedef struct worker {
    struct tosac_threadpool *pool;
    int thread;
    pthread_t id;
} worker;

struct tosac_threadpool {
    tosac_rt_parallel par;
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    atomic_uint generation;
    atomic_int next;        /* the next task index to take */
    atomic_int busy;        /* workers not yet checked out of the current run */
    atomic_bool stop;
    tosac_rt_task task;
    void *ctx;
    int n_tasks;
    int n_workers;          /* started (n_threads - 1 once create succeeded) */
    worker *workers;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void take_tasks(tosac_threadpool *p, int thread)
{
    for (int i; (i = atomic_fetch_add(&p->next, 1)) < p->n_tasks;)
        p->task(p->ctx, i, thread);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    tosac_threadpool *p = w->pool;
    unsigned seen = 0;
    for (;;) {
        unsigned g = atomic_load(&p->generation);
        for (int k = 0; g == seen && !atomic_load(&p->stop) && k < SPIN_POLLS; k++) {
            cpu_relax();
            g = atomic_load(&p->generation);
        }
        if (g == seen && !atomic_load(&p->stop)) {
            pthread_mutex_lock(&p->mu);
            while ((g = atomic_load(&p->generation)) == seen && !atomic_load(&p->stop))
                pthread_cond_wait(&p->start, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop))
            return NULL;
        seen = g;
        take_tasks(p, w->thread);
        if (atomic_fetch_sub(&p->busy, 1) == 1) { /* the last one out wakes the caller */
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

void tosac_threadpool_run(void *pool, int n_tasks, tosac_rt_task task, void *ctx)
{
    tosac_threadpool *p = pool;
    if (n_tasks <= 0)
        return;
    if (p->n_workers == 0 || n_tasks == 1) {
        for (int i = 0; i < n_tasks; i++)
            task(ctx, i, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->task = task;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    atomic_store(&p->next, 0);
    atomic_store(&p->busy, p->n_workers);
    atomic_fetch_add(&p->generation, 1);
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    take_tasks(p, 0);
    for (int k = 0; atomic_load(&p->busy) > 0 && k < SPIN_POLLS; k++)
        cpu_relax();
    if (atomic_load(&p->busy) > 0) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load(&p->busy) > 0)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
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
    atomic_init(&p->generation, 0);
    atomic_init(&p->next, 0);
    atomic_init(&p->busy, 0);
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
