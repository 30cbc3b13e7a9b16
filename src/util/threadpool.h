/* A pthread pool implementing the runtime's tosac_rt_parallel (include/tosac/runtime.h) for
 * the CLI and host applications. It lives in the compiler library: the runtime itself never
 * creates threads and links no pthread (ctest runtime_no_allocator).
 *
 * n_threads - 1 workers plus the calling thread (thread 0) share each run's tasks, claimed one
 * at a time; the caller returns when every task is done, without waiting for workers that
 * took none (on a loaded machine it may run them all). Between runs a worker spins briefly
 * (the accelerated operators of one inference follow each other closely), then sleeps on a
 * condition variable. */
#ifndef TOSAC_UTIL_THREADPOOL_H
#define TOSAC_UTIL_THREADPOOL_H

#include "tosac/error.h"
#include "tosac/runtime.h"

#define TOSAC_THREADPOOL_MAX 256

typedef struct tosac_threadpool tosac_threadpool;

/* n_threads in [1, TOSAC_THREADPOOL_MAX]; 1 makes a pool that runs everything in the caller. */
tosac_code tosac_threadpool_create(int n_threads, tosac_threadpool **out, tosac_error *err);
/* Stops and joins the workers (NULL is ignored). */
void tosac_threadpool_free(tosac_threadpool *p);
/* The pool as the runtime's options.parallel (valid while p lives). */
const tosac_rt_parallel *tosac_threadpool_parallel(const tosac_threadpool *p);
/* tosac_rt_parallel.run: task(ctx, i, thread) for every i in [0, n_tasks), returns when all
 * are done. Not reentrant: one run at a time per pool (tasks must not run the pool). */
void tosac_threadpool_run(void *pool, int n_tasks, tosac_rt_task task, void *ctx);

#endif
