/* TfIdfVectorizer over integer tokens: counts the pool's n-grams (with skips) per row. */
#ifndef TOSAC_KERNELS_TFIDF_H
#define TOSAC_KERNELS_TFIDF_H

#include "kernels/kern.h"

typedef enum kern_tfidf_mode { KERN_TFIDF_TF, KERN_TFIDF_IDF, KERN_TFIDF_TFIDF } kern_tfidf_mode;

/* The pool holds the n-grams of each size g back to back: size g starts at
 * ngram_counts[g - 1] (n_counts entries) and ends where size g + 1 starts or at n_pool.
 * N-gram number i (in pool order) is counted in output column ngram_indexes[i] (< n_cols,
 * checked by the caller along with the pool layout). weights (n_cols entries, or NULL for
 * ones) scale the columns in IDF and TFIDF modes. */
typedef struct kern_tfidf_params {
    kern_tfidf_mode mode;
    int64_t min_gram, max_gram, max_skip;
    const int64_t *pool, *ngram_counts, *ngram_indexes;
    int64_t n_pool, n_counts, n_cols;
    const float *weights;
} kern_tfidf_params;

/* x: rows of row_len tokens (element type dt, I32 or I64); y: [rows, n_cols]. Unigrams are
 * counted once per position; longer n-grams once per position and skip distance, as
 * onnxruntime and ONNX's reference count them. */
void kern_tfidf(const kern_tfidf_params *p, tosac_dtype dt, int64_t rows, int64_t row_len,
                const void *x, float *y);

#endif
