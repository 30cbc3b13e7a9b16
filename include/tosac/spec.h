/* The TOSA specification a compilation targets, and what it allows.
 *
 * A spec string is "TOSA-<major>.<minor>[.<patch>]" followed by '+'-separated tokens:
 *   profiles    INT, FP (upper case; at least one, u55 implies INT)
 *   extensions  int16 int4 int64 bf16 fp8e4m3 fp8e5m2 fft var cf doubleround inexactround
 *               dynamic shape, and the 1.1 microscaling ones mxcommon mxfp4e2m1 mxfp6e2m3
 *               mxfp6e3m2 mxfp8e4m3 mxfp8e5m2 mxint8 mxfpconv (EXT-MX-<X> -> mx<x>,
 *               EXT-MXFP-CONV -> mxfpconv; every mx token also enables mxcommon, because
 *               every microscaling row of the spec requires EXT-MX-COMMON with its format)
 *   level       8k
 *   subset      u55 (Arm Ethos-U55: integer only)
 * Which extensions exist in which version, and which profile each needs, comes from the
 * specification XML (spec/tosa-1.0.2.xml for 1.0, spec/tosa.xml for the 1.1 draft).
 *
 * The operator tables (src/spec/spec_tables_1_*.c) are generated from the same XML by
 * tools/gen_spec/gen_spec.py. Each operator lists its arguments and every legal combination
 * of its symbolic types (<types>: in_t, weight_t, acc_t, ...) with the profiles/extensions
 * that make it legal.
 * tosa_spec is plain data by design: a small value (parsed once, copied freely, no heap). */
#ifndef TOSAC_SPEC_H
#define TOSAC_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tosac/dtype.h"
#include "tosac/error.h"
#include "tosac/tosa.h"

/* Extensions, in canonical (printing) order. */
typedef enum tosa_ext {
    TOSA_EXT_INT16, TOSA_EXT_INT4, TOSA_EXT_INT64, TOSA_EXT_BF16, TOSA_EXT_FP8E4M3,
    TOSA_EXT_FP8E5M2, TOSA_EXT_FFT, TOSA_EXT_VARIABLE, TOSA_EXT_CONTROLFLOW, TOSA_EXT_DYNAMIC,
    TOSA_EXT_DOUBLEROUND, TOSA_EXT_INEXACTROUND, TOSA_EXT_SHAPE, TOSA_EXT_MX_COMMON,
    TOSA_EXT_MX_FP4E2M1, TOSA_EXT_MX_FP6E2M3, TOSA_EXT_MX_FP6E3M2, TOSA_EXT_MX_FP8E4M3,
    TOSA_EXT_MX_FP8E5M2, TOSA_EXT_MX_INT8, TOSA_EXT_MXFP_CONV,
    TOSA_EXT_COUNT
} tosa_ext;

/* Feature bits: a set of profiles and extensions. The tables state requirements with them. */
#define TOSA_FEAT_INT 0x1u
#define TOSA_FEAT_FP 0x2u
#define TOSA_FEAT_EXT(e) (1u << (2 + (unsigned)(e)))

typedef enum tosa_level { TOSA_LEVEL_NONE = 0, TOSA_LEVEL_8K = 1 } tosa_level;

/* A parsed spec string: a small value, no allocation. Fields hold what the string named
 * (plus INT when u55 implied it); use the queries for effective answers. */
typedef struct tosa_spec {
    int major, minor;
    int patch;              /* -1 when the string gave none */
    uint32_t profiles;      /* TOSA_FEAT_INT | TOSA_FEAT_FP */
    uint32_t extensions;    /* 1u << tosa_ext for each extension named */
    tosa_level level;
    bool u55;
} tosa_spec;

/* Parses s; an invalid string is TOSAC_ERR_INPUT with one line naming the offending token
 * and what would be valid there. *out is written only on success. */
tosac_code tosa_spec_parse(const char *s, tosa_spec *out, tosac_error *err);
/* Canonical string: "TOSA-1.0+INT+int16+8k+u55" (profiles, extensions in tosa_ext order,
 * level, subset). Returns the length it needs (snprintf-like). */
int tosa_spec_to_string(const tosa_spec *spec, char *buf, size_t size);

bool tosa_spec_supports_integer(const tosa_spec *spec);
bool tosa_spec_supports_float(const tosa_spec *spec);
/* By token name ("int16", "mxcommon", ...); false for names that are not extensions. */
bool tosa_spec_supports_extension(const tosa_spec *spec, const char *name);
bool tosa_spec_has_ext(const tosa_spec *spec, tosa_ext ext);
bool tosa_spec_is_u55_subset(const tosa_spec *spec);
/* The int64 rule: with EXT-INT64 (TOSA 1.1, either profile) int64 values stay 64-bit in
 * the delegates; without it they are narrowed to int32 where provably in range
 * (pass_narrow_int64) and stay on the CPU otherwise. Narrowing and partitioning ask this. */
bool tosa_spec_keeps_int64(const tosa_spec *spec);
/* Effective profiles and extensions as TOSA_FEAT_* bits (implications applied). */
uint32_t tosa_spec_features(const tosa_spec *spec);

/* Extension names: token ("int16") and XML name ("EXT-INT16"); NULL when out of range. */
const char *tosa_ext_token(tosa_ext ext);
const char *tosa_ext_xml_name(tosa_ext ext);
/* Token -> extension; -1 if not one. */
int tosa_ext_from_token(const char *token);

/* ---- the tables ---- */

typedef enum tosa_arg_category { TOSA_ARG_INPUT, TOSA_ARG_ATTRIBUTE, TOSA_ARG_OUTPUT } tosa_arg_category;

/* Symbolic rank bound: TOSA_RANK_MAX_RANK - k stands for "MAX_RANK - k" of the level. */
#define TOSA_RANK_MAX_RANK 1000

typedef struct tosa_spec_arg {
    const char *name;
    tosa_arg_category category;
    const char *type;           /* XML type: "tensor_t", "shape_t", "i32_t", "acc_type_t", ... */
    const char *element_type;   /* XML tensor-element-type: "in_t", "i32_t", "-" */
    const char *shape;          /* XML shape string: "[N,IH,IW,IC]", "shape1", "-" */
    bool has_rank;
    int rank_min, rank_max;     /* may be symbolic (TOSA_RANK_MAX_RANK - k) */
    bool ctc;                   /* compile-time constant unless EXT-DYNAMIC */
} tosa_spec_arg;

#define TOSA_SPEC_MAX_TYPES 8
#define TOSA_SPEC_MAX_ALTS 4

/* One legal type combination. types[] follows the operator's type_names order; a position
 * whose XML value was "-" (no such tensor, e.g. no scale) is TOSAC_DT_UNKNOWN. A bit set in
 * block_scaled marks a position holding a block-scaled type (bs32_fp8ue8m0_set_t member:
 * values of types[i] in blocks of 32 with fp8ue8m0 scales). The row is legal when the
 * spec has every feature of at least one alts[] mask. */
typedef struct tosa_spec_row {
    tosac_dtype types[TOSA_SPEC_MAX_TYPES];
    uint8_t block_scaled;
    uint8_t n_alts;
    uint32_t alts[TOSA_SPEC_MAX_ALTS];
    uint8_t added_major, added_minor;   /* version_added */
} tosa_spec_row;

typedef struct tosa_spec_op {
    const char *name;           /* XML name: "CONV2D", "MATMUL_T" */
    tosa_op op;                 /* TOSA_OP_UNKNOWN for 1.1 operators tosa_op lacks */
    const char *group;          /* operatorgroup: "tensor", "activation", ... */
    int n_args;
    const tosa_spec_arg *args;
    int n_types;
    const char *const *type_names; /* "in_t", "weight_t", ... */
    int n_rows;
    const tosa_spec_row *rows;
} tosa_spec_op;

typedef struct tosa_spec_levels {
    int64_t max_rank, max_kernel, max_stride, max_scale, max_log2_size, max_nesting,
        max_tensor_list_size;
    int64_t max_shape_len;      /* 1.1 only; 0 in 1.0 */
} tosa_spec_levels;

/* Operators of the spec's version, in XML order (75 in 1.0.2, 100 in the 1.1 draft). */
int tosa_spec_op_count(const tosa_spec *spec);
const tosa_spec_op *tosa_spec_op_at(const tosa_spec *spec, int i);
/* NULL when the version does not define the operator. */
const tosa_spec_op *tosa_spec_find_op(const tosa_spec *spec, tosa_op op);
const tosa_spec_op *tosa_spec_find_op_by_name(const tosa_spec *spec, const char *name);
/* Index of a symbolic type ("acc_t") in the operator's type list; -1 if absent. */
int tosa_spec_op_type_index(const tosa_spec_op *op, const char *type_name);
/* Resolves a symbolic rank bound for the spec's level. */
int tosa_spec_rank_value(const tosa_spec *spec, int rank);

/* True if the spec's profiles/extensions make this row legal (and, with the u55 subset,
 * Ethos-U55 takes its types: tosa_spec_u55_refusal). */
bool tosa_spec_row_legal(const tosa_spec *spec, const tosa_spec_row *row);
/* Why Ethos-U55 (Vela 5.1.0, docs/ETHOS_U_LIMITS.md) cannot take row of op, completing a
 * phrase that starts with the operator ("REDUCE_MAX" + " of int32 is not supported on
 * Ethos-U55 (...)"); NULL when it can (spec_u55.c). */
const char *tosa_spec_u55_refusal(const tosa_spec_op *op, const tosa_spec_row *row);
/* True if some row of op with plain (not block-scaled) types equal to types[0..n_types) is
 * legal; types in the order of the operator's <types> list, which may differ between
 * versions (1.1 CONV2D adds in_zp_t, weight_zp_t): place them with tosa_spec_op_type_index.
 * Ops without types (COND_IF, CUSTOM, ...): n_types 0. */
bool tosa_op_legal(const tosa_spec *spec, tosa_op op, const tosac_dtype *types, int n_types);
/* The same with block-scaled positions given by the bit mask block_scaled, and by name so
 * 1.1 operators outside tosa_op can be asked too. */
bool tosa_op_legal_named(const tosa_spec *spec, const char *op_name, const tosac_dtype *types,
                         int n_types, unsigned block_scaled);
/* True if any row of the operator is legal. */
bool tosa_spec_op_allowed(const tosa_spec *spec, const tosa_spec_op *op);

/* Level limits of the spec's version for its level. */
const tosa_spec_levels *tosa_spec_level_limits(const tosa_spec *spec);

/* Enumerated attribute values: legal unless the XML ties the value to an extension the
 * spec lacks (RESCALE rounding_mode_t DOUBLE_ROUND needs doubleround, INEXACT_ROUND needs
 * inexactround). False for enums or values the version does not define. */
bool tosa_spec_enum_legal(const tosa_spec *spec, const char *enum_name, int value);
/* Name of an enum value ("DOUBLE_ROUND"); NULL if undefined. */
const char *tosa_spec_enum_value_name(const tosa_spec *spec, const char *enum_name, int value);

/* "fp8e4m3_t" style name of a dtype as the XML writes it; "-" for UNKNOWN. */
const char *tosa_spec_dtype_xml_name(tosac_dtype dt);
/* Feature bits as text: "PRO-INT", "EXT-BF16 & EXT-FP8E4M3" (buffer like snprintf). */
int tosa_spec_features_to_string(uint32_t features, char *buf, size_t size);

#endif
