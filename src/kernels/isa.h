/* Run-time choice between the portable kernels and their x86 twins.
 *
 * The hot float loops (SGEMM micro-kernel and few-row paths, depthwise convolution windows)
 * are written once in plain C and compiled several times: as portable code (the build's
 * default target) and, on x86-64 with GCC or Clang, with the avx2+fma target attribute
 * (8-wide) and the avx512f+fma one (16-wide, a larger SGEMM tile). A twin is used only when
 * the CPU reports its features at run time, so the binary stays portable.
 *
 * The float twins are bit-identical, by this rule: every multiply-add of those loops is
 * written fmaf(a, b, acc) (one rounding, IEEE 754 fusedMultiplyAdd), and no other
 * multiply-add is contracted (ISO C mode: -ffp-contract=off). The FMA twins compile fmaf to
 * the vector instruction; the portable code gets the hardware instruction where the target
 * has one (AArch64, Cortex-M55 FPU, x86 built with -mfma) and otherwise the C library's
 * exact fmaf: a call per multiply-add, correct but 50-100x slower (mobilenet_v2 0.7-2.3 s
 * instead of 10-14 ms on x86-64 without -mfma), the price of machine-independent bits; every
 * x86-64 CPU with AVX2 has FMA, so only a forced TOSAC_KERNEL_ISA=portable (or a pre-2013
 * CPU) runs it there. Measured: the FMA twins (and the AVX-512 tile) run mobilenet_v2 about
 * 1.5x faster than the unfused AVX2 twin did. Vectorising never reorders a sum
 * because every output owns its accumulator, and the tile shape does not matter because only
 * the fixed KC blocking (sgemm.h) orders a sum. So results, and the quantizer's calibration
 * ranges computed with them, do not depend on the machine or the variant. */
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

/* A function kept apart from its callers (no inlining, cloning or cross-function
 * optimisation: GCC's noipa; clang has only noinline). */
#if defined(__GNUC__) && !defined(__clang__)
#define KERN_NOIPA __attribute__((noipa))
#else
#define KERN_NOIPA __attribute__((noinline))
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KERN_HAVE_AVX2_TWIN 1
#define KERN_AVX2_ATTR __attribute__((target("avx2")))
/* the float twins (see the top of this file) */
#define KERN_AVX2_FMA_ATTR __attribute__((target("avx2,fma")))
#define KERN_AVX512_FMA_ATTR __attribute__((target("avx2,fma,avx512f,avx512vl,avx512dq")))
#define KERN_HAVE_AVX512VNNI_TWIN 1
#define KERN_AVX512VNNI_ATTR                                                                    \
    __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))
#else
#define KERN_HAVE_AVX2_TWIN 0
#define KERN_AVX2_ATTR
#define KERN_AVX2_FMA_ATTR
#define KERN_AVX512_FMA_ATTR
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
/* Which float twin the active variant runs: avx2 -> the AVX2+FMA one, avx512vnni -> the
 * AVX-512+FMA one, each only when the CPU also has FMA; everything else the portable one. */
typedef enum kern_float_level { KERN_FLOAT_PORTABLE, KERN_FLOAT_AVX2, KERN_FLOAT_AVX512 }
    kern_float_level;
kern_float_level kern_isa_float_level(void);

#endif
