/* Detection of the kernel variant (see isa.h). */
#include "kernels/isa.h"

static int g_active = -1; /* -1: not decided yet */

int kern_isa_available(kern_isa isa)
{
    if (isa == KERN_ISA_PORTABLE)
        return 1;
#if KERN_HAVE_AVX2_TWIN
    if (isa == KERN_ISA_AVX2) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }
#endif
    return 0;
}

kern_isa kern_isa_active(void)
{
    if (g_active < 0)
        g_active = kern_isa_available(KERN_ISA_AVX2) ? KERN_ISA_AVX2 : KERN_ISA_PORTABLE;
    return (kern_isa)g_active;
}

int kern_isa_force(kern_isa isa)
{
    if (!kern_isa_available(isa))
        return -1;
    g_active = (int)isa;
    return 0;
}

const char *kern_isa_name(kern_isa isa)
{
    return isa == KERN_ISA_AVX2 ? "avx2" : "portable";
}
