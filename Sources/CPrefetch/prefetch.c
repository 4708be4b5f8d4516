// The header's inline function is the whole module; a C target needs one translation unit.
#include "CPrefetch.h"
