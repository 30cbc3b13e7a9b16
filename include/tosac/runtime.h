/* The runtime: runs a compiled program (version 2, see docs/PROGRAM_FORMAT.md) in memory the
 * caller provides. It reads the program in place (constants and TOSA delegates are used where
 * they are, e.g. in flash), lays everything it needs out in one arena, and calls no allocator:
 *
 *     size_t bytes;
 *     tosac_rt_arena_size(prog, len, &bytes, &err);     // verifies the program
 *     tosac_rt_init(prog, len, arena, bytes, &rt, &err); // prepares every step once
 *     memcpy(tosac_rt_input(rt, 0)->data, ..., tosac_rt_input(rt, 0)->nbytes);
 *     tosac_rt_invoke(rt, &err);                         // as often as needed
 *     use tosac_rt_output(rt, 0)->data
 *
 * Arena layout: [tosac_rt + prepared state (bump, persistent; last the constant weights the
 * CPU operators pack once, at init)] [planned region: every
 * activation and kernel scratch at the offsets the compiler's memory plan gives]
 * [dynamic region: values whose shape is not static, sized at compile time].
 * Errors are a tosac_code with one line in err naming the problem; nothing aborts. */
#ifndef TOSAC_RUNTIME_H
#define TOSAC_RUNTIME_H

#include <stddef.h>

#include "tosac/error.h"
#include "tosac/tensor.h"

typedef struct tosac_rt tosac_rt;       /* opaque; lives at the start of the arena */

/* Verifies the program (every offset, size, index, enum) and gives the arena it needs. */
tosac_code tosac_rt_arena_size(const void *program, size_t len, size_t *bytes, tosac_error *err);
/* The program buffer must stay valid and unchanged while rt is used (it is read in place;
 * it should be 16-aligned). arena: caller memory, 16-aligned, at least tosac_rt_arena_size. */
tosac_code tosac_rt_init(const void *program, size_t len, void *arena, size_t arena_bytes,
                         tosac_rt **out, tosac_error *err);
int tosac_rt_n_inputs(const tosac_rt *rt);
int tosac_rt_n_outputs(const tosac_rt *rt);
const char *tosac_rt_input_name(const tosac_rt *rt, int i);
const char *tosac_rt_output_name(const tosac_rt *rt, int i);
/* Tensor descriptions with data in the arena: write inputs before invoke, read outputs after. */
tosac_tensor *tosac_rt_input(tosac_rt *rt, int i);
const tosac_tensor *tosac_rt_output(const tosac_rt *rt, int i);
/* Runs once; allocates nothing; data-dependent REQUIRE failures come back as errors, and a
 * value of data-dependent size larger than the program planned for it as TOSAC_ERR_CAPACITY. */
tosac_code tosac_rt_invoke(tosac_rt *rt, tosac_error *err);

/* ---- observing a run (debugging; `tosac run PROGRAM --dump-intermediates DIR`) ----
 * With an observer set, invoke calls it with every value of the main graph as it is made:
 * the graph inputs first, then each CPU node's outputs after the node ran, and for a delegate
 * every tensor its main-block operators write (after each operator) followed by the
 * delegate's outputs as CPU values. Inside delegates only with options.reference: an
 * accelerated kernel computes a fused group (CONV2D + RESCALE + CLAMP) at once, so the
 * group's inner tensors never hold their values. The tensor is valid only during the call
 * (the plan reuses its buffer). No observer (the default): no call, one test per step. */
typedef struct tosac_rt_value {
    const char *name;           /* the CPU value's or the TOSA tensor's name */
    const tosac_tensor *tensor;
    const char *op;             /* what wrote it: ONNX op_type, TOSA operator, or "input" */
    const char *node;           /* the CPU node's name ("" for inputs and TOSA operators) */
    int delegate;               /* -1: a CPU value; else the delegate whose tensor it is */
} tosac_rt_value;
typedef void (*tosac_rt_observer)(void *user, const tosac_rt_value *v);
/* fn NULL removes the observer. */
void tosac_rt_set_observer(tosac_rt *rt, tosac_rt_observer fn, void *user);

/* ---- the operator table (tflite-micro's op resolver) ----
 * The CPU part's operators are looked up once, at init, through a resolver. tosac_rt_init uses
 * tosac_rt_ops_all (every operator: an image links them all). An application that wants only
 * the operators its program uses passes its own resolver to tosac_rt_init_ex, built from the
 * per-family lookups below (each lives in its own object file, so only the families it names
 * are linked); a program needing an operator the resolver lacks fails at init, naming it. */
typedef struct cpu_op_entry tosac_rt_op;               /* opaque */
typedef const tosac_rt_op *(*tosac_rt_resolver)(const char *op_type);
/* An optional thread pool the caller provides (the runtime itself never creates threads and
 * builds without pthread). run(pool, n_tasks, task, ctx) must call task(ctx, i, thread) once
 * for every i in [0, n_tasks), each on one of n_threads threads (thread in [0, n_threads)), and
 * return when all are done. */
typedef void (*tosac_rt_task)(void *ctx, int i, int thread);
/* Options are plain data by design: the caller fills them (zero = defaults). */
typedef struct tosac_rt_parallel {
    int n_threads;
    void (*run)(void *pool, int n_tasks, tosac_rt_task task, void *ctx);
    void *pool;
} tosac_rt_parallel;

typedef struct tosac_rt_options {
    tosac_rt_resolver resolve;                          /* required */
    /* 1: every delegate operator runs on the reference interpreter (no accelerated kernels);
     * 0 (default): the fast kernels of src/runtime/accel/ replace what they cover. */
    int reference;
    const tosac_rt_parallel *parallel;                  /* NULL: one thread */
} tosac_rt_options;
/* The arena for options o: tosac_rt_arena_size plus a slice of the accelerated kernels'
 * scratch for each thread of o->parallel beyond the first (none with o->reference). With a
 * smaller arena (but at least tosac_rt_arena_size), init_ex runs the kernels on one thread. */
tosac_code tosac_rt_arena_size_ex(const void *program, size_t len, const tosac_rt_options *o,
                                  size_t *bytes, tosac_error *err);
tosac_code tosac_rt_init_ex(const void *program, size_t len, void *arena, size_t arena_bytes,
                            const tosac_rt_options *o, tosac_rt **out, tosac_error *err);
/* Every operator (the resolver of tosac_rt_init). */
const tosac_rt_op *tosac_rt_ops_all(const char *op_type);
/* One operator family each (ONNX op_type -> implementation, NULL if not in the family). */
const tosac_rt_op *tosac_rt_ops_elementwise(const char *op_type); /* Add, Mul, Where, ... */
const tosac_rt_op *tosac_rt_ops_unary(const char *op_type);       /* Relu, Sigmoid, Cast, ... */
const tosac_rt_op *tosac_rt_ops_conv(const char *op_type);        /* Conv, Gemm, MatMul, ... */
const tosac_rt_op *tosac_rt_ops_pool(const char *op_type);
const tosac_rt_op *tosac_rt_ops_reduce(const char *op_type);
const tosac_rt_op *tosac_rt_ops_norm(const char *op_type);        /* Softmax, norms */
const tosac_rt_op *tosac_rt_ops_shape(const char *op_type);       /* Reshape, Shape, ... */
const tosac_rt_op *tosac_rt_ops_layout(const char *op_type);      /* Transpose, Concat, ... */
const tosac_rt_op *tosac_rt_ops_gather(const char *op_type);
const tosac_rt_op *tosac_rt_ops_quant(const char *op_type);       /* (De)QuantizeLinear, ... */
const tosac_rt_op *tosac_rt_ops_control(const char *op_type);     /* If, Loop */
const tosac_rt_op *tosac_rt_ops_scan(const char *op_type);
const tosac_rt_op *tosac_rt_ops_resize(const char *op_type);
const tosac_rt_op *tosac_rt_ops_rnn(const char *op_type);         /* LSTM, GRU, RNN */

#endif
