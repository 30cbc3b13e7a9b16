/* Cortex-M55 start-up for mps3-an547: the vector table and the reset handler. Written in
 * assembly because the FPU and MVE must be enabled before any compiled code runs (GCC
 * vectorises plain C loops with MVE instructions at -O2). */
    .syntax unified
    .thumb

    .section .vectors, "a"
    .align 7                            /* VTOR: table aligned to its size (128 bytes+) */
    .global tosac_m55_vectors
tosac_m55_vectors:
    .word __tosac_m55_stack_top         /* initial MSP */
    .word tosac_m55_reset
    .rept 14                            /* NMI ... SysTick: every exception is fatal here */
    .word tosac_m55_fault_entry
    .endr

    .text
    .thumb_func
    .global tosac_m55_reset
    .type tosac_m55_reset, %function
tosac_m55_reset:
    /* Stack: the vector table set MSP; MSPLIM makes an overflow fault, not corruption. */
    ldr     r0, =__tosac_m55_stack_limit
    msr     msplim, r0
    /* CPACR: full access to CP10/CP11, which enables the FPU and MVE. */
    ldr     r0, =0xE000ED88
    ldr     r1, [r0]
    orr     r1, r1, #(0xF << 20)
    str     r1, [r0]
    /* SHCSR: MemManage, BusFault, UsageFault and SecureFault reported as themselves. */
    ldr     r0, =0xE000ED24
    ldr     r1, [r0]
    orr     r1, r1, #(0xF << 16)
    str     r1, [r0]
    dsb
    isb
    /* .data from its load address, then .bss zeroed (both 8-aligned by the linker script). */
    ldr     r0, =__tosac_m55_data_start
    ldr     r1, =__tosac_m55_data_end
    ldr     r2, =__tosac_m55_data_load
1:  cmp     r0, r1
    bhs     2f
    ldr     r3, [r2], #4
    str     r3, [r0], #4
    b       1b
2:  ldr     r0, =__tosac_m55_bss_start
    ldr     r1, =__tosac_m55_bss_end
    movs    r2, #0
3:  cmp     r0, r1
    bhs     4f
    str     r2, [r0], #4
    b       3b
4:  bl      main
    bl      tosac_m55_exit              /* main's return value is the exit status */
    b       .
    .size tosac_m55_reset, . - tosac_m55_reset

    /* Any exception: hand the stacked frame and the exception number to C. */
    .thumb_func
    .global tosac_m55_fault_entry
    .type tosac_m55_fault_entry, %function
tosac_m55_fault_entry:
    movs    r2, #0                      /* a stack overflow fault must not fault again */
    msr     msplim, r2
    tst     lr, #4
    ite     eq
    mrseq   r0, msp
    mrsne   r0, psp
    mrs     r1, ipsr
    b       tosac_m55_fault
    .size tosac_m55_fault_entry, . - tosac_m55_fault_entry

    /* Markers for QEMU's instruction counter (insn_marks.h): one instruction each, so a count
     * between them is exact (tests/m55/insn_count.sh checks it on a loop of known length). */
    .thumb_func
    .global tosac_m55_mark_begin
    .type tosac_m55_mark_begin, %function
tosac_m55_mark_begin:
    bx      lr
    .size tosac_m55_mark_begin, . - tosac_m55_mark_begin
    .thumb_func
    .global tosac_m55_mark_end
    .type tosac_m55_mark_end, %function
tosac_m55_mark_end:
    bx      lr
    .size tosac_m55_mark_end, . - tosac_m55_mark_end
