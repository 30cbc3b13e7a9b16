#include "cli.h"
#include "util/fileio.h"
#include "util/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Messages quote user text (paths, spec strings, tensor names from files): control
 * characters are escaped so the error stays one line and cannot move the cursor. */
int cli_error(tosac_code code, const char *fmt, ...)
{
    char msg[1024], line[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = (size_t)snprintf(line, sizeof line, "tosac: error: ");
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\n')
            n += (size_t)snprintf(line + n, sizeof line - n, "\\n");
        else if (*p == '\t')
            n += (size_t)snprintf(line + n, sizeof line - n, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(line + n, sizeof line - n, "\\x%02x", *p);
        else
            line[n++] = (char)*p;
    }
    line[n++] = '\n';
    /* one write: the line is not interleaved with other output */
    fwrite(line, 1, n, stderr);
    return tosac_exit_status(code);
}

int cli_report(const tosac_error *err)
{
    return cli_error(err->code ? err->code : TOSAC_ERR_INTERNAL, "%s",
                     err->msg[0] ? err->msg : "unknown failure");
}

void cli_put_json_str(FILE *f, const char *s)
{
    char small[256];
    size_t need = tosac_json_escape(s, small, sizeof small);
    char *big = need < sizeof small ? NULL : malloc(need + 1);
    if (big)
        tosac_json_escape(s, big, need + 1);
    fputs(big ? big : need < sizeof small ? small : "\"\"", f);
    free(big);
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

tosac_code cli_detect_file(const char *path, cli_file_kind *kind, tosac_error *err)
{
    unsigned char head[8] = {0};
    char mp[TOSAC_MSG_PATH];
    *kind = CLI_FILE_UNKNOWN;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return tosac_fail(err, TOSAC_ERR_INPUT, "'%s' is a directory, not a file",
                          tosac_msg_path(path, mp));
    FILE *f = fopen(path, "rb");
    if (!f) {
        const char *why = strerror(errno);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot open '%s': %s", tosac_msg_path(path, mp), why);
    }
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    size_t plen = strlen(path);
    if (n >= 8 && memcmp(head + 4, "TOSA", 4) == 0)
        *kind = CLI_FILE_TOSA;
    else if (n >= 8 && memcmp(head, "TOSACPRG", 8) == 0)
        *kind = CLI_FILE_PROGRAM;
    else if ((plen > 5 && strcmp(path + plen - 5, ".onnx") == 0) || (n > 0 && head[0] == 0x08))
        *kind = CLI_FILE_ONNX;
    else
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "'%s' is not a .tosa graph, a tosac program or an ONNX model",
                          tosac_msg_path(path, mp));
    return TOSAC_OK;
}

const char *cli_name_list(const char *const *names, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < n && len > 8; i++) {
        int w = snprintf(buf + used, len - used, "%s'%s'", i ? ", " : "", names[i] ? names[i] : "");
        if (w < 0 || used + (size_t)w + 6 >= len) {
            snprintf(buf + used, len - used, "%s...", i ? ", " : "");
            break;
        }
        used += (size_t)w;
    }
    return buf;
}
