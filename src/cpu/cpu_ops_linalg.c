/* Linear algebra operators beyond Gemm/MatMul: Det. */
#include "cpu/cpu_internal.h"

#include <stdlib.h>

#include "kernels/linalg.h"

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
    double *scratch = malloc((size_t)(m > 0 ? m * m : 1) * sizeof(double));
    if (!scratch)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    kern_det(x->dtype, batch, m, x->data, y->data, scratch);
    free(scratch);
    return TOSAC_OK;
}

const cpu_op_entry cpu_ops_linalg[] = {
    {"Det", op_det, CPU_F16_VIA_F32},
    {NULL, NULL, 0},
};
