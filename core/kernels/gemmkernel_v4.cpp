// The accumulation GEMM for x86-64-v4 (AVX-512); see gemmkernel_isa.inc.
#define MHLA_GEMM_ISA v4
#define MHLA_GEMM_LANES 8
#include "gemmkernel_isa.inc"
