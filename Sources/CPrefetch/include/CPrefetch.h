#ifndef GEOTRIGGER_CPREFETCH_H
#define GEOTRIGGER_CPREFETCH_H

/// Asks the processor to bring the cache line holding `p` into every cache level, without waiting for it and
/// without faulting (an invalid address is ignored). Swift has no prefetch of its own.
static inline void geotrigger_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

/// Returns the free pages at the top of glibc's heaps to the kernel (`malloc_trim(0)`); nothing elsewhere. Swift's
/// Glibc module does not export it.
void geotrigger_release_free_memory(void);

/// Has glibc's malloc grow its heaps by at least `bytes` more than asked (`mallopt(M_TOP_PAD, bytes)`); nothing
/// elsewhere. Swift's Glibc module does not export it.
void geotrigger_pad_heap_growth(int bytes);

#endif
