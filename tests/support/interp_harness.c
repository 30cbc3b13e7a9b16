#include "interp_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "interp/interp_registry.h"

tosac_code th_run_op(tosa_op op, const tosa_attr *attr, tosac_tensor **in, int n_in,
                     tosac_tensor **out, int n_out, tosac_error *err)
{
    interp_op_fn fn = interp_find_op(op);
    if (!fn)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s not implemented", tosa_op_name(op));
    tosa_tensor tensors[64];
    char names[64][16];
    int idx_in[32], idx_out[32];
    memset(tensors, 0, sizeof tensors);
    for (int i = 0; i < n_in; i++) {
        snprintf(names[i], sizeof names[i], "in%d", i);
        tensors[i].name = names[i];
        tensors[i].dtype = in[i]->dtype;
        idx_in[i] = i;
    }
    for (int i = 0; i < n_out; i++) {
        snprintf(names[n_in + i], sizeof names[0], "out%d", i);
        tensors[n_in + i].name = names[n_in + i];
        tensors[n_in + i].dtype = out[i]->dtype;
        idx_out[i] = n_in + i;
    }
    tosa_block block;
    memset(&block, 0, sizeof block);
    block.name = (char *)"main";
    block.tensors = tensors;
    block.n_tensors = n_in + n_out;
    tosa_operator o;
    memset(&o, 0, sizeof o);
    o.op = op;
    if (attr)
        o.attr = *attr;
    o.inputs = idx_in;
    o.n_inputs = n_in;
    o.outputs = idx_out;
    o.n_outputs = n_out;
    block.ops = &o;
    block.n_ops = 1;
    interp_ctx c;
    memset(&c, 0, sizeof c);
    c.block = &block;
    c.op = &o;
    c.in = in;
    c.n_in = n_in;
    c.out = out;
    c.n_out = n_out;
    c.err = err;
    return fn(&c);
}

void th_tensor_zero(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape)
{
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_tensor_alloc(t, dt, rank, shape, &err) != TOSAC_OK) {
        fprintf(stderr, "th_tensor_zero: %s\n", err.msg);
        abort();
    }
}

void th_tensor_int(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                   const int64_t *values)
{
    th_tensor_zero(t, dt, rank, shape);
    int64_t n = tosac_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        interp_set_int(t, i, values[i]);
}

void th_tensor_float(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                     const double *values)
{
    th_tensor_zero(t, dt, rank, shape);
    int64_t n = tosac_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        interp_set_float(t, i, (float)values[i]);
}
