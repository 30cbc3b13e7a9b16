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

typedef enum kern_isa { KERN_ISA_PORTABLE = 0, KERN_ISA_AVX2 = 1 } kern_isa;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KERN_HAVE_AVX2_TWIN 1
#define KERN_AVX2_ATTR __attribute__((target("avx2")))
#else
#define KERN_HAVE_AVX2_TWIN 0
#define KERN_AVX2_ATTR
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

#endif
