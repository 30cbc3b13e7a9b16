/* Whole-file reading and atomic writing (temp file + rename: no half-written outputs). */
#ifndef TOSAC_UTIL_FILEIO_H
#define TOSAC_UTIL_FILEIO_H

#include "tosac/limits.h"
#include <stdbool.h>
#include <stddef.h>
#include "tosac/error.h"

#define TOSAC_MAX_FILE_BYTES TOSAC_LIMIT_FILE_BYTES

/* Reads path into a malloc'd buffer (NUL-terminated for convenience; *len excludes the NUL). */
tosac_code tosac_read_file(const char *path, void **data, size_t *len, tosac_error *err);

/* A whole file, read-only: mapped where the host can (no copy; the pages are the page
 * cache's), else read into a malloc'd buffer. The same checks and messages as
 * tosac_read_file; an empty file gives len 0 and a valid data pointer. The file must not be
 * truncated by another process while viewed (the mapping would fault). */
typedef struct tosac_file_view {
    const void *data;
    size_t len;
    void *owned;  /* the malloc'd copy, or NULL */
    bool mapped;  /* data is a mapping of len bytes */
} tosac_file_view;
tosac_code tosac_view_file(const char *path, tosac_file_view *v, tosac_error *err);
/* Releases a view (a zeroed one, or NULL, too); it is zeroed again. */
void tosac_view_release(tosac_file_view *v);

/* Writes the concatenation of parts to path atomically. */
tosac_code tosac_write_file_parts(const char *path, const void *const *parts, const size_t *lens,
                                  int nparts, tosac_error *err);
tosac_code tosac_write_file(const char *path, const void *data, size_t len, tosac_error *err);

/* The outputs of one command, put in place together: each file is written under a temporary
 * name next to its target ("<path>.tmp<pid>"); commit renames them all, abort removes them
 * and the directories tosac_stage_mkdirs created (when empty). Zero-initialize. */
typedef struct tosac_staged {
    char *path, *tmp;
} tosac_staged;
typedef struct tosac_stage {
    tosac_staged *files;
    int n, cap;
    char **dirs;    /* created by tosac_stage_mkdirs, outermost first */
    int n_dirs;
} tosac_stage;
tosac_code tosac_stage_file(tosac_stage *s, const char *path, const void *data, size_t len,
                            tosac_error *err);
tosac_code tosac_stage_mkdirs(tosac_stage *s, const char *dir, tosac_error *err);
/* Both end the stage (it is empty again). */
tosac_code tosac_stage_commit(tosac_stage *s, tosac_error *err);
void tosac_stage_abort(tosac_stage *s);

/* True when a and b name the same existing file (same device and inode: links and other
 * spellings included), or are the same string. */
bool tosac_same_file(const char *a, const char *b);
/* True when path names an existing file that is a or lies (at any depth) inside a, when a
 * is a folder: writing path would overwrite one of the folder's inputs. */
bool tosac_file_within(const char *path, const char *a);

/* mkdir -p for one directory level chain; ok if it exists. */
tosac_code tosac_mkdirs(const char *path, tosac_error *err);

/* A path for an error message: itself, or "..." and its tail when it is so long that the
 * reason after it would be cut off (messages hold 512 bytes). buf needs TOSAC_MSG_PATH bytes. */
#define TOSAC_MSG_PATH 200
const char *tosac_msg_path(const char *path, char *buf);

/* Replace characters outside [A-Za-z0-9_.-] with '_' (output file names). */
void tosac_sanitize_name(const char *name, char *out, size_t outlen);

#endif
