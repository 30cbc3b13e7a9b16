/* Portable elementwise kernels (see ewise.h). Products are formed in uint64 (no signed
 * overflow even on inputs a REQUIRE rejects) and right shifts of negative int64 values are
 * arithmetic, as GCC and Clang define them (rt_accel_ewise.c declines on a compiler that
 * does not). */
#include "kernels/isa.h"
#include "ukernels/ewise.h"

void ukr_rescale_ch_init(ukr_rescale_ch *ch, int32_t mul, int shift, bool double_round)
{
    ch->mul = mul;
    ch->shift = shift;
    ch->lim = (int64_t)1 << (shift - 1);
    ch->round_pos = ch->round_neg = ch->lim;
    if (double_round && shift > 31) {
        ch->round_pos += (int64_t)1 << 30;
        ch->round_neg -= (int64_t)1 << 30;
    }
}

void ukr_rescale_soa(ukr_rescale *p, int64_t *mem)
{
    int64_t nc = p->n_ch;
    int64_t *m = mem, *rp = mem + nc, *rn = mem + 2 * nc, *l = mem + 3 * nc, *sh = mem + 4 * nc;
    for (int64_t k = 0; k < nc; k++) {
        m[k] = p->ch[k].mul;
        rp[k] = p->ch[k].round_pos;
        rn[k] = p->ch[k].round_neg;
        l[k] = p->ch[k].lim;
        sh[k] = p->ch[k].shift;
    }
    p->v_mul = m;
    p->v_rpos = rp;
    p->v_rneg = rn;
    p->v_lim = l;
    p->v_shift = sh;
}

#define EW_ATTR
#define EW_SUFFIX(name) name##_portable
#include "ukernels/ewise_body.h"

ukr_rescale_fn ukr_rescale_select(int isa)
{
    switch (isa) {
#if KERN_HAVE_HELIUM
    case KERN_ISA_HELIUM: return ukr_rescale_helium;
#endif
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2: return ukr_rescale_avx2;
#endif
#if KERN_HAVE_AVX512VNNI_TWIN
    case KERN_ISA_AVX512VNNI: return ukr_rescale_avx512vnni;
#endif
    default: return ukr_rescale_portable;
    }
}

ukr_add_rescale_fn ukr_add_rescale_select(int isa)
{
    switch (isa) {
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2: return ukr_add_rescale_avx2;
#endif
#if KERN_HAVE_AVX512VNNI_TWIN
    case KERN_ISA_AVX512VNNI: return ukr_add_rescale_avx512vnni;
#endif
    default: return ukr_add_rescale_portable;
    }
}

ukr_arith_fn ukr_arith_select(int isa)
{
#if KERN_HAVE_HELIUM
    if (isa == KERN_ISA_HELIUM)
        return ukr_arith_i32_helium;
#endif
    (void)isa; /* the x86 variants: the compiler vectorises the portable loops well enough */
    return ukr_arith_i32_portable;
}

ukr_clamp_fn ukr_clamp_select(int isa)
{
#if KERN_HAVE_HELIUM
    if (isa == KERN_ISA_HELIUM)
        return ukr_clamp_int_helium;
#endif
    (void)isa;
    return ukr_clamp_int_portable;
}

bool ukr_arith_i32_portable(int what, int shift, const int32_t *a, const int32_t *b, int32_t *o,
                            int64_t n)
{
    uint64_t bad = 0;
    if (what == UKR_ADD || what == UKR_SUB) {
        for (int64_t i = 0; i < n; i++) {
            int64_t v = what == UKR_ADD ? (int64_t)a[i] + b[i] : (int64_t)a[i] - b[i];
            bad |= (uint64_t)(v - INT32_MIN) > (uint64_t)UINT32_MAX;
            o[i] = (int32_t)v;
        }
    } else if (shift == 0) { /* the low 32 bits of the product */
        for (int64_t i = 0; i < n; i++)
            o[i] = (int32_t)(uint32_t)((uint64_t)(int64_t)a[i] * (uint64_t)(int64_t)b[i]);
    } else { /* rounded half up: floor((p + 2^(shift-1)) / 2^shift), p = a*b exact */
        for (int64_t i = 0; i < n; i++) {
            int64_t p = (int64_t)a[i] * b[i];
            int64_t q = p >> shift;
            uint64_t rem = (uint64_t)p & (((uint64_t)1 << shift) - 1);
            q += rem >= ((uint64_t)1 << (shift - 1));
            bad |= (uint64_t)(q - INT32_MIN) > (uint64_t)UINT32_MAX;
            o[i] = (int32_t)q;
        }
    }
    return bad == 0;
}

void ukr_clamp_int_portable(int bits, int64_t lo, int64_t hi, const void *in, void *out,
                            int64_t n)
{
    if (bits == 8) {
        const int8_t *x = in;
        int8_t *y = out, l = (int8_t)lo, h = (int8_t)hi;
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] < l ? l : x[i] > h ? h : x[i];
    } else {
        const int16_t *x = in;
        int16_t *y = out, l = (int16_t)lo, h = (int16_t)hi;
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] < l ? l : x[i] > h ? h : x[i];
    }
}

void ukr_view_init(ukr_view *v)
{
    int64_t s = 1;
    for (int d = v->rank - 1; d >= 0; d--) {
        v->dst_stride[d] = s;
        s *= v->shape[d];
    }
    v->inner = v->rank - 1;
    if (v->shape[v->inner] >= 16)
        return;
    for (int d = 0; d < v->rank; d++)
        if (v->src_stride[d] == 1 && v->shape[d] > v->shape[v->inner])
            v->inner = d;
}

#define COPY_RUNS(T)                                                                           \
    static void copy_runs_##T(const ukr_view *v, const T *src, T *dst)                         \
    {                                                                                          \
        int64_t idx[UKR_VIEW_MAX_RANK] = {0}, so = 0, dof = 0;                                 \
        int in = v->inner;                                                                     \
        int64_t len = v->shape[in], ss = v->src_stride[in], ds = v->dst_stride[in];            \
        for (;;) {                                                                             \
            const T *s = src + so;                                                             \
            T *d = dst + dof;                                                                  \
            if (ss == 1 && ds == 1)                                                            \
                for (int64_t k = 0; k < len; k++) d[k] = s[k];                                 \
            else                                                                               \
                for (int64_t k = 0; k < len; k++) d[k * ds] = s[k * ss];                       \
            int dd = v->rank - 1; /* the odometer over every dim but the inner one */          \
            for (; dd >= 0; dd--) {                                                            \
                if (dd == in)                                                                  \
                    continue;                                                                  \
                so += v->src_stride[dd];                                                       \
                dof += v->dst_stride[dd];                                                      \
                if (++idx[dd] < v->shape[dd])                                                  \
                    break;                                                                     \
                so -= v->src_stride[dd] * v->shape[dd];                                        \
                dof -= v->dst_stride[dd] * v->shape[dd];                                       \
                idx[dd] = 0;                                                                   \
            }                                                                                  \
            if (dd < 0)                                                                        \
                return;                                                                        \
        }                                                                                      \
    }
COPY_RUNS(uint8_t)
COPY_RUNS(uint16_t)
COPY_RUNS(uint32_t)
COPY_RUNS(uint64_t)

void ukr_copy_view(const ukr_view *v, const void *src, void *dst)
{
    for (int d = 0; d < v->rank; d++)
        if (v->shape[d] == 0)
            return;
    switch (v->esz) {
    case 1: copy_runs_uint8_t(v, src, dst); break;
    case 2: copy_runs_uint16_t(v, src, dst); break;
    case 4: copy_runs_uint32_t(v, src, dst); break;
    default: copy_runs_uint64_t(v, src, dst); break;
    }
}
