/* What the runtime must never reference: an allocator and stdio. */
#include <stdio.h>
#include <stdlib.h>

int dirty(int n)
{
    int *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return -1;
    printf("%d\n", n);
    free(p);
    return 0;
}
