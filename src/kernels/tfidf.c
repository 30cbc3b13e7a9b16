/* TfIdfVectorizer by direct search of the pool (pools are small vocabularies). */
#include "kernels/tfidf.h"

/* Number (in pool order) of the size-g n-gram equal to tokens x[start + j * step], j < g, or
 * -1 when the pool does not hold it. */
static int64_t find_ngram(const kern_tfidf_params *p, tosac_dtype dt, const void *x,
                          int64_t start, int64_t step, int64_t g)
{
    if (g > p->n_counts)
        return -1;
    int64_t begin = p->ngram_counts[g - 1], end = g < p->n_counts ? p->ngram_counts[g] : p->n_pool;
    /* n-grams before this section: each earlier section's length / its size */
    int64_t number = 0;
    for (int64_t s = 1; s < g; s++) {
        int64_t b = p->ngram_counts[s - 1], e = s < p->n_counts ? p->ngram_counts[s] : p->n_pool;
        number += (e - b) / s;
    }
    for (int64_t at = begin; at + g <= end; at += g, number++) {
        int64_t j = 0;
        while (j < g && p->pool[at + j] == kern_get_i64(dt, x, start + j * step))
            j++;
        if (j == g)
            return number;
    }
    return -1;
}

void kern_tfidf(const kern_tfidf_params *p, tosac_dtype dt, int64_t rows, int64_t row_len,
                const void *x, float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        float *out = y + r * p->n_cols;
        for (int64_t k = 0; k < p->n_cols; k++)
            out[k] = 0;
        int64_t first_size = p->min_gram;
        /* a skip longer than the row gathers nothing but unigrams, counted in pass 0 */
        const int64_t max_skip = p->max_skip < row_len ? p->max_skip : row_len;
        for (int64_t skip = 0; skip <= max_skip; skip++) {
            const int64_t step = skip + 1;
            for (int64_t s = 0; s < row_len; s++) {
                for (int64_t g = first_size; g <= p->max_gram && g <= p->n_counts; g++) {
                    if (s + (g - 1) * step >= row_len)
                        break;
                    int64_t id = find_ngram(p, dt, x, r * row_len + s, step, g);
                    if (id >= 0)
                        out[p->ngram_indexes[id]] += 1;
                }
            }
            /* unigrams do not depend on the skip: count them in the first pass only */
            if (first_size == 1 && ++first_size > p->max_gram)
                break;
        }
        for (int64_t k = 0; k < p->n_cols; k++) {
            float w = p->weights ? p->weights[k] : 1.0f;
            if (p->mode == KERN_TFIDF_IDF)
                out[k] = out[k] > 0 ? w : 0;
            else if (p->mode == KERN_TFIDF_TFIDF)
                out[k] *= w;
        }
    }
}
