/* Unique, Einsum and TfIdfVectorizer kernels on hand-worked cases. */
#include "testutil.h"

#include <string.h>

#include "kernels/einsum.h"
#include "kernels/tfidf.h"
#include "kernels/unique.h"

static void test_unique(void **state)
{
    (void)state;
    int32_t x[5] = {2, 1, 2, 3, 1};
    int64_t first[5], inv[5], cnt[5], scratch[20];
    /* sorted: 1 (first at 1, twice), 2 (at 0, twice), 3 (at 3, once) */
    assert_int_equal(kern_unique(TOSAC_DT_I32, 1, 5, 1, 1, x, first, inv, cnt, scratch), 3);
    int64_t f1[3] = {1, 0, 3}, c1[3] = {2, 2, 1}, i1[5] = {1, 0, 1, 2, 0};
    assert_memory_equal(first, f1, sizeof f1);
    assert_memory_equal(cnt, c1, sizeof c1);
    assert_memory_equal(inv, i1, sizeof i1);
    /* by first occurrence: 2, 1, 3 */
    assert_int_equal(kern_unique(TOSAC_DT_I32, 1, 5, 1, 0, x, first, inv, cnt, scratch), 3);
    int64_t f2[3] = {0, 1, 3}, i2[5] = {0, 1, 0, 2, 1};
    assert_memory_equal(first, f2, sizeof f2);
    assert_memory_equal(cnt, c1, sizeof c1);
    assert_memory_equal(inv, i2, sizeof i2);
    /* rows of [[1,2],[0,5],[1,2]]: [0,5] sorts before [1,2] */
    float rows[6] = {1, 2, 0, 5, 1, 2};
    assert_int_equal(kern_unique(TOSAC_DT_F32, 1, 3, 2, 1, rows, first, inv, cnt, scratch), 2);
    assert_true(first[0] == 1 && first[1] == 0 && cnt[0] == 1 && cnt[1] == 2);
    assert_true(inv[0] == 1 && inv[1] == 0 && inv[2] == 1);
}

static void test_einsum(void **state)
{
    (void)state;
    /* ij,jk->ik: labels i, k (output) then j; [[1,2],[3,4]] x [[5,6],[7,8]] */
    kern_einsum_params p;
    memset(&p, 0, sizeof p);
    p.n_in = 2;
    p.n_labels = 3;
    p.n_out_labels = 2;
    p.size[0] = p.size[1] = p.size[2] = 2;
    p.in_stride[0][0] = 2; /* A: i */
    p.in_stride[0][2] = 1; /* A: j */
    p.in_stride[1][1] = 1; /* B: k */
    p.in_stride[1][2] = 2; /* B: j */
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, y[4];
    const void *in[2] = {a, b};
    kern_einsum(&p, TOSAC_DT_F32, in, y);
    assert_true(y[0] == 19 && y[1] == 22 && y[2] == 43 && y[3] == 50);
    int32_t ai[4] = {1, 2, 3, 4}, bi[4] = {5, 6, 7, 8}, yi[4];
    const void *ini[2] = {ai, bi};
    kern_einsum(&p, TOSAC_DT_I32, ini, yi);
    assert_true(yi[0] == 19 && yi[3] == 50);
    /* ii-> (trace): one contracted label reading the diagonal, stride 2 + 1 */
    kern_einsum_params t;
    memset(&t, 0, sizeof t);
    t.n_in = 1;
    t.n_labels = 1;
    t.size[0] = 2;
    t.in_stride[0][0] = 3;
    const void *ta[1] = {a};
    float tr;
    kern_einsum(&t, TOSAC_DT_F32, ta, &tr);
    assert_true(tr == 5);
}

static void test_tfidf(void **state)
{
    (void)state;
    /* pool: unigrams 1, 2 and the bigram (1,2); tokens 1 2 1 3 2. Unigrams: 1 twice, 2 twice.
     * Bigram (1,2): at positions 0,1 (skip 0) and 2,4 (skip 1). */
    int64_t pool[4] = {1, 2, 1, 2}, counts[2] = {0, 2}, idx[3] = {0, 1, 2};
    int64_t x[5] = {1, 2, 1, 3, 2};
    float y[3], w[3] = {1, 0.5f, 2};
    kern_tfidf_params p = {KERN_TFIDF_TF, 1, 2, 1, pool, counts, idx, 4, 2, 3, NULL};
    kern_tfidf(&p, TOSAC_DT_I64, 1, 5, x, y);
    assert_true(y[0] == 2 && y[1] == 2 && y[2] == 2);
    p.max_skip = 0;
    kern_tfidf(&p, TOSAC_DT_I64, 1, 5, x, y);
    assert_true(y[0] == 2 && y[1] == 2 && y[2] == 1);
    p.weights = w;
    p.mode = KERN_TFIDF_TFIDF;
    kern_tfidf(&p, TOSAC_DT_I64, 1, 5, x, y);
    assert_true(y[0] == 2 && y[1] == 1 && y[2] == 2);
    p.mode = KERN_TFIDF_IDF;
    kern_tfidf(&p, TOSAC_DT_I64, 1, 5, x, y);
    assert_true(y[0] == 1 && y[1] == 0.5f && y[2] == 2);
    /* bigrams only */
    kern_tfidf_params q = {KERN_TFIDF_TF, 2, 2, 0, pool, counts, idx, 4, 2, 3, NULL};
    kern_tfidf(&q, TOSAC_DT_I64, 1, 5, x, y);
    assert_true(y[0] == 0 && y[1] == 0 && y[2] == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unique),
        cmocka_unit_test(test_einsum),
        cmocka_unit_test(test_tfidf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
