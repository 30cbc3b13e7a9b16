/* Accelerated operators of the runtime: fast kernels that replace the interpreter's reference
 * operators of a prepared delegate, bit for bit (integer TOSA arithmetic is exact, so a fast
 * kernel must give the reference's bits; tests compare every variant with the interpreter).
 *
 * After a delegate is prepared on the interpreter (rt_delegate.c), rt_accel_block_prepare
 * walks each prepared block in execution order and offers every operator to the families of
 * rt_accel_families (one file per family: rt_accel_<family>.c). A family that takes an
 * operator, alone or as a fused group (CONV2D -> RESCALE -> CLAMP, ...), checks everything that
 * depends only on the program once, here (types, shapes, attributes, RESCALE parameters,
 * geometry; the reference operator's ERROR_IFs must hold, or the family leaves the operator
 * to the reference, which reports them at invoke), packs its weights into the runtime's state
 * (never per invoke), and installs its kernel with rt_accel_install. At invoke the kernel only
 * computes.
 *
 * Memory rules:
 * - Prepared data comes from rt_accel_alloc (the runtime's persistent state). Its size must
 *   not depend on the kernel variant chosen at run time: a family allocates the largest need
 *   of all its variants (pure size functions of the shapes), because the compiler measures the
 *   state once on its own machine and the program may run on another. When it does not fit, the
 *   family declines (returns 0): the reference runs, never an error.
 * - Kernel scratch (im2col tiles, row buffers) is requested by size with
 *   rt_accel_request_scratch; one buffer, the largest request, is shared by all accelerated
 *   operators (they run one at a time), one slice per thread: rt_accel_scratch(sh, thread).
 *   The request, too, must be the largest over the variants: the compiler records the slice
 *   in the program (RUNTIME thread_scratch) for tosac_rt_arena_size_ex's further threads.
 * - A group's result: see rt_accel_install (written in place when safe, else staged in the
 *   first operator's output and moved by the last operator). */
#ifndef TOSAC_RT_ACCEL_H
#define TOSAC_RT_ACCEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interp/interp_state.h"
#include "kernels/isa.h"
#include "tosac/runtime.h"
#include "util/arena.h"

/* Shared by every accelerated operator of one runtime: scratch and the thread pool. */
typedef struct rt_accel_shared {
    unsigned char *scratch;         /* n_threads slices of scratch_stride bytes (16-aligned) */
    size_t scratch_stride;
    int n_threads;                  /* >= 1 */
    /* compile-time measuring of a delegate that never runs (rt_measure: the main graph's):
     * families allocate and decide exactly as they would, but need not fill what only the
     * kernel reads (packed weights). In the padding after n_threads: the measured state's
     * size does not change. */
    bool measure_only;
    size_t scratch_need;            /* per thread, the largest request (rt_accel_finish) */
    const tosac_rt_parallel *par;   /* NULL: run tasks in the calling thread */
} rt_accel_shared;

/* Thread t's scratch slice (t < sh->n_threads). */
static inline void *rt_accel_scratch(const rt_accel_shared *sh, int thread)
{
    return sh->scratch + (size_t)thread * sh->scratch_stride;
}
/* Runs task(ctx, i, thread) for i in [0, n_tasks): on the pool when there is one, else in
 * order in the calling thread (thread 0). Tasks must write disjoint outputs. */
void rt_accel_parallel(const rt_accel_shared *sh, int n_tasks, tosac_rt_task task, void *ctx);

/* What a family sees of the block it is offered. */
typedef struct rt_accel_block {
    interp_block_state *bs;
    const tosa_block *b;
    /* per tensor, for rt_accel_sole_reader / rt_accel_is_const in constant time: bits 0-29
     * its one reader + 1 (exactly one operand reads it and it is not a block output), else 0;
     * RT_ACCEL_CONST_BIT when a CONST/CONST_SHAPE writes it. NULL: those two scan the block. */
    int *reader;
    int *pos;                   /* per operator: its position in bs->order */
    unsigned char *claimed;     /* per operator: taken by an installed group */
    tosac_arena *state;
    rt_accel_shared *sh;
    size_t scratch_need;        /* the largest per-thread scratch requested so far */
    bool placed;                /* tensors may share memory (the runtime's plan) */
} rt_accel_block;

typedef struct rt_accel_family {
    const char *name;
    /* Offered operator `op` (index in b->ops, not claimed, not CONST). Installs a kernel
     * (rt_accel_install) and returns 1, returns 0 to leave it to the reference (or to the
     * next family), or < 0 with err set on an internal error. */
    int (*try_op)(rt_accel_block *ab, int op, tosac_error *err);
} rt_accel_family;

#define RT_ACCEL_CONST_BIT (1 << 30)

/* NULL-terminated, in the order families are tried (rt_accel_families.c). */
extern const rt_accel_family *const rt_accel_families[];

/* Accelerates every prepared block of st (one delegate's interpreter state); placed: its
 * tensors sit in a memory plan (may share memory). After every delegate, rt_accel_finish
 * allocates the shared scratch (falling back to one thread when a slice per thread does not
 * fit). */
tosac_code rt_accel_prepare(interp_state *st, tosac_arena *state, rt_accel_shared *sh,
                            bool placed, tosac_error *err);
tosac_code rt_accel_finish(rt_accel_shared *sh, tosac_arena *state, tosac_error *err);

/* ---- helpers for families ---- */
/* The operator after `op` in execution order that is not a CONST/CONST_SHAPE (constants are
 * used in place and run nowhere), or -1. */
int rt_accel_next_op(const rt_accel_block *ab, int op);
/* The one operator reading tensor t, when exactly one operand reads it and it is not a block
 * output; else -1. */
int rt_accel_sole_reader(const rt_accel_block *ab, int t);
/* The prepared tensor of block tensor t (data bound: constants in place, others planned). */
static inline tosac_tensor *rt_accel_tensor(const rt_accel_block *ab, int t)
{
    return &ab->bs->tensors[t];
}
/* True when tensor t is a constant (its CONST operator or a constant declaration). */
bool rt_accel_is_const(const rt_accel_block *ab, int t);
/* 16-aligned persistent memory, or NULL (then decline). */
void *rt_accel_alloc(rt_accel_block *ab, size_t bytes);
void rt_accel_request_scratch(rt_accel_block *ab, size_t bytes_per_thread);

/* Installs a kernel for a group: ops[0..n_ops) in execution order, contiguous in it (only
 * CONST operators between them; else returns 0 and installs nothing), reading the block
 * tensors inputs[0..n_inputs) from outside the group, writing its result to tensor `final`.
 * *dst is where the kernel must write the result: final's buffer when that overlaps no input
 * buffer, else the buffer of `stage` (the first operator's output, which the plan keeps apart
 * from the group's inputs; at least final's bytes) and the last operator moves it to final.
 * fn runs at ops[0] with c->op_data = data; the others do nothing. Marks the ops claimed.
 * Returns 1 when installed. */
int rt_accel_install(rt_accel_block *ab, const int *ops, int n_ops, const int *inputs,
                     int n_inputs, int stage, int final, interp_op_fn fn, void *data,
                     void **dst);

#endif
