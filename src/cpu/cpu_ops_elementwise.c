/* Broadcasting elementwise operators: arithmetic, logic, comparisons, variadic Sum/Mean/
 * Max/Min, PRelu and Where. */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/binary.h"
#include "kernels/layout.h"

static tosac_code bcast_of(cpu_ctx *c, kern_bcast *b, int n, const tosac_tensor *const *ts)
{
    int ranks[KERN_BCAST_MAX_IN];
    const int64_t *shapes[KERN_BCAST_MAX_IN];
    for (int i = 0; i < n; i++) {
        ranks[i] = ts[i]->rank;
        shapes[i] = ts[i]->shape;
    }
    if (kern_bcast_init(b, n, ranks, shapes)) {
        char s0[128], s1[128];
        return cpu_fail(c, TOSAC_ERR_INPUT, "shapes %s and %s do not broadcast",
                        tosac_shape_str(ts[0]->rank, ts[0]->shape, s0, sizeof s0),
                        tosac_shape_str(ts[n - 1]->rank, ts[n - 1]->shape, s1, sizeof s1));
    }
    return TOSAC_OK;
}

/* y = a op b: output 0 when y is NULL, else the temporary *y (allocated here). */
static tosac_code binary_into(cpu_ctx *c, kern_binop op, const tosac_tensor *a,
                              const tosac_tensor *b, tosac_tensor *y)
{
    tosac_tensor *o = y;
    if (a->dtype != b->dtype)
        return cpu_fail(c, TOSAC_ERR_INPUT, "operand types differ (%s and %s)",
                        tosac_dtype_name(a->dtype), tosac_dtype_name(b->dtype));
    kern_bcast bc;
    const tosac_tensor *ts[2] = {a, b};
    tosac_code rc = bcast_of(c, &bc, 2, ts);
    if (rc)
        return rc;
    tosac_dtype odt = kern_binop_is_compare(op) ? TOSAC_DT_BOOL : a->dtype;
    /* kern_binary writes all */
    rc = y ? cpu_tensor_temp(c, y, odt, bc.rank, bc.shape, 0)
           : cpu_out_uninit(c, 0, odt, bc.rank, bc.shape, &o);
    if (rc)
        return rc;
    int r = kern_binary(op, a->dtype, &bc, a->data, b->data, o->data);
    if (r == -1)
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "integer division by zero");
    else if (r)
        rc = cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "operands of type %s are not supported",
                      tosac_dtype_name(a->dtype));
    if (rc && y)
        cpu_tensor_drop(c, y);
    return rc;
}

static tosac_code binary(cpu_ctx *c, kern_binop op)
{
    const tosac_tensor *a, *b;
    tosac_code rc = cpu_req(c, 0, &a);
    if (!rc)
        rc = cpu_req(c, 1, &b);
    if (rc)
        return rc;
    if (c->n_out < 1)
        return cpu_fail(c, TOSAC_ERR_INPUT, "needs an output");
    return binary_into(c, op, a, b, NULL);
}

#define BIN(NAME, OP)                                                                          \
    static tosac_code NAME(cpu_ctx *c) { return binary(c, OP); }

BIN(op_add, KERN_ADD)
BIN(op_sub, KERN_SUB)
BIN(op_mul, KERN_MUL)
BIN(op_div, KERN_DIV)
BIN(op_and, KERN_AND)
BIN(op_or, KERN_OR)
BIN(op_xor, KERN_XOR)
BIN(op_bitand, KERN_BITAND)
BIN(op_bitor, KERN_BITOR)
BIN(op_bitxor, KERN_BITXOR)
BIN(op_equal, KERN_EQ)
BIN(op_less, KERN_LT)
BIN(op_less_eq, KERN_LE)
BIN(op_greater, KERN_GT)
BIN(op_greater_eq, KERN_GE)
BIN(op_prelu, KERN_PRELU)

/* The binary operators whose attribute picks the kernel (Mod's fmod, BitShift's direction):
 * the choice made once (prepare step). */
typedef struct binary_prep {
    kern_binop op;
} binary_prep;

static tosac_code mod_prepare(cpu_ctx *c, void *st)
{
    ((binary_prep *)st)->op = cpu_attr_i(c, "fmod", 0) ? KERN_FMOD : KERN_MOD;
    return TOSAC_OK;
}

static tosac_code bitshift_prepare(cpu_ctx *c, void *st)
{
    const char *dir = cpu_attr_s(c, "direction", "");
    if (strcmp(dir, "LEFT") != 0 && strcmp(dir, "RIGHT") != 0)
        return cpu_fail(c, TOSAC_ERR_INPUT, "direction must be LEFT or RIGHT, got '%s'", dir);
    ((binary_prep *)st)->op = dir[0] == 'L' ? KERN_SHL : KERN_SHR;
    return TOSAC_OK;
}

static const cpu_op_prep mod_prep = {mod_prepare, sizeof(binary_prep), NULL};
static const cpu_op_prep bitshift_prep = {bitshift_prepare, sizeof(binary_prep), NULL};

static tosac_code op_mod(cpu_ctx *c) { return binary(c, ((const binary_prep *)c->prep)->op); }

static tosac_code op_bitshift(cpu_ctx *c)
{
    return binary(c, ((const binary_prep *)c->prep)->op);
}

static tosac_code op_pow(cpu_ctx *c)
{
    const tosac_tensor *a, *e;
    tosac_code rc = cpu_req(c, 0, &a);
    if (!rc)
        rc = cpu_req(c, 1, &e);
    if (rc)
        return rc;
    if (a->dtype == e->dtype && a->dtype != TOSAC_DT_F32)
        return binary(c, KERN_POW);
    kern_bcast bc;
    const tosac_tensor *ts[2] = {a, e};
    if ((rc = bcast_of(c, &bc, 2, ts)))
        return rc;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, a->dtype, bc.rank, bc.shape, &y)))
        return rc;
    kern_pow_mixed(a->dtype, e->dtype, &bc, a->data, e->data, y->data);
    return TOSAC_OK;
}

/* Sum, Mean, Max, Min over any number of broadcasting inputs, folded left to right. */
static tosac_code variadic(cpu_ctx *c, kern_binop op, int mean)
{
    const tosac_tensor *first;
    tosac_code rc = cpu_req(c, 0, &first);
    if (rc)
        return rc;
    tosac_tensor acc;
    memset(&acc, 0, sizeof acc);
    const tosac_tensor *cur = first;
    for (int i = 1; i < c->n_in && !rc; i++) {
        const tosac_tensor *b;
        if ((rc = cpu_req(c, i, &b)))
            break;
        tosac_tensor next;
        rc = binary_into(c, op, cur, b, &next);
        cpu_tensor_drop(c, &acc);
        if (!rc) {
            acc = next;
            cur = &acc;
        }
    }
    if (!rc && mean && c->n_in > 1) {
        tosac_tensor cnt, next;
        rc = cpu_tensor_temp(c, &cnt, cur->dtype, 0, NULL, 1);
        if (!rc) {
            kern_set_f64(cur->dtype, cnt.data, 0, (double)c->n_in);
            rc = binary_into(c, KERN_DIV, cur, &cnt, &next);
            cpu_tensor_drop(c, &cnt);
            cpu_tensor_drop(c, &acc);
            if (!rc) {
                acc = next;
                cur = &acc;
            }
        }
    }
    if (!rc)
        rc = cpu_out_copy(c, 0, cur, cur->rank, cur->shape);
    cpu_tensor_drop(c, &acc);
    return rc;
}

static tosac_code op_sum(cpu_ctx *c) { return variadic(c, KERN_ADD, 0); }
static tosac_code op_mean(cpu_ctx *c) { return variadic(c, KERN_ADD, 1); }
static tosac_code op_max(cpu_ctx *c) { return variadic(c, KERN_MAX, 0); }
static tosac_code op_min(cpu_ctx *c) { return variadic(c, KERN_MIN, 0); }

static tosac_code op_where(cpu_ctx *c)
{
    const tosac_tensor *cond, *a, *b;
    tosac_code rc = cpu_req(c, 0, &cond);
    if (!rc)
        rc = cpu_req(c, 1, &a);
    if (!rc)
        rc = cpu_req(c, 2, &b);
    if (rc)
        return rc;
    CPU_CHECK(c, cond->dtype == TOSAC_DT_BOOL, "condition must be bool, got %s",
              tosac_dtype_name(cond->dtype));
    CPU_CHECK(c, a->dtype == b->dtype, "X and Y types differ (%s and %s)",
              tosac_dtype_name(a->dtype), tosac_dtype_name(b->dtype));
    kern_bcast bc;
    const tosac_tensor *ts[3] = {cond, a, b};
    if ((rc = bcast_of(c, &bc, 3, ts)))
        return rc;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, a->dtype, bc.rank, bc.shape, &y)))
        return rc;
    kern_where(tosac_dtype_size(a->dtype), &bc, cond->data, a->data, b->data, y->data);
    return TOSAC_OK;
}

const cpu_op_entry cpu_ops_elementwise[] = {
    {"Add", op_add, CPU_F16_VIA_F32, NULL},
    {"Sub", op_sub, CPU_F16_VIA_F32, NULL},
    {"Mul", op_mul, CPU_F16_VIA_F32, NULL},
    {"Div", op_div, CPU_F16_VIA_F32, NULL},
    {"Mod", op_mod, CPU_F16_VIA_F32, &mod_prep},
    {"Pow", op_pow, CPU_F16_VIA_F32, NULL},
    {"And", op_and, 0, NULL},
    {"Or", op_or, 0, NULL},
    {"Xor", op_xor, 0, NULL},
    {"BitwiseAnd", op_bitand, 0, NULL},
    {"BitwiseOr", op_bitor, 0, NULL},
    {"BitwiseXor", op_bitxor, 0, NULL},
    {"BitShift", op_bitshift, 0, &bitshift_prep},
    {"Equal", op_equal, CPU_F16_VIA_F32, NULL},
    {"Less", op_less, CPU_F16_VIA_F32, NULL},
    {"LessOrEqual", op_less_eq, CPU_F16_VIA_F32, NULL},
    {"Greater", op_greater, CPU_F16_VIA_F32, NULL},
    {"GreaterOrEqual", op_greater_eq, CPU_F16_VIA_F32, NULL},
    {"PRelu", op_prelu, CPU_F16_VIA_F32, NULL},
    {"Sum", op_sum, CPU_F16_VIA_F32, NULL},
    {"Mean", op_mean, CPU_F16_VIA_F32, NULL},
    {"Max", op_max, CPU_F16_VIA_F32, NULL},
    {"Min", op_min, CPU_F16_VIA_F32, NULL},
    {"Where", op_where, 0, NULL},
    {NULL, NULL, 0, NULL},
};
