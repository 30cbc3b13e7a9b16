/* numpy matmul shape rules, as ONNX's MatMul gives them. */
#include "onnxop/onnxop_matmul.h"

#include <string.h>

tosac_code onnx_matmul_dims_of(const ir_node *n, int ar, const int64_t *as_in, int br,
                               const int64_t *bs_in, onnx_matmul_dims *d, tosac_error *err)
{
    memset(d, 0, sizeof *d);
    if (ar < 1 || br < 1)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "operands must have rank >= 1");
    int64_t as[TOSAC_MAX_RANK + 1], bs[TOSAC_MAX_RANK + 1];
    memcpy(as, as_in, sizeof(int64_t) * (size_t)ar);
    memcpy(bs, bs_in, sizeof(int64_t) * (size_t)br);
    int a1 = ar == 1, b1 = br == 1;
    if (a1) { /* [k] -> [1, k] */
        as[1] = as[0];
        as[0] = 1;
        ar = 2;
    }
    if (b1) { /* [k] -> [k, 1] */
        bs[1] = 1;
        br = 2;
    }
    d->m = as[ar - 2];
    d->k = as[ar - 1];
    d->n = bs[br - 1];
    if (bs[br - 2] != d->k)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "inner dimensions differ (%lld and %lld)",
                           (long long)d->k, (long long)bs[br - 2]);
    int r = (ar > br ? ar : br) - 2;
    if (r + 2 > TOSAC_MAX_RANK)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "rank too large");
    d->nb = r;
    for (int i = 0; i < r; i++) {
        int pa = i - (r - (ar - 2)), pb = i - (r - (br - 2));
        int64_t da = pa >= 0 ? as[pa] : 1, db = pb >= 0 ? bs[pb] : 1;
        if (da != db && da != 1 && db != 1)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "batch dims %lld and %lld do not "
                               "broadcast", (long long)da, (long long)db);
        d->a_batch[i] = da;
        d->b_batch[i] = db;
        d->batch[i] = da == 1 ? db : da;
        d->y[d->yrank++] = d->batch[i];
    }
    if (!a1)
        d->y[d->yrank++] = d->m;
    if (!b1)
        d->y[d->yrank++] = d->n;
    return TOSAC_OK;
}
