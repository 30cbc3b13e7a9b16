/* Markers for QEMU's instruction counter (qemu_insn_count.c, run-cortex-m55.sh --count-insns):
 * empty functions (startup.S, one `bx lr` each) whose entries the plugin watches; it notes
 * the running instruction count at each entry, so the instructions between a begin and the
 * next end are what the code between them executed (plus the begin's one). */
#ifndef TOSAC_M55_INSN_MARKS_H
#define TOSAC_M55_INSN_MARKS_H

void tosac_m55_mark_begin(void);
void tosac_m55_mark_end(void);

#endif
