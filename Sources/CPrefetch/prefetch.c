#include "CPrefetch.h"
#include <stdlib.h> // defines __GLIBC__ on glibc
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void geotrigger_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void geotrigger_pad_heap_growth(int bytes) {
#if defined(__GLIBC__)
    mallopt(M_TOP_PAD, bytes);
#else
    (void)bytes;
#endif
}
