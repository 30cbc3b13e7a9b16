/* The runtime's state (everything in the caller's arena): the verified program view, read-only
 * IR views of the CPU graphs (what the CPU operators read, see cpu/cpu_internal.h), each value's
 * tensor description, the prepared delegates and the arena regions.
 *
 * Execution: a graph runs its nodes in file order (the compiler writes them topologically
 * sorted; init checks it). A CPU node's outputs go to the planned buffers of its output values,
 * its temporaries and kernel scratch to the planned scratch of its step; a TosaDelegate node
 * runs its prepared interpreter state whose main-block inputs/outputs sit at the CPU values'
 * buffers. A body of If/Loop/Scan runs as its own graph (its own planned region); its inputs
 * are the caller's tensors (borrowed for the call), its outputs are copied out as temporaries
 * of the calling node. Values without a planned buffer (shape not static) come from the
 * dynamic region, emptied at the start of every invoke. */
#ifndef TOSAC_RT_INTERNAL_H
#define TOSAC_RT_INTERNAL_H

#include <stdint.h>

#include "cpu/cpu_internal.h"
#include "runtime/accel/rt_accel.h"
#include "runtime/rt_program.h"
#include "tosac/runtime.h"
#include "util/arena.h"

struct tosa_graph;
struct interp_state;

typedef struct rt_gview rt_gview;
struct rt_gview {
    ir_graph g;                 /* the read-only view: first member, so a body's ir_graph *
                                 * (an attribute's g) is its rt_gview */
    int index;                  /* graph index in the program */
    rt_gview *parent;
    const cpu_op_entry **ops;   /* per node; NULL for a TosaDelegate node */
    int *delegate;              /* per node: delegate index, or -1 */
    int *step;                  /* per node: its (first) step in the plan's timeline */
    void **prep;                /* per node: its operator's prepared state (init), or NULL */
    void **pblk;                /* per node: its prepared block (cpu_prepared: packed constant
                                 * weights), kept across invokes; NULL: none yet */
    size_t *pbytes;             /* per node: that block's bytes (0: none) */
    int n_steps;
    tosac_tensor *vals;         /* per tensor: its current value (data NULL: none yet) */
    size_t *cap;                /* per tensor: planned bytes (0: not planned) */
};

typedef struct rt_delegate {
    struct tosa_graph *graph;
    struct interp_state *st;
    int graph_index, node;      /* its TosaDelegate node */
    int index;
    struct tosac_rt *rt;
    tosac_tensor *in;           /* its inputs, gathered for interp_execute */
} rt_delegate;

/* The runtime's sizes record: an optional section (kind RT_SEC_RUNTIME, flag
 * RT_SECF_OPTIONAL) the compiler writes after measuring (rt_measure): the bytes of the state
 * and of the dynamic region, which with the plan's arena_bytes make the arena. The state holds
 * one slice of the accelerated kernels' scratch; each further thread needs thread_scratch
 * more (tosac_rt_arena_size_ex). prepared_bytes: the CPU nodes' prepared blocks (constant
 * weights packed on the first invoke, kept after), a region of the state after everything
 * init lays out. */
#define RT_SEC_RUNTIME 8u
typedef struct rt_runtime_rec {
    uint64_t state_bytes;
    uint64_t dynamic_bytes;
    uint64_t thread_scratch;    /* per thread, 16-aligned; 0: none (or an older compiler) */
    uint64_t prepared_bytes;    /* 16-aligned; 0: none (or an older compiler: packed per run) */
} rt_runtime_rec;

/* Compile-time measurement (rt_measure): what the plan and the arena must hold. */
typedef struct rt_sizes {
    size_t state_bytes;         /* tosac_rt and every prepared state */
    size_t dynamic_bytes;       /* values without a planned buffer, during one invoke */
    size_t thread_scratch;      /* the accelerated kernels' scratch slice (rt_accel_shared) */
    size_t prepared_bytes;      /* the CPU nodes' prepared blocks (16-aligned each) */
    uint64_t *scratch;          /* caller's array: per graph, per node, graph-major */
    size_t n_scratch;           /* its length (the sum of the graphs' node counts) */
} rt_sizes;

struct tosac_rt {
    rt_program prog;
    tosac_arena state;          /* persistent: this struct and everything init prepares */
    unsigned char *planned;     /* the planned region (the plan's arena_bytes) */
    size_t planned_bytes;
    tosac_arena dyn;            /* dynamic region, emptied by every invoke */
    tosac_arena prepd;          /* the CPU nodes' prepared blocks (a region of the state) */
    long prep_fills;            /* blocks handed out fresh (each is filled once): tests */
    long prep_misses;           /* requests the region had no room for (packed per run) */
    int64_t opset;              /* ai.onnx opset of the CPU part */
    rt_gview *graphs;
    int n_graphs;
    rt_delegate *delegates;
    int n_delegates;
    rt_accel_shared accel;      /* the accelerated kernels' scratch and thread pool */
    bool reference;             /* options.reference: no accelerated kernels */
    tosac_tensor *inputs, *outputs;  /* the signature's values (views of graph 0's values) */
    /* measuring (compile time only): temporaries and scratch come from the measure region and
     * each step's high-water mark goes to sizes->scratch */
    rt_sizes *sizes;
    size_t *node_base;          /* per graph: index of its node 0 in sizes->scratch */
    unsigned char *mtop, *mend; /* the measure region not in use by a running node */
    long body_runs;             /* measuring: bodies run so far */
    tosac_rt_observer observe;  /* tosac_rt_set_observer (NULL: none) */
    void *observe_user;
};

/* Loads the program view, checks the runtime's own sizes record (state_bytes: with one
 * scratch slice and the prepared blocks; thread_scratch: each further thread's slice;
 * prepared: the prepared blocks' region; the outputs optional: NULL state_bytes skips the
 * record). */
tosac_code rt_load(const void *program, size_t len, rt_program *p, size_t *state_bytes,
                   size_t *dynamic_bytes, size_t *thread_scratch, size_t *prepared,
                   tosac_error *err);

static inline size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* rt_scratch.c: a step's temporaries and kernel scratch, released in any order. */
typedef struct rt_heap {
    unsigned char *base;
    size_t size, top, high;
} rt_heap;
void rt_heap_init(rt_heap *h, unsigned char *base, size_t size);
void *rt_heap_alloc(rt_heap *h, size_t bytes);     /* 16-aligned; NULL when it does not fit */
void rt_heap_free(rt_heap *h, void *ptr);          /* NULL and foreign pointers ignored */

/* rt_init.c: lays the state out at the start of state_mem and prepares everything. */
/* measuring (rt_measure only): the main graph's delegates, which never run then, are
 * prepared measure-only (rt_accel_shared.measure_only: same state, weights not packed).
 * index_alloc (the compiler's heap, or NULL): reading the delegates' .tosa files indexes
 * names by hash in it (tosa_graph_read_indexed; the state takes the same bytes). */
tosac_code rt_setup(const rt_program *p, unsigned char *state_mem, size_t state_cap,
                    unsigned char *planned, unsigned char *dyn, size_t dyn_bytes,
                    const tosac_rt_options *o, bool measuring,
                    const tosac_allocator *index_alloc, tosac_rt **out, tosac_error *err);
/* tosac_rt_init_ex with the main graph's delegates prepared measure-only, as rt_measure
 * does: every check of init and the same state in the same arena, the weights not packed
 * (packing fails exactly where qgemm_pack_ok does, which is asked; the CPU nodes' pack steps
 * do not run). Compile's read-back check (tosac_compile_verify); such a runtime must not be
 * invoked. */
tosac_code rt_init_measure_only(const void *program, size_t len, void *arena,
                                size_t arena_bytes, const tosac_rt_options *o,
                                const tosac_allocator *index_alloc, tosac_rt **out,
                                tosac_error *err);

/* rt_view.c: the IR views of every CPU graph (checked: topological order, delegates bound,
 * operators resolved through resolve). */
tosac_code rt_build_graphs(tosac_rt *rt, const tosac_rt_options *o, tosac_error *err);
/* rt_delegate.c: every delegate prepared on the interpreter, its main block placed; the
 * .tosa files read with index_alloc (rt_setup). Not a field of tosac_rt: the state's size is
 * part of the program (RUNTIME section). */
tosac_code rt_prepare_delegates(tosac_rt *rt, const tosac_allocator *index_alloc,
                                tosac_error *err);
tosac_code rt_run_delegate(tosac_rt *rt, rt_gview *G, int node, tosac_error *err);
/* Installs (fn set, options.reference) or removes the per-operator hook of every delegate
 * of the main graph (tosac_rt_set_observer). */
void rt_observe_delegates(tosac_rt *rt);
/* rt_invoke.c: every CPU node's pack step (constant weights into its prepared block), once
 * the prepared region is laid out (init, and the measuring run before its invoke). */
tosac_code rt_pack_constants(tosac_rt *rt, tosac_error *err);
/* rt_invoke.c: runs graph G (a body: with the caller's inputs borrowed). */
tosac_code rt_run_graph(tosac_rt *rt, rt_gview *G, const tosac_tensor *in, int n_in,
                        tosac_error *err);
/* The value of tensor id of G (captures resolved through the enclosing graphs), or NULL. */
const tosac_tensor *rt_value(const rt_gview *G, int id);

/* Compile time: init + one invoke on zero inputs in a measuring arena (arena_bytes, of which
 * state_cap for the state), recording what each CPU node's step uses (temporaries and
 * scratch). Delegates do not run (their outputs stay zero: the CPU nodes' needs depend on shapes). Bodies of If run all their
 * branches, so every branch's scratch is measured. */
tosac_code rt_measure(const void *program, size_t len, void *arena, size_t arena_bytes,
                      size_t state_cap, const tosac_allocator *index_alloc, rt_sizes *sizes,
                      tosac_error *err);

#endif
