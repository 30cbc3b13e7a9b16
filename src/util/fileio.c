#include "util/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tosac_msg_path(const char *path, char *buf)
{
    size_t n = strlen(path);
    if (n < TOSAC_MSG_PATH)
        return path;
    snprintf(buf, TOSAC_MSG_PATH, "...%s", path + n - (TOSAC_MSG_PATH - 4));
    return buf;
}

tosac_code tosac_read_file(const char *path, void **data, size_t *len, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH];
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        const char *why = strerror(errno);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot open '%s': %s", tosac_msg_path(path, mp), why);
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return tosac_fail(err, TOSAC_ERR_INPUT, "'%s' is not a regular file", tosac_msg_path(path, mp));
    }
    if ((unsigned long long)st.st_size > TOSAC_MAX_FILE_BYTES) {
        fclose(f);
        return tosac_fail(err, TOSAC_ERR_INPUT, "'%s' is too large", tosac_msg_path(path, mp));
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        fclose(f);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory reading '%s'", tosac_msg_path(path, mp));
    }
    if (n && fread(buf, 1, n, f) != n) {
        free(buf);
        fclose(f);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot read '%s'", tosac_msg_path(path, mp));
    }
    fclose(f);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return TOSAC_OK;
}

tosac_code tosac_write_file_parts(const char *path, const void *const *parts, const size_t *lens,
                                  int nparts, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH];
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    snprintf(tmp, plen + 32, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        const char *why = strerror(errno);
        tosac_fail(err, TOSAC_ERR_INPUT, "cannot write '%s': %s", tosac_msg_path(path, mp), why);
        free(tmp);
        return err ? err->code : TOSAC_ERR_INPUT;
    }
    int ok = 1;
    for (int i = 0; i < nparts && ok; i++)
        if (lens[i] && fwrite(parts[i], 1, lens[i], f) != lens[i])
            ok = 0;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        free(tmp);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot write '%s': %s", tosac_msg_path(path, mp), strerror(e));
    }
    free(tmp);
    return TOSAC_OK;
}

tosac_code tosac_write_file(const char *path, const void *data, size_t len, tosac_error *err)
{
    const void *parts[1] = {data};
    return tosac_write_file_parts(path, parts, &len, 1, err);
}

tosac_code tosac_mkdirs(const char *path, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH];
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    if (!p)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    memcpy(p, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] == '/' || p[i] == '\0') {
            char c = p[i];
            p[i] = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                const char *why = strerror(errno);
                tosac_fail(err, TOSAC_ERR_INPUT, "cannot create directory '%s': %s",
                           tosac_msg_path(p, mp), why);
                free(p);
                return TOSAC_ERR_INPUT;
            }
            p[i] = c;
        }
    }
    free(p);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return tosac_fail(err, TOSAC_ERR_INPUT, "'%s' is not a directory", tosac_msg_path(path, mp));
    return TOSAC_OK;
}

void tosac_sanitize_name(const char *name, char *out, size_t outlen)
{
    size_t i = 0;
    if (outlen == 0)
        return;
    for (; name[i] && i + 1 < outlen; i++) {
        char c = name[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
        out[i] = ok ? c : '_';
    }
    out[i] = '\0';
}
