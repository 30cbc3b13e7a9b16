/* The executor's prepared state: everything a run needs is allocated once by
 * interp_prepare, so interp_execute (and every WHILE_LOOP iteration in it) allocates nothing.
 * This is the shape the MCU runtime reuses: prepare once, execute many times.
 *
 * A block is prepared once per nesting depth at which it can run (its tensors must stay
 * live while a nested activation runs, and at one depth only one activation is live at a
 * time), so control flow inside loops reuses the same buffers on every iteration. */
#ifndef TOSAC_INTERP_STATE_H
#define TOSAC_INTERP_STATE_H

#include "tosac/limits.h"
#include <stdbool.h>

#include "interp/interp_internal.h"
#include "util/alloc.h"

/* TOSA level "none": max_nesting of COND_IF / WHILE_LOOP. */
#define INTERP_MAX_NESTING TOSAC_LIMIT_INTERP_NESTING

typedef struct interp_block_state interp_block_state;
struct interp_block_state {
    const tosa_block *block;
    int depth;                  /* 0 for the main block */
    tosac_tensor *tensors;      /* one per block tensor, allocated from its declaration */
    unsigned char *owned;       /* per tensor: data came from the state's allocator (not a
                                 * constant used in place, not placed by the caller) */
    int *order;                 /* operator indices in execution order */
    interp_op_fn *fns;          /* per operator */
    void **op_data;             /* per operator: what a replacement installed with
                                 * interp_block_set_op reads as c->op_data (NULL otherwise) */
    tosac_tensor **operands;    /* per operator: inputs then outputs, flattened */
    int *operand_off;           /* per operator: offset of its operands in `operands` */
    interp_block_state *next;   /* list of all prepared blocks of one interp_state */
};

/* One EXT-VARIABLE state tensor, keyed by its variable name. */
typedef struct interp_var {
    const char *name;
    const tosa_tensor *decl;    /* the declaring tensor (shape, dtype, initial value) */
    tosac_tensor value;
    bool declared;              /* its VARIABLE operator has run */
} interp_var;

/* How interp_prepare_ex allocates. */
typedef struct interp_options {
    const tosac_allocator *alloc; /* all prepared state (copied: it need not outlive the call) */
    /* The buffer (bytes long, 16-aligned, never shared with another live tensor) for tensor
     * `tensor` of the main block, or NULL to allocate it; may be NULL. Called once per
     * main-block tensor that is not a constant (constants are used in place). */
    void *(*place)(void *user, const tosa_block *block, int tensor, size_t bytes);
    void *user;
} interp_options;

struct interp_state {
    tosac_allocator alloc;      /* everything below came from it */
    void *(*place)(void *user, const tosa_block *block, int tensor, size_t bytes);
    void *place_user;
    const tosa_graph *graph;
    interp_block_state *main;
    interp_block_state *blocks; /* every prepared (block, depth) */
    interp_var *vars;
    int n_vars, cap_vars;
    int depth;                  /* nesting depth of the block running now */
    interp_block_state *running[INTERP_MAX_NESTING + 1]; /* the running block per depth */
    /* Debugging (the runtime's observer): called after each operator of the main block has
     * run, op its index in block->ops; NULL (the default) costs one test per operator. */
    void (*observe)(void *user, const interp_block_state *bs, int op);
    void *observe_user;
};

/* Prepares g's main block and every block its control flow can reach. A recursive graph
 * (a block reachable from itself) or nesting deeper than INTERP_MAX_NESTING is rejected
 * here, as are operand-count mismatches, unimplemented operators and tensors no one
 * produces. */
tosac_code interp_prepare_ex(const tosa_graph *g, const interp_options *o, interp_state **out,
                             tosac_error *err);
/* The same with the libc allocator and no placement (interp_host/, compiler side). */
tosac_code interp_prepare(const tosa_graph *g, interp_state **out, tosac_error *err);
/* Binds inputs to the main block's inputs (dtype and shape must match) and runs it.
 * Afterwards interp_main_output(st, i) holds output i until the next execute/free. */
tosac_code interp_execute(interp_state *st, const tosac_tensor *inputs, int n_inputs,
                          tosac_error *err);
const tosac_tensor *interp_main_output(const interp_state *st, int i);
/* Releases everything through the state's allocator (constants and placed buffers are the
 * graph's / the caller's). */
void interp_state_free(interp_state *st);

/* Runs sub-block b one nesting level below the running block: inputs are copied into its
 * input tensors (dtype and shape must match). On success *ran is its state: read its
 * outputs with interp_block_output (valid until it runs again). */
tosac_code interp_exec_block(interp_state *st, const tosa_block *b, tosac_tensor *const *inputs,
                             int n_inputs, const interp_block_state **ran, tosac_error *err);
const tosac_tensor *interp_block_output(const interp_block_state *bs, int i);

/* Replaces operator `op` of a prepared block (its index in block->ops) by fn, which runs with
 * c->op_data = data; the runtime's accelerated kernels (src/runtime/accel/) install
 * themselves this way after interp_prepare_ex. A fused group installs its kernel on one
 * operator and interp_op_nop on the others. */
void interp_block_set_op(interp_block_state *bs, int op, interp_op_fn fn, void *data);
/* Does nothing: an operator whose work a fused kernel of its group has done. */
tosac_code interp_op_nop(interp_ctx *c);

/* The prepared state of block b at nesting depth `depth`, or NULL. */
interp_block_state *interp_find_block_state(interp_state *st, const tosa_block *b, int depth);
/* The variable of the given name, or NULL. */
interp_var *interp_find_var(interp_state *st, const char *name);

/* Operand counts of op from FLATBUFFER_LAYOUT.md section 7 (list operands: up to
 * max_tensor_list_size; -1 max = no limit). False for ops we know nothing about. */
typedef struct interp_arity {
    int min_in, max_in, min_out, max_out;
} interp_arity;
bool interp_op_arity(tosa_op op, interp_arity *out);

/* Copies src into dst, which must have the same dtype and shape (no allocation). */
void interp_copy_tensor(tosac_tensor *dst, const tosac_tensor *src);
/* True if a and b have the same dtype, rank and dims. */
bool interp_same_type(const tosac_tensor *a, const tosac_tensor *b);
/* Same check against a declared graph tensor. */
bool interp_matches_decl(const tosac_tensor *t, const tosa_tensor *decl);
/* "i8[1,2,3]" into buf. */
const char *interp_type_str(tosac_dtype dt, int rank, const int64_t *shape, char *buf, size_t len);

#endif
