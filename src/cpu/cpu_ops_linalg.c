/* Linear algebra operators beyond Gemm/MatMul: Det, Einsum (equation parsing in
 * onnxop_einsum.c, shared with shape inference; the summation in kern_einsum). */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/einsum.h"
#include "kernels/kern.h"
#include "kernels/linalg.h"
#include "onnxop/onnxop_einsum.h"

_Static_assert(KERN_EINSUM_MAX_IN == ONNX_EINSUM_MAX_IN &&
                   KERN_EINSUM_MAX_LABELS == ONNX_EINSUM_MAX_LABELS,
               "the parser's label ids are the kernel's");

static tosac_code op_det(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req_float(c, 0, &x);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank >= 2 && x->shape[x->rank - 1] == x->shape[x->rank - 2],
              "input must be [..., M, M]");
    int64_t m = x->shape[x->rank - 1], batch = tosac_shape_numel(x->rank - 2, x->shape);
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank - 2, x->shape, &y)))
        return rc;
    double *scratch = cpu_temp(c, (size_t)(m > 0 ? m * m : 1) * sizeof(double));
    if (!scratch)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    kern_det(x->dtype, batch, m, x->data, y->data, scratch);
    cpu_release(c, scratch);
    return TOSAC_OK;
}

static tosac_code op_einsum(cpu_ctx *c)
{
    CPU_CHECK(c, c->n_in >= 1 && c->n_in <= KERN_EINSUM_MAX_IN, "1 to %d inputs are supported",
              KERN_EINSUM_MAX_IN);
    tosac_dtype dt = TOSAC_DT_UNKNOWN;
    int ranks[KERN_EINSUM_MAX_IN];
    const int64_t *shapes[KERN_EINSUM_MAX_IN];
    for (int k = 0; k < c->n_in; k++) {
        const tosac_tensor *t;
        tosac_code rc = cpu_req(c, k, &t);
        if (rc)
            return rc;
        CPU_CHECK(c, k == 0 || t->dtype == dt, "inputs have different types");
        dt = t->dtype;
        ranks[k] = t->rank;
        shapes[k] = t->shape;
    }
    CPU_CHECK(c, tosac_dtype_is_float(dt) || dt == TOSAC_DT_I32 || dt == TOSAC_DT_I64 ||
                     dt == TOSAC_DT_U32 || dt == TOSAC_DT_U64,
              "inputs of type %s are not supported", tosac_dtype_name(dt));
    onnx_einsum e;
    if (onnx_einsum_of(c->node, c->n_in, ranks, shapes, &e, c->err))
        return c->err->code;
    int nt = e.n_in, no = e.n_out;
    const int64_t *size = e.size;
    /* kernel label order: output labels, then the contracted ones */
    kern_einsum_params p;
    memset(&p, 0, sizeof p);
    int pos[KERN_EINSUM_MAX_LABELS], used_out[KERN_EINSUM_MAX_LABELS] = {0};
    for (int i = 0; i < no; i++) {
        pos[e.out[i]] = i;
        used_out[e.out[i]] = 1;
    }
    p.n_labels = no;
    for (int l = 0; l < KERN_EINSUM_MAX_LABELS; l++)
        if (e.count[l] && !used_out[l])
            pos[l] = p.n_labels++;
    double work = 1;
    for (int l = 0; l < KERN_EINSUM_MAX_LABELS; l++)
        if (e.count[l]) {
            p.size[pos[l]] = size[l];
            work *= (double)size[l];
        }
    /* the direct sum visits every label combination once */
    if (work > 1e12)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "the equation needs %.3g products, beyond 1e12",
                        work);
    p.n_in = nt;
    p.n_out_labels = no;
    const void *ins[KERN_EINSUM_MAX_IN];
    for (int k = 0; k < nt; k++) {
        int64_t st[TOSAC_MAX_RANK];
        kern_strides(c->in[k]->rank, c->in[k]->shape, st);
        for (int a = 0; a < c->in[k]->rank; a++) {
            int l = e.labels[k][a];
            if (!(c->in[k]->shape[a] == 1 && size[l] > 1))
                p.in_stride[k][pos[l]] += st[a];
        }
        ins[k] = c->in[k]->data;
    }
    tosac_tensor *y;
    tosac_code rc = cpu_out(c, 0, dt, no, e.y, &y);
    if (!rc)
        kern_einsum(&p, dt, ins, y->data);
    return rc;
}

const cpu_op_entry cpu_ops_linalg[] = {
    {"Einsum", op_einsum, CPU_F16_VIA_F32, NULL},
    {"Det", op_det, CPU_F16_VIA_F32, NULL},
    {NULL, NULL, 0, NULL},
};
