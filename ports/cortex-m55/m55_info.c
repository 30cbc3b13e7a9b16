/* tosac-m55-info PROGRAM (host): what an image for PROGRAM needs, for
 * scripts/run-cortex-m55.sh. Prints
 *     arena_bytes N          tosac_rt_arena_size: the image's static arena
 *     families F ...         the operator families (runtime.h) its CPU operators are in
 *     tosa_ops O ...         the interpreter operators its delegates use (lower case)
 * and "families all" when an operator is in none of them (the image then links every
 * operator through tosac_rt_ops_all), "tosa_ops all" when the interpreter has one of them
 * not (the image then links every interpreter operator, which reports it at init).
 * Exit 0, 2 for a bad program, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"
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

/* The interpreter's operator groups (interp_internal.h): what it implements. */
static const interp_op_entry *const groups[] = {
    interp_ops_tensor,         interp_ops_conv,          interp_ops_activation,
    interp_ops_elementwise,    interp_ops_comparison,    interp_ops_reduction,
    interp_ops_data_layout,    interp_ops_scatter_gather, interp_ops_image,
    interp_ops_type_conversion, interp_ops_data_node,    interp_ops_control_flow,
    interp_ops_variable,
};
#define N_GROUPS (sizeof groups / sizeof groups[0])

static int implemented(tosa_op op)
{
    for (size_t k = 0; k < N_GROUPS; k++)
        for (const interp_op_entry *e = groups[k]; e->fn; e++)
            if (e->op == op)
                return 1;
    return 0;
}

/* Marks every operator of delegate d (every block); *all when the interpreter lacks one. */
static tosac_code delegate_ops(const rt_program *p, uint32_t d, unsigned char *used, int *all,
                               tosac_error *err)
{
    rt_delegate_view v = rt_program_delegate(p, d);
    tosa_graph *g = NULL;
    tosac_code rc = tosa_graph_read(v.tosa, v.tosa_size, &g, err);
    if (rc)
        return rc;
    for (int r = 0; r < g->n_regions; r++)
        for (int b = 0; b < g->regions[r].n_blocks; b++) {
            const tosa_block *blk = &g->regions[r].blocks[b];
            for (int o = 0; o < blk->n_ops; o++) {
                tosa_op op = blk->ops[o].op;
                if ((unsigned)op < TOSA_OP_COUNT && implemented(op))
                    used[op] = 1;
                else
                    *all = 1;
            }
        }
    tosa_graph_free(g);
    return TOSAC_OK;
}

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
    unsigned char tused[TOSA_OP_COUNT] = {0};
    int tall = 0;
    for (uint32_t d = 0; d < p.n_delegates && !rc; d++)
        rc = delegate_ops(&p, d, tused, &tall, &err);
    if (rc) {
        fprintf(stderr, "tosac-m55-info: error: %s: %s\n", argv[1], err.msg);
        free(buf);
        return tosac_exit_status(rc);
    }
    printf("tosa_ops");
    for (int op = 0; op < TOSA_OP_COUNT && !tall; op++) {
        if (!tused[op])
            continue;
        printf(" ");
        for (const char *c = tosa_op_name((tosa_op)op); *c; c++)
            putchar(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    }
    printf("%s\n", tall ? " all" : "");
    free(buf);
    return 0;
}
