// The Philox kernels for x86-64-v3; see philox_isa.inc.
#include "core/base/philox.h"
#if defined(__x86_64__)
#define MHLA_PHILOX_ISA v3
#include "core/base/philox_isa.inc"
#endif
