/* The read-back check compile runs before it claims success: the program's bytes are loaded
 * as `tosac run` loads them (the runtime: tosac_rt_arena_size verifies the file, tosac_rt_init,
 * measure-only, in a fresh arena of that size wires every delegate and prepares it,
 * resolves every CPU operator), read back into the compiler's form, the CPU graph's declared
 * types are re-derived node by node, and every operator of every delegate block passes the
 * spec validator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/program_internal.h"
#include "lower/validate.h"
#include "runtime/rt_internal.h"
#include "util/alloc.h"
#include "util/pages.h"
#include "tosac/compile.h"
#include "tosac/runtime.h"

/* The first operator of p's delegates that spec does not allow. */
static tosac_code validate_delegates(const tosac_program *p, const tosa_spec *spec,
                                     tosac_error *err)
{
    char spec_s[128], reason[256];
    tosa_spec_to_string(spec, spec_s, sizeof spec_s);
    for (int d = 0; d < p->n_delegates; d++) {
        const tosa_graph *g = p->delegates[d];
        for (int r = 0; r < g->n_regions; r++)
            for (int b = 0; b < g->regions[r].n_blocks; b++) {
                const tosa_block *blk = &g->regions[r].blocks[b];
                int i = tosa_validate_first_illegal(spec, blk, reason, sizeof reason);
                if (i >= 0)
                    return tosac_fail(err, TOSAC_ERR_INTERNAL,
                                      "delegate %d, block '%s', operator %d is not legal "
                                      "under %s: %s", d, blk->name ? blk->name : "",
                                      i, spec_s, reason);
            }
    }
    return TOSAC_OK;
}

/* The runtime in an arena of exactly the size it asks for, initialised as tosac_rt_init does
 * but without packing the weights of the main graph's delegates (rt_init_measure_only: the
 * packed bytes are never read here, and whether they can be packed is still asked). */
static tosac_code load_on_runtime(const void *bytes, size_t len, tosac_error *err)
{
    size_t need = 0;
    tosac_rt *rt = NULL;
    void *arena = NULL;
    tosac_rt_options o = {tosac_rt_ops_all, 0, NULL};
    tosac_code rc = tosac_rt_arena_size(bytes, len, &need, err);
    if (!rc && !(arena = tosac_pages_alloc(need)))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory for an arena of %zu bytes", need);
    if (!rc)
        rc = rt_init_measure_only(bytes, len, arena, need, &o, tosac_libc_allocator(), &rt, err);
    tosac_pages_free(arena, need);
    return rc;
}

tosac_code tosac_compile_verify(const void *bytes, size_t len, const tosa_spec *spec,
                                tosac_error *err)
{
    tosac_program *p = NULL;
    tosac_error e;
    tosac_error_clear(&e);
    const char *stage = "does not load on the runtime";
    tosac_code rc = load_on_runtime(bytes, len, &e);
    if (!rc) {
        stage = "does not read back";
        rc = tosac_program_from_bytes_borrowed(bytes, len, &p, &e);
    }
    if (!rc) {
        stage = "has a CPU graph whose declared types do not hold";
        rc = ir_model_check_shapes(p->cpu, &e);
    }
    if (!rc) {
        stage = "breaks the spec";
        rc = validate_delegates(p, spec, &e);
    }
    tosac_program_free(p);
    if (rc)
        return tosac_fail(err, TOSAC_ERR_INTERNAL,
                          "internal error: the compiled program %s (nothing written): %s", stage,
                          e.msg);
    return TOSAC_OK;
}
