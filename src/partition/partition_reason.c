/* Why a node stays on the CPU, sorted into the report's categories (see partition.h). The
 * detail comes from the trial lowering (the rule's refusal or the first illegal operator);
 * the category is read from it and from the node itself. */
#include <stdio.h>
#include <string.h>

#include "partition/partition.h"

const char *const PARTITION_NOT_IN_SPEC = "operator not in the spec";
const char *const PARTITION_TYPE = "type not legal";
const char *const PARTITION_U55 = "U55 restriction";
const char *const PARTITION_INT64 = "int64 not kept";
const char *const PARTITION_BOUNDARY = "boundary rule";
const char *const PARTITION_RULE = "case not handled by the lowering";
const char *const PARTITION_CONSTANT = "constant";

static bool has(const char *s, const char *needle)
{
    return strstr(s, needle) != NULL;
}

/* A type refusal about int64 (an i64 operand the spec has no form for), not one where a
 * float operand is what the spec lacks. */
static bool about_int64(const char *why)
{
    return has(why, "=i64") && !has(why, "PRO-FP");
}

static bool type_refusal(const char *why)
{
    return has(why, " needs ") || has(why, ": no form for ") || has(why, " is both ");
}

/* A Q or DQ whose float side is what the spec lacks: the quantized side is a delegate
 * boundary, and INT-only delegates read and write integers, so the conversion runs on the
 * CPU. */
static bool boundary_qdq(const ir_node *n, const char *why)
{
    return (ir_node_is(n, "QuantizeLinear") || ir_node_is(n, "DequantizeLinear")) &&
           has(why, "PRO-FP");
}

const char *partition_categorise(const ir_node *n, char *why, size_t len)
{
    char detail[512];
    snprintf(detail, sizeof detail, "%s", why);
    if (ir_node_is(n, "Constant"))
        return PARTITION_CONSTANT;
    if (strncmp(detail, "U55 restriction", 15) == 0)
        return PARTITION_U55;
    if (has(detail, "no TOSA lowering for ") || has(detail, " is not an operator of TOSA"))
        return PARTITION_NOT_IN_SPEC;
    if (boundary_qdq(n, detail)) {
        snprintf(why, len, "delegates without PRO-FP keep their boundaries integer, so this %s "
                 "runs on the CPU (%s)", n->op_type, detail);
        return PARTITION_BOUNDARY;
    }
    if (type_refusal(detail))
        return about_int64(detail) ? PARTITION_INT64 : PARTITION_TYPE;
    return PARTITION_RULE;
}
