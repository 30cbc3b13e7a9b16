/* ir_model -> ModelProto bytes. Every message is built with malloc so that protobuf-c's
 * free_unpacked (system allocator) releases the whole tree in one call, also on failure. */
#include "onnx_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

static char *dup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s ? s : "", n);
    return p;
}

#define OOM(err) tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory")

/* A subgraph capture is written under the name of the outer tensor it reads. */
static const char *export_name(const ir_graph *g, int id)
{
    while (g->tensors[id].outer_id >= 0 && g->parent) {
        id = g->tensors[id].outer_id;
        g = g->parent;
    }
    return g->tensors[id].name;
}

static Onnx__ValueInfoProto *value_info(const ir_graph *g, int id, tosac_error *err)
{
    const ir_tensor *t = &g->tensors[id];
    Onnx__ValueInfoProto *vi = malloc(sizeof *vi);
    Onnx__TypeProto *tp = malloc(sizeof *tp);
    Onnx__TypeProto__Tensor *tt = malloc(sizeof *tt);
    if (!vi || !tp || !tt) {
        free(vi);
        free(tp);
        free(tt);
        OOM(err);
        return NULL;
    }
    onnx__value_info_proto__init(vi);
    onnx__type_proto__init(tp);
    onnx__type_proto__tensor__init(tt);
    vi->type = tp;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    vi->name = dup(export_name(g, id));
    bool ok = vi->name != NULL;
    if (t->dtype == TOSAC_DT_UNKNOWN) {
        /* nothing known (a branch set aside by shape inference): an empty TypeProto, as
         * spox writes; elem_type 0 would be an invalid type to onnxruntime */
        tp->value_case = ONNX__TYPE_PROTO__VALUE__NOT_SET;
        tp->tensor_type = NULL;
        free(tt);
        if (!ok) {
            onnx__value_info_proto__free_unpacked(vi, NULL);
            OOM(err);
            return NULL;
        }
        return vi;
    }
    tt->has_elem_type = 1;
    tt->elem_type = onnx_dtype_from_tosac(t->dtype);
    if (ok && t->rank >= 0) {
        Onnx__TensorShapeProto *sp = malloc(sizeof *sp);
        ok = sp != NULL;
        if (ok) {
            onnx__tensor_shape_proto__init(sp);
            tt->shape = sp;
            sp->dim = calloc((size_t)t->rank + 1, sizeof *sp->dim);
            ok = sp->dim != NULL;
        }
        for (int d = 0; ok && d < t->rank; d++) {
            Onnx__TensorShapeProto__Dimension *dim = malloc(sizeof *dim);
            if (!(ok = dim != NULL))
                break;
            onnx__tensor_shape_proto__dimension__init(dim);
            sp->dim[sp->n_dim++] = dim;
            if (t->shape[d] >= 0) {
                dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                dim->dim_value = t->shape[d];
            } else if (t->dim_param[d]) {
                dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                ok = (dim->dim_param = dup(t->dim_param[d])) != NULL;
            }
        }
    }
    if (!ok) {
        onnx__value_info_proto__free_unpacked(vi, NULL);
        OOM(err);
        return NULL;
    }
    return vi;
}

static Onnx__GraphProto *export_graph(const ir_graph *g, tosac_error *err);

static tosac_code export_attr(const ir_attr *a, Onnx__AttributeProto *ap, tosac_error *err)
{
    ap->name = dup(a->name);
    ap->has_type = 1;
    ap->type = (int32_t)a->kind;
    if (!ap->name)
        return OOM(err);
    size_t n = a->n > 0 ? (size_t)a->n : 0;
    switch (a->kind) {
    case IR_ATTR_FLOAT: ap->has_f = 1; ap->f = a->f; break;
    case IR_ATTR_INT: ap->has_i = 1; ap->i = a->i; break;
    case IR_ATTR_STRING:
        ap->has_s = 1;
        ap->s.len = strlen(a->s ? a->s : "");
        ap->s.data = (uint8_t *)dup(a->s);
        if (!ap->s.data)
            return OOM(err);
        break;
    case IR_ATTR_TENSOR:
        ap->t = onnx_tensor_to_proto("", a->t.dtype, a->t.rank, a->t.shape, a->t.data,
                                     a->t.nbytes, err);
        if (!ap->t)
            return err->code;
        break;
    case IR_ATTR_GRAPH:
        if (!(ap->g = export_graph(a->g, err)))
            return err->code;
        break;
    case IR_ATTR_FLOATS:
        if (!(ap->floats = malloc(n * sizeof(float) + 1)))
            return OOM(err);
        if (n)
            memcpy(ap->floats, a->floats, n * sizeof(float));
        ap->n_floats = n;
        break;
    case IR_ATTR_INTS:
        if (!(ap->ints = malloc(n * sizeof(int64_t) + 1)))
            return OOM(err);
        if (n)
            memcpy(ap->ints, a->ints, n * sizeof(int64_t));
        ap->n_ints = n;
        break;
    case IR_ATTR_STRINGS:
        if (!(ap->strings = calloc(n + 1, sizeof *ap->strings)))
            return OOM(err);
        for (size_t i = 0; i < n; i++, ap->n_strings++) {
            ap->strings[i].len = strlen(a->strings[i]);
            if (!(ap->strings[i].data = (uint8_t *)dup(a->strings[i])))
                return OOM(err);
        }
        break;
    case IR_ATTR_TENSORS:
        if (!(ap->tensors = calloc(n + 1, sizeof *ap->tensors)))
            return OOM(err);
        for (size_t i = 0; i < n; i++, ap->n_tensors++) {
            const tosac_tensor *t = &a->tensors[i];
            if (!(ap->tensors[i] = onnx_tensor_to_proto("", t->dtype, t->rank, t->shape, t->data,
                                                        t->nbytes, err)))
                return err->code;
        }
        break;
    case IR_ATTR_GRAPHS:
        if (!(ap->graphs = calloc(n + 1, sizeof *ap->graphs)))
            return OOM(err);
        for (size_t i = 0; i < n; i++, ap->n_graphs++)
            if (!(ap->graphs[i] = export_graph(a->graphs[i], err)))
                return err->code;
        break;
    default:
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "attribute '%s' has invalid kind %d", a->name,
                          (int)a->kind);
    }
    return TOSAC_OK;
}

static tosac_code export_node(const ir_graph *g, const ir_node *n, Onnx__NodeProto *np,
                              tosac_error *err)
{
    np->op_type = dup(n->op_type);
    np->name = n->name && n->name[0] ? dup(n->name) : NULL;
    np->domain = n->domain[0] ? dup(n->domain) : NULL;
    np->input = calloc((size_t)n->n_inputs + 1, sizeof(char *));
    np->output = calloc((size_t)n->n_outputs + 1, sizeof(char *));
    np->attribute = calloc((size_t)n->n_attrs + 1, sizeof *np->attribute);
    if (!np->op_type || !np->input || !np->output || !np->attribute ||
        (n->name && n->name[0] && !np->name) || (n->domain[0] && !np->domain))
        return OOM(err);
    for (int k = 0; k < n->n_inputs; k++, np->n_input++)
        if (!(np->input[k] = dup(n->inputs[k] >= 0 ? export_name(g, n->inputs[k]) : "")))
            return OOM(err);
    for (int k = 0; k < n->n_outputs; k++, np->n_output++)
        if (!(np->output[k] = dup(n->outputs[k] >= 0 ? g->tensors[n->outputs[k]].name : "")))
            return OOM(err);
    for (int a = 0; a < n->n_attrs; a++) {
        Onnx__AttributeProto *ap = malloc(sizeof *ap);
        if (!ap)
            return OOM(err);
        onnx__attribute_proto__init(ap);
        np->attribute[np->n_attribute++] = ap;
        if (export_attr(&n->attrs[a], ap, err))
            return err->code;
    }
    return TOSAC_OK;
}

static tosac_code fill_graph(const ir_graph *g, Onnx__GraphProto *gp, tosac_error *err)
{
    int nt = g->n_tensors;
    if (!(gp->name = dup(g->name)))
        return OOM(err);
    gp->input = calloc((size_t)g->n_inputs + 1, sizeof *gp->input);
    gp->output = calloc((size_t)g->n_outputs + 1, sizeof *gp->output);
    gp->initializer = calloc((size_t)nt + 1, sizeof *gp->initializer);
    gp->value_info = calloc((size_t)nt + 1, sizeof *gp->value_info);
    gp->node = calloc((size_t)g->n_nodes + 1, sizeof *gp->node);
    if (!gp->input || !gp->output || !gp->initializer || !gp->value_info || !gp->node)
        return OOM(err);
    for (int i = 0; i < g->n_inputs; i++, gp->n_input++)
        if (!(gp->input[i] = value_info(g, g->inputs[i], err)))
            return err->code;
    for (int i = 0; i < g->n_outputs; i++, gp->n_output++)
        if (!(gp->output[i] = value_info(g, g->outputs[i], err)))
            return err->code;
    for (int t = 0; t < nt; t++) {
        const ir_tensor *x = &g->tensors[t];
        if (x->data) {
            Onnx__TensorProto *tp =
                onnx_tensor_to_proto(x->name, x->dtype, x->rank, x->shape, x->data, x->nbytes, err);
            if (!tp)
                return err->code;
            gp->initializer[gp->n_initializer++] = tp;
        } else if (x->outer_id < 0 && !ir_graph_is_input(g, t) && !ir_graph_is_output(g, t) &&
                   x->dtype != TOSAC_DT_UNKNOWN) {
            Onnx__ValueInfoProto *vi = value_info(g, t, err);
            if (!vi)
                return err->code;
            gp->value_info[gp->n_value_info++] = vi;
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        Onnx__NodeProto *np = malloc(sizeof *np);
        if (!np)
            return OOM(err);
        onnx__node_proto__init(np);
        gp->node[gp->n_node++] = np;
        if (export_node(g, &g->nodes[i], np, err))
            return err->code;
    }
    return TOSAC_OK;
}

static Onnx__GraphProto *export_graph(const ir_graph *g, tosac_error *err)
{
    Onnx__GraphProto *gp = malloc(sizeof *gp);
    if (!gp) {
        OOM(err);
        return NULL;
    }
    onnx__graph_proto__init(gp);
    if (fill_graph(g, gp, err)) {
        onnx__graph_proto__free_unpacked(gp, NULL);
        return NULL;
    }
    return gp;
}

static tosac_code fill_model(const ir_model *m, Onnx__ModelProto *mp, tosac_error *err)
{
    mp->has_ir_version = 1;
    mp->ir_version = m->ir_version;
    if (m->producer_name && !(mp->producer_name = dup(m->producer_name)))
        return OOM(err);
    if (m->producer_version && !(mp->producer_version = dup(m->producer_version)))
        return OOM(err);
    mp->opset_import = calloc((size_t)m->n_opsets + 1, sizeof *mp->opset_import);
    if (!mp->opset_import)
        return OOM(err);
    for (int i = 0; i < m->n_opsets; i++) {
        Onnx__OperatorSetIdProto *op = malloc(sizeof *op);
        if (!op)
            return OOM(err);
        onnx__operator_set_id_proto__init(op);
        mp->opset_import[mp->n_opset_import++] = op;
        op->has_version = 1;
        op->version = m->opsets[i].version;
        if (!(op->domain = dup(m->opsets[i].domain)))
            return OOM(err);
    }
    mp->graph = export_graph(m->graph, err);
    return mp->graph ? TOSAC_OK : err->code;
}

tosac_code onnx_export_bytes(const ir_model *m, void **buf, size_t *len, tosac_error *err)
{
    tosac_error local;
    tosac_error_clear(&local);
    if (!err)
        err = &local; /* the builders read err->code */
    *buf = NULL;
    *len = 0;
    if (ir_model_verify(m, err))
        return err->code;
    Onnx__ModelProto *mp = malloc(sizeof *mp);
    if (!mp)
        return OOM(err);
    onnx__model_proto__init(mp);
    tosac_code rc = fill_model(m, mp, err);
    if (!rc) {
        size_t size = onnx__model_proto__get_packed_size(mp);
        if (size > (size_t)INT32_MAX)
            rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                            "the ONNX model would be %zu bytes; more than 2 GB is not supported",
                            size);
        else if (!(*buf = malloc(size ? size : 1)))
            rc = OOM(err);
        else
            *len = onnx__model_proto__pack(mp, *buf);
    }
    onnx__model_proto__free_unpacked(mp, NULL);
    return rc;
}

tosac_code onnx_export_file(const ir_model *m, const char *path, tosac_error *err)
{
    void *buf;
    size_t len;
    tosac_code rc = onnx_export_bytes(m, &buf, &len, err);
    if (rc)
        return rc;
    rc = tosac_write_file(path, buf, len, err);
    free(buf);
    return rc;
}
