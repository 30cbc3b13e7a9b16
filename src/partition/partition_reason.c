/* Why a node stays on the CPU: the trial lowering's detail (the rule's refusal, or the first
 * illegal TOSA operator as tosa_validate_op words it) sorted into the report's categories
 * (partition.h) and rephrased for the ONNX node, with the fix where there is one:
 *   "CONST: out_t=i48 needs EXT-INT16"  ->  "Conv: int16 activations need +int16
 *   (TOSA-1.0+INT+int16)". */
#include <stdio.h>
#include <string.h>

#include "lower/lower.h"
#include "partition/partition.h"

const char *const PARTITION_NOT_IN_SPEC = "operator not in the spec";
const char *const PARTITION_EXTENSION = "needs a profile or extension";
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

/* ---- operators without a rule ---- */

/* ONNX operators TOSA has no operator (or composition of a fixed shape) for. */
static const struct {
    const char *op, *why;
} not_in_tosa[] = {
    {"Det", "no determinant"},
    {"NonMaxSuppression", "its output shape depends on the values"},
    {"NonZero", "its output shape depends on the values"},
    {"Unique", "its output shape depends on the values"},
    {"Compress", "its output shape depends on the values"},
    {"TopK", "no sort or top-k"},
    {"RoiAlign", "no region-of-interest pooling"},
    {"MaxRoiPool", "no region-of-interest pooling"},
    {"TfIdfVectorizer", "no n-gram counting"},
    {"RandomNormal", "no random numbers"},
    {"RandomUniform", "no random numbers"},
    {"RandomNormalLike", "no random numbers"},
    {"RandomUniformLike", "no random numbers"},
    {"Bernoulli", "no random numbers"},
    {"Multinomial", "no random numbers"},
    {"StringNormalizer", "no strings"},
    {"StringConcat", "no strings"},
    {"StringSplit", "no strings"},
    {"RegexFullMatch", "no strings"},
    {"SequenceAt", "no sequences"},
    {"SequenceConstruct", "no sequences"},
    {"SequenceEmpty", "no sequences"},
    {"SequenceErase", "no sequences"},
    {"SequenceInsert", "no sequences"},
    {"SequenceLength", "no sequences"},
    {"SequenceMap", "no sequences"},
    {"SplitToSequence", "no sequences"},
    {"ConcatFromSequence", "no sequences"},
    {"Optional", "no optional values"},
    {"OptionalHasElement", "no optional values"},
    {"OptionalGetElement", "no optional values"},
};

/* ONNX operators TOSA has a counterpart for that tosac does not lower yet. */
static const struct {
    const char *op, *tosa;
} not_yet[] = {
    {"ConvInteger", "CONV2D"},
    {"QLinearConv", "CONV2D"},             {"MatMulInteger", "MATMUL"},
    {"QLinearMatMul", "MATMUL"},           {"Einsum", "MATMUL"},
    {"ScatterElements", "SCATTER"},
    {"Scatter", "SCATTER"},                {"GatherND", "GATHER"},
    {"If", "COND_IF"},                     {"Loop", "WHILE_LOOP"},
    {"Scan", "WHILE_LOOP"},                {"DFT", "FFT2D and RFFT2D"},
    {"STFT", "RFFT2D"},
};

static const char *no_rule(const ir_node *n, char *why, size_t len)
{
    bool onnx = !n->domain || !*n->domain || strcmp(n->domain, "ai.onnx") == 0;
    for (size_t i = 0; onnx && i < sizeof not_in_tosa / sizeof not_in_tosa[0]; i++)
        if (strcmp(n->op_type, not_in_tosa[i].op) == 0) {
            snprintf(why, len, "%s: TOSA has no such operator (%s)", n->op_type,
                     not_in_tosa[i].why);
            return PARTITION_NOT_IN_SPEC;
        }
    for (size_t i = 0; onnx && i < sizeof not_yet / sizeof not_yet[0]; i++)
        if (strcmp(n->op_type, not_yet[i].op) == 0) {
            snprintf(why, len, "%s: tosac has no lowering for it yet (TOSA has %s)", n->op_type,
                     not_yet[i].tosa);
            return PARTITION_RULE;
        }
    snprintf(why, len, "%s%s%s: tosac has no lowering for this operator yet",
             onnx ? "" : n->domain, onnx ? "" : ".", n->op_type);
    return PARTITION_RULE;
}

/* ---- type refusals of tosa_validate_op ---- */

/* "OP: <types> needs <features>": the features as TOSA_FEAT_* bits (0 if none parse). */
static uint32_t needed_features(const char *detail)
{
    const char *p = strstr(detail, " needs ");
    uint32_t f = 0;
    if (!p)
        return 0;
    for (p += 7; *p;) {
        size_t k = strcspn(p, " &");
        if (k == 7 && strncmp(p, "PRO-INT", 7) == 0)
            f |= TOSA_FEAT_INT;
        else if (k == 6 && strncmp(p, "PRO-FP", 6) == 0)
            f |= TOSA_FEAT_FP;
        for (int e = 0; e < TOSA_EXT_COUNT; e++)
            if (strlen(tosa_ext_xml_name((tosa_ext)e)) == k &&
                strncmp(p, tosa_ext_xml_name((tosa_ext)e), k) == 0)
                f |= TOSA_FEAT_EXT(e);
        p += k;
        p += strspn(p, " &");
    }
    return f;
}

/* What the features are for, as the ONNX user knows it; types (the detail) tells which
 * float the FP profile is wanted for. */
static const char *feature_noun(uint32_t bit, const char *types)
{
    if (bit == TOSA_FEAT_INT)
        return "integer operands";
    if (bit == TOSA_FEAT_FP)
        return has(types, "=f16") ? "float16 operands"
               : has(types, "=f32") ? "float32 operands" : "float operands";
    static const struct {
        tosa_ext e;
        const char *noun;
    } nouns[] = {
        {TOSA_EXT_INT16, "int16 activations"}, {TOSA_EXT_INT4, "int4 weights"},
        {TOSA_EXT_INT64, "int64 values"},      {TOSA_EXT_BF16, "bfloat16 operands"},
        {TOSA_EXT_FP8E4M3, "fp8e4m3 operands"}, {TOSA_EXT_FP8E5M2, "fp8e5m2 operands"},
        {TOSA_EXT_FFT, "FFT operators"},       {TOSA_EXT_VARIABLE, "variables"},
        {TOSA_EXT_CONTROLFLOW, "control flow"}, {TOSA_EXT_DYNAMIC, "runtime shapes"},
        {TOSA_EXT_DOUBLEROUND, "double rounding"}, {TOSA_EXT_INEXACTROUND, "inexact rounding"},
        {TOSA_EXT_SHAPE, "shape operators"},
    };
    for (size_t i = 0; i < sizeof nouns / sizeof nouns[0]; i++)
        if (bit == TOSA_FEAT_EXT(nouns[i].e))
            return nouns[i].noun;
    return "microscaling formats";
}

/* "<Op>: <nouns> need +<tokens> (<the spec with them>)". */
static void explain_missing(const tosa_spec *spec, const ir_node *n, uint32_t missing,
                            const char *detail, char *why, size_t len)
{
    char nouns[160] = "", fix[96] = "";
    size_t nu = 0, fu = 0;
    tosa_spec fixed = *spec;
    for (int b = 0; b < 2 + TOSA_EXT_COUNT; b++) {
        uint32_t bit = 1u << b;
        if (!(missing & bit))
            continue;
        const char *noun = feature_noun(bit, detail);
        if (!has(nouns, noun) && nu < sizeof nouns)
            nu += (size_t)snprintf(nouns + nu, sizeof nouns - nu, "%s%s", nu ? " and " : "",
                                   noun);
        const char *tok = bit == TOSA_FEAT_INT ? "INT"
                          : bit == TOSA_FEAT_FP ? "FP" : tosa_ext_token((tosa_ext)(b - 2));
        if (fu < sizeof fix)
            fu += (size_t)snprintf(fix + fu, sizeof fix - fu, "+%s", tok);
        if (b < 2)
            fixed.profiles |= bit;
        else
            fixed.extensions |= 1u << (b - 2);
    }
    char have[96], want[96];
    tosa_spec_to_string(spec, have, sizeof have);
    tosa_spec_to_string(&fixed, want, sizeof want);
    tosa_spec check;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosa_spec_parse(want, &check, &err) == TOSAC_OK)
        snprintf(why, len, "%s: %s need %s (%s)", n->op_type, nouns, fix, want);
    else
        snprintf(why, len, "%s: %s need %s, which %s cannot have", n->op_type, nouns, fix, have);
}

static const char *unsigned_type(const char *detail)
{
    static const char *const u[] = {"u8", "u16", "u32", "u64"};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        char pat[8];
        snprintf(pat, sizeof pat, "=%s", u[i]);
        const char *p = strstr(detail, pat);
        if (p && (p[strlen(pat)] == '\0' || p[strlen(pat)] == ' '))
            return u[i];
    }
    return NULL;
}

/* A type refusal about int64 (an i64 operand the spec has no form for), not one where a
 * float operand is what the spec lacks, under a spec that does not keep int64 (with
 * EXT-INT64 only this operator lacks an i64 form: a type refusal like any other). */
static bool about_int64(const tosa_spec *spec, const char *why)
{
    return has(why, "=i64") && !has(why, "PRO-FP") && !tosa_spec_keeps_int64(spec);
}

/* spec with EXT-INT64 (which came with TOSA 1.1): the spec that keeps int64. */
static tosa_spec with_int64(const tosa_spec *spec)
{
    tosa_spec k = *spec;
    k.major = 1;
    k.minor = 1;
    k.patch = -1;
    k.extensions |= 1u << TOSA_EXT_INT64;
    return k;
}

void partition_no_int64(const tosa_spec *spec, char *buf, size_t len)
{
    tosa_spec keep = with_int64(spec);
    char have[96], want[96];
    tosa_spec_to_string(spec, have, sizeof have);
    tosa_spec_to_string(&keep, want, sizeof want);
    snprintf(buf, len, "%s has no int64 (EXT-INT64: %s keeps it)", have, want);
}

/* Whether the operator form a validator detail names ("OP: a=t b=t needs ..." or "OP: no form
 * for a=t b=t") is legal under spec. */
static bool form_legal(const tosa_spec *spec, const char *detail)
{
    char op[48];
    size_t k = strcspn(detail, ":");
    const tosa_spec_op *o = NULL;
    if (k < sizeof op) {
        snprintf(op, sizeof op, "%.*s", (int)k, detail);
        o = tosa_spec_find_op_by_name(spec, op);
    }
    if (!o || o->n_types > TOSA_SPEC_MAX_TYPES)
        return false;
    tosac_dtype types[TOSA_SPEC_MAX_TYPES] = {TOSAC_DT_UNKNOWN};
    const char *p = detail + k + 1, *end = strstr(p, " needs ");
    if (strncmp(p, " no form for ", 13) == 0)
        p += 13;
    for (end = end ? end : p + strlen(p); p < end;) {
        size_t w = strcspn(p, " ");
        const char *eq = memchr(p, '=', w);
        char name[32], ty[16];
        if (eq && (size_t)(eq - p) < sizeof name && (size_t)(p + w - eq) <= sizeof ty) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
            snprintf(ty, sizeof ty, "%.*s", (int)(p + w - eq - 1), eq + 1);
            int i = tosa_spec_op_type_index(o, name);
            if (i >= 0)
                types[i] = tosac_dtype_from_name(ty);
        }
        p += w;
        p += strspn(p, " ");
    }
    return tosa_op_legal_named(spec, op, types, o->n_types, 0);
}

/* The int64 policy's reason (docs/USAGE.md): without EXT-INT64 only values provably within
 * int32 are narrowed; the rest stay int64 on the CPU. The fix is a spec with +int64 where
 * that has the form the lowering needed. */
static const char *int64_refusal(const tosa_spec *spec, const ir_node *n, const char *detail,
                                 char *why, size_t len)
{
    tosa_spec keep = with_int64(spec);
    char fix[600];
    if (form_legal(&keep, detail))
        partition_no_int64(spec, fix, sizeof fix);
    else
        snprintf(fix, sizeof fix, "TOSA has no form for them (%s)", detail);
    snprintf(why, len, "%s: its int64 values are not provably within int32, and %s", n->op_type,
             fix);
    return PARTITION_INT64;
}

static const char *type_refusal(const tosa_spec *spec, const ir_node *n, const char *detail,
                                char *why, size_t len)
{
    if (about_int64(spec, detail))
        return int64_refusal(spec, n, detail, why, len);
    const char *u = unsigned_type(detail);
    if (u) {
        snprintf(why, len, "%s: TOSA has no unsigned integer types (%s)", n->op_type, u);
        return PARTITION_TYPE;
    }
    uint32_t missing = needed_features(detail) & ~tosa_spec_features(spec);
    if (has(detail, " needs ") && missing) {
        explain_missing(spec, n, missing, detail, why, len);
        return PARTITION_EXTENSION;
    }
    snprintf(why, len, "%s: TOSA %d.%d has no such form (%s)", n->op_type, spec->major,
             spec->minor, detail);
    return PARTITION_TYPE;
}

/* "X is not an operator of TOSA 1.0": the lowering needs an operator this version lacks. */
static const char *missing_operator(const tosa_spec *spec, const ir_node *n, const char *detail,
                                    char *why, size_t len)
{
    char op[48];
    snprintf(op, sizeof op, "%.*s", (int)strcspn(detail, " "), detail);
    tosa_spec other = *spec;
    other.minor = spec->minor == 0 ? 1 : 0;
    bool elsewhere = tosa_spec_find_op_by_name(&other, op) != NULL;
    snprintf(why, len, "%s: its lowering needs %s, which TOSA %d.%d does not have%s%s%s",
             n->op_type, op, spec->major, spec->minor, elsewhere ? " (TOSA " : "",
             elsewhere ? (other.minor ? "1.1" : "1.0") : "", elsewhere ? " has it)" : "");
    return PARTITION_NOT_IN_SPEC;
}

/* tosa_validate_op's words start with the TOSA operator's name ("CONV2D: ..."); a rule's
 * start with the ONNX node's ("Add needs two inputs ..."). */
static bool validator_detail(const char *detail)
{
    size_t k = strspn(detail, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    return k > 0 && detail[k] == ':';
}

/* A Q or DQ whose float side is what the spec lacks: the quantized side is a delegate
 * boundary, and INT-only delegates read and write integers, so the conversion runs on the
 * CPU. */
static bool boundary_qdq(const ir_node *n, const char *why)
{
    return (ir_node_is(n, "QuantizeLinear") || ir_node_is(n, "DequantizeLinear")) &&
           has(why, "PRO-FP");
}

const char *partition_categorise(const tosa_spec *spec, const ir_node *n, char *why, size_t len)
{
    char detail[512];
    snprintf(detail, sizeof detail, "%s", why);
    if (ir_node_is(n, "Constant"))
        return PARTITION_CONSTANT;
    if (strncmp(detail, "U55 restriction", 15) == 0)
        return PARTITION_U55;
    if (!lower_find_rule(n->domain, n->op_type))
        return no_rule(n, why, len);
    if (has(detail, " is not an operator of TOSA"))
        return missing_operator(spec, n, detail, why, len);
    if (boundary_qdq(n, detail)) {
        snprintf(why, len, "delegates without PRO-FP keep their boundaries integer, so this %s "
                 "runs on the CPU (%s)", n->op_type, detail);
        return PARTITION_BOUNDARY;
    }
    if (validator_detail(detail) &&
        (has(detail, " needs ") || has(detail, ": no form for ") || has(detail, " is both ")))
        return type_refusal(spec, n, detail, why, len);
    if (has(detail, "TOSA has no unsigned integer types"))
        return PARTITION_TYPE;
    /* the rule's own refusal: a case tosac does not lower (yet) */
    size_t k = strlen(n->op_type);
    if (strncmp(detail, n->op_type, k) != 0 || (detail[k] != ':' && detail[k] != ' '))
        snprintf(why, len, "%s: %s", n->op_type, detail);
    return PARTITION_RULE;
}
