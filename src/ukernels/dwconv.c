/* Depthwise int8 convolution + requantization: the portable twin, packing and dispatch (see
 * dwconv.h). */
#include "ukernels/dwconv.h"

/* Channels accumulated together: one pass over each tap pair's contiguous channels. */
#define DW_BLOCK 64

int dwconv_q8_channels(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                       int8_t *out, int c0)
{
    const int C = p->C, np = p->n_pairs;
    int bad = 0;
    for (int i = 0; i < n_pix; i++) {
        const int8_t *const *t = taps + (size_t)i * 2 * (size_t)np;
        int8_t *o = out + (size_t)i * (size_t)C;
        for (int cb = c0; cb < C; cb += DW_BLOCK) {
            int len = C - cb < DW_BLOCK ? C - cb : DW_BLOCK;
            uint32_t acc[DW_BLOCK]; /* wraps like the reference's 32-bit accumulator */
            for (int k = 0; k < len; k++)
                acc[k] = (uint32_t)p->q.bias[cb + k];
            for (int j = 0; j < np; j++) {
                const int8_t *a = t[2 * j] + cb, *b = t[2 * j + 1] + cb;
                const int16_t *w = p->w + ((size_t)j * (size_t)C + (size_t)cb) * 2;
                for (int k = 0; k < len; k++)
                    acc[k] += (uint32_t)(a[k] * w[2 * k] + b[k] * w[2 * k + 1]);
            }
            for (int k = 0; k < len; k++)
                o[cb + k] = q8_requant_one(&p->q, cb + k, (int32_t)acc[k], &bad);
        }
    }
    return bad;
}

int dwconv_q8_portable(const dwconv_q8_params *p, const int8_t *const *taps, int n_pix,
                       int8_t *out)
{
    return dwconv_q8_channels(p, taps, n_pix, out, 0);
}

dwconv_q8_fn dwconv_q8_select(void)
{
    switch (kern_isa_active()) {
#if KERN_HAVE_AVX512VNNI_TWIN
    case KERN_ISA_AVX512VNNI: return dwconv_q8_avx512vnni;
#endif
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2: return dwconv_q8_avx2;
#endif
#if KERN_HAVE_HELIUM
    case KERN_ISA_HELIUM: return dwconv_q8_helium;
#endif
    default: return dwconv_q8_portable;
    }
}

size_t dwconv_q8_packed_bytes(int C, int n_taps)
{
    return (size_t)((n_taps + 1) / 2) * (size_t)C * 2 * sizeof(int16_t);
}

void dwconv_q8_pack(int16_t *dst, const int8_t *w, int C, int n_taps, int32_t wzp)
{
    int np = (n_taps + 1) / 2;
    for (int j = 0; j < np; j++)
        for (int c = 0; c < C; c++)
            for (int h = 0; h < 2; h++) {
                int k = 2 * j + h;
                dst[((size_t)j * (size_t)C + (size_t)c) * 2 + (size_t)h] =
                    (int16_t)(k < n_taps ? w[(size_t)k * (size_t)C + (size_t)c] - wzp : 0);
            }
}

void dwconv_q8_fold_zp(int32_t *bias, const int16_t *w, int C, int n_pairs, int32_t izp)
{
    for (int c = 0; c < C; c++) {
        uint32_t s = 0;
        for (int j = 0; j < n_pairs; j++)
            s += (uint32_t)(w[((size_t)j * (size_t)C + (size_t)c) * 2] +
                            w[((size_t)j * (size_t)C + (size_t)c) * 2 + 1]);
        bias[c] = (int32_t)((uint32_t)bias[c] - s * (uint32_t)izp);
    }
}
