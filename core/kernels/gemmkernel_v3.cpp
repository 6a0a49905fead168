// The accumulation GEMM for x86-64-v3 (AVX2, FMA); see gemmkernel_isa.inc.
#define MHLA_GEMM_ISA v3
#define MHLA_GEMM_LANES 4
#include "gemmkernel_isa.inc"
