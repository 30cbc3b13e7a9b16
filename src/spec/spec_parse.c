/* Spec strings: parsing, validation against the version's XML data, printing, queries. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "spec/spec_tables.h"

/* Longest piece of user text quoted in a message, so one line stays readable. */
#define QUOTE_MAX 48

/* Extensions whose rows always come with EXT-MX-COMMON: naming one enables it. */
#define MX_IMPLYING                                                                            \
    (TOSA_FEAT_EXT(TOSA_EXT_MX_FP4E2M1) | TOSA_FEAT_EXT(TOSA_EXT_MX_FP6E2M3) |                  \
     TOSA_FEAT_EXT(TOSA_EXT_MX_FP6E3M2) | TOSA_FEAT_EXT(TOSA_EXT_MX_FP8E4M3) |                  \
     TOSA_FEAT_EXT(TOSA_EXT_MX_FP8E5M2) | TOSA_FEAT_EXT(TOSA_EXT_MX_INT8) |                     \
     TOSA_FEAT_EXT(TOSA_EXT_MXFP_CONV))

static const tosa_spec_version_table *const tables[] = {&tosa_spec_table_1_0, &tosa_spec_table_1_1};
#define N_TABLES (int)(sizeof tables / sizeof tables[0])

const tosa_spec_version_table *tosa_spec_table_for(int major, int minor)
{
    for (int i = 0; i < N_TABLES; i++)
        if (tables[i]->major == major && tables[i]->minor == minor)
            return tables[i];
    return NULL;
}

const tosa_spec_ext_info *tosa_spec_table_ext(const tosa_spec_version_table *t, tosa_ext ext)
{
    for (int i = 0; i < t->n_exts; i++)
        if (t->exts[i].ext == ext)
            return &t->exts[i];
    return NULL;
}

static void versions_list(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < N_TABLES && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%d.%d", i ? ", " : "", tables[i]->major,
                              tables[i]->minor);
}

/* Extensions of version t usable with the profiles in mask (all when mask is 0), in order. */
static void ext_list(const tosa_spec_version_table *t, uint32_t mask, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int e = 0; e < TOSA_EXT_COUNT && n < size; e++) {
        const tosa_spec_ext_info *x = tosa_spec_table_ext(t, (tosa_ext)e);
        if (x && (!mask || (x->profiles & mask)))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", tosa_ext_token((tosa_ext)e));
    }
}

/* The one token spelled like tok except for case, for a "did you mean" hint. */
static const char *case_twin(const char *tok, size_t len)
{
    static const char *const fixed[] = {"INT", "FP", "8k", "u55"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strlen(fixed[i]) == len && strncasecmp(fixed[i], tok, len) == 0)
            return fixed[i];
    for (int e = 0; e < TOSA_EXT_COUNT; e++) {
        const char *name = tosa_ext_token((tosa_ext)e);
        if (strlen(name) == len && strncasecmp(name, tok, len) == 0)
            return name;
    }
    return NULL;
}

static int parse_uint(const char **p, int *out)
{
    const char *s = *p;
    int v = 0, n = 0;
    while (isdigit((unsigned char)*s) && n < 6) {
        v = v * 10 + (*s - '0');
        s++;
        n++;
    }
    if (n == 0 || isdigit((unsigned char)*s))
        return 0;
    *p = s;
    *out = v;
    return 1;
}

static tosac_code parse_version(const char *s, size_t len, tosa_spec *sp,
                                const tosa_spec_version_table **table, tosac_error *err)
{
    char vers[64];
    versions_list(vers, sizeof vers);
    const char *p = s;
    int major = 0, minor = 0, patch = -1;
    int ok = parse_uint(&p, &major) && *p == '.' && (p++, parse_uint(&p, &minor));
    if (ok && *p == '.') {
        p++;
        ok = parse_uint(&p, &patch);
    }
    if (!ok || (size_t)(p - s) != len)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "bad TOSA version '%.*s' (expected <major>.<minor>[.<patch>]; valid "
                          "versions: %s)", (int)(len < QUOTE_MAX ? len : QUOTE_MAX), s, vers);
    const tosa_spec_version_table *t = tosa_spec_table_for(major, minor);
    if (!t)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "TOSA version '%d.%d' is not supported (valid versions: %s)", major,
                          minor, vers);
    if (patch > t->patch)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "TOSA version '%d.%d.%d' is unknown (newest %d.%d is %d.%d.%d)", major,
                          minor, patch, major, minor, t->major, t->minor, t->patch);
    sp->major = major;
    sp->minor = minor;
    sp->patch = patch;
    *table = t;
    return TOSAC_OK;
}

/* Where another version defines ext: "1.1". */
static const char *ext_home(tosa_ext ext, char *buf, size_t size)
{
    for (int i = 0; i < N_TABLES; i++)
        if (tosa_spec_table_ext(tables[i], ext)) {
            snprintf(buf, size, "%d.%d", tables[i]->major, tables[i]->minor);
            return buf;
        }
    return "?";
}

static tosac_code parse_token(const char *tok, size_t len, const tosa_spec_version_table *t,
                              tosa_spec *sp, tosac_error *err)
{
    int q = (int)(len < QUOTE_MAX ? len : QUOTE_MAX);
    if (len == 0)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "empty token in spec string (a '+' at the end or two in a row)");
    bool dup = false;
    if (len == 3 && memcmp(tok, "INT", 3) == 0) {
        dup = sp->profiles & TOSA_FEAT_INT;
        sp->profiles |= TOSA_FEAT_INT;
    } else if (len == 2 && memcmp(tok, "FP", 2) == 0) {
        dup = sp->profiles & TOSA_FEAT_FP;
        sp->profiles |= TOSA_FEAT_FP;
    } else if (len == 2 && memcmp(tok, "8k", 2) == 0) {
        dup = sp->level == TOSA_LEVEL_8K;
        sp->level = TOSA_LEVEL_8K;
    } else if (len == 3 && memcmp(tok, "u55", 3) == 0) {
        dup = sp->u55;
        sp->u55 = true;
    } else {
        char name[32];
        int e = -1;
        if (len < sizeof name) {
            memcpy(name, tok, len);
            name[len] = '\0';
            e = tosa_ext_from_token(name);
        }
        char list[512];
        ext_list(t, 0, list, sizeof list);
        if (e < 0) {
            const char *twin = case_twin(tok, len);
            if (twin)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "unknown token '%.*s' (tokens are case-sensitive: did you mean "
                                  "'%s'?)", q, tok, twin);
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "unknown token '%.*s'; valid for TOSA %d.%d: profiles INT, FP; "
                              "extensions %s; level 8k; subset u55", q, tok, t->major, t->minor,
                              list);
        }
        if (!tosa_spec_table_ext(t, (tosa_ext)e)) {
            char home[16];
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "'%s' needs TOSA %s (this is %d.%d); valid extensions for %d.%d: %s",
                              name, ext_home((tosa_ext)e, home, sizeof home), t->major, t->minor,
                              t->major, t->minor, list);
        }
        dup = sp->extensions & (1u << e);
        sp->extensions |= 1u << e;
    }
    if (dup)
        return tosac_fail(err, TOSAC_ERR_INPUT, "duplicate token '%.*s' in spec string", q, tok);
    return TOSAC_OK;
}

/* Rules that need the whole string: profiles present, u55 integer-only, extension profiles. */
static tosac_code check_combination(const tosa_spec_version_table *t, tosa_spec *sp,
                                    tosac_error *err)
{
    if (sp->u55) {
        if (sp->profiles & TOSA_FEAT_FP)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "'u55' (Arm Ethos-U55) is integer-only and cannot be combined "
                              "with FP; valid: INT with u55");
        sp->profiles |= TOSA_FEAT_INT;
    }
    if (!sp->profiles)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "spec string names no profile; add INT and/or FP (e.g. TOSA-%d.%d+INT)",
                          t->major, t->minor);
    for (int e = 0; e < TOSA_EXT_COUNT; e++) {
        if (!(sp->extensions & (1u << e)))
            continue;
        uint32_t need = tosa_spec_table_ext(t, (tosa_ext)e)->profiles;
        if (need & sp->profiles)
            continue;
        char list[512];
        ext_list(t, sp->profiles, list, sizeof list);
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "'%s' needs the %s profile (spec has only %s); valid extensions with "
                          "%s in %d.%d: %s", tosa_ext_token((tosa_ext)e),
                          (need & TOSA_FEAT_INT) ? "INT" : "FP",
                          (sp->profiles & TOSA_FEAT_INT) ? "INT" : "FP",
                          (sp->profiles & TOSA_FEAT_INT) ? "INT" : "FP", t->major, t->minor,
                          list[0] ? list : "none");
    }
    return TOSAC_OK;
}

tosac_code tosa_spec_parse(const char *s, tosa_spec *out, tosac_error *err)
{
    if (!s || !*s)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "empty spec string (expected e.g. TOSA-1.0+INT)");
    for (const char *c = s; *c; c++)
        if (!isgraph((unsigned char)*c))
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "spec string has a space or non-printable character (byte 0x%02x "
                              "at offset %d)", (unsigned char)*c, (int)(c - s));
    if (strncmp(s, "TOSA-", 5) != 0)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "spec string '%.*s' does not start with 'TOSA-' (expected e.g. "
                          "TOSA-1.0+INT)", QUOTE_MAX, s);
    tosa_spec sp = {.patch = -1};
    const tosa_spec_version_table *t = NULL;
    const char *v = s + 5, *end = strchr(v, '+');
    size_t vlen = end ? (size_t)(end - v) : strlen(v);
    if (parse_version(v, vlen, &sp, &t, err))
        return err ? err->code : TOSAC_ERR_INPUT;
    while (end) {
        const char *tok = end + 1;
        end = strchr(tok, '+');
        size_t len = end ? (size_t)(end - tok) : strlen(tok);
        tosac_code rc = parse_token(tok, len, t, &sp, err);
        if (rc)
            return rc;
    }
    tosac_code rc = check_combination(t, &sp, err);
    if (rc)
        return rc;
    *out = sp;
    return TOSAC_OK;
}

int tosa_spec_to_string(const tosa_spec *spec, char *buf, size_t size)
{
    char tmp[256];
    size_t n = 0;
    n += (size_t)snprintf(tmp + n, sizeof tmp - n, "TOSA-%d.%d", spec->major, spec->minor);
    if (spec->patch >= 0)
        n += (size_t)snprintf(tmp + n, sizeof tmp - n, ".%d", spec->patch);
    if (spec->profiles & TOSA_FEAT_INT)
        n += (size_t)snprintf(tmp + n, sizeof tmp - n, "+INT");
    if (spec->profiles & TOSA_FEAT_FP)
        n += (size_t)snprintf(tmp + n, sizeof tmp - n, "+FP");
    for (int e = 0; e < TOSA_EXT_COUNT; e++)
        if (spec->extensions & (1u << e))
            n += (size_t)snprintf(tmp + n, sizeof tmp - n, "+%s", tosa_ext_token((tosa_ext)e));
    if (spec->level == TOSA_LEVEL_8K)
        n += (size_t)snprintf(tmp + n, sizeof tmp - n, "+8k");
    if (spec->u55)
        snprintf(tmp + n, sizeof tmp - n, "+u55");
    return snprintf(buf, size, "%s", tmp);
}

uint32_t tosa_spec_features(const tosa_spec *spec)
{
    uint32_t f = spec->profiles & (TOSA_FEAT_INT | TOSA_FEAT_FP);
    for (int e = 0; e < TOSA_EXT_COUNT; e++)
        if (spec->extensions & (1u << e))
            f |= TOSA_FEAT_EXT(e);
    if (f & MX_IMPLYING)
        f |= TOSA_FEAT_EXT(TOSA_EXT_MX_COMMON);
    return f;
}

bool tosa_spec_supports_integer(const tosa_spec *spec)
{
    return spec->profiles & TOSA_FEAT_INT;
}

bool tosa_spec_supports_float(const tosa_spec *spec)
{
    return spec->profiles & TOSA_FEAT_FP;
}

bool tosa_spec_has_ext(const tosa_spec *spec, tosa_ext ext)
{
    return (unsigned)ext < TOSA_EXT_COUNT && (tosa_spec_features(spec) & TOSA_FEAT_EXT(ext));
}

bool tosa_spec_supports_extension(const tosa_spec *spec, const char *name)
{
    int e = name ? tosa_ext_from_token(name) : -1;
    return e >= 0 && tosa_spec_has_ext(spec, (tosa_ext)e);
}

bool tosa_spec_is_u55_subset(const tosa_spec *spec)
{
    return spec->u55;
}

bool tosa_spec_keeps_int64(const tosa_spec *spec)
{
    /* EXT-INT64 goes with PRO-INT and PRO-FP alike: every integer i64 row of the 1.1 tables
     * (ADD, MUL, CAST, GATHER indices, ...) needs EXT-INT64 alone */
    return tosa_spec_has_ext(spec, TOSA_EXT_INT64);
}
