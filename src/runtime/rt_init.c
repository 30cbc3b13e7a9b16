/* Arena size, init and the signature accessors. The arena holds, in order: the state (this
 * struct, the IR views, the prepared delegates, last the CPU nodes' prepared blocks, filled
 * by their pack steps; bump-allocated once), the planned region (the
 * plan's arena_bytes: every planned value and step scratch at its offset) and the dynamic
 * region (values without a static shape, emptied by each invoke). */
#include "tosac/limits.h"
#include <stdint.h>
#include <string.h>

#include "runtime/rt_internal.h"


/* The RUNTIME section, or NULL. */
static const rt_runtime_rec *runtime_rec(const rt_program *p)
{
    for (uint32_t s = 0; s < p->n_sections; s++)
        if (p->sections[s].kind == RT_SEC_RUNTIME &&
            p->sections[s].size >= sizeof(rt_runtime_rec))
            return (const rt_runtime_rec *)(p->base + p->sections[s].offset);
    return NULL;
}

/* Bounds the sizes a program may ask for, so the sum below cannot wrap. */
#define RT_MAX_REGION ((uint64_t)TOSAC_LIMIT_RUNTIME_REGION)

tosac_code rt_load(const void *program, size_t len, rt_program *p, size_t *state_bytes,
                   size_t *dynamic_bytes, size_t *thread_scratch, size_t *prepared,
                   tosac_error *err)
{
    if (!program)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no program");
    if ((uintptr_t)program % RT_PROGRAM_ALIGN)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the program buffer is not 16-aligned");
    tosac_code rc = rt_program_load(program, len, p, err);
    if (rc)
        return rc;
    if (!rt_plan_present(p))
        return tosac_fail(err, TOSAC_ERR_INPUT, "the program has no memory plan: recompile it "
                          "with this tosac");
    if (p->plan->arena_bytes > RT_MAX_REGION)
        return tosac_fail(err, TOSAC_ERR_INPUT, "plan: arena of %llu bytes is beyond the "
                          "runtime's limit", (unsigned long long)p->plan->arena_bytes);
    if (!state_bytes)
        return TOSAC_OK;
    const rt_runtime_rec *r = runtime_rec(p);
    if (!r)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the program has no runtime sizes section: "
                          "recompile it with this tosac");
    if (r->state_bytes > RT_MAX_REGION || r->dynamic_bytes > RT_MAX_REGION)
        return tosac_fail(err, TOSAC_ERR_INPUT, "runtime sizes: %llu state and %llu dynamic "
                          "bytes are beyond the runtime's limit",
                          (unsigned long long)r->state_bytes, (unsigned long long)r->dynamic_bytes);
    if (r->thread_scratch % 16 || r->thread_scratch > RT_MAX_REGION)
        return tosac_fail(err, TOSAC_ERR_INPUT, "runtime sizes: a kernel scratch of %llu bytes "
                          "per thread is not 16-aligned or beyond the runtime's limit",
                          (unsigned long long)r->thread_scratch);
    if (r->prepared_bytes % 16 || r->prepared_bytes > RT_MAX_REGION)
        return tosac_fail(err, TOSAC_ERR_INPUT, "runtime sizes: %llu bytes of prepared blocks "
                          "are not 16-aligned or beyond the runtime's limit",
                          (unsigned long long)r->prepared_bytes);
    /* the prepared blocks are the state's last region (both at most 2^40: no wrap) */
    *state_bytes = (size_t)(r->state_bytes + r->prepared_bytes);
    *prepared = (size_t)r->prepared_bytes;
    *dynamic_bytes = (size_t)r->dynamic_bytes;
    *thread_scratch = (size_t)r->thread_scratch;
    return TOSAC_OK;
}

/* The threads the accelerated kernels of a runtime with options o run on. */
static int accel_threads(const tosac_rt_options *o)
{
    return o && !o->reference && o->parallel && o->parallel->run && o->parallel->n_threads > 1
               ? o->parallel->n_threads
               : 1;
}

/* The state with a scratch slice for each of n threads (rt_accel_finish lays them out). */
static tosac_code threads_state(size_t st, size_t slice, int n, size_t *out, tosac_error *err)
{
    size_t more = (size_t)n - 1;
    if (more && slice > (RT_MAX_REGION - st) / more)
        return tosac_fail(err, TOSAC_ERR_INPUT, "runtime sizes: %d threads' kernel scratch "
                          "(%zu bytes each) is beyond the runtime's limit", n, slice);
    *out = st + more * slice;
    return TOSAC_OK;
}

tosac_code tosac_rt_arena_size_ex(const void *program, size_t len, const tosac_rt_options *o,
                                  size_t *bytes, tosac_error *err)
{
    rt_program p;
    size_t st = 0, dyn = 0, slice = 0, prep = 0;
    tosac_code rc = rt_load(program, len, &p, &st, &dyn, &slice, &prep, err);
    if (!rc)
        rc = threads_state(st, slice, accel_threads(o), &st, err);
    if (!rc)
        *bytes = align16(st) + align16((size_t)p.plan->arena_bytes) + align16(dyn);
    return rc;
}

tosac_code tosac_rt_arena_size(const void *program, size_t len, size_t *bytes, tosac_error *err)
{
    return tosac_rt_arena_size_ex(program, len, NULL, bytes, err);
}

/* The signature's values: views of graph 0's planned buffers. */
static tosac_code bind_signature(tosac_rt *rt, tosac_error *err)
{
    const rt_program *p = &rt->prog;
    rt_gview *G = &rt->graphs[0];
    rt->inputs = tosac_arena_alloc(&rt->state, sizeof(tosac_tensor) * (p->n_inputs + 1), 16);
    rt->outputs = tosac_arena_alloc(&rt->state, sizeof(tosac_tensor) * (p->n_outputs + 1), 16);
    if (!rt->inputs || !rt->outputs)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the arena is too small for the runtime's state");
    for (uint32_t i = 0; i < p->n_inputs + p->n_outputs; i++) {
        bool in = i < p->n_inputs;
        const rt_sig_rec *s = in ? &p->inputs[i] : &p->outputs[i - p->n_inputs];
        int id = s->cpu_tensor;
        const char *name = rt_str(p, s->name);
        if (id < 0 || id >= G->g.n_tensors)
            return tosac_fail(err, TOSAC_ERR_INPUT, "signature: '%s' names no value", name);
        tosac_tensor *v = &G->vals[id];
        if (!in) {
            memset(&rt->outputs[i - p->n_inputs], 0, sizeof(tosac_tensor));
            continue;
        }
        bool bound = false;
        for (int k = 0; k < G->g.n_inputs; k++)
            bound = bound || G->g.inputs[k] == id;
        if (!bound || !v->data || v->dtype != (tosac_dtype)s->dtype ||
            !tosac_shape_equal(v->rank, v->shape, s->rank, s->shape))
            return tosac_fail(err, TOSAC_ERR_INPUT, "signature: input '%s' is not a planned "
                              "input of the CPU graph of its type (a dynamic shape? compile with "
                              "--input-shape)", name);
        rt->inputs[i] = *v;
    }
    return TOSAC_OK;
}

tosac_code rt_setup(const rt_program *p, unsigned char *state_mem, size_t state_cap,
                        unsigned char *planned, unsigned char *dyn, size_t dyn_bytes,
                        const tosac_rt_options *o, bool measuring,
                        const tosac_allocator *index_alloc, tosac_rt **out, tosac_error *err)
{
    tosac_arena st;
    tosac_arena_init(&st, state_mem, state_cap);
    tosac_rt *rt = tosac_arena_alloc(&st, sizeof *rt, 16);
    if (!rt)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the arena is too small for the runtime's state");
    memset(rt, 0, sizeof *rt);
    rt->state = st;
    rt->prog = *p;
    rt->planned = planned;
    rt->planned_bytes = (size_t)p->plan->arena_bytes;
    memset(planned, 0, rt->planned_bytes); /* deterministic contents from the start */
    tosac_arena_init(&rt->dyn, dyn, dyn_bytes);
    rt->reference = o->reference != 0;
    rt->accel.n_threads = accel_threads(o);
    rt->accel.par = rt->accel.n_threads > 1 ? o->parallel : NULL;
    rt->accel.measure_only = measuring;
    tosac_code rc = rt_build_graphs(rt, o, err);
    if (!rc)
        rc = rt_prepare_delegates(rt, index_alloc, err);
    if (!rc)
        rc = bind_signature(rt, err);
    if (rc)
        return rc;
    *out = rt;
    return TOSAC_OK;
}

/* The prepared blocks' region, after everything init laid out in the state (its size
 * measured at compile time: a state that does not leave it is a program that lies). */
static tosac_code carve_prepared(tosac_rt *rt, size_t bytes, tosac_error *err)
{
    unsigned char *m = bytes ? tosac_arena_alloc(&rt->state, bytes, 16) : NULL;
    if (bytes && !m)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the arena is too small for the CPU operators' "
                          "prepared blocks (%zu bytes)", bytes);
    tosac_arena_init(&rt->prepd, m, m ? bytes : 0);
    return TOSAC_OK;
}

static tosac_code init_ex(const void *program, size_t len, void *arena, size_t arena_bytes,
                          const tosac_rt_options *o, bool measure_only,
                          const tosac_allocator *index_alloc, tosac_rt **out, tosac_error *err)
{
    rt_program p;
    size_t st = 0, dyn = 0, slice = 0, st_n = 0, prep = 0;
    if (out)
        *out = NULL;
    if (!out || !o || !o->resolve)
        return tosac_fail(err, TOSAC_ERR_INPUT, "tosac_rt_init: no output pointer or no "
                          "operator resolver");
    tosac_code rc = rt_load(program, len, &p, &st, &dyn, &slice, &prep, err);
    if (!rc)
        rc = threads_state(st, slice, accel_threads(o), &st_n, err);
    if (rc)
        return rc;
    size_t rest = align16((size_t)p.plan->arena_bytes) + align16(dyn);
    if (!arena || (uintptr_t)arena % 16)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the arena is not 16-aligned memory");
    if (arena_bytes < align16(st) + rest)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the arena has %zu bytes, the program needs %zu",
                          arena_bytes, align16(st) + rest);
    /* room for every thread's scratch (tosac_rt_arena_size_ex), else one thread */
    if (arena_bytes >= align16(st_n) + rest)
        st = st_n;
    unsigned char *a = arena;
    tosac_rt *rt = NULL;
    rc = rt_setup(&p, a, st, a + align16(st), a + align16(st) + align16((size_t)p.plan->arena_bytes),
                  dyn, o, measure_only, index_alloc, &rt, err);
    if (!rc)
        rc = carve_prepared(rt, prep, err);
    if (!rc && !measure_only) /* read-back check: never invoked, nothing to pack */
        rc = rt_pack_constants(rt, err);
    if (!rc)
        *out = rt;
    return rc;
}

tosac_code tosac_rt_init_ex(const void *program, size_t len, void *arena, size_t arena_bytes,
                            const tosac_rt_options *o, tosac_rt **out, tosac_error *err)
{
    return init_ex(program, len, arena, arena_bytes, o, false, NULL, out, err);
}

tosac_code rt_init_measure_only(const void *program, size_t len, void *arena,
                                size_t arena_bytes, const tosac_rt_options *o,
                                const tosac_allocator *index_alloc, tosac_rt **out,
                                tosac_error *err)
{
    return init_ex(program, len, arena, arena_bytes, o, true, index_alloc, out, err);
}

int tosac_rt_n_inputs(const tosac_rt *rt) { return (int)rt->prog.n_inputs; }
int tosac_rt_n_outputs(const tosac_rt *rt) { return (int)rt->prog.n_outputs; }

const char *tosac_rt_input_name(const tosac_rt *rt, int i)
{
    return i >= 0 && (uint32_t)i < rt->prog.n_inputs ? rt_str(&rt->prog, rt->prog.inputs[i].name)
                                                      : NULL;
}

const char *tosac_rt_output_name(const tosac_rt *rt, int i)
{
    return i >= 0 && (uint32_t)i < rt->prog.n_outputs
               ? rt_str(&rt->prog, rt->prog.outputs[i].name)
               : NULL;
}

tosac_tensor *tosac_rt_input(tosac_rt *rt, int i)
{
    return i >= 0 && (uint32_t)i < rt->prog.n_inputs ? &rt->inputs[i] : NULL;
}

const tosac_tensor *tosac_rt_output(const tosac_rt *rt, int i)
{
    return i >= 0 && (uint32_t)i < rt->prog.n_outputs ? &rt->outputs[i] : NULL;
}
