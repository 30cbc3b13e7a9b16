/* The RESCALE kernels' body, compiled once per variant (ewise.c, ewise_avx2.c,
 * ewise_avx512vnni.c) with EW_ATTR (the target attribute) and EW_SUFFIX(name) (the variant's
 * function names): the same integer C, vectorised by the compiler for each target, so every
 * variant gives the same bits. scale32 loops are written so they vectorise (one array per
 * channel field, no early exit: REQUIRE failures are or-ed into `bad`); apply_scale_32 keeps
 * |v * mul + round| < 2^63 for int32 v, so they need no unsigned detour. scale16 (int48 in)
 * and the residual group's per-channel form take the scalar ukr_rescale_one. */
#include "ukernels/ewise.h"

#define EW_GENERIC(TI, TO)                                                                     \
    static bool EW_ATTR generic_##TI##_##TO(const ukr_rescale *p, const TI *in, TO *out,       \
                                            int64_t n)                                         \
    {                                                                                          \
        uint64_t bad = 0;                                                                      \
        int64_t nc = p->n_ch;                                                                  \
        for (int64_t i = 0; i < n; i += nc)                                                    \
            for (int64_t k = 0; k < nc; k++)                                                   \
                out[i + k] = (TO)ukr_rescale_one(p, &p->ch[k], in[i + k], &bad);               \
        return bad == 0;                                                                       \
    }

/* one scale32 element: v = x - izp, apply_scale_32, + ozp, clamp */
static inline int64_t EW_ATTR ew_s32(int64_t x, int64_t izp, int64_t ozp, int64_t lo, int64_t hi,
                                     int64_t m, int64_t rp, int64_t rn, int64_t lim, int64_t sh,
                                     uint64_t *bad)
{
    int64_t v = x - izp;
    *bad |= (uint64_t)(v + lim) >= (uint64_t)(2 * lim);
    int64_t r = ((v * m + (v >= 0 ? rp : rn)) >> sh) + ozp;
    return r < lo ? lo : r > hi ? hi : r;
}
#define EW_S32(x, m, rp, rn, lim, sh) ew_s32((x), izp, ozp, lo, hi, (m), (rp), (rn), (lim), (sh), &bad)

#define EW_FAST(TI, TO)                                                                        \
    static bool EW_ATTR fast_##TI##_##TO(const ukr_rescale *p, const TI *in, TO *out,          \
                                         int64_t n)                                            \
    {                                                                                          \
        uint64_t bad = 0;                                                                      \
        const int64_t izp = p->in_zp, ozp = p->out_zp, lo = p->lo, hi = p->hi;                 \
        int64_t nc = p->n_ch;                                                                  \
        if (nc == 1) {                                                                         \
            const ukr_rescale_ch c = p->ch[0];                                                 \
            const int64_t m = c.mul, rp = c.round_pos, rn = c.round_neg, lim = c.lim;          \
            const int sh = c.shift;                                                            \
            for (int64_t i = 0; i < n; i++)                                                    \
                out[i] = (TO)EW_S32(in[i], m, rp, rn, lim, sh);                                \
        } else {                                                                               \
            const int64_t *m = p->v_mul, *rp = p->v_rpos, *rn = p->v_rneg, *lim = p->v_lim,    \
                          *sh = p->v_shift;                                                    \
            for (int64_t i = 0; i < n; i += nc) {                                              \
                const TI *x = in + i;                                                          \
                TO *y = out + i;                                                               \
                for (int64_t k = 0; k < nc; k++)                                               \
                    y[k] = (TO)EW_S32(x[k], m[k], rp[k], rn[k], lim[k], sh[k]);                \
            }                                                                                  \
        }                                                                                      \
        return bad == 0;                                                                       \
    }

#define EW_OUTS(TI)                                                                            \
    EW_GENERIC(TI, int8_t) EW_GENERIC(TI, int16_t) EW_GENERIC(TI, int32_t)                     \
    EW_FAST(TI, int8_t) EW_FAST(TI, int16_t) EW_FAST(TI, int32_t)
EW_OUTS(int8_t)
EW_OUTS(int16_t)
EW_OUTS(int32_t)
EW_GENERIC(int64_t, int8_t)
EW_GENERIC(int64_t, int16_t)
EW_GENERIC(int64_t, int32_t)

#define EW_PICK_OUT(kind, TI)                                                                  \
    switch (p->out_bits) {                                                                     \
    case 8: return kind##_##TI##_int8_t(p, in, out, n);                                        \
    case 16: return kind##_##TI##_int16_t(p, in, out, n);                                      \
    default: return kind##_##TI##_int32_t(p, in, out, n);                                      \
    }

bool EW_ATTR EW_SUFFIX(ukr_rescale)(const ukr_rescale *p, const void *in, void *out, int64_t n)
{
    bool fast = !p->scale16 && (p->n_ch == 1 || p->v_mul);
    switch (p->in_bits) {
    case 8:
        if (fast)
            EW_PICK_OUT(fast, int8_t)
        EW_PICK_OUT(generic, int8_t)
    case 16:
        if (fast)
            EW_PICK_OUT(fast, int16_t)
        EW_PICK_OUT(generic, int16_t)
    case 32:
        if (fast)
            EW_PICK_OUT(fast, int32_t)
        EW_PICK_OUT(generic, int32_t)
    default: EW_PICK_OUT(generic, int64_t)
    }
}

#define EW_RESIDUAL(TI, TO)                                                                    \
    static bool EW_ATTR residual_##TI##_##TO(const ukr_rescale *a, const ukr_rescale *b,       \
                                             const ukr_rescale *c, const TI *x, const TI *y,   \
                                             TO *out, int64_t n)                               \
    {                                                                                          \
        uint64_t bad = 0;                                                                      \
        if (a->n_ch == 1 && b->n_ch == 1 && c->n_ch == 1 && !a->scale16 && !b->scale16 &&     \
            !c->scale16) { /* the common form: vectorised */                                   \
            const ukr_rescale_ch A = a->ch[0], B = b->ch[0], C = c->ch[0];                     \
            const int64_t ax = a->in_zp, by = b->in_zp, co = c->out_zp, lo = c->lo, hi = c->hi; \
            for (int64_t i = 0; i < n; i++) {                                                  \
                int64_t u = (int64_t)x[i] - ax, v = (int64_t)y[i] - by;                        \
                bad |= (uint64_t)(u + A.lim) >= (uint64_t)(2 * A.lim);                         \
                bad |= (uint64_t)(v + B.lim) >= (uint64_t)(2 * B.lim);                         \
                int64_t ra = ((u * A.mul + (u >= 0 ? A.round_pos : A.round_neg)) >> A.shift);  \
                int64_t rb = ((v * B.mul + (v >= 0 ? B.round_pos : B.round_neg)) >> B.shift);  \
                int64_t s = ra + rb; /* the i32 outputs have zero point 0 */                   \
                bad |= (uint64_t)(s - INT32_MIN) > (uint64_t)UINT32_MAX; /* apply_add_s */     \
                bad |= (uint64_t)(s + C.lim) >= (uint64_t)(2 * C.lim);                         \
                /* unsigned: s may be far out of range when a REQUIRE failed */                \
                int64_t r = (int64_t)((uint64_t)s * (uint64_t)C.mul +                          \
                                      (uint64_t)(s >= 0 ? C.round_pos : C.round_neg));         \
                r = (r >> C.shift) + co;                                                       \
                out[i] = (TO)(r < lo ? lo : r > hi ? hi : r);                                  \
            }                                                                                  \
            return bad == 0;                                                                   \
        }                                                                                      \
        int64_t nc = a->n_ch > b->n_ch ? a->n_ch : b->n_ch;                                    \
        nc = c->n_ch > nc ? c->n_ch : nc;                                                      \
        for (int64_t i = 0; i < n; i += nc)                                                    \
            for (int64_t k = 0; k < nc; k++) {                                                 \
                int64_t s = ukr_rescale_one(a, &a->ch[a->n_ch > 1 ? k : 0], x[i + k], &bad) +  \
                            ukr_rescale_one(b, &b->ch[b->n_ch > 1 ? k : 0], y[i + k], &bad);   \
                bad |= (uint64_t)(s - INT32_MIN) > (uint64_t)UINT32_MAX; /* apply_add_s */     \
                out[i + k] = (TO)ukr_rescale_one(c, &c->ch[c->n_ch > 1 ? k : 0], s, &bad);     \
            }                                                                                  \
        return bad == 0;                                                                       \
    }
EW_RESIDUAL(int8_t, int8_t)
EW_RESIDUAL(int8_t, int16_t)
EW_RESIDUAL(int16_t, int8_t)
EW_RESIDUAL(int16_t, int16_t)

bool EW_ATTR EW_SUFFIX(ukr_add_rescale)(const ukr_rescale *a, const ukr_rescale *b,
                                        const ukr_rescale *c, const void *x, const void *y,
                                        void *out, int64_t n)
{
    if (a->in_bits == 8)
        return c->out_bits == 8 ? residual_int8_t_int8_t(a, b, c, x, y, out, n)
                                : residual_int8_t_int16_t(a, b, c, x, y, out, n);
    return c->out_bits == 8 ? residual_int16_t_int8_t(a, b, c, x, y, out, n)
                            : residual_int16_t_int16_t(a, b, c, x, y, out, n);
}
