/* The M55 twin tests (ctest m55_twins): a bare-metal image that runs every micro-kernel of
 * src/ukernels/ in every kernel variant of KERN_ISA_LIST this build has (on the M55: portable
 * and helium) on random and edge cases (twins_<family>.c), and checks each variant's output
 * bytes and status against a reference, so the Helium twins are tested bit for bit where
 * they run. Prints one line per family and variant and "twins: N passed, M failed" on QEMU's
 * stderr; exit status 0 when all passed. */
#include <string.h>

#include "interp/interp_arith.h"
#include "semihost.h"
#include "tosac/tosa.h"
#include "twins.h"

static uint32_t g_rng;

void twins_seed(int case_index) { g_rng = 0x9e3779b9u * (uint32_t)(case_index + 1); }

uint32_t twins_rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

int32_t twins_rnd_in(int32_t lo, int32_t hi)
{
    return lo + (int32_t)(twins_rnd() % (uint32_t)(hi - lo + 1));
}

/* Appends v in decimal to the string at dst. */
static void put_num(char *dst, long v)
{
    char num[16], *p = num + sizeof num;
    *--p = '\0';
    unsigned long u = v < 0 ? 0 : (unsigned long)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    strcat(dst, p);
}

void twins_case_failed(const char *family, kern_isa isa, int idx, const char *what)
{
    char line[160] = "twins: ";
    strncat(line, family, 20);
    strcat(line, " ");
    strcat(line, kern_isa_name(isa));
    strcat(line, " case ");
    put_num(line, idx);
    strcat(line, ": ");
    strncat(line, what, 60);
    sh_stderr(line);
}

void twins_fit(uint32_t big, int *shift, int32_t *mult)
{
    int sh = *shift, bits = 0;
    while (bits < 32 && (big >> bits))
        bits++;
    if (sh <= 31 && sh < bits + 1) /* REQUIRE: |v| < 2^(s-1) */
        sh = bits + 1 > 62 ? 62 : bits + 1;
    uint64_t want = sh + 7 >= 63 ? UINT64_MAX : ((uint64_t)1 << (sh + 7)) / ((uint64_t)big + 1);
    *shift = sh;
    *mult = want > INT32_MAX ? INT32_MAX : want < 1 ? 1 : (int32_t)want;
}

int twins_rescale(int32_t v, int32_t mult, int shift, int double_round, int32_t ozp, int32_t lo,
                  int32_t hi, int8_t *out)
{
    int32_t r;
    if (arith_apply_scale_32(v, mult, shift, double_round ? TOSA_ROUND_DOUBLE : TOSA_ROUND_SINGLE,
                             &r) != ARITH_OK)
        return 1;
    int64_t o = (int64_t)r + ozp;
    *out = (int8_t)(o < lo ? lo : o > hi ? hi : o);
    return 0;
}

typedef struct family {
    const char *name;
    int (*run)(kern_isa isa, int *n_cases);
} family;

static const family g_families[] = {
    {"qgemm", twins_qgemm}, {"dwconv", twins_dwconv}, {"ewise", twins_ewise}};

int main(void)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < KERN_ISA_COUNT; i++) {
        kern_isa isa = (kern_isa)i;
        if (!kern_isa_available(isa)) {
            char line[64] = "twins: variant ";
            strcat(line, kern_isa_name(isa));
            strcat(line, ": not in this build");
            sh_stderr(line);
            continue;
        }
        for (size_t f = 0; f < sizeof g_families / sizeof g_families[0]; f++) {
            char line[128] = "twins: ";
            strcat(line, g_families[f].name);
            strcat(line, " variant ");
            strcat(line, kern_isa_name(isa));
            int n = 0, bad = g_families[f].run(isa, &n);
            strcat(line, ": ran, ");
            put_num(line, n - bad);
            strcat(line, " of ");
            put_num(line, n);
            strcat(line, " cases identical to the reference");
            sh_stderr(line);
            passed += n - bad;
            failed += bad;
        }
    }
    char line[64] = "twins: ";
    put_num(line, passed);
    strcat(line, " passed, ");
    put_num(line, failed);
    strcat(line, " failed");
    sh_stderr(line);
    return failed ? 1 : 0;
}
