/* String interning for op types and domains: one canonical copy per distinct string, so
 * passes compare ops by pointer. The pool only grows; it is reachable from a static, so leak
 * checkers do not report it. */
#include "tosac/ir.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static char **pool;     /* open-addressed hash set of strings */
static size_t pool_cap; /* power of two */
static size_t pool_count;

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static int grow(void)
{
    size_t ncap = pool_cap ? pool_cap * 2 : 256;
    char **np = calloc(ncap, sizeof *np);
    if (!np)
        return -1;
    for (size_t i = 0; i < pool_cap; i++) {
        if (!pool[i])
            continue;
        size_t h = hash_str(pool[i]) & (ncap - 1);
        while (np[h])
            h = (h + 1) & (ncap - 1);
        np[h] = pool[i];
    }
    free(pool);
    pool = np;
    pool_cap = ncap;
    return 0;
}

const char *ir_intern(const char *s)
{
    if (!s)
        return NULL;
    const char *found = NULL;
    pthread_mutex_lock(&pool_lock);
    if ((pool_count + 1) * 2 > pool_cap && grow() != 0)
        goto out;
    size_t h = hash_str(s) & (pool_cap - 1);
    while (pool[h]) {
        if (strcmp(pool[h], s) == 0) {
            found = pool[h];
            goto out;
        }
        h = (h + 1) & (pool_cap - 1);
    }
    size_t len = strlen(s);
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, s, len + 1);
        pool[h] = copy;
        pool_count++;
        found = copy;
    }
out:
    pthread_mutex_unlock(&pool_lock);
    return found;
}
