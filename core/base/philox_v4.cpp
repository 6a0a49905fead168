// The Philox kernels for x86-64-v4; see philox_isa.inc.
#include "core/base/philox.h"
#if defined(__x86_64__)
#define MHLA_PHILOX_ISA v4
#include "core/base/philox_isa.inc"
#endif
