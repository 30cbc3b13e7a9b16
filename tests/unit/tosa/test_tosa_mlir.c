/* The MLIR writer (src/tosa/tosa_mlir.c) on graphs of the shared conformance suite: exact
 * pieces of the text mlir-opt needs (generic operator form, attribute spellings, constants
 * nested like their shape, regions for COND_IF, values defined before use). mlir-opt itself
 * checks the zoo and the whole suite in tests/mlir (label mlir). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "tosac/tosa.h"

static char *mlir_of_path(const char *path)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = NULL;
    assert_int_equal(tosa_graph_read_file(path, &g, &err), TOSAC_OK);
    const tosa_graph *gs[1] = {g};
    const char *names[1] = {"main"};
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(tosa_graphs_to_mlir(gs, names, 1, &text, &len, &err), TOSAC_OK);
    assert_int_equal(strlen(text), len);
    tosa_graph_free(g);
    return text;
}

static char *mlir_of(const char *rel) { return mlir_of_path(tu_shared(rel)); }

static void assert_has(const char *text, const char *piece)
{
    if (!strstr(text, piece))
        fail_msg("missing in the MLIR text: %s\n--- text ---\n%.2000s", piece, text);
}

static void test_cond_if_regions_and_bool_constants(void **state)
{
    (void)state;
    char *t = mlir_of("conformance/cond_if/cond_if_const_1x1x2_b_cond0/test.tosa");
    assert_has(t, "func.func @main() -> (tensor<1x1x2xi1>) {");
    assert_has(t, "\"tosa.const\"() <{values = dense<false> : tensor<i1>}> : () -> tensor<i1>");
    assert_has(t, "\"tosa.cond_if\"(%v0_0) ({\n");
    /* then and else regions in that order, constants nested like [1,1,2] */
    const char *then_c = strstr(t, "dense<[[[true, true]]]> : tensor<1x1x2xi1>");
    const char *else_c = strstr(t, "dense<[[[false, false]]]> : tensor<1x1x2xi1>");
    assert_non_null(then_c);
    assert_non_null(else_c);
    assert_true(then_c < else_c);
    assert_has(t, "\"tosa.yield\"(%v1_0) : (tensor<1x1x2xi1>) -> ()");
    assert_has(t, "}) : (tensor<i1>) -> tensor<1x1x2xi1>\n");
    free(t);
}

static void test_clamp_bounds_typed(void **state)
{
    (void)state;
    char *t = mlir_of("conformance/clamp/clamp_11x6_i8/test.tosa");
    assert_has(t, "\"tosa.clamp\"(%v0_0) <{min_val = -82 : i8, max_val = -3 : i8, "
                  "nan_mode = #tosa.nan_mode<PROPAGATE>}> : (tensor<11x6xi8>) -> tensor<11x6xi8>");
    free(t);
    t = mlir_of("conformance/clamp/clamp_0_f32_modeI/test.tosa");
    /* float bounds as exact bit patterns; IGNORE mode */
    assert_has(t, "min_val = 0xFDDADA00 : f32, max_val = 0x7F0FF3A5 : f32, "
                  "nan_mode = #tosa.nan_mode<IGNORE>");
    free(t);
}

static void test_rescale_attributes(void **state)
{
    (void)state;
    char *t = mlir_of("conformance/rescale/rescale_11x10x7_u8_outi16_sc0_dr0_pc0_iu1_ou0/test.tosa");
    assert_has(t, "\"tosa.rescale\"(");
    assert_has(t, "rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>");
    assert_has(t, "input_unsigned = true");
    free(t);
}

/* Every use comes after its definition (MLIR's dominance rule), whatever the file's order: a
 * block that lists ADD before the CONST it reads (files may; the interpreter orders them by
 * dependency) is written CONST first (its values as little-endian hex). */
static void test_values_defined_before_use(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    assert_non_null(g);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    assert_non_null(b);
    const int64_t sh[1] = {2};
    const int32_t cval[2] = {7, -7};
    int x = tosa_block_add_tensor(b, "x", TOSAC_DT_I32, 1, sh, NULL, 0, &err);
    int c = tosa_block_add_tensor(b, "c", TOSAC_DT_I32, 1, sh, cval, sizeof cval, &err);
    int y = tosa_block_add_tensor(b, "y", TOSAC_DT_I32, 1, sh, NULL, 0, &err);
    tosa_attr at;
    memset(&at, 0, sizeof at);
    const int add_in[2] = {x, c};
    assert_true(tosa_block_add_op(b, TOSA_OP_ADD, &at, add_in, 2, &y, 1, &err) >= 0);
    assert_true(tosa_block_add_op(b, TOSA_OP_CONST, &at, NULL, 0, &c, 1, &err) >= 0);
    assert_int_equal(tosa_block_set_io(b, &x, 1, &y, 1, &err), TOSAC_OK);
    const tosa_graph *gs[1] = {g};
    const char *names[1] = {"main"};
    char *t = NULL;
    assert_int_equal(tosa_graphs_to_mlir(gs, names, 1, &t, NULL, &err), TOSAC_OK);
    const char *def = strstr(t, "%v0_1 = \"tosa.const\"() <{values = dense<\"0x07000000F9FFFFFF\"> : tensor<2xi32>}>");
    const char *use = strstr(t, "%v0_2 = \"tosa.add\"(%v0_0, %v0_1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>");
    if (!def || !use || def > use)
        fail_msg("the CONST must come before the ADD reading it:\n%s", t);
    free(t);
    tosa_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cond_if_regions_and_bool_constants),
        cmocka_unit_test(test_clamp_bounds_typed),
        cmocka_unit_test(test_rescale_attributes),
        cmocka_unit_test(test_values_defined_before_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
