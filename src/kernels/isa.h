/* Run-time choice between the portable kernels and their x86 AVX2 twins.
 *
 * The hot float loops (GEMM micro-kernel, depthwise convolution windows) are written once in
 * plain C and compiled twice: as portable code (the build's default target) and, on x86-64
 * with GCC or Clang, with the avx2 target attribute (8-wide vectors). The twin is used only
 * when the CPU reports AVX2 at run time, so the binary stays portable.
 *
 * The twins are bit-identical: the twin does not use FMA (ISO C mode does not contract
 * a*b+c, and the code never asks for fmaf), and vectorising never reorders a sum because
 * every output owns its accumulator. So results, and the quantizer's calibration ranges
 * computed with them, do not depend on the machine. Fused multiply-add would make the GEMM
 * micro-kernel about 2x faster (mobilenet_v2 about 20%) at the price of that. */
#ifndef TOSAC_KERNELS_ISA_H
#define TOSAC_KERNELS_ISA_H

/* The one list of kernel variants: dispatch, the twin tests and the benchmarks all iterate
 * it (X(enum, name)), so no variant goes untested. Order: preference (the last available one
 * is the default). avx512vnni: x86-64 AVX-512 F/BW/VL + VNNI (the integer kernels' vpdpbusd);
 * it also runs the float AVX2 twins. helium: Arm MVE (Cortex-M55), chosen at build time. */
#define KERN_ISA_LIST(X)                                                                        \
    X(KERN_ISA_PORTABLE, "portable")                                                           \
    X(KERN_ISA_AVX2, "avx2")                                                                   \
    X(KERN_ISA_AVX512VNNI, "avx512vnni")                                                       \
    X(KERN_ISA_HELIUM, "helium")
#define KERN_ISA_ENUM_(e, name) e,
typedef enum kern_isa { KERN_ISA_LIST(KERN_ISA_ENUM_) KERN_ISA_COUNT } kern_isa;
#undef KERN_ISA_ENUM_

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KERN_HAVE_AVX2_TWIN 1
#define KERN_AVX2_ATTR __attribute__((target("avx2")))
#define KERN_HAVE_AVX512VNNI_TWIN 1
#define KERN_AVX512VNNI_ATTR                                                                    \
    __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))
#else
#define KERN_HAVE_AVX2_TWIN 0
#define KERN_AVX2_ATTR
#define KERN_HAVE_AVX512VNNI_TWIN 0
#define KERN_AVX512VNNI_ATTR
#endif
#if defined(__ARM_FEATURE_MVE)
#define KERN_HAVE_HELIUM 1
#else
#define KERN_HAVE_HELIUM 0
#endif

/* The variant in use: the best available, unless kern_isa_force chose another (the CLI does
 * for TOSAC_KERNEL_ISA=portable: the runtime library reads no environment). */
kern_isa kern_isa_active(void);
/* True when this build and CPU can run isa. */
int kern_isa_available(kern_isa isa);
/* Selects isa for the whole process (tests and benchmarks compare the twins); returns -1
 * and changes nothing when it is not available. */
int kern_isa_force(kern_isa isa);
const char *kern_isa_name(kern_isa isa);
/* The variant named name ("portable", "avx2", ...), or -1. */
int kern_isa_from_name(const char *name);
/* True when the active variant runs the float kernels' AVX2 twins (avx2 and avx512vnni). */
int kern_isa_float_avx2(void);

#endif
