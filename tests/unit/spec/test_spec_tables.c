/* The generated operator tables: counts, type combinations and what makes them legal.
 * Expected values were read from spec/tosa-1.0.2.xml and spec/tosa.xml (the lists of
 * operators a profile alone does not allow were computed from the XML with a throwaway
 * python script, separate from the generator, and pasted here). */
#include "testutil.h"

#include <stdarg.h>
#include <string.h>

#include "tosac/spec.h"

static tosa_spec S(const char *s)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_spec sp;
    if (tosa_spec_parse(s, &sp, &err))
        fail_msg("'%s': %s", s, err.msg);
    return sp;
}

/* Legal under spec? types given as (type name, dtype) pairs, placed by the op's type list. */
static bool legal(const char *spec, tosa_op op, int n, ...)
{
    tosa_spec sp = S(spec);
    const tosa_spec_op *o = tosa_spec_find_op(&sp, op);
    if (!o)
        return false;
    tosac_dtype types[TOSA_SPEC_MAX_TYPES] = {0};
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *name = va_arg(ap, const char *);
        tosac_dtype dt = (tosac_dtype)va_arg(ap, int);
        int k = tosa_spec_op_type_index(o, name);
        assert_true(k >= 0);
        types[k] = dt;
    }
    va_end(ap);
    assert_int_equal(n, o->n_types);
    return tosa_op_legal(&sp, op, types, n);
}

static void test_counts(void **state)
{
    (void)state;
    tosa_spec v10 = S("TOSA-1.0+INT"), v11 = S("TOSA-1.1+INT");
    assert_int_equal(tosa_spec_op_count(&v10), 75);
    assert_int_equal(tosa_spec_op_count(&v11), 100);
    /* 1.0.2 has no type sets: one row per <typesupport> (grep -c '<typesupport' = 389) */
    int rows = 0;
    for (int i = 0; i < 75; i++)
        rows += tosa_spec_op_at(&v10, i)->n_rows;
    assert_int_equal(rows, 389);
    assert_null(tosa_spec_op_at(&v10, 75));
    assert_null(tosa_spec_op_at(&v10, -1));
    /* every 1.0 operator of our enum is in both tables, the 1.1 ones only in 1.1 */
    for (int op = 1; op < TOSA_OP_COUNT; op++) {
        const tosa_spec_op *a = tosa_spec_find_op(&v10, (tosa_op)op);
        const tosa_spec_op *b = tosa_spec_find_op(&v11, (tosa_op)op);
        assert_non_null(b);
        assert_string_equal(b->name, tosa_op_name((tosa_op)op));
        if (op <= TOSA_OP_LAST_1_0) {
            assert_non_null(a);
            assert_string_equal(a->name, tosa_op_name((tosa_op)op));
        } else {
            assert_null(a);
        }
    }
    /* 1.1 operators without a tosa_op value are kept by name */
    static const char *const unnamed[] = {"MATMUL_T", "ROW_GATHER", "ROW_GATHER_BLOCK_SCALED",
                                          "RESHAPE_BLOCK_SCALED"};
    int n_unknown = 0;
    for (int i = 0; i < 100; i++)
        n_unknown += tosa_spec_op_at(&v11, i)->op == TOSA_OP_UNKNOWN;
    assert_int_equal(n_unknown, 4);
    for (int i = 0; i < 4; i++) {
        const tosa_spec_op *o = tosa_spec_find_op_by_name(&v11, unnamed[i]);
        assert_non_null(o);
        assert_int_equal(o->op, TOSA_OP_UNKNOWN);
        assert_null(tosa_spec_find_op_by_name(&v10, unnamed[i]));
    }
    assert_null(tosa_spec_find_op(&v11, TOSA_OP_UNKNOWN));
}

static void test_conv2d_int16(void **state)
{
    (void)state;
    tosa_spec sp = S("TOSA-1.0+INT");
    const tosa_spec_op *conv = tosa_spec_find_op(&sp, TOSA_OP_CONV2D);
    assert_string_equal(conv->group, "tensor");
    assert_int_equal(conv->n_types, 4);
    assert_string_equal(conv->type_names[0], "in_t");
    assert_string_equal(conv->type_names[3], "acc_t");
#define CONV16 4, "in_t", TOSAC_DT_I16, "weight_t", TOSAC_DT_I8, "out_t", TOSAC_DT_I48, "acc_t", TOSAC_DT_I48
    assert_true(legal("TOSA-1.0+INT+int16", TOSA_OP_CONV2D, CONV16));
    assert_false(legal("TOSA-1.0+INT", TOSA_OP_CONV2D, CONV16));
    assert_false(legal("TOSA-1.0+FP", TOSA_OP_CONV2D, CONV16));
    assert_true(legal("TOSA-1.0+INT+int16+u55", TOSA_OP_CONV2D, CONV16));
    assert_false(legal("TOSA-1.0+INT+int16", TOSA_OP_CONV2D, 4, "in_t", TOSAC_DT_I16, "weight_t",
                       TOSAC_DT_I8, "out_t", TOSAC_DT_I32, "acc_t", TOSAC_DT_I32));
    /* 1.1 adds the zero-point types to the list */
    assert_true(legal("TOSA-1.1+INT+int16", TOSA_OP_CONV2D, 6, "in_t", TOSAC_DT_I16, "weight_t",
                      TOSAC_DT_I8, "out_t", TOSAC_DT_I48, "acc_t", TOSAC_DT_I48, "in_zp_t",
                      TOSAC_DT_I16, "weight_zp_t", TOSAC_DT_I8));
    /* int4 weights */
    assert_true(legal("TOSA-1.0+INT+int4", TOSA_OP_CONV2D, 4, "in_t", TOSAC_DT_I8, "weight_t",
                      TOSAC_DT_I4, "out_t", TOSAC_DT_I32, "acc_t", TOSAC_DT_I32));
    assert_false(legal("TOSA-1.0+INT+int16", TOSA_OP_CONV2D, 4, "in_t", TOSAC_DT_I8, "weight_t",
                       TOSAC_DT_I4, "out_t", TOSAC_DT_I32, "acc_t", TOSAC_DT_I32));
    /* fp16 with fp16 accumulate: FP only */
    assert_true(legal("TOSA-1.0+FP", TOSA_OP_CONV2D, 4, "in_t", TOSAC_DT_F16, "weight_t",
                      TOSAC_DT_F16, "out_t", TOSAC_DT_F16, "acc_t", TOSAC_DT_F16));
    assert_false(legal("TOSA-1.0+INT", TOSA_OP_CONV2D, 4, "in_t", TOSAC_DT_F16, "weight_t",
                       TOSAC_DT_F16, "out_t", TOSAC_DT_F16, "acc_t", TOSAC_DT_F16));
    /* wrong type count is never legal */
    tosac_dtype two[2] = {TOSAC_DT_I8, TOSAC_DT_I8};
    assert_false(tosa_op_legal(&sp, TOSA_OP_CONV2D, two, 2));
}

static void test_add_int64(void **state)
{
    (void)state;
    assert_true(legal("TOSA-1.1+INT+int64", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_I64));
    assert_false(legal("TOSA-1.1+INT", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_I64));
    assert_false(legal("TOSA-1.0+INT", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_I64));
    assert_false(legal("TOSA-1.0+INT+FP", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_I64));
    /* the XML's row is EXT-INT64 alone, which FP may carry too */
    assert_true(legal("TOSA-1.1+FP+int64", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_I64));
    /* i32 ADD is in both profiles */
    assert_true(legal("TOSA-1.0+INT", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_I32));
    assert_true(legal("TOSA-1.0+FP", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_I32));
    assert_false(legal("TOSA-1.0+INT", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_F32));
    assert_true(legal("TOSA-1.0+FP", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_F32));
    assert_false(legal("TOSA-1.0+FP", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_BF16));
    assert_true(legal("TOSA-1.0+FP+bf16", TOSA_OP_ADD, 1, "in_out_t", TOSAC_DT_BF16));
}

/* Names of the operators of version v that spec does not allow at all, space-separated. */
static void disallowed(const char *spec, char *buf, size_t size)
{
    tosa_spec sp = S(spec);
    buf[0] = '\0';
    for (int i = 0; i < tosa_spec_op_count(&sp); i++) {
        const tosa_spec_op *o = tosa_spec_op_at(&sp, i);
        if (!tosa_spec_op_allowed(&sp, o)) {
            strncat(buf, o->name, size - strlen(buf) - 1);
            strncat(buf, " ", size - strlen(buf) - 1);
        }
    }
}

static void test_profile_alone(void **state)
{
    (void)state;
    char buf[2048];
    disallowed("TOSA-1.0+INT", buf, sizeof buf);
    assert_string_equal(buf, "FFT2D RFFT2D ERF SIGMOID TANH POW CEIL COS EXP FLOOR LOG RECIPROCAL "
                             "RSQRT SIN REDUCE_PRODUCT COND_IF WHILE_LOOP VARIABLE VARIABLE_WRITE "
                             "VARIABLE_READ ");
    disallowed("TOSA-1.0+FP", buf, sizeof buf);
    assert_string_equal(buf, "FFT2D RFFT2D ARITHMETIC_RIGHT_SHIFT BITWISE_AND BITWISE_OR "
                             "BITWISE_XOR TABLE BITWISE_NOT CLZ RESCALE COND_IF WHILE_LOOP "
                             "VARIABLE VARIABLE_WRITE VARIABLE_READ ");
    disallowed("TOSA-1.1+INT", buf, sizeof buf);
    assert_string_equal(buf, "CONV2D_BLOCK_SCALED FFT2D MATMUL_T_BLOCK_SCALED RFFT2D ERF SIGMOID "
                             "TANH POW CEIL COS EXP FLOOR LOG RECIPROCAL RSQRT SIN REDUCE_PRODUCT "
                             "CAST_FROM_BLOCK_SCALED CAST_TO_BLOCK_SCALED COND_IF WHILE_LOOP "
                             "VARIABLE VARIABLE_WRITE VARIABLE_READ ADD_SHAPE ASSERT_EQUAL_SHAPE "
                             "CONCAT_SHAPE DIM DIV_CEIL_SHAPE DIV_FLOOR_SHAPE EXP2_SHAPE "
                             "LOG2_CEIL_SHAPE LOG2_FLOOR_SHAPE MAX_SHAPE MIN_SHAPE MOD_SHAPE "
                             "MUL_SHAPE SLICE_SHAPE SUB_SHAPE ");
    /* extensions bring their operators */
    tosa_spec sp = S("TOSA-1.0+FP+fft");
    assert_true(tosa_spec_op_allowed(&sp, tosa_spec_find_op(&sp, TOSA_OP_FFT2D)));
    sp = S("TOSA-1.0+INT+cf");
    assert_true(tosa_spec_op_allowed(&sp, tosa_spec_find_op(&sp, TOSA_OP_COND_IF)));
    assert_true(tosa_op_legal(&sp, TOSA_OP_WHILE_LOOP, NULL, 0));
    sp = S("TOSA-1.0+INT+var");
    assert_true(legal("TOSA-1.0+INT+var", TOSA_OP_VARIABLE, 1, "in_t", TOSAC_DT_I8));
    assert_false(legal("TOSA-1.0+FP+var", TOSA_OP_VARIABLE, 1, "in_t", TOSAC_DT_I8));
    assert_true(legal("TOSA-1.0+FP+var", TOSA_OP_VARIABLE, 1, "in_t", TOSAC_DT_F32));
    sp = S("TOSA-1.1+INT+shape");
    assert_true(tosa_op_legal(&sp, TOSA_OP_ADD_SHAPE, (tosac_dtype[]){TOSAC_DT_SHAPE}, 1));
    sp = S("TOSA-1.1+INT");
    assert_false(tosa_op_legal(&sp, TOSA_OP_ADD_SHAPE, (tosac_dtype[]){TOSAC_DT_SHAPE}, 1));
    /* ops without types: CUSTOM in any profile */
    sp = S("TOSA-1.0+FP");
    assert_true(tosa_op_legal(&sp, TOSA_OP_CUSTOM, NULL, 0));
    assert_false(tosa_op_legal(&sp, TOSA_OP_COND_IF, NULL, 0));
    /* u55: INT less the operators Vela has no Ethos-U55 unit for (spec_u55.c) */
    disallowed("TOSA-1.0+INT+u55", buf, sizeof buf);
    assert_string_equal(buf, "FFT2D RFFT2D ERF SIGMOID TANH BITWISE_AND BITWISE_OR BITWISE_XOR "
                             "INTDIV LOGICAL_AND LOGICAL_RIGHT_SHIFT LOGICAL_OR LOGICAL_XOR POW "
                             "BITWISE_NOT CEIL COS EXP FLOOR LOG LOGICAL_NOT RECIPROCAL RSQRT SIN "
                             "SELECT EQUAL GREATER GREATER_EQUAL REDUCE_ALL REDUCE_ANY "
                             "REDUCE_PRODUCT GATHER SCATTER CUSTOM COND_IF WHILE_LOOP VARIABLE "
                             "VARIABLE_WRITE VARIABLE_READ ");
}

static int legal_rows(const char *spec, tosa_op op)
{
    tosa_spec sp = S(spec);
    const tosa_spec_op *o = tosa_spec_find_op(&sp, op);
    int n = 0;
    for (int r = 0; r < o->n_rows; r++)
        n += tosa_spec_row_legal(&sp, &o->rows[r]);
    return n;
}

static void test_type_sets_and_tables(void **state)
{
    (void)state;
    /* CAST bool -> i8/i16/i32 is one <typesupport> with a type set in 1.1 */
    for (int v = 0; v < 2; v++) {
        const char *spec = v ? "TOSA-1.1+INT" : "TOSA-1.0+INT";
        assert_true(legal(spec, TOSA_OP_CAST, 2, "in_t", TOSAC_DT_BOOL, "out_t", TOSAC_DT_I16));
        assert_true(legal(spec, TOSA_OP_CAST, 2, "in_t", TOSAC_DT_I32, "out_t", TOSAC_DT_I8));
        assert_false(legal(spec, TOSA_OP_CAST, 2, "in_t", TOSAC_DT_I8, "out_t", TOSAC_DT_F32));
    }
    assert_true(legal("TOSA-1.1+FP", TOSA_OP_CAST, 2, "in_t", TOSAC_DT_I8, "out_t", TOSAC_DT_F32));
    /* integer CASTs by hand from the XML: bool<->i8/i16/i32 (6), i8->i16/i32, i16->i8/i32,
     * i32->i8/i16 (6); EXT-INT64 adds bool/i32->i64 and i64->bool/i32 */
    assert_int_equal(legal_rows("TOSA-1.0+INT", TOSA_OP_CAST), 12);
    assert_int_equal(legal_rows("TOSA-1.1+INT", TOSA_OP_CAST), 12);
    assert_int_equal(legal_rows("TOSA-1.1+INT+int64", TOSA_OP_CAST), 16);
    assert_true(legal("TOSA-1.1+INT+int64", TOSA_OP_CAST, 2, "in_t", TOSAC_DT_I64, "out_t",
                      TOSAC_DT_I32));
    /* fp -> fp8 is DEDUCE-EXT in 1.1: needs the fp8 extension (and bf16 for a bf16 input) */
    assert_true(legal("TOSA-1.1+FP+fp8e4m3", TOSA_OP_CAST, 2, "in_t", TOSAC_DT_F32, "out_t",
                      TOSAC_DT_FP8E4M3));
    assert_false(legal("TOSA-1.1+FP+fp8e5m2", TOSA_OP_CAST, 2, "in_t", TOSAC_DT_F32, "out_t",
                       TOSAC_DT_FP8E4M3));
    assert_false(legal("TOSA-1.1+FP+fp8e4m3", TOSA_OP_CAST, 2, "in_t", TOSAC_DT_BF16, "out_t",
                       TOSAC_DT_FP8E4M3));
    assert_true(legal("TOSA-1.1+FP+fp8e4m3+bf16", TOSA_OP_CAST, 2, "in_t", TOSAC_DT_BF16,
                      "out_t", TOSAC_DT_FP8E4M3));
    /* TABLE: TABLE_SIZE is not a type; i16 tables need int16 */
    tosa_spec sp = S("TOSA-1.0+INT");
    const tosa_spec_op *table = tosa_spec_find_op(&sp, TOSA_OP_TABLE);
    assert_int_equal(table->n_types, 3);
    assert_true(legal("TOSA-1.0+INT+int16", TOSA_OP_TABLE, 3, "in_t", TOSAC_DT_I16, "table_t",
                      TOSAC_DT_I16, "out_t", TOSAC_DT_I32));
    assert_false(legal("TOSA-1.0+INT", TOSA_OP_TABLE, 3, "in_t", TOSAC_DT_I16, "table_t",
                       TOSAC_DT_I16, "out_t", TOSAC_DT_I32));
    /* RESCALE i48 input (after an int16 convolution) */
    assert_true(legal("TOSA-1.0+INT+int16", TOSA_OP_RESCALE, 2, "in_t", TOSAC_DT_I48, "out_t",
                      TOSAC_DT_I16));
    assert_false(legal("TOSA-1.0+INT", TOSA_OP_RESCALE, 2, "in_t", TOSAC_DT_I48, "out_t",
                       TOSAC_DT_I16));
}

static void test_block_scaled(void **state)
{
    (void)state;
    tosa_spec sp = S("TOSA-1.1+FP+mxfp4e2m1");
    tosac_dtype fp4 = TOSAC_DT_FP4E2M1, fp8 = TOSAC_DT_FP8E4M3;
    /* CONCAT of a block-scaled fp4 tensor: the bs32 set member, position 0 marked */
    assert_true(tosa_op_legal_named(&sp, "CONCAT", &fp4, 1, 0x1));
    assert_false(tosa_op_legal_named(&sp, "CONCAT", &fp4, 1, 0x0));
    assert_false(tosa_op_legal(&sp, TOSA_OP_CONCAT, &fp4, 1));
    sp = S("TOSA-1.1+FP+mxfp8e4m3");
    assert_true(tosa_op_legal_named(&sp, "CONCAT", &fp8, 1, 0x1));
    assert_false(tosa_op_legal(&sp, TOSA_OP_CONCAT, &fp8, 1)); /* plain fp8 needs fp8e4m3 */
    sp = S("TOSA-1.1+FP+fp8e4m3");
    assert_true(tosa_op_legal(&sp, TOSA_OP_CONCAT, &fp8, 1));
    assert_false(tosa_op_legal_named(&sp, "CONCAT", &fp8, 1, 0x1));
    /* MATMUL_T_BLOCK_SCALED: explicit rows, EXT-MX-COMMON and the format */
    sp = S("TOSA-1.1+FP+mxint8");
    tosac_dtype mm[4] = {TOSAC_DT_MXINT8, TOSAC_DT_MXINT8, TOSAC_DT_FP8UE8M0, TOSAC_DT_F32};
    assert_true(tosa_op_legal(&sp, TOSA_OP_MATMUL_T_BLOCK_SCALED, mm, 4));
    sp = S("TOSA-1.1+FP+mxfp4e2m1");
    assert_false(tosa_op_legal(&sp, TOSA_OP_MATMUL_T_BLOCK_SCALED, mm, 4));
    /* RESHAPE_BLOCK_SCALED without scales: scale_t is "-" (UNKNOWN) */
    sp = S("TOSA-1.1+INT");
    tosac_dtype rs[2] = {TOSAC_DT_I8, TOSAC_DT_UNKNOWN};
    const tosa_spec_op *o = tosa_spec_find_op_by_name(&sp, "RESHAPE_BLOCK_SCALED");
    assert_int_equal(tosa_spec_op_type_index(o, "scale_t"), 1);
    assert_true(tosa_op_legal_named(&sp, "RESHAPE_BLOCK_SCALED", rs, 2, 0));
    assert_false(tosa_op_legal_named(&sp, "NO_SUCH_OP", rs, 2, 0));
}

static void test_rounding_modes(void **state)
{
    (void)state;
    tosa_spec sp = S("TOSA-1.0+INT");
    assert_true(tosa_spec_enum_legal(&sp, "rounding_mode_t", TOSA_ROUND_SINGLE));
    assert_false(tosa_spec_enum_legal(&sp, "rounding_mode_t", TOSA_ROUND_DOUBLE));
    assert_false(tosa_spec_enum_legal(&sp, "rounding_mode_t", TOSA_ROUND_INEXACT));
    assert_false(tosa_spec_enum_legal(&sp, "rounding_mode_t", 7));
    assert_false(tosa_spec_enum_legal(&sp, "no_such_t", 1));
    assert_string_equal(tosa_spec_enum_value_name(&sp, "rounding_mode_t", 3), "DOUBLE_ROUND");
    assert_string_equal(tosa_spec_enum_value_name(&sp, "resize_mode_t", 2), "BILINEAR");
    sp = S("TOSA-1.0+INT+doubleround");
    assert_true(tosa_spec_enum_legal(&sp, "rounding_mode_t", TOSA_ROUND_DOUBLE));
    assert_false(tosa_spec_enum_legal(&sp, "rounding_mode_t", TOSA_ROUND_INEXACT));
    sp = S("TOSA-1.1+INT+inexactround");
    assert_true(tosa_spec_enum_legal(&sp, "rounding_mode_t", TOSA_ROUND_INEXACT));
    assert_false(tosa_spec_enum_legal(&sp, "rounding_mode_t", TOSA_ROUND_DOUBLE));
}

static void test_levels_and_args(void **state)
{
    (void)state;
    tosa_spec sp = S("TOSA-1.0+INT");
    const tosa_spec_levels *l = tosa_spec_level_limits(&sp);
    assert_int_equal(l->max_rank, 32);
    assert_int_equal(l->max_kernel, 2147483647);
    assert_int_equal(l->max_scale, 2048);
    assert_int_equal(l->max_shape_len, 0);
    sp = S("TOSA-1.0+INT+8k");
    l = tosa_spec_level_limits(&sp);
    assert_int_equal(l->max_rank, 6);
    assert_int_equal(l->max_kernel, 8192);
    assert_int_equal(l->max_stride, 8192);
    assert_int_equal(l->max_scale, 256);
    assert_int_equal(l->max_log2_size, 31);
    assert_int_equal(l->max_nesting, 6);
    assert_int_equal(l->max_tensor_list_size, 64);
    sp = S("TOSA-1.1+FP+8k");
    assert_int_equal(tosa_spec_level_limits(&sp)->max_shape_len, 16);
    sp = S("TOSA-1.1+FP");
    assert_int_equal(tosa_spec_level_limits(&sp)->max_shape_len, 64);
    /* ARGMAX: input rank 1..MAX_RANK, output 0..MAX_RANK-1 */
    const tosa_spec_op *am = tosa_spec_find_op(&sp, TOSA_OP_ARGMAX);
    assert_int_equal(am->n_args, 4);
    const tosa_spec_arg *in = &am->args[0], *axis = &am->args[1], *out = &am->args[3];
    assert_string_equal(in->name, "input");
    assert_int_equal(in->category, TOSA_ARG_INPUT);
    assert_string_equal(in->type, "tensor_t");
    assert_string_equal(in->element_type, "in_t");
    assert_string_equal(in->shape, "shape1");
    assert_true(in->has_rank);
    assert_int_equal(in->rank_min, 1);
    assert_int_equal(tosa_spec_rank_value(&sp, in->rank_max), 32);
    assert_int_equal(axis->category, TOSA_ARG_ATTRIBUTE);
    assert_string_equal(axis->type, "i32_t");
    assert_false(axis->has_rank);
    assert_int_equal(out->category, TOSA_ARG_OUTPUT);
    assert_int_equal(tosa_spec_rank_value(&sp, out->rank_max), 31);
    sp = S("TOSA-1.1+FP+8k");
    assert_int_equal(tosa_spec_rank_value(&sp, out->rank_max), 5);
    assert_int_equal(tosa_spec_rank_value(&sp, 4), 4);
    /* CONV2D bias/zero points: zero points are compile-time constants */
    const tosa_spec_op *conv = tosa_spec_find_op(&sp, TOSA_OP_CONV2D);
    assert_string_equal(conv->args[3].name, "input_zp");
    assert_true(conv->args[3].ctc);
    assert_false(conv->args[0].ctc);
    assert_string_equal(conv->args[1].shape, "[OC,KH,KW,IC]");
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(tosa_spec_dtype_xml_name(TOSAC_DT_FP8E4M3), "fp8e4m3_t");
    assert_string_equal(tosa_spec_dtype_xml_name(TOSAC_DT_I48), "i48_t");
    assert_string_equal(tosa_spec_dtype_xml_name(TOSAC_DT_UNKNOWN), "-");
    char buf[128];
    int n = tosa_spec_features_to_string(TOSA_FEAT_INT | TOSA_FEAT_EXT(TOSA_EXT_INT64), buf,
                                         sizeof buf);
    assert_string_equal(buf, "PRO-INT & EXT-INT64");
    assert_int_equal(n, 19);
    char small[5];
    assert_int_equal(tosa_spec_features_to_string(TOSA_FEAT_FP | TOSA_FEAT_EXT(TOSA_EXT_BF16),
                                                  small, sizeof small), 17);
    assert_string_equal(small, "PRO-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_conv2d_int16),
        cmocka_unit_test(test_add_int64),
        cmocka_unit_test(test_profile_alone),
        cmocka_unit_test(test_type_sets_and_tables),
        cmocka_unit_test(test_block_scaled),
        cmocka_unit_test(test_rounding_modes),
        cmocka_unit_test(test_levels_and_args),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
