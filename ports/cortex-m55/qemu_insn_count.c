/* A QEMU TCG plugin (host side) counting the guest instructions executed, for
 * scripts/run-cortex-m55.sh --count-insns: every instruction the M55 executes is counted (one
 * per instruction, whatever its beats or cycles: QEMU models no timing), and each time the
 * guest reaches one of the given marker addresses the running total is appended to the
 * output file:
 *
 *     qemu-system-arm ... -plugin libtosac-qemu-insn.so,out=FILE,at=0xADDR[,at=0xADDR ...]
 *
 * writes "0xADDR COUNT" lines (the runner's marker functions, found with nm). Both ends of a
 * difference are read at the first instruction of a marker function, which starts a
 * translation block (a call ends the block before it), and the block's count is added when
 * the block starts, so the difference is exact.
 *
 * Debian 12's qemu-system-arm (QEMU 7.2) is built with plugin support and exports the plugin
 * API, but no package ships its header: the few declarations used are written here, as QEMU
 * 7.2's plugin API version 1 defines them. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU plugin API, version 1 (QEMU 7.x: include/qemu/qemu-plugin.h) ---- */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; /* not read */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t *info,
                                                               int argc, char **argv);
__attribute__((visibility("default"))) extern const int qemu_plugin_version;
const int qemu_plugin_version = 1;
/* ---- end of the API ---- */

#define MAX_MARKS 16

static uint64_t g_count; /* one vCPU (the M55): no per-CPU counters needed */
static uint64_t g_marks[MAX_MARKS];
static int g_n_marks;
static FILE *g_out;

static void on_mark(unsigned int vcpu, void *addr)
{
    fprintf(g_out, "0x%" PRIx64 " %" PRIu64 "\n", (uint64_t)(uintptr_t)addr, g_count);
    fflush(g_out);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &g_count, n);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        for (int m = 0; m < g_n_marks; m++)
            if (pc == g_marks[m])
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
                                                       (void *)(uintptr_t)pc);
    }
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        char *end;
        if (strncmp(argv[i], "out=", 4) == 0) {
            out = argv[i] + 4;
        } else if (strncmp(argv[i], "at=", 3) == 0 && g_n_marks < MAX_MARKS) {
            /* Thumb function symbols have bit 0 set; the instruction address has not. */
            uint64_t a = strtoull(argv[i] + 3, &end, 0);
            if (*end || end == argv[i] + 3) {
                fprintf(stderr, "tosac-qemu-insn: bad address '%s'\n", argv[i] + 3);
                return -1;
            }
            g_marks[g_n_marks++] = a & ~(uint64_t)1;
        } else {
            fprintf(stderr, "tosac-qemu-insn: unknown argument '%s'\n", argv[i]);
            return -1;
        }
    }
    if (!out || !(g_out = fopen(out, "w"))) {
        fprintf(stderr, "tosac-qemu-insn: %s: cannot create the output file\n",
                out ? out : "(no out=)");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    return 0;
}
