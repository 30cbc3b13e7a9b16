/* Elementwise integer micro-kernels: RESCALE of every width the interpreter takes (i8, i16,
 * i32, i48 in; i8, i16, i32 out), the residual group RESCALE a, RESCALE b -> ADD -> RESCALE,
 * int32 ADD / SUB / MUL and integer CLAMP, bit for bit the interpreter's arithmetic
 * (src/interp/interp_arith.c: apply_scale_32 / apply_scale_16, SINGLE / INEXACT / DOUBLE
 * rounding). The data-dependent REQUIREs the reference reports at invoke (apply_scale_32's
 * value range, apply_scale_16's int32 result, ADD's int32 result) are detected, not
 * reported: a kernel returns false and its operator runs the reference, which reports. */
#ifndef TOSAC_UKERNELS_EWISE_H
#define TOSAC_UKERNELS_EWISE_H

#include <stdbool.h>
#include <stdint.h>

/* One channel of a RESCALE: r = (v * mul + round) >> shift, with round = 2^(shift-1) (+/-
 * 2^30 for DOUBLE_ROUND with shift > 31, by the sign of v), v = in - input_zp. */
typedef struct ukr_rescale_ch {
    int64_t mul;
    int64_t round_pos, round_neg; /* round for v >= 0 / v < 0 */
    int64_t lim;                  /* apply_scale_32: v must be in [-lim, lim) */
    int shift;
} ukr_rescale_ch;

typedef struct ukr_rescale {
    int in_bits, out_bits;        /* 8, 16, 32, 48 (stored in int64) / 8, 16, 32 */
    int64_t in_zp, out_zp;
    int64_t lo, hi;               /* output clamp */
    int n_ch;                     /* 1, or the last dim (per channel) */
    const ukr_rescale_ch *ch;
    bool scale16;                 /* apply_scale_16: v must be int48, the result int32 */
    /* the channels again, one array per field (vectorised per-channel loops; NULL: none) */
    const int64_t *v_mul, *v_rpos, *v_rneg, *v_lim, *v_shift;
} ukr_rescale;

/* Fills one channel from the RESCALE operands (multiplier >= 0, shift 2..62 checked by the
 * caller; double_round: DOUBLE_ROUND with scale32). */
void ukr_rescale_ch_init(ukr_rescale_ch *ch, int32_t mul, int shift, bool double_round);

/* One element x of channel c: the clamped result; *bad set when a REQUIRE of the reference
 * fails. Products in uint64: no signed overflow on inputs a REQUIRE rejects; >> of a negative
 * int64 is arithmetic (GCC, Clang; the families check). */
static inline int64_t ukr_rescale_one(const ukr_rescale *p, const ukr_rescale_ch *c, int64_t x,
                                  uint64_t *bad)
{
    int64_t v = (int64_t)((uint64_t)x - (uint64_t)p->in_zp);
    int64_t prod = (int64_t)((uint64_t)v * (uint64_t)c->mul +
                             (uint64_t)(v >= 0 ? c->round_pos : c->round_neg));
    int64_t r = prod >> c->shift;
    if (p->scale16) {
        const int64_t l48 = (int64_t)1 << 47;
        *bad |= (uint64_t)(v + l48) >= (uint64_t)2 * l48;
        *bad |= (uint64_t)(r - INT32_MIN) > (uint64_t)UINT32_MAX;
    } else {
        *bad |= (uint64_t)(v + c->lim) >= (uint64_t)2 * c->lim;
    }
    r += p->out_zp; /* |r| < 2^31 here when no REQUIRE failed */
    if (p->scale16)
        *bad |= (uint64_t)(r - INT32_MIN) > (uint64_t)UINT32_MAX;
    return r < p->lo ? p->lo : r > p->hi ? p->hi : r;
}

/* The per-field arrays of p's channels in mem (5 * n_ch int64). */
void ukr_rescale_soa(ukr_rescale *p, int64_t *mem);

/* out[i] = rescale(in[i]) for n elements (n a multiple of n_ch when per channel). False when
 * a REQUIRE fails (the output is then unspecified). */
typedef bool (*ukr_rescale_fn)(const ukr_rescale *p, const void *in, void *out, int64_t n);
/* The residual group: out = rescale_c(rescale_a(x) + rescale_b(y)), the intermediates i32,
 * all n elements of one shape. */
typedef bool (*ukr_add_rescale_fn)(const ukr_rescale *a, const ukr_rescale *b,
                                   const ukr_rescale *c, const void *x, const void *y,
                                   void *out, int64_t n);
/* The variants (ewise_body.h compiled per target) and the choice of one (available). */
#define UKR_EWISE_VARIANT(suffix)                                                              \
    bool ukr_rescale_##suffix(const ukr_rescale *p, const void *in, void *out, int64_t n);     \
    bool ukr_add_rescale_##suffix(const ukr_rescale *a, const ukr_rescale *b,                  \
                                  const ukr_rescale *c, const void *x, const void *y,          \
                                  void *out, int64_t n);
UKR_EWISE_VARIANT(portable)
UKR_EWISE_VARIANT(avx2)
UKR_EWISE_VARIANT(avx512vnni)
/* The Helium twin (ewise_helium.c, M55 builds): the per-tensor scale32 forms with shifts
 * above 32 vectorised, the others through the portable kernel. */
bool ukr_rescale_helium(const ukr_rescale *p, const void *in, void *out, int64_t n);
ukr_rescale_fn ukr_rescale_select(int isa);
ukr_add_rescale_fn ukr_add_rescale_select(int isa);

enum { UKR_ADD, UKR_SUB, UKR_MUL };
/* int32 ADD / SUB / MUL (shift 0..63 for MUL: 0 keeps the product's low 32 bits) over two
 * same-shaped operands; false when a result leaves int32 (the REQUIRE). */
typedef bool (*ukr_arith_fn)(int what, int shift, const int32_t *a, const int32_t *b,
                             int32_t *o, int64_t n);
bool ukr_arith_i32_portable(int what, int shift, const int32_t *a, const int32_t *b, int32_t *o,
                            int64_t n);
bool ukr_arith_i32_helium(int what, int shift, const int32_t *a, const int32_t *b, int32_t *o,
                          int64_t n);
ukr_arith_fn ukr_arith_select(int isa);

/* Integer CLAMP of n elements of 8 or 16 bits. */
typedef void (*ukr_clamp_fn)(int bits, int64_t lo, int64_t hi, const void *in, void *out,
                             int64_t n);
void ukr_clamp_int_portable(int bits, int64_t lo, int64_t hi, const void *in, void *out,
                            int64_t n);
void ukr_clamp_int_helium(int bits, int64_t lo, int64_t hi, const void *in, void *out,
                          int64_t n);
ukr_clamp_fn ukr_clamp_select(int isa);

/* A strided copy into a contiguous destination: dst in row-major order of shape, src element
 * i0..ir at sum(i_d * src_stride[d]) (TRANSPOSE: strides permuted). esz 1, 2, 4 or 8. */
#define UKR_VIEW_MAX_RANK 8
typedef struct ukr_view {
    int rank, esz;
    int64_t shape[UKR_VIEW_MAX_RANK], src_stride[UKR_VIEW_MAX_RANK];
    int64_t dst_stride[UKR_VIEW_MAX_RANK]; /* ukr_view_init */
    int inner;                             /* the dim of the inner loop (ukr_view_init) */
} ukr_view;
/* Sets dst_stride and picks the inner loop: the last dim, or the dim the source walks with
 * stride 1 when the last is short (NCHW -> NHWC reads runs of W, not of C). */
void ukr_view_init(ukr_view *v);
void ukr_copy_view(const ukr_view *v, const void *src, void *dst);

#endif
