#ifndef GEOTRIGGER_CPREFETCH_H
#define GEOTRIGGER_CPREFETCH_H

/// Asks the processor to bring the cache line holding `p` into every cache level, without waiting for it and
/// without faulting (an invalid address is ignored). Swift has no prefetch of its own.
static inline void geotrigger_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

#endif
