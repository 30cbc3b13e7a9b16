/* Text operators: TfIdfVectorizer over integer tokens (string tokens are not supported: the
 * IR has no string tensors). */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/tfidf.h"

/* The attributes, checked once (prepare step). The n-gram pool, indexes and weights stay
 * in the node's attributes (program data, alive as long as the plan): the state points at
 * them, it does not copy them. */
static tosac_code tfidf_prepare(cpu_ctx *c, void *st)
{
    kern_tfidf_params *pp = st, p = {KERN_TFIDF_TF, cpu_attr_i(c, "min_gram_length", 0),
                                     cpu_attr_i(c, "max_gram_length", 0),
                                     cpu_attr_i(c, "max_skip_count", 0),
                                     NULL, NULL, NULL, 0, 0, 0, NULL};
    const char *mode = cpu_attr_s(c, "mode", "");
    if (!strcmp(mode, "IDF"))
        p.mode = KERN_TFIDF_IDF;
    else if (!strcmp(mode, "TFIDF"))
        p.mode = KERN_TFIDF_TFIDF;
    else
        CPU_CHECK(c, !strcmp(mode, "TF"), "mode '%s' is not TF, IDF or TFIDF", mode);
    int n_pool, n_counts, n_idx;
    p.pool = cpu_attr_ints(c, "pool_int64s", &n_pool);
    p.ngram_counts = cpu_attr_ints(c, "ngram_counts", &n_counts);
    p.ngram_indexes = cpu_attr_ints(c, "ngram_indexes", &n_idx);
    CPU_CHECK(c, p.pool && p.ngram_counts && p.ngram_indexes,
              "pool_int64s, ngram_counts and ngram_indexes are required");
    p.n_pool = n_pool;
    p.n_counts = n_counts;
    CPU_CHECK(c, p.min_gram >= 1 && p.min_gram <= p.max_gram && p.max_skip >= 0,
              "gram lengths must satisfy 1 <= min <= max and max_skip_count >= 0");
    /* each section of size g must hold whole n-grams; together they number n_idx */
    int64_t total = 0;
    for (int g = 1; g <= n_counts; g++) {
        int64_t b = p.ngram_counts[g - 1], e = g < n_counts ? p.ngram_counts[g] : n_pool;
        CPU_CHECK(c, b >= 0 && b <= e && e <= n_pool && (e - b) % g == 0,
                  "ngram_counts does not split pool_int64s into whole %d-grams", g);
        total += (e - b) / g;
    }
    CPU_CHECK(c, total == n_idx, "ngram_indexes has %d entries for %lld n-grams", n_idx, (long long)total);
    for (int i = 0; i < n_idx; i++) {
        CPU_CHECK(c, p.ngram_indexes[i] >= 0 && p.ngram_indexes[i] < ((int64_t)1 << 31),
                  "ngram_indexes entry %d is out of range", i);
        if (p.ngram_indexes[i] + 1 > p.n_cols)
            p.n_cols = p.ngram_indexes[i] + 1;
    }
    const ir_attr *w = ir_node_attr(c->node, "weights");
    if (w) {
        CPU_CHECK(c, w->kind == IR_ATTR_FLOATS && w->n == p.n_cols, "weights must hold %lld floats",
                  (long long)p.n_cols);
        p.weights = w->floats;
    }
    *pp = p;
    return TOSAC_OK;
}

static const cpu_op_prep tfidf_prep = {tfidf_prepare, sizeof(kern_tfidf_params), NULL};

static tosac_code op_tfidf(cpu_ctx *c)
{
    const kern_tfidf_params *p = c->prep;
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    CPU_CHECK(c, x->dtype == TOSAC_DT_I32 || x->dtype == TOSAC_DT_I64, "input must be int32 or int64");
    CPU_CHECK(c, x->rank == 1 || x->rank == 2, "input must be [C] or [N, C]");
    int64_t rows = x->rank == 2 ? x->shape[0] : 1, len = x->shape[x->rank - 1];
    int64_t ys[2] = {rows, p->n_cols};
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, TOSAC_DT_F32, x->rank, x->rank == 2 ? ys : ys + 1, &y)))
        return rc;
    kern_tfidf(p, x->dtype, rows, len, x->data, y->data);
    return TOSAC_OK;
}

const cpu_op_entry cpu_ops_text[] = {
    {"TfIdfVectorizer", op_tfidf, 0, &tfidf_prep},
    {NULL, NULL, 0, NULL},
};
