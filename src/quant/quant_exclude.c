/* --exclude NAME|OP_TYPE,...: the nodes the user keeps float (and --int16's list, parsed alike), by node name or operator type
 * (domain-free, case-sensitive as ONNX). An entry matching nothing is an error, so a typo
 * does not silently quantize the layer it meant. */
#include "quant/quant_internal.h"

#include <stdlib.h>
#include <string.h>

static bool matches(const ir_node *n, const char *s, size_t len)
{
    return (n->name && strlen(n->name) == len && strncmp(n->name, s, len) == 0) ||
           (n->op_type && strlen(n->op_type) == len && strncmp(n->op_type, s, len) == 0);
}

tosac_code quant_exclude_parse(const ir_graph *g, const char *list, bool **out,
                               tosac_error *err)
{
    return quant_node_list_parse(g, "--exclude", list, out, err);
}

tosac_code quant_node_list_parse(const ir_graph *g, const char *option, const char *list,
                                 bool **out, tosac_error *err)
{
    *out = NULL;
    if (!list)
        return TOSAC_OK;
    bool *keep = calloc((size_t)g->n_nodes + 1, sizeof *keep);
    if (!keep)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (const char *s = list; *s;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        int hits = 0;
        for (int i = 0; len && i < g->n_nodes; i++)
            if (!g->nodes[i].dead && matches(&g->nodes[i], s, len)) {
                keep[i] = true;
                hits++;
            }
        if (!hits) {
            free(keep);
            if (!len)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s '%s': empty entry", option, list);
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "%s '%.*s' names no node and no operator type of the model",
                              option, (int)len, s);
        }
        s += len + (e ? 1 : 0);
    }
    *out = keep;
    return TOSAC_OK;
}
