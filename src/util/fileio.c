#define _GNU_SOURCE /* realpath, renameat2 */
#include "util/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h> /* AT_FDCWD */
#include <sys/stat.h>
#include <unistd.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

const char *tosac_msg_path(const char *path, char *buf)
{
    size_t n = strlen(path);
    if (n < TOSAC_MSG_PATH)
        return path;
    snprintf(buf, TOSAC_MSG_PATH, "...%s", path + n - (TOSAC_MSG_PATH - 4));
    return buf;
}

/* path opened read-only: a regular file of at most TOSAC_MAX_FILE_BYTES (*n bytes); -1 with
 * err set otherwise. */
static int open_regular(const char *path, size_t *n, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        const char *why = strerror(errno);
        tosac_fail(err, TOSAC_ERR_INPUT, "cannot open '%s': %s", tosac_msg_path(path, mp), why);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        tosac_fail(err, TOSAC_ERR_INPUT, "'%s' is not a regular file", tosac_msg_path(path, mp));
        return -1;
    }
    if ((unsigned long long)st.st_size > TOSAC_MAX_FILE_BYTES) {
        close(fd);
        tosac_fail(err, TOSAC_ERR_INPUT, "'%s' is too large", tosac_msg_path(path, mp));
        return -1;
    }
    *n = (size_t)st.st_size;
    return fd;
}

tosac_code tosac_read_file(const char *path, void **data, size_t *len, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH];
    size_t n;
    *data = NULL;
    *len = 0;
    int fd = open_regular(path, &n, err);
    if (fd < 0)
        return TOSAC_ERR_INPUT; /* open_regular failed */
    char *buf = malloc(n + 1);
    if (!buf) {
        close(fd);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory reading '%s'", tosac_msg_path(path, mp));
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r > 0)
            got += (size_t)r;
        else if (r == 0 || errno != EINTR)
            break;
    }
    close(fd);
    if (got != n) {
        free(buf);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot read '%s'", tosac_msg_path(path, mp));
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return TOSAC_OK;
}

tosac_code tosac_view_file(const char *path, tosac_file_view *v, tosac_error *err)
{
    memset(v, 0, sizeof *v);
#if defined(__unix__) || defined(__APPLE__)
    size_t n;
    int fd = open_regular(path, &n, err);
    if (fd < 0)
        return TOSAC_ERR_INPUT; /* open_regular failed */
    if (n == 0) { /* mmap refuses a length of 0 */
        close(fd);
        v->data = "";
        return TOSAC_OK;
    }
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE; /* one call maps every page: no fault per 64 KB */
#endif
    void *p = mmap(NULL, n, PROT_READ, flags, fd, 0);
    close(fd);
    if (p != MAP_FAILED) {
        v->data = p;
        v->len = n;
        v->mapped = true;
        return TOSAC_OK;
    }
#endif
    /* no mapping (a file system without it): read a copy */
    tosac_code rc = tosac_read_file(path, &v->owned, &v->len, err);
    v->data = v->owned;
    return rc;
}

void tosac_view_release(tosac_file_view *v)
{
    if (!v)
        return;
#if defined(__unix__) || defined(__APPLE__)
    if (v->mapped)
        munmap((void *)v->data, v->len);
#endif
    free(v->owned);
    memset(v, 0, sizeof *v);
}

/* rename(tmp, path), as atomic. An existing regular file at path is swapped with tmp
 * (RENAME_EXCHANGE) and then removed under tmp's name: renamed over a file, ext4
 * (auto_da_alloc) starts writing the new file back inside rename(), about 10 ms for a 12 MB
 * program, where compile has no use for it (no fsync either). */
static int replace_file(const char *tmp, const char *path)
{
#ifdef RENAME_EXCHANGE
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
        if (unlink(tmp) == 0)
            return 0;
        /* not removable (replaced meanwhile by a folder?): swap back, then the plain way */
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) != 0)
            return -1;
    }
#endif
    return rename(tmp, path);
}

/* Writes the parts to a fresh "<path>.tmp<pid>" (malloc'd into *tmp_out). */
static tosac_code write_temp(const char *path, const void *const *parts, const size_t *lens,
                             int nparts, char **tmp_out, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH];
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    *tmp_out = NULL;
    if (!tmp)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    snprintf(tmp, plen + 32, "%s.tmp%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        const char *why = strerror(errno);
        free(tmp);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot write '%s': %s", tosac_msg_path(path, mp),
                          why);
    }
    /* write(2) directly: one call for a whole part (stdio split off its tail) */
    int ok = 1, e = 0;
    for (int i = 0; i < nparts && ok; i++) {
        const char *b = parts[i];
        for (size_t left = lens[i]; left && ok;) {
            ssize_t w = write(fd, b, left);
            if (w > 0) {
                b += w;
                left -= (size_t)w;
            } else if (w == 0 || errno != EINTR) {
                ok = 0;
                e = w == 0 ? EIO : errno;
            }
        }
    }
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        remove(tmp);
        free(tmp);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot write '%s': %s", tosac_msg_path(path, mp),
                          strerror(e));
    }
    *tmp_out = tmp;
    return TOSAC_OK;
}

tosac_code tosac_write_file_parts(const char *path, const void *const *parts, const size_t *lens,
                                  int nparts, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH], *tmp;
    tosac_code rc = write_temp(path, parts, lens, nparts, &tmp, err);
    if (rc)
        return rc;
    if (replace_file(tmp, path) != 0) {
        const char *why = strerror(errno);
        remove(tmp);
        free(tmp);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot write '%s': %s", tosac_msg_path(path, mp),
                          why);
    }
    free(tmp);
    return TOSAC_OK;
}

tosac_code tosac_stage_file(tosac_stage *s, const char *path, const void *data, size_t len,
                            tosac_error *err)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        tosac_staged *f = realloc(s->files, (size_t)cap * sizeof *f);
        if (!f)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        s->files = f;
        s->cap = cap;
    }
    tosac_staged *f = &s->files[s->n];
    const void *parts[1] = {data};
    f->path = strdup(path);
    if (!f->path)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = write_temp(path, parts, &len, 1, &f->tmp, err);
    if (rc) {
        free(f->path);
        return rc;
    }
    s->n++;
    return TOSAC_OK;
}

/* Every missing directory on the way to path, outermost first, into s->dirs. */
static tosac_code note_missing_dirs(tosac_stage *s, const char *path, tosac_error *err)
{
    size_t n = strlen(path);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        struct stat st;
        char *d = strndup(path, i);
        if (!d)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        if (stat(d, &st) == 0) {
            free(d);
            continue;
        }
        char **dirs = realloc(s->dirs, ((size_t)s->n_dirs + 1) * sizeof *dirs);
        if (!dirs) {
            free(d);
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        }
        s->dirs = dirs;
        s->dirs[s->n_dirs++] = d;
    }
    return TOSAC_OK;
}

tosac_code tosac_stage_mkdirs(tosac_stage *s, const char *dir, tosac_error *err)
{
    tosac_code rc = note_missing_dirs(s, dir, err);
    return rc ? rc : tosac_mkdirs(dir, err);
}

static void stage_free(tosac_stage *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->files[i].path);
        free(s->files[i].tmp);
    }
    for (int i = 0; i < s->n_dirs; i++)
        free(s->dirs[i]);
    free(s->files);
    free(s->dirs);
    memset(s, 0, sizeof *s);
}

void tosac_stage_abort(tosac_stage *s)
{
    for (int i = 0; i < s->n; i++)
        remove(s->files[i].tmp);
    for (int i = s->n_dirs - 1; i >= 0; i--)
        rmdir(s->dirs[i]); /* only if still empty: never anyone else's files */
    stage_free(s);
}

tosac_code tosac_stage_commit(tosac_stage *s, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH];
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < s->n; i++) {
        if (rc) {
            remove(s->files[i].tmp);
        } else if (replace_file(s->files[i].tmp, s->files[i].path) != 0) {
            const char *why = strerror(errno);
            remove(s->files[i].tmp);
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "cannot write '%s': %s",
                            tosac_msg_path(s->files[i].path, mp), why);
        }
    }
    stage_free(s);
    return rc;
}

bool tosac_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return strcmp(a, b) == 0;
}

bool tosac_file_within(const char *path, const char *a)
{
    if (tosac_same_file(path, a))
        return true;
    struct stat sa, sp;
    if (stat(a, &sa) != 0 || !S_ISDIR(sa.st_mode) || stat(path, &sp) != 0)
        return false;
    char *rp = realpath(path, NULL), *ra = realpath(a, NULL);
    size_t n = ra ? strlen(ra) : 0;
    bool in = rp && ra && strncmp(rp, ra, n) == 0 && (rp[n] == '/' || (n == 1 && ra[0] == '/'));
    free(rp);
    free(ra);
    return in;
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
