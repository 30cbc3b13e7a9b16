/* Operator group: comparison — EQUAL, GREATER, GREATER_EQUAL (broadcasting, bool result;
 * any NaN operand compares false). */
#include "interp/interp_ewise.h"

#define CMP_TYPES (EW_T(TOSAC_DT_I32) | EW_T(TOSAC_DT_I64) | EW_FLOATS)

enum { CMP_EQ, CMP_GT, CMP_GE };

EW_PURE_INT2(eq_i, a == b)
EW_PURE_INT2(gt_i, a > b)
EW_PURE_INT2(ge_i, a >= b)
/* IEEE comparisons are already false when either operand is NaN */
static double eq_f(double a, double b, const ew_args *k) { return a == b; }
static double gt_f(double a, double b, const ew_args *k) { return a > b; }
static double ge_f(double a, double b, const ew_args *k) { return a >= b; }

static tosac_code compare(interp_ctx *c, int what)
{
    static const ew_int2_fn ifn[] = {eq_i, gt_i, ge_i};
    static const ew_f2_fn ffn[] = {eq_f, gt_f, ge_f};
    ew_args k;
    tosac_code rc = ew_prologue2(c, 2, CMP_TYPES, TOSAC_DT_BOOL, &k);
    if (rc != TOSAC_OK)
        return rc;
    return ew_is_float(k.dt) ? ew_map2_float(c, ffn[what], &k) : ew_map2_int(c, ifn[what], &k);
}

tosac_code interp_op_equal(interp_ctx *c) { return compare(c, CMP_EQ); }
tosac_code interp_op_greater(interp_ctx *c) { return compare(c, CMP_GT); }
tosac_code interp_op_greater_equal(interp_ctx *c) { return compare(c, CMP_GE); }

const interp_op_entry interp_ops_comparison[] = {
    {TOSA_OP_EQUAL, interp_op_equal},
    {TOSA_OP_GREATER, interp_op_greater},
    {TOSA_OP_GREATER_EQUAL, interp_op_greater_equal},
    {TOSA_OP_UNKNOWN, NULL},
};
