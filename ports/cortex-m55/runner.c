/* The bare-metal runner: one program in read-only memory, one static arena, inputs and outputs
 * as .npy files on the host through semihosting. scripts/run-cortex-m55.sh writes the request
 * to m55-io.txt in QEMU's working directory, one line per item, fields separated by tabs:
 *
 *     i <TAB> NAME <TAB> PATH     an input: NAME empty = the next input not named (as tosac run)
 *     o <TAB> DIR                 where outputs go: DIR/<name>.npy, name sanitized as tosac run
 *     r                           run on the reference interpreter only (options.reference)
 *     k <TAB> VARIANT             force a kernel variant of src/kernels/isa.h (portable, helium)
 *
 * and the runner writes m55-stats.txt (arena and program bytes) once it ran. Errors are one
 * line, "tosac-m55: error: ...", and the exit status is tosac's: 0, 2 bad input, 1 otherwise. */
#include <stdint.h>
#include <string.h>

#include "insn_marks.h"
#include "kernels/isa.h"
#include "semihost.h"
#include "tosac/runtime.h"
#include "util/npy_header.h"

/* program.S (generated per program): the program, its arena and the arena's size. */
extern const unsigned char tosac_m55_program[], tosac_m55_program_end[];
extern unsigned char tosac_m55_arena[];
extern const uint32_t tosac_m55_arena_bytes;
/* resolver.c (generated): the program's operator families. */
const tosac_rt_op *tosac_m55_resolve(const char *op_type);

#define MAX_REQUEST 65536
#define MAX_INPUTS 64
#define HEAD_BYTES 4096 /* first read of an input: the header and the start of the data */

static char request[MAX_REQUEST + 1];
static unsigned char head[HEAD_BYTES];

static int fail(tosac_code code, const char *msg)
{
    char line[sizeof((tosac_error *)0)->msg + 32] = "tosac-m55: error: ";
    strncat(line, msg, sizeof line - strlen(line) - 1);
    sh_stderr(line);
    return code == TOSAC_ERR_INTERNAL ? 1 : 2;
}

static int fail_err(const tosac_error *err) { return fail(err->code, err->msg); }

/* "PATH: what" into err, with code. */
static tosac_code path_fail(tosac_error *err, tosac_code code, const char *path, const char *what)
{
    return tosac_fail(err, code, "%s: %s", path, what);
}

/* Reads the whole host file at path into buf (at most cap bytes); its length or -1. */
static long read_small_file(const char *path, char *buf, size_t cap)
{
    int fd = sh_open(path, SH_MODE_RB);
    if (fd < 0)
        return -1;
    long n = sh_flen(fd);
    if (n < 0 || (size_t)n > cap || sh_read(fd, buf, (size_t)n) != 0)
        n = -1;
    sh_close(fd);
    return n;
}

/* The .npy file at path into the runtime's input t, whose dtype and shape it must have. */
static tosac_code load_input(const char *path, const char *name, tosac_tensor *t,
                             tosac_error *err)
{
    int fd = sh_open(path, SH_MODE_RB);
    if (fd < 0)
        return path_fail(err, TOSAC_ERR_INPUT, path, "cannot open");
    long flen = sh_flen(fd);
    size_t first = flen < 0 ? 0 : (size_t)flen < HEAD_BYTES ? (size_t)flen : HEAD_BYTES;
    tosac_npy_info h;
    tosac_error local;
    tosac_error_clear(&local);
    tosac_code rc = TOSAC_OK;
    if (flen < 0 || sh_read(fd, head, first) != 0)
        rc = path_fail(err, TOSAC_ERR_INPUT, path, "cannot read");
    if (!rc && (rc = tosac_npy_parse_header(head, first, &h, &local)) == TOSAC_OK)
        rc = tosac_npy_check_size(&h, (size_t)flen, &local);
    if (rc && local.code)
        tosac_fail(err, rc, "%s: %s", path, local.msg);
    if (!rc && (h.dtype != t->dtype || !tosac_shape_equal(h.rank, h.shape, t->rank, t->shape))) {
        char want[128], got[128];
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: input '%s' is %s %s, the file holds %s %s",
                        path, name, tosac_dtype_numpy_name(t->dtype),
                        tosac_shape_str(t->rank, t->shape, want, sizeof want),
                        tosac_dtype_numpy_name(h.dtype),
                        tosac_shape_str(h.rank, h.shape, got, sizeof got));
    }
    if (!rc) {
        /* The data already read, then the rest straight into the arena. */
        size_t have = first - h.data_offset;
        if (have > h.data_bytes)
            have = h.data_bytes;
        memcpy(t->data, head + h.data_offset, have);
        if (h.data_bytes > have &&
            sh_read(fd, (unsigned char *)t->data + have, h.data_bytes - have) != 0)
            rc = path_fail(err, TOSAC_ERR_INPUT, path, "cannot read");
        if (t->dtype == TOSAC_DT_BOOL) /* 0/1, as tosac_npy_read gives */
            for (size_t i = 0; i < h.data_bytes; i++)
                ((unsigned char *)t->data)[i] = ((unsigned char *)t->data)[i] != 0;
    }
    sh_close(fd);
    return rc;
}

/* DIR/<name>.npy with every character outside [A-Za-z0-9_.-] of name replaced by '_'. */
static tosac_code output_path(const char *dir, const char *name, char *out, size_t cap,
                              tosac_error *err)
{
    size_t n = strlen(dir), k = strlen(name);
    if (n + 1 + (k < 255 ? k : 255) + 5 > cap)
        return tosac_fail(err, TOSAC_ERR_INPUT, "output path for '%s' is too long", name);
    memcpy(out, dir, n);
    out[n++] = '/';
    for (size_t i = 0; i < k && i < 255; i++) {
        char c = name[i];
        int keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '.' || c == '-';
        out[n++] = keep ? c : '_';
    }
    memcpy(out + n, ".npy", 5);
    return TOSAC_OK;
}

static tosac_code write_output(const char *path, const tosac_tensor *t, tosac_error *err)
{
    unsigned char hdr[TOSAC_NPY_HEADER_MAX];
    size_t hlen = tosac_npy_format_header(t->dtype, t->rank, t->shape, hdr);
    if (!hlen)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "cannot write %s tensors as .npy",
                          tosac_dtype_name(t->dtype));
    size_t bytes = (size_t)tosac_tensor_numel(t) * tosac_dtype_size(t->dtype);
    int fd = sh_open(path, SH_MODE_WB);
    if (fd < 0)
        return path_fail(err, TOSAC_ERR_INPUT, path, "cannot create");
    int bad = sh_write(fd, hdr, hlen) != 0 || sh_write(fd, t->data, bytes) != 0;
    bad |= sh_close(fd) != 0;
    return bad ? path_fail(err, TOSAC_ERR_INTERNAL, path, "cannot write") : TOSAC_OK;
}

/* The next tab- or newline-ended field of *p (terminated in place). */
static char *field(char **p)
{
    char *s = *p;
    size_t n = strcspn(s, "\t\n");
    *p = s + n + (s[n] != '\0');
    s[n] = '\0';
    return s;
}

/* Binds every "i" line of the request to an input slot (named first by name, then the rest in
 * order) and loads it; *outdir from the "o" line. */
static tosac_code load_inputs(tosac_rt *rt, char *req, const char **outdir, tosac_error *err)
{
    int n_in = tosac_rt_n_inputs(rt);
    const char *given[MAX_INPUTS] = {0};
    if (n_in > MAX_INPUTS)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "more than %d inputs", MAX_INPUTS);
    while (*req) {
        char *kind = field(&req);
        if (strcmp(kind, "o") == 0) {
            *outdir = field(&req);
            continue;
        }
        if (strcmp(kind, "r") == 0) /* read_options */
            continue;
        if (strcmp(kind, "k") == 0) {
            field(&req);
            continue;
        }
        if (strcmp(kind, "i") != 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "m55-io.txt: unknown line kind '%s'", kind);
        const char *name = field(&req), *path = field(&req);
        int slot = -1;
        for (int i = 0; i < n_in && slot < 0; i++)
            if (*name ? strcmp(tosac_rt_input_name(rt, i), name) == 0 : !given[i])
                slot = i;
        if (slot < 0 && *name)
            return tosac_fail(err, TOSAC_ERR_INPUT, "there is no input named '%s'", name);
        if (slot < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "more inputs given than there are (%d)",
                              n_in);
        if (given[slot])
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is given twice", name);
        given[slot] = path;
        tosac_code rc = load_input(path, tosac_rt_input_name(rt, slot), tosac_rt_input(rt, slot),
                                   err);
        if (rc)
            return rc;
    }
    for (int i = 0; i < n_in; i++)
        if (!given[i])
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is not given (use --input "
                              "%s=FILE.npy)", tosac_rt_input_name(rt, i),
                              tosac_rt_input_name(rt, i));
    return *outdir ? TOSAC_OK : tosac_fail(err, TOSAC_ERR_INPUT, "m55-io.txt: no output dir");
}

/* The request's run options ("r", "k" lines), before init. */
static tosac_code read_options(const char *req, tosac_rt_options *o, tosac_error *err)
{
    while (*req) {
        size_t n = strcspn(req, "\n");
        if (n == 1 && req[0] == 'r') {
            o->reference = 1;
        } else if (n > 2 && strncmp(req, "k\t", 2) == 0) {
            char name[32];
            int isa = -1;
            if (n - 2 < sizeof name) {
                memcpy(name, req + 2, n - 2);
                name[n - 2] = '\0';
                isa = kern_isa_from_name(name);
            }
            if (isa < 0 || kern_isa_force((kern_isa)isa))
                return tosac_fail(err, TOSAC_ERR_INPUT, "m55-io.txt: kernel variant '%.*s' is "
                                  "not in this image", (int)(n - 2 < 31 ? n - 2 : 31), req + 2);
        }
        req += n + (req[n] != '\0');
    }
    return TOSAC_OK;
}

static void write_stats(size_t need, int reference)
{
    char text[224] = "arena_bytes ", num[24], *p;
    size_t values[3] = {need, tosac_m55_arena_bytes,
                        (size_t)(tosac_m55_program_end - tosac_m55_program)};
    const char *keys[3] = {"", "\nimage_arena_bytes ", "\nprogram_bytes "};
    for (int k = 0; k < 3; k++) {
        strcat(text, keys[k]);
        p = num + sizeof num;
        *--p = '\0';
        size_t v = values[k];
        do
            *--p = (char)('0' + v % 10);
        while (v /= 10);
        strcat(text, p);
    }
    strcat(text, "\nkernels ");
    strcat(text, reference ? "reference" : kern_isa_name(kern_isa_active()));
    strcat(text, "\n");
    int fd = sh_open("m55-stats.txt", SH_MODE_WB);
    if (fd >= 0) {
        sh_write(fd, text, strlen(text));
        sh_close(fd);
    }
}

int main(void)
{
    tosac_error err;
    tosac_error_clear(&err);
    const void *prog = tosac_m55_program;
    size_t len = (size_t)(tosac_m55_program_end - tosac_m55_program), need = 0;
    long n = read_small_file("m55-io.txt", request, MAX_REQUEST);
    if (n < 0)
        return fail(TOSAC_ERR_INPUT, "cannot read m55-io.txt in the working directory");
    request[n] = '\0';
    if (tosac_rt_arena_size(prog, len, &need, &err))
        return fail_err(&err);
    if (need > tosac_m55_arena_bytes) {
        tosac_fail(&err, TOSAC_ERR_INTERNAL, "the program needs an arena of %zu bytes, the "
                   "image has %lu", need, (unsigned long)tosac_m55_arena_bytes);
        return fail_err(&err);
    }
    tosac_rt *rt;
    const char *outdir = NULL;
    tosac_rt_options o = {tosac_m55_resolve, 0, NULL};
    if (read_options(request, &o, &err))
        return fail_err(&err);
    tosac_m55_mark_begin();
    tosac_code rc = tosac_rt_init_ex(prog, len, tosac_m55_arena, tosac_m55_arena_bytes, &o, &rt,
                                     &err);
    tosac_m55_mark_end();
    if (rc || load_inputs(rt, request, &outdir, &err))
        return fail_err(&err);
    tosac_m55_mark_begin();
    rc = tosac_rt_invoke(rt, &err);
    tosac_m55_mark_end();
    if (rc)
        return fail_err(&err);
    for (int i = 0; i < tosac_rt_n_outputs(rt); i++) {
        char path[1024];
        if (output_path(outdir, tosac_rt_output_name(rt, i), path, sizeof path, &err) ||
            write_output(path, tosac_rt_output(rt, i), &err))
            return fail_err(&err);
    }
    write_stats(need, o.reference);
    return 0;
}
