/* qgemm, portable twin (KN16 layout, see qgemm.h): the one every other variant is tested
 * against. Four columns share each pass over a row of A; sums wrap in uint32 as the
 * reference's i32 accumulator does. */
#include "ukernels/qgemm.h"

int qgemm_run_portable(const qgemm_packed *p, const int8_t *A, size_t lda, int M, int n0,
                       int n1, void *C, size_t ldc)
{
    size_t esz = p->out == QGEMM_OUT_I32 ? 4 : 1;
    int K = p->K, rc = QGEMM_OK;
    for (int m = 0; m < M; m++) {
        const int8_t *a = A + (size_t)m * lda;
        unsigned char *c = (unsigned char *)C + (size_t)m * ldc * esz;
        int n = n0;
        for (; n + 4 <= n1; n += 4) {
            const int8_t *w0 = p->w + (size_t)n * (size_t)p->Kp, *w1 = w0 + p->Kp,
                         *w2 = w1 + p->Kp, *w3 = w2 + p->Kp;
            uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (int k = 0; k < K; k++) {
                int32_t x = a[k];
                s0 += (uint32_t)(x * w0[k]);
                s1 += (uint32_t)(x * w1[k]);
                s2 += (uint32_t)(x * w2[k]);
                s3 += (uint32_t)(x * w3[k]);
            }
            rc |= qgemm_epilogue1(p, n, s0, c) | qgemm_epilogue1(p, n + 1, s1, c) |
                  qgemm_epilogue1(p, n + 2, s2, c) | qgemm_epilogue1(p, n + 3, s3, c);
        }
        for (; n < n1; n++) {
            const int8_t *w = p->w + (size_t)n * (size_t)p->Kp;
            uint32_t s = 0;
            for (int k = 0; k < K; k++)
                s += (uint32_t)(a[k] * w[k]);
            rc |= qgemm_epilogue1(p, n, s, c);
        }
        if (rc)
            return QGEMM_ERR_RANGE;
    }
    return rc;
}
