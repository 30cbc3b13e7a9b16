/* tosa_names (src/tosa/tosa_names.c), the name index the lowering names its tensors with:
 * the same names as the scan it replaced (base, base_1, base_2, ...: the smallest free
 * suffix, resuming where the last search stopped), tensors appended behind its back seen,
 * and a stem too long for the buffer cut so every call still ends with a new name (the scan
 * looped for ever there). What breaks it: a resumed search skipping a free suffix, a stale
 * index after an outside append, a lookup returning the wrong tensor. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "tosa/tosa_names.h"

/* The replaced algorithm, as lower_ctx.c had it: scan until a name is free. */
static void scan_fresh(const tosa_block *b, const char *base, char *buf, size_t len)
{
    snprintf(buf, len, "%s", base);
    for (unsigned k = 1; tosa_block_find_tensor(b, buf) >= 0; k++)
        snprintf(buf, len, "%s_%u", base, k);
}

static int add(tosa_block *b, const char *name)
{
    tosac_error err;
    int64_t one = 1;
    int t = tosa_block_add_tensor(b, name, TOSAC_DT_I8, 1, &one, NULL, 0, &err);
    assert_true(t >= 0);
    return t;
}

static void test_same_names_as_the_scan(void **state)
{
    (void)state;
    static const char *bases[] = {"weight", "weight_1", "t", "x_", "conv", "conv_q", "w"};
    tosa_graph *ga = tosa_graph_new(1, 0), *gb = tosa_graph_new(1, 0);
    tosa_block *a = tosa_region_add_block(tosa_graph_add_region(ga, "main"), "main");
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(gb, "main"), "main");
    /* names already there: suffixes the search must step over */
    const char *pre[] = {"weight_2", "weight_3", "weight_1_1", "t_5", "conv"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
        add(a, pre[i]);
        add(b, pre[i]);
    }
    tosa_names ix;
    tosa_names_init(&ix, b);
    tu_seed(7);
    for (int step = 0; step < 2000; step++) {
        const char *base = bases[tu_below(sizeof bases / sizeof bases[0])];
        char want[256], got[256], stem[256];
        if (tu_below(10) == 0) { /* appended without the index: it must catch up */
            snprintf(want, sizeof want, "%s_%u", base, tu_below(40) + 1);
            if (tosa_block_find_tensor(a, want) < 0) {
                add(a, want);
                add(b, want);
            }
            continue;
        }
        scan_fresh(a, base, want, sizeof want);
        snprintf(stem, sizeof stem, "%s_", base);
        tosa_names_fresh(&ix, base, stem, got, sizeof got);
        assert_string_equal(got, want);
        add(a, want);
        int k = tosa_block_add_new_tensor(b, got, TOSAC_DT_I8, 0, NULL, NULL, 0, NULL);
        assert_int_equal(k, b->n_tensors - 1);
    }
    /* lookups agree with the scan, present and absent names */
    for (int t = 0; t < b->n_tensors; t += 17)
        assert_int_equal(tosa_names_find(&ix, b->tensors[t].name), t);
    assert_int_equal(tosa_names_find(&ix, "weight_100000"), -1);
    assert_int_equal(tosa_names_find(&ix, ""), -1);
    printf("%d names, the index agreed with the scan on each\n", b->n_tensors);
    tosa_names_free(&ix);
    tosa_graph_free(ga);
    tosa_graph_free(gb);
}

static void test_long_stem_gives_way(void **state)
{
    (void)state;
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    char base[301], stem[302];
    memset(base, 'a', 300);
    base[300] = '\0';
    snprintf(stem, sizeof stem, "%s_", base);
    tosa_names ix;
    tosa_names_init(&ix, b);
    for (int k = 0; k < 12; k++) {
        char got[256];
        tosa_names_fresh(&ix, base, stem, got, sizeof got);
        assert_int_equal(strlen(got), 255);
        assert_int_equal(tosa_names_find(&ix, got), -1);
        if (k == 0)
            assert_int_equal(strspn(got, "a"), 255); /* the first is the base, cut */
        else if (k == 10) /* suffix 10: 253 'a' + "10" */
            assert_string_equal(got + 253, "10");
        add(b, got);
    }
    assert_int_equal(b->n_tensors, 12);
    tosa_names_free(&ix);
    tosa_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_names_as_the_scan),
        cmocka_unit_test(test_long_stem_gives_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
