/* Portable conv16 kernels (the twin the others are tested against) and the variant choice. */
#include "ukernels/conv16.h"

#define CONV16_ATTR
#define CONV16_NAME ukr_conv16_portable
#include "ukernels/conv16_body.h"

void ukr_conv16_finish_arrays(ukr_conv16 *p, int64_t *mem)
{
    int64_t *b = mem, *m = mem + p->OC, *r = mem + 2 * p->OC, *s = mem + 3 * p->OC;
    for (int64_t oc = 0; oc < p->OC; oc++) {
        const ukr_rescale_ch *c = &p->rs.ch[p->rs.n_ch > 1 ? oc : 0];
        b[oc] = p->bias[p->n_bias > 1 ? oc : 0];
        m[oc] = c->mul;
        r[oc] = c->round_pos; /* apply_scale_16 rounds one way */
        s[oc] = c->shift;
    }
    p->f_bias = b;
    p->f_mul = m;
    p->f_rnd = r;
    p->f_sh = s;
}

size_t ukr_conv16_scratch(const ukr_conv16 *p)
{
    if (p->M)
        return sizeof(int32_t) * (size_t)(p->IC * p->M);
    size_t patches = sizeof(int16_t) * UKR_CONV16_TILE * (size_t)p->Kp;
    return ((patches + 15) & ~(size_t)15) + sizeof(int64_t) * UKR_CONV16_TILE * (size_t)p->OC;
}

ukr_conv16_fn ukr_conv16_select(kern_isa isa)
{
    switch (isa) {
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2: return ukr_conv16_avx2;
#endif
#if KERN_HAVE_AVX512VNNI_TWIN
    case KERN_ISA_AVX512VNNI: return ukr_conv16_avx512vnni;
#endif
    default: return ukr_conv16_portable;
    }
}
