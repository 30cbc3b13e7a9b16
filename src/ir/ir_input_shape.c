/* --input-shape NAME=D0,D1,...: parsing and binding a static shape to a graph input. */
#include "ir_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

tosac_code ir_parse_input_shape(const char *spec, char *name_buf, size_t name_len, int *rank,
                                int64_t *dims, tosac_error *err)
{
    const char *eq = spec ? strrchr(spec, '=') : NULL;
    if (!eq || eq == spec)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "--input-shape '%s': expected NAME=D0,D1,... (e.g. x=1,3,224,224)",
                          spec ? spec : "");
    size_t nlen = (size_t)(eq - spec);
    if (nlen >= name_len)
        return tosac_fail(err, TOSAC_ERR_INPUT, "--input-shape: input name too long");
    memcpy(name_buf, spec, nlen);
    name_buf[nlen] = '\0';
    const char *p = eq + 1;
    int r = 0;
    while (*p) {
        if (r == TOSAC_MAX_RANK)
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "--input-shape '%s': more than %d dimensions", spec, TOSAC_MAX_RANK);
        if (*p < '0' || *p > '9')
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "--input-shape '%s': dimension %d is not a non-negative integer",
                              spec, r);
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || v > IR_SHAPE_LIMIT)
            return tosac_fail(err, TOSAC_ERR_INPUT, "--input-shape '%s': dimension %d too large",
                              spec, r);
        dims[r++] = v;
        p = end;
        if (*p == ',') {
            p++;
            if (!*p)
                return tosac_fail(err, TOSAC_ERR_INPUT, "--input-shape '%s': trailing ','", spec);
        } else if (*p) {
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "--input-shape '%s': unexpected '%c' after dimension %d", spec, *p,
                              r - 1);
        }
    }
    *rank = r;
    return TOSAC_OK;
}

tosac_code ir_model_set_input_shape(ir_model *m, const char *name, int rank,
                                    const int64_t *dims, tosac_error *err)
{
    ir_graph *g = m->graph;
    int id = ir_graph_find_tensor(g, name);
    if (id < 0 || !ir_graph_is_input(g, id) || g->tensors[id].data)
        return tosac_fail(err, TOSAC_ERR_INPUT, "--input-shape: the model has no input '%s'",
                          name);
    ir_tensor *t = &g->tensors[id];
    if (t->rank >= 0 && t->rank != rank)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "--input-shape %s: %d dimensions given, the input has %d", name, rank,
                          t->rank);
    for (int d = 0; d < rank; d++)
        if (t->rank >= 0 && t->shape[d] >= 0 && t->shape[d] != dims[d])
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "--input-shape %s: dimension %d is %lld in the model, not %lld",
                              name, d, (long long)t->shape[d], (long long)dims[d]);
    t->rank = rank;
    for (int d = 0; d < rank; d++)
        t->shape[d] = dims[d];
    return TOSAC_OK;
}
