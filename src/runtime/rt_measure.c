/* Compile-time measurement on the runtime itself (rt_measure, see rt_internal.h): what the
 * state, every step's temporaries and scratch, and the dynamic values take. In its own file:
 * it names every operator (tosac_rt_ops_all), a deployed image never links it. */
#include <string.h>

#include "runtime/rt_internal.h"

tosac_code rt_measure(const void *program, size_t len, void *arena, size_t arena_bytes,
                      size_t state_cap, const tosac_allocator *index_alloc, rt_sizes *sizes,
                      tosac_error *err)
{
    rt_program p;
    tosac_code rc = rt_load(program, len, &p, NULL, NULL, NULL, NULL, err);
    if (rc)
        return rc;
    size_t planned = align16((size_t)p.plan->arena_bytes);
    state_cap = align16(state_cap);
    if ((uintptr_t)arena % 16 || arena_bytes < state_cap + planned + 64)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "measuring: arena too small");
    unsigned char *a = arena, *rest = a + state_cap + planned;
    size_t half = align16((arena_bytes - state_cap - planned) / 2) - 16;
    tosac_rt_options o = {tosac_rt_ops_all, 0, NULL};
    tosac_rt *rt = NULL;
    rc = rt_setup(&p, a, state_cap, a + state_cap, rest, half, &o, true, index_alloc, &rt, err);
    if (rc)
        return rc;
    sizes->state_bytes = rt->state.used;
    sizes->thread_scratch = rt->accel.scratch_stride;
    size_t total = 0;
    rt->node_base = tosac_arena_alloc(&rt->state, sizeof(size_t) * (size_t)(rt->n_graphs + 1), 16);
    for (int g = 0; rt->node_base && g < rt->n_graphs; g++) {
        rt->node_base[g] = total;
        total += (size_t)rt->graphs[g].g.n_nodes;
    }
    if (!rt->node_base || total != sizes->n_scratch)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "measuring: %zu nodes, %zu sizes given", total,
                        sizes->n_scratch);
    for (size_t i = 0; i < sizes->n_scratch; i++)
        sizes->scratch[i] = 0;
    /* the prepared blocks: the rest of the state, what the invoke takes of it is measured */
    size_t room = rt->state.size - rt->state.used;
    size_t left = room > 16 ? (room - 16) & ~(size_t)15 : 0;
    unsigned char *pm = rc ? NULL : tosac_arena_alloc(&rt->state, left, 16);
    tosac_arena_init(&rt->prepd, pm, left);
    rt->sizes = sizes;
    rt->mtop = rest + half;
    rt->mend = rest + 2 * half;
    if (!rc)
        rc = rt_pack_constants(rt, err);
    if (!rc)
        rc = tosac_rt_invoke(rt, err); /* on the zeroed inputs */
    sizes->dynamic_bytes = rt->dyn.high;
    sizes->prepared_bytes = rt->prepd.high;
    return rc;
}

