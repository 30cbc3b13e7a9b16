/* libFuzzer target: the runtime's verifying loader of program v2 (rt_program_load, on a
 * 16-aligned copy), the runtime itself on those bytes (tosac_rt_arena_size, tosac_rt_init in
 * an arena of that size when it is at most FUZZ_ARENA_MAX_BYTES, one invoke on the zeroed
 * inputs), the compiler's reader (tosac_program_from_bytes, which rebuilds the IR),
 * then the load-time preparation a run does (tosac_program_prepare); a program with no graph
 * inputs is also run. Preparation allocates the arena the rebuilt program's plan asks for:
 * scripts/fuzz.sh builds with TOSAC_LIMIT_RUNTIME_REGION at 256 MiB, so a program declaring
 * more is refused by that limit before anything is allocated (include/tosac/limits.h). */
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_program.h"
#include "tosac/program.h"
#include "tosac/runtime.h"

#define FUZZ_ARENA_MAX_BYTES ((size_t)64 << 20)

/* The bytes as a deployed runtime takes them. */
static void run_on_runtime(const void *prog, size_t len)
{
    tosac_error err = {0};
    size_t need = 0;
    tosac_rt *rt = NULL;
    if (tosac_rt_arena_size(prog, len, &need, &err) != TOSAC_OK || need > FUZZ_ARENA_MAX_BYTES)
        return;
    void *arena = aligned_alloc(16, (need + 15) / 16 * 16 + 16);
    if (arena && tosac_rt_init(prog, len, arena, need, &rt, &err) == TOSAC_OK)
        tosac_rt_invoke(rt, &err);
    free(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tosac_error err = {0};
    tosac_program *p = NULL;
    unsigned char *copy = aligned_alloc(16, (size + 16) / 16 * 16);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    rt_program v;
    tosac_code loaded = rt_program_load(copy, size, &v, &err);
    if (loaded == TOSAC_OK)
        run_on_runtime(copy, size);
    free(copy);
    if (loaded != TOSAC_OK)
        return 0;
    if (tosac_program_from_bytes(data, size, &p, &err) != TOSAC_OK)
        return 0;
    const ir_graph *g = tosac_program_cpu(p)->graph;
    if (tosac_program_prepare(p, &err) == TOSAC_OK && g->n_inputs == 0) {
        int n = g->n_outputs;
        if (n > 0 && n <= 64) {
            tosac_tensor *outs = calloc((size_t)n, sizeof *outs);
            if (outs && tosac_program_run(p, NULL, 0, outs, n, &err) == TOSAC_OK)
                for (int i = 0; i < n; i++)
                    tosac_tensor_free(&outs[i]);
            free(outs);
        }
    }
    tosac_program_free(p);
    return 0;
}
