/* tosac-m55-info PROGRAM (host): what an image for PROGRAM needs, for
 * scripts/run-cortex-m55.sh. Prints
 *     arena_bytes N          tosac_rt_arena_size: the image's static arena
 *     families F ...         the operator families (runtime.h) its CPU operators are in
 * and "families all" when an operator is in none of them (the image then links every
 * operator through tosac_rt_ops_all). Exit 0, 2 for a bad program, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_program.h"
#include "tosac/runtime.h"
#include "util/fileio.h"

static const struct {
    const char *name;
    tosac_rt_resolver find;
} families[] = {
    {"elementwise", tosac_rt_ops_elementwise}, {"unary", tosac_rt_ops_unary},
    {"conv", tosac_rt_ops_conv},               {"pool", tosac_rt_ops_pool},
    {"reduce", tosac_rt_ops_reduce},           {"norm", tosac_rt_ops_norm},
    {"shape", tosac_rt_ops_shape},             {"layout", tosac_rt_ops_layout},
    {"gather", tosac_rt_ops_gather},           {"quant", tosac_rt_ops_quant},
    {"control", tosac_rt_ops_control},         {"scan", tosac_rt_ops_scan},
    {"resize", tosac_rt_ops_resize},           {"rnn", tosac_rt_ops_rnn},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

int main(int argc, char **argv)
{
    tosac_error err;
    tosac_error_clear(&err);
    if (argc != 2) {
        fprintf(stderr, "usage: tosac-m55-info PROGRAM\n");
        return 2;
    }
    void *buf = NULL;
    size_t len = 0, bytes = 0;
    rt_program p;
    tosac_code rc = tosac_read_file(argv[1], &buf, &len, &err);
    if (rc) { /* the message names the file */
        fprintf(stderr, "tosac-m55-info: error: %s\n", err.msg);
        return tosac_exit_status(rc);
    }
    rc = tosac_rt_arena_size(buf, len, &bytes, &err);
    if (!rc)
        rc = rt_program_load(buf, len, &p, &err);
    if (rc) {
        fprintf(stderr, "tosac-m55-info: error: %s: %s\n", argv[1], err.msg);
        free(buf);
        return tosac_exit_status(rc);
    }
    int used[N_FAMILIES] = {0}, all = 0;
    for (uint32_t i = 0; i < p.n_nodes; i++) {
        const char *op = rt_str(&p, p.nodes[i].op_type);
        if (strcmp(op, "TosaDelegate") == 0) /* run by the runtime itself */
            continue;
        size_t f = 0;
        while (f < N_FAMILIES && !families[f].find(op))
            f++;
        if (f < N_FAMILIES)
            used[f] = 1;
        else
            all = 1;
    }
    printf("arena_bytes %zu\nfamilies", bytes);
    for (size_t f = 0; f < N_FAMILIES; f++)
        if (used[f] && !all)
            printf(" %s", families[f].name);
    printf("%s\n", all ? " all" : "");
    free(buf);
    return 0;
}
