/* Loads a compiled tosac program, runs it on .npy inputs and prints each output's first
 * values: the runtime API in one page.   usage: run_program PROGRAM [INPUT.npy ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/tosac.h"

static void *read_all(const char *path, size_t *len) /* 16-aligned: the program is read in place */
{
    FILE *f = fopen(path, "rb");
    long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    void *buf = n > 0 && fseek(f, 0, SEEK_SET) == 0 ? aligned_alloc(16, ((size_t)n + 15) / 16 * 16) : NULL;
    *len = buf && fread(buf, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
    if (f)
        fclose(f);
    return *len ? buf : (free(buf), NULL);
}

int main(int argc, char **argv)
{
    tosac_error err;
    tosac_error_clear(&err);
    size_t len = 0, bytes = 0;
    void *prog = argc > 1 ? read_all(argv[1], &len) : NULL, *arena = NULL;
    tosac_rt *rt = NULL;
    if (!prog)
        return fprintf(stderr, "usage: run_program PROGRAM [INPUT.npy ...] (a readable program)\n"), 2;
    if (tosac_rt_arena_size(prog, len, &bytes, &err) || !(arena = aligned_alloc(16, (bytes + 15) / 16 * 16)) ||
        tosac_rt_init(prog, len, arena, bytes, &rt, &err))
        return fprintf(stderr, "run_program: %s: %s\n", argv[1], err.msg), 2;
    for (int i = 0; i < tosac_rt_n_inputs(rt) && i + 2 < argc; i++) {
        tosac_tensor x, *in = tosac_rt_input(rt, i);
        if (tosac_npy_read(argv[i + 2], &x, &err) || x.dtype != in->dtype || x.nbytes != in->nbytes)
            return fprintf(stderr, "run_program: %s: %s\n", argv[i + 2],
                           err.msg[0] ? err.msg : "not the type of the program's input"), 2;
        memcpy(in->data, x.data, x.nbytes);
        tosac_tensor_free(&x);
    }
    if (tosac_rt_invoke(rt, &err))
        return fprintf(stderr, "run_program: %s\n", err.msg), 2;
    for (int o = 0; o < tosac_rt_n_outputs(rt); o++) {
        const tosac_tensor *y = tosac_rt_output(rt, o);
        printf("%s %s[%lld elements]:", tosac_rt_output_name(rt, o), tosac_dtype_name(y->dtype),
               (long long)tosac_tensor_numel(y));
        for (int64_t k = 0; k < 5 && k < tosac_tensor_numel(y); k++)
            printf(" %g", tosac_tensor_f64_at(y, k));
        printf("\n");
    }
    free(arena);
    free(prog);
    return 0;
}
