/* Arm Ethos-U55 limits on top of the TOSA tables (spec subset "u55"), after the constraints
 * Vela documents for U55: no batched MATMUL of two activations (U55 only takes constant
 * weights, via CONV2D), no comparisons/logical/bitwise/gather/scatter/argmax/resize/cast, conv
 * and pool strides 1..3, dilated kernels at most 64 wide/high, batch 1, every dimension at most
 * 65536 and rank at most 4 for activations. */
#include <stdarg.h>
#include <stdio.h>

#include "lower/validate.h"

static bool fail(char *reason, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *reason, size_t len, const char *fmt, ...)
{
    if (reason && len) {
        int w = snprintf(reason, len, "U55 restriction: ");
        va_list ap;
        va_start(ap, fmt);
        if (w > 0 && (size_t)w < len)
            vsnprintf(reason + w, len - (size_t)w, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool refused(tosa_op op)
{
    switch (op) {
    case TOSA_OP_MATMUL: case TOSA_OP_ARGMAX: case TOSA_OP_GATHER: case TOSA_OP_SCATTER:
    case TOSA_OP_RESIZE: case TOSA_OP_CAST: case TOSA_OP_SELECT: case TOSA_OP_EQUAL:
    case TOSA_OP_GREATER: case TOSA_OP_GREATER_EQUAL: case TOSA_OP_LOGICAL_AND:
    case TOSA_OP_LOGICAL_OR: case TOSA_OP_LOGICAL_XOR: case TOSA_OP_LOGICAL_NOT:
    case TOSA_OP_LOGICAL_LEFT_SHIFT: case TOSA_OP_LOGICAL_RIGHT_SHIFT:
    case TOSA_OP_BITWISE_AND: case TOSA_OP_BITWISE_OR: case TOSA_OP_BITWISE_XOR:
    case TOSA_OP_BITWISE_NOT: case TOSA_OP_INTDIV: case TOSA_OP_POW: case TOSA_OP_CLZ:
    case TOSA_OP_REDUCE_ALL: case TOSA_OP_REDUCE_ANY: case TOSA_OP_REDUCE_PRODUCT:
    case TOSA_OP_FFT2D: case TOSA_OP_RFFT2D: case TOSA_OP_COND_IF: case TOSA_OP_WHILE_LOOP:
    case TOSA_OP_CONV3D:
        return true;
    default:
        return false;
    }
}

static bool windowed(tosa_op op)
{
    return op == TOSA_OP_CONV2D || op == TOSA_OP_DEPTHWISE_CONV2D ||
           op == TOSA_OP_TRANSPOSE_CONV2D || op == TOSA_OP_AVG_POOL2D || op == TOSA_OP_MAX_POOL2D;
}

bool tosa_u55_op_ok(const tosa_block *b, int op_index, char *reason, size_t len)
{
    const tosa_operator *o = &b->ops[op_index];
    const char *name = tosa_op_name(o->op);
    if (refused(o->op))
        return fail(reason, len, "%s is not supported on Ethos-U55", name);
    if (o->op == TOSA_OP_CONST || o->op == TOSA_OP_CONST_SHAPE)
        return true;
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? o->n_outputs : o->n_inputs;
        const int *ts = pass ? o->outputs : o->inputs;
        for (int i = 0; i < n; i++) {
            const tosa_tensor *t = &b->tensors[ts[i]];
            if (t->data || t->dtype == TOSAC_DT_SHAPE)
                continue; /* constants are not feature maps */
            if (t->rank > 4)
                return fail(reason, len, "%s on a rank-%d tensor (at most 4)", name, t->rank);
            for (int d = 0; d < t->rank; d++)
                if (t->shape[d] > 65536)
                    return fail(reason, len, "%s dimension %lld exceeds 65536", name,
                                (long long)t->shape[d]);
        }
    }
    if (!windowed(o->op))
        return true;
    const tosa_tensor *in = &b->tensors[o->inputs[0]];
    if (in->rank == 4 && in->shape[0] != 1)
        return fail(reason, len, "%s with batch %lld (only 1)", name, (long long)in->shape[0]);
    for (int i = 0; i < o->attr.n_stride && i < 2; i++)
        if (o->attr.stride[i] < 1 || o->attr.stride[i] > 3)
            return fail(reason, len, "%s stride %d outside 1..3", name, o->attr.stride[i]);
    int64_t kh = 0, kw = 0;
    if (o->op == TOSA_OP_AVG_POOL2D || o->op == TOSA_OP_MAX_POOL2D) {
        kh = o->attr.kernel[0];
        kw = o->attr.kernel[1];
    } else if (o->n_inputs > 1) {
        const tosa_tensor *w = &b->tensors[o->inputs[1]];
        bool dw = o->op == TOSA_OP_DEPTHWISE_CONV2D; /* [KH,KW,C,M] vs [OC,KH,KW,IC] */
        kh = w->shape[dw ? 0 : 1];
        kw = w->shape[dw ? 1 : 2];
        if (o->attr.n_dilation == 2) {
            kh = (kh - 1) * o->attr.dilation[0] + 1;
            kw = (kw - 1) * o->attr.dilation[1] + 1;
        }
    }
    if (kh > 64 || kw > 64)
        return fail(reason, len, "%s kernel %lldx%lld larger than 64x64", name, (long long)kh,
                    (long long)kw);
    return true;
}
