/* Transpose int8 convolution + requantization: the portable twin, packing and dispatch (see
 * tconv.h). */
#include "ukernels/tconv.h"

int tconv_q8_channels(const tconv_q8_params *p, const int *tap, const int8_t *const *x, int n,
                      int32_t *acc, int8_t *out, int oc0)
{
    const int IC = p->IC, OC = p->OC, np = p->ic_pairs;
    uint32_t *a = (uint32_t *)acc; /* wraps like the reference's 32-bit accumulator */
    for (int oc = oc0; oc < OC; oc++)
        a[oc] = (uint32_t)p->q.bias[oc];
    for (int t = 0; t < n; t++) {
        const int8_t *xv = x[t];
        const int16_t *w = p->w + (size_t)tap[t] * (size_t)np * (size_t)OC * 2;
        for (int j = 0; j < np; j++, w += (size_t)OC * 2) {
            int32_t x0 = xv[2 * j] - p->izp, x1 = 2 * j + 1 < IC ? xv[2 * j + 1] - p->izp : 0;
            for (int oc = oc0; oc < OC; oc++)
                a[oc] += (uint32_t)(x0 * w[2 * oc] + x1 * w[2 * oc + 1]);
        }
    }
    int bad = 0;
    for (int oc = oc0; oc < OC; oc++)
        out[oc] = q8_requant_one(&p->q, oc, (int32_t)a[oc], &bad);
    return bad;
}

int tconv_q8_portable(const tconv_q8_params *p, const int *tap, const int8_t *const *x, int n,
                      int32_t *acc, int8_t *out)
{
    return tconv_q8_channels(p, tap, x, n, acc, out, 0);
}

tconv_q8_fn tconv_q8_select(void)
{
    switch (kern_isa_active()) {
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2:
    case KERN_ISA_AVX512VNNI: return tconv_q8_avx2;
#endif
    default: return tconv_q8_portable;
    }
}

size_t tconv_q8_packed_bytes(int OC, int taps, int IC)
{
    return (size_t)taps * (size_t)((IC + 1) / 2) * (size_t)OC * 2 * sizeof(int16_t);
}

void tconv_q8_pack(int16_t *dst, const int8_t *w, int OC, int taps, int IC, int32_t wzp)
{
    int np = (IC + 1) / 2;
    for (int t = 0; t < taps; t++)
        for (int j = 0; j < np; j++)
            for (int oc = 0; oc < OC; oc++)
                for (int h = 0; h < 2; h++) {
                    int ic = 2 * j + h;
                    size_t o = (((size_t)t * (size_t)np + (size_t)j) * (size_t)OC + (size_t)oc) * 2;
                    size_t i = ((size_t)oc * (size_t)taps + (size_t)t) * (size_t)IC + (size_t)ic;
                    dst[o + (size_t)h] = (int16_t)(ic < IC ? w[i] - wzp : 0);
                }
}
