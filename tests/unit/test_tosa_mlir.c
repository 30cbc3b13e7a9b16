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

static char *mlir_of(const char *rel)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = NULL;
    assert_int_equal(tosa_graph_read_file(tu_shared(rel), &g, &err), TOSAC_OK);
    const tosa_graph *gs[1] = {g};
    const char *names[1] = {"main"};
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(tosa_graphs_to_mlir(gs, names, 1, &text, &len, &err), TOSAC_OK);
    assert_int_equal(strlen(text), len);
    tosa_graph_free(g);
    return text;
}

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

/* Every use comes after its definition (MLIR's dominance rule), whatever the file's order. */
static void test_values_defined_before_use(void **state)
{
    (void)state;
    char *t = mlir_of("conformance/rescale/rescale_11x10x7_u8_outi16_sc0_dr0_pc0_iu1_ou0/test.tosa");
    assert_has(t, "\"tosa.rescale\"(");
    assert_has(t, "rounding_mode = #tosa.rounding_mode<");
    assert_has(t, "input_unsigned = true");
    for (char *line = t; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char *eq = strstr(line, " = \"tosa.");
        char *nl = strchr(line, '\n');
        if (!eq || (nl && eq > nl))
            continue;
        /* each %v operand of this line was defined on an earlier line */
        for (char *u = strchr(eq, '%'); u && (!nl || u < nl); u = strchr(u + 1, '%')) {
            char name[32];
            size_t k = 0;
            while (k + 1 < sizeof name && (u[k] == '%' || u[k] == '_' || (u[k] >= '0' && u[k] <= '9') || u[k] == 'v'))
                name[k] = u[k], k++;
            name[k] = 0;
            char def[48];
            snprintf(def, sizeof def, "    %s = ", name);
            char *d = strstr(t, def);
            char arg[48];
            snprintf(arg, sizeof arg, "%s: ", name);
            char *a = strstr(t, arg);
            assert_true((d && d < line) || (a && a < line));
        }
    }
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cond_if_regions_and_bool_constants),
        cmocka_unit_test(test_clamp_bounds_typed),
        cmocka_unit_test(test_values_defined_before_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
