/* Detection of the kernel variant (see isa.h). */
#include <string.h>

#include "kernels/isa.h"

static int g_active = -1; /* -1: not decided yet */

int kern_isa_available(kern_isa isa)
{
    switch (isa) {
    case KERN_ISA_PORTABLE:
        return 1;
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
#endif
#if KERN_HAVE_AVX512VNNI_TWIN
    case KERN_ISA_AVX512VNNI:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni");
#endif
#if KERN_HAVE_HELIUM
    case KERN_ISA_HELIUM:
        return 1;
#endif
    default:
        return 0;
    }
}

kern_isa kern_isa_active(void)
{
    if (g_active < 0) {
        g_active = KERN_ISA_PORTABLE;
        for (int i = 0; i < KERN_ISA_COUNT; i++)
            if (kern_isa_available((kern_isa)i))
                g_active = i;
    }
    return (kern_isa)g_active;
}

int kern_isa_force(kern_isa isa)
{
    if ((unsigned)isa >= (unsigned)KERN_ISA_COUNT || !kern_isa_available(isa))
        return -1;
    g_active = (int)isa;
    return 0;
}

#define KERN_ISA_NAME_(e, name) name,
static const char *const g_names[KERN_ISA_COUNT] = {KERN_ISA_LIST(KERN_ISA_NAME_)};
#undef KERN_ISA_NAME_

const char *kern_isa_name(kern_isa isa)
{
    return (unsigned)isa < (unsigned)KERN_ISA_COUNT ? g_names[isa] : "?";
}

int kern_isa_from_name(const char *name)
{
    for (int i = 0; name && i < KERN_ISA_COUNT; i++)
        if (strcmp(name, g_names[i]) == 0)
            return i;
    return -1;
}

kern_float_level kern_isa_float_level(void)
{
    kern_isa a = kern_isa_active();
#if KERN_HAVE_AVX2_TWIN
    if (a == KERN_ISA_AVX2 || a == KERN_ISA_AVX512VNNI) {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("fma"))
            return a == KERN_ISA_AVX2 ? KERN_FLOAT_AVX2 : KERN_FLOAT_AVX512;
    }
#else
    (void)a;
#endif
    return KERN_FLOAT_PORTABLE;
}
