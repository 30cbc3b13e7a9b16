/* tosa_validate_op: operators checked against the spec tables (types, extensions, enums,
 * constants, operand counts, ranks). */
#include "backend_testutil.h"

#include <string.h>

#include "lower/validate.h"
#include "tosac/spec.h"

typedef struct fixture {
    tosa_graph *g;
    tosa_block *b;
    tosac_error err;
} fixture;

static void fx_init(fixture *f)
{
    tosac_error_clear(&f->err);
    f->g = tosa_graph_new(1, 0);
    f->b = tosa_region_add_block(tosa_graph_add_region(f->g, "main"), "main");
}

static int tensor(fixture *f, const char *name, tosac_dtype dt, int rank, const int64_t *shape)
{
    int k = tosa_block_add_tensor(f->b, name, dt, rank, shape, NULL, 0, &f->err);
    assert_true(k >= 0);
    return k;
}

/* A [n] constant (zeros) with its CONST operator. */
static int constant(fixture *f, const char *name, tosac_dtype dt, int64_t n)
{
    static const uint8_t zeros[64];
    int k = tosa_block_add_tensor(f->b, name, dt, 1, &n, zeros,
                                  (size_t)n * tosac_dtype_size(dt), &f->err);
    assert_true(k >= 0);
    assert_true(tosa_block_add_op(f->b, dt == TOSAC_DT_SHAPE ? TOSA_OP_CONST_SHAPE : TOSA_OP_CONST,
                                  NULL, NULL, 0, &k, 1, &f->err) >= 0);
    return k;
}

static int op(fixture *f, tosa_op o, const tosa_attr *a, const int *in, int nin, int out)
{
    tosa_attr none;
    memset(&none, 0, sizeof none);
    int k = tosa_block_add_op(f->b, o, a ? a : &none, in, nin, &out, 1, &f->err);
    assert_true(k >= 0);
    return k;
}

static const int64_t s4[4] = {1, 2, 3, 4};

static void test_add_types(void **state)
{
    (void)state;
    fixture f;
    fx_init(&f);
    int a8 = tensor(&f, "a8", TOSAC_DT_I8, 4, s4), y8 = tensor(&f, "y8", TOSAC_DT_I8, 4, s4);
    int a32 = tensor(&f, "a32", TOSAC_DT_I32, 4, s4), y32 = tensor(&f, "y32", TOSAC_DT_I32, 4, s4);
    int af = tensor(&f, "af", TOSAC_DT_F32, 4, s4), yf = tensor(&f, "yf", TOSAC_DT_F32, 4, s4);
    int in8[2] = {a8, a8}, in32[2] = {a32, a32}, inf[2] = {af, af}, mixed[2] = {a32, af};
    int o8 = op(&f, TOSA_OP_ADD, NULL, in8, 2, y8);
    int o32 = op(&f, TOSA_OP_ADD, NULL, in32, 2, y32);
    int of = op(&f, TOSA_OP_ADD, NULL, inf, 2, yf);
    int om = op(&f, TOSA_OP_ADD, NULL, mixed, 2, yf);
    tosa_spec i = bt_spec("TOSA-1.0+INT"), fp = bt_spec("TOSA-1.0+FP");
    char why[256];
    assert_true(tosa_validate_op(&i, f.b, o32, why, sizeof why));
    assert_string_equal(why, "");
    assert_false(tosa_validate_op(&i, f.b, o8, why, sizeof why));
    assert_string_equal(why, "ADD: no form for in_out_t=i8");
    assert_false(tosa_validate_op(&i, f.b, of, why, sizeof why));
    assert_string_equal(why, "ADD: in_out_t=f32 needs PRO-FP");
    assert_true(tosa_validate_op(&fp, f.b, of, why, sizeof why));
    assert_false(tosa_validate_op(&fp, f.b, om, why, sizeof why));
    assert_string_equal(why, "ADD: in_out_t is both i32 and f32");
    assert_false(tosa_validate_block(&fp, f.b, why, sizeof why)); /* the i8 ADD fails first */
    assert_string_equal(why, "ADD: no form for in_out_t=i8");
    tosa_graph_free(f.g);
}

/* RESCALE from i48 needs EXT-INT16; DOUBLE_ROUND needs EXT-DOUBLEROUND; a multiplier that is
 * not a CONST is refused; operand counts are checked. */
static void test_rescale(void **state)
{
    (void)state;
    fixture f;
    fx_init(&f);
    int x = tensor(&f, "x", TOSAC_DT_I48, 4, s4), y = tensor(&f, "y", TOSAC_DT_I8, 4, s4);
    int mul = constant(&f, "mul", TOSAC_DT_I16, 1), sh = constant(&f, "sh", TOSAC_DT_I8, 1);
    int izp = constant(&f, "izp", TOSAC_DT_I48, 1), ozp = constant(&f, "ozp", TOSAC_DT_I8, 1);
    int64_t one = 1;
    int dyn_mul = tensor(&f, "dyn_mul", TOSAC_DT_I16, 1, &one);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.rounding_mode = TOSA_ROUND_SINGLE;
    int ins[5] = {x, mul, sh, izp, ozp};
    int r1 = op(&f, TOSA_OP_RESCALE, &a, ins, 5, y);
    a.rounding_mode = TOSA_ROUND_DOUBLE;
    int r2 = op(&f, TOSA_OP_RESCALE, &a, ins, 5, y);
    a.rounding_mode = TOSA_ROUND_SINGLE;
    int dyn[5] = {x, dyn_mul, sh, izp, ozp};
    int r3 = op(&f, TOSA_OP_RESCALE, &a, dyn, 5, y);
    int r4 = op(&f, TOSA_OP_RESCALE, &a, ins, 4, y);
    a.rounding_mode = 0;
    int r5 = op(&f, TOSA_OP_RESCALE, &a, ins, 5, y);
    char why[256];
    tosa_spec i = bt_spec("TOSA-1.0+INT"), i16 = bt_spec("TOSA-1.0+INT+int16");
    tosa_spec dr = bt_spec("TOSA-1.0+INT+int16+doubleround");
    assert_false(tosa_validate_op(&i, f.b, r1, why, sizeof why));
    assert_string_equal(why, "RESCALE: in_t=i48 out_t=i8 needs EXT-INT16");
    assert_true(tosa_validate_op(&i16, f.b, r1, why, sizeof why));
    assert_false(tosa_validate_op(&i16, f.b, r2, why, sizeof why));
    assert_string_equal(why, "RESCALE: rounding_mode DOUBLE_ROUND is not allowed by this spec");
    assert_true(tosa_validate_op(&dr, f.b, r2, why, sizeof why));
    assert_false(tosa_validate_op(&i16, f.b, r3, why, sizeof why));
    assert_string_equal(why, "RESCALE: 'multiplier' must be a compile-time constant");
    assert_false(tosa_validate_op(&i16, f.b, r4, why, sizeof why));
    assert_string_equal(why, "RESCALE: 4 inputs where the spec has 5");
    assert_false(tosa_validate_op(&i16, f.b, r5, why, sizeof why));
    assert_string_equal(why, "RESCALE: rounding_mode 0 is not a valid value");
    tosa_graph_free(f.g);
}

/* CONV2D: acc_t comes from the acc_type attribute; i16 x i8 accumulates in i48 (EXT-INT16). */
static void test_conv_acc_type(void **state)
{
    (void)state;
    fixture f;
    fx_init(&f);
    const int64_t xs[4] = {1, 4, 4, 2}, ws[4] = {3, 1, 1, 2}, ys[4] = {1, 4, 4, 3};
    int x = tensor(&f, "x", TOSAC_DT_I16, 4, xs), y = tensor(&f, "y", TOSAC_DT_I48, 4, ys);
    int w = constant(&f, "w", TOSAC_DT_I8, 6); /* rank 1 on purpose for the rank check */
    int64_t bs = 3;
    int w4 = tosa_block_add_tensor(f.b, "w4", TOSAC_DT_I8, 4, ws, NULL, 0, &f.err);
    assert_true(tosa_block_add_op(f.b, TOSA_OP_CONST, NULL, NULL, 0, &w4, 1, &f.err) >= 0);
    int bias = tosa_block_add_tensor(f.b, "bias", TOSAC_DT_I48, 1, &bs, NULL, 0, &f.err);
    assert_true(tosa_block_add_op(f.b, TOSA_OP_CONST, NULL, NULL, 0, &bias, 1, &f.err) >= 0);
    int izp = constant(&f, "izp", TOSAC_DT_I16, 1), wzp = constant(&f, "wzp", TOSAC_DT_I8, 1);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    int ins[5] = {x, w4, bias, izp, wzp};
    int c0 = op(&f, TOSA_OP_CONV2D, &a, ins, 5, y);
    a.acc_type = TOSAC_DT_I48;
    int c1 = op(&f, TOSA_OP_CONV2D, &a, ins, 5, y);
    a.acc_type = TOSAC_DT_I32;
    int c2 = op(&f, TOSA_OP_CONV2D, &a, ins, 5, y);
    a.acc_type = TOSAC_DT_I48;
    int bad[5] = {x, w, bias, izp, wzp};
    int c3 = op(&f, TOSA_OP_CONV2D, &a, bad, 5, y);
    char why[256];
    tosa_spec i = bt_spec("TOSA-1.0+INT"), i16 = bt_spec("TOSA-1.0+INT+int16");
    assert_false(tosa_validate_op(&i16, f.b, c0, why, sizeof why));
    assert_string_equal(why, "CONV2D: acc_type is not set");
    assert_true(tosa_validate_op(&i16, f.b, c1, why, sizeof why));
    assert_false(tosa_validate_op(&i, f.b, c1, why, sizeof why));
    assert_string_equal(why, "CONV2D: in_t=i16 weight_t=i8 out_t=i48 acc_t=i48 needs EXT-INT16");
    assert_false(tosa_validate_op(&i16, f.b, c2, why, sizeof why));
    assert_string_equal(why, "CONV2D: no form for in_t=i16 weight_t=i8 out_t=i48 acc_t=i32");
    assert_false(tosa_validate_op(&i16, f.b, c3, why, sizeof why));
    assert_string_equal(why, "CONV2D: 'weight' has rank 1, outside 4..4");
    tosa_graph_free(f.g);
}

/* A list operand (CONCAT) takes every input; TABLE i16 gives i32; RESHAPE wants a shape value;
 * an operator the version lacks is named. */
static void test_lists_tables_shapes(void **state)
{
    (void)state;
    fixture f;
    fx_init(&f);
    const int64_t s3[4] = {1, 2, 9, 4};
    int a = tensor(&f, "a", TOSAC_DT_I8, 4, s4), b = tensor(&f, "b", TOSAC_DT_I8, 4, s4);
    int c = tensor(&f, "c", TOSAC_DT_I8, 4, s4), y = tensor(&f, "y", TOSAC_DT_I8, 4, s3);
    int c16 = tensor(&f, "c16", TOSAC_DT_I16, 4, s4);
    tosa_attr ax;
    memset(&ax, 0, sizeof ax);
    ax.axis = 2;
    int three[3] = {a, b, c}, mixed[3] = {a, b, c16};
    int k1 = op(&f, TOSA_OP_CONCAT, &ax, three, 3, y);
    int k2 = op(&f, TOSA_OP_CONCAT, &ax, mixed, 3, y);
    int tab = constant(&f, "tab", TOSAC_DT_I16, 32); /* the table size is not a type question */
    int x16 = tensor(&f, "x16", TOSAC_DT_I16, 4, s4), y32 = tensor(&f, "y32", TOSAC_DT_I32, 4, s4);
    int tin[2] = {x16, tab};
    int k3 = op(&f, TOSA_OP_TABLE, NULL, tin, 2, y32);
    int shp = constant(&f, "shp", TOSAC_DT_SHAPE, 4), notshape = constant(&f, "ns", TOSAC_DT_I32, 4);
    int rin[2] = {a, shp}, rbad[2] = {a, notshape};
    int k4 = op(&f, TOSA_OP_RESHAPE, NULL, rin, 2, c);
    int k5 = op(&f, TOSA_OP_RESHAPE, NULL, rbad, 2, c);
    int k6 = op(&f, TOSA_OP_DIM, NULL, &a, 1, shp);
    char why[256];
    tosa_spec i = bt_spec("TOSA-1.0+INT"), i16 = bt_spec("TOSA-1.0+INT+int16");
    assert_true(tosa_validate_op(&i, f.b, k1, why, sizeof why));
    assert_false(tosa_validate_op(&i16, f.b, k2, why, sizeof why));
    assert_string_equal(why, "CONCAT: in_out_t is both i8 and i16");
    assert_true(tosa_validate_op(&i16, f.b, k3, why, sizeof why));
    assert_false(tosa_validate_op(&i, f.b, k3, why, sizeof why));
    assert_string_equal(why, "TABLE: in_t=i16 table_t=i16 out_t=i32 needs EXT-INT16");
    assert_true(tosa_validate_op(&i, f.b, k4, why, sizeof why));
    assert_false(tosa_validate_op(&i, f.b, k5, why, sizeof why));
    assert_string_equal(why, "RESHAPE: 'shape' must be a shape value, not i32");
    assert_false(tosa_validate_op(&i, f.b, k6, why, sizeof why));
    assert_string_equal(why, "DIM is not an operator of TOSA 1.0");
    tosa_graph_free(f.g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_types),
        cmocka_unit_test(test_rescale),
        cmocka_unit_test(test_conv_acc_type),
        cmocka_unit_test(test_lists_tables_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
