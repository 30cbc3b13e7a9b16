/* qgemm packing: the packed-B layout of every variant and the folded epilogue arrays (see
 * qgemm.h). Plain C on every target, so the sizes (the max over variants) and the packers
 * do not depend on which variants this build can run. */
#include <string.h>

#include "ukernels/qgemm.h"

static size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

/* Kp of a layout: K rounded up to its k group. */
static size_t layout_kp(kern_isa isa, int K)
{
    switch (isa) {
    case KERN_ISA_AVX2: return round_up((size_t)K, 2);
    case KERN_ISA_AVX512VNNI: return round_up((size_t)K, 4);
    default: return round_up((size_t)K, 16); /* portable, helium: KN16 */
    }
}

/* Bytes of the six int32 and three int64 epilogue arrays, then the weights (each part
 * 64-aligned). */
size_t qgemm_packed_size(int K, int N)
{
    if (K < 1 || N < 1)
        return 0;
    size_t np = round_up((size_t)N, QGEMM_NP), w = 0;
    for (int i = 0; i < KERN_ISA_COUNT; i++) {
        size_t kp = layout_kp((kern_isa)i, K), b;
        if (__builtin_mul_overflow(kp, np, &b))
            return 0;
        w = b > w ? b : w;
    }
    size_t arrays = 6 * sizeof(int32_t) * np + 3 * sizeof(int64_t) * np, total;
    if (__builtin_add_overflow(arrays, w, &total) || __builtin_add_overflow(total, 64, &total))
        return 0;
    return total;
}

static int8_t b_at(const qgemm_params *q, int k, int n)
{
    return q->b[(ptrdiff_t)k * q->b_sk + (ptrdiff_t)n * q->b_sn];
}

static void pack_weights(const qgemm_params *q, kern_isa isa, size_t kp, size_t np, int8_t *w)
{
    memset(w, 0, kp * np);
    for (int n = 0; n < q->N; n++)
        for (int k = 0; k < q->K; k++) {
            size_t at;
            switch (isa) {
            case KERN_ISA_AVX2: /* P8K2 */
                at = ((size_t)(n / 8) * (kp / 2) + (size_t)(k / 2)) * 16 + (size_t)(n % 8) * 2 +
                     (size_t)(k & 1);
                break;
            case KERN_ISA_AVX512VNNI: /* P16K4 */
                at = ((size_t)(n / 16) * (kp / 4) + (size_t)(k / 4)) * 64 +
                     (size_t)(n % 16) * 4 + (size_t)(k & 3);
                break;
            default: at = (size_t)n * kp + (size_t)k; break; /* KN16 */
            }
            w[at] = b_at(q, k, n);
        }
}

static qgemm_fn variant_fn(kern_isa isa)
{
    switch (isa) {
    case KERN_ISA_PORTABLE: return qgemm_run_portable;
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2: return qgemm_run_avx2;
#endif
#if KERN_HAVE_AVX512VNNI_TWIN
    case KERN_ISA_AVX512VNNI: return qgemm_run_avx512vnni;
#endif
#if KERN_HAVE_HELIUM
    case KERN_ISA_HELIUM: return qgemm_run_helium;
#endif
    default: return NULL;
    }
}

kern_isa qgemm_variant(void)
{
    kern_isa a = kern_isa_active();
    return variant_fn(a) ? a : KERN_ISA_PORTABLE;
}

static int params_ok(const qgemm_params *q)
{
    if (q->K < 1 || q->N < 1 || !q->b || q->a_zp < -128 || q->a_zp > 127)
        return 0;
    if (q->bias && q->n_bias != 1 && q->n_bias != q->N)
        return 0;
    if (q->out == QGEMM_OUT_I32)
        return 1;
    if (q->out != QGEMM_OUT_I8 || !q->mult || !q->shift || (q->n_rq != 1 && q->n_rq != q->N))
        return 0;
    if (q->out_zp < -128 || q->out_zp > 127 || q->lo < -128 || q->hi > 127 || q->lo > q->hi)
        return 0;
    for (int i = 0; i < q->n_rq; i++)
        if (q->mult[i] < 0 || q->shift[i] < 2 || q->shift[i] > 62)
            return 0;
    return 1;
}

int qgemm_pack_ok(kern_isa isa, const qgemm_params *q)
{
    return variant_fn(isa) && params_ok(q) && qgemm_packed_size(q->K, q->N);
}

int qgemm_pack(qgemm_packed *p, kern_isa isa, const qgemm_params *q, void *mem)
{
    qgemm_fn fn = variant_fn(isa);
    if (!qgemm_pack_ok(isa, q))
        return 0;
    size_t np = round_up((size_t)q->N, QGEMM_NP), kp = layout_kp(isa, q->K);
    int32_t *arr = mem; /* bias, mult, shift, rdbl, vmin, vmax */
    int32_t *bias = arr, *mult = arr + np, *shift = arr + 2 * np, *rdbl = arr + 3 * np;
    int32_t *vmin = arr + 4 * np, *vmax = arr + 5 * np;
    int64_t *e64 = (int64_t *)(void *)(arr + 6 * np); /* rnd64, dneg64, sh64 */
    int8_t *w = (int8_t *)(e64 + 3 * np);
    int check = 0, dbl = 0;
    /* the vnni kernel sums (A ^ 0x80) = A + 128 as u8 */
    uint32_t zp = (uint32_t)q->a_zp + (isa == KERN_ISA_AVX512VNNI ? 128u : 0u);
    for (size_t n = 0; n < np; n++) {
        bias[n] = 0;
        mult[n] = 0;
        shift[n] = 2;
        rdbl[n] = 0;
        vmin[n] = INT32_MIN;
        vmax[n] = INT32_MAX;
        if (n >= (size_t)q->N)
            continue;
        uint32_t colsum = 0;
        for (int k = 0; k < q->K; k++)
            colsum += (uint32_t)(int32_t)b_at(q, k, (int)n);
        uint32_t b = q->bias ? (uint32_t)q->bias[q->n_bias == 1 ? 0 : n] : 0u;
        bias[n] = (int32_t)(b - zp * colsum);
        if (q->out != QGEMM_OUT_I8)
            continue;
        size_t r = q->n_rq == 1 ? 0 : n;
        int s = q->shift[r];
        mult[n] = q->mult[r];
        shift[n] = s;
        rdbl[n] = q->double_round && s > 31 ? (int32_t)1 << 30 : 0;
        if (s <= 31) { /* apply_scale_32's REQUIRE on the value */
            vmin[n] = (int32_t)-((int64_t)1 << (s - 1));
            vmax[n] = (int32_t)(((int64_t)1 << (s - 1)) - 1);
            check = 1;
        }
        dbl |= rdbl[n] != 0;
    }
    /* out_zp joins the rounding term (floor((x + zp * 2^s) / 2^s) = floor(x / 2^s) + zp)
     * while zp * 2^s stays far from int64's range */
    int zp_in_rnd = q->out == QGEMM_OUT_I8;
    for (size_t n = 0; n < np; n++)
        zp_in_rnd &= shift[n] <= 54; /* |v * m + round + zp * 2^s| < 2^62 + 2^61 + 2^53 */
    for (size_t n = 0; n < np; n++) { /* the int64 arrays, per 16 columns even then odd */
        size_t at = n / 16 * 16 + n % 2 * 8 + n % 16 / 2;
        e64[at] = ((int64_t)1 << (shift[n] - 1)) + rdbl[n] +
                  (zp_in_rnd ? (int64_t)q->out_zp * ((int64_t)1 << shift[n]) : 0);
        e64[np + at] = 2 * (int64_t)rdbl[n];
        e64[2 * np + at] = shift[n];
    }
    pack_weights(q, isa, kp, np, w);
    p->K = q->K;
    p->N = q->N;
    p->Kp = (int)kp;
    p->Np = (int)np;
    p->isa = isa;
    p->out = q->out;
    p->out_zp = q->out_zp;
    p->lo = q->out == QGEMM_OUT_I8 ? q->lo : 0;
    p->hi = q->out == QGEMM_OUT_I8 ? q->hi : 0;
    p->w = w;
    p->bias = bias;
    p->mult = mult;
    p->shift = shift;
    p->rdbl = rdbl;
    p->vmin = vmin;
    p->vmax = vmax;
    p->rnd64 = e64;
    p->dneg64 = e64 + np;
    p->sh64 = e64 + 2 * np;
    p->check = check;
    p->dbl = dbl;
    p->zp_in_rnd = zp_in_rnd;
    p->run = fn;
    return 1;
}
