package dispatch

import "github.com/gemmroute/gemmroute/kernels"

// DType is an element type of a GEMM operand (kernels.DType: the kernel set
// and the problems it serves share one vocabulary).
type DType = kernels.DType

// The element types: inputs F16, BF16 or E4M3; outputs F16 or BF16.
const (
	F16  = kernels.F16  // IEEE binary16
	BF16 = kernels.BF16 // bfloat16
	E4M3 = kernels.E4M3 // FP8 e4m3 (sm_89 and newer), needs scales
)

// Types is what a GEMM computes in: input and output dtypes and the e4m3
// scaling (kernels.Types; its text form is "bf16", "e4m3→bf16/row", …).
// Problem.Validate applies its rules; kernels.ParseTypes reads its text.
type Types = kernels.Types

// Scaling is how e4m3 inputs are dequantised (kernels.Scaling); see
// Problem.
type Scaling = kernels.Scaling

// The scaling modes of e4m3 inputs.
const (
	ScalingTensor = kernels.ScalingTensor // one scale per operand: ScaleA/ScaleB, or ScaleAPtr/ScaleBPtr → 1 float32
	ScalingRow    = kernels.ScalingRow    // ScaleAPtr [M] (per token), ScaleBPtr [N] (per output channel)
	ScalingBlock  = kernels.ScalingBlock  // 1×128 blocks of A, 128×128 of B; ScaleBlock = 128
)

// Arch is a compute capability written as major*10+minor (kernels.Arch).
type Arch = kernels.Arch

// The architectures gemmroute plans for.
const (
	SM80 = kernels.SM80 // A100
	SM86 = kernels.SM86 // RTX 30xx, A10, A40
	SM89 = kernels.SM89 // L4, L40, RTX 40xx
	SM90 = kernels.SM90 // H100, H200
)
