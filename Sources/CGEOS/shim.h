// Only the reentrant (_r) API is visible to Swift: one GEOS context per thread.
#define GEOS_USE_ONLY_R_API 1
#include <geos_c.h>
