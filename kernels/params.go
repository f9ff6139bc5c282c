package kernels

// Params is the Go twin of gr_gemm_params (src/gemm_params.h), the by-value
// parameter of every kernel. internal/abicheck's test asserts that both have
// the same size and field offsets. Pointers are device addresses.
type Params struct {
	A, B, C, D, Bias, Workspace uintptr
	M, N, K                     int64
	LDA, LDB, LDC               int64
	KPerSplit                   int64
	Alpha, Beta                 float32
	SplitK                      int32
	// TailParts is the tail split S of a stream-K kernel of planned parts
	// (KernelSpec.TailParts); zero for other kernels.
	TailParts int32
	Pad       [2]int32
	// TMAA and TMAB are the tensor maps of A and B for kernels that load
	// through the tensor memory accelerator (KernelSpec.TMABox set); the
	// launch encodes them. Zero for other kernels.
	TMAA, TMAB TensorMap
	// ScaleA and ScaleB are the device addresses of the e4m3 scales and
	// Scaling says how the kernel applies them (gemm_params.h's
	// GR_SCALE_*: ScaleFolded, ScaleTensor, ScaleRow, ScaleBlock); zero for
	// 16-bit inputs.
	ScaleA, ScaleB uintptr
	Scaling        int32
	Pad3           int32
	// Flags is the device address of StreamKFlags 32-bit words, zero
	// between launches, that stream-K kernels (Reduction ReduceStreamK) use
	// as semaphores and leave zero; the engine zeroes them once, at
	// allocation. Zero for other kernels.
	Flags uintptr
	// PackA, PackB, PackLDA, PackLDB and PackK are, for a repack kernel
	// (KernelSpec.RepackKernel), the operands as the caller passed them (0:
	// not copied), their leading dimensions and K; A, B, LDA, LDB and K then
	// describe the copies in the workspace. Zero for other kernels.
	PackA, PackB            uintptr
	PackLDA, PackLDB, PackK int64
	Pad2                    [14]int32
	// TMAD is the tensor map of D for kernels that store D through the
	// tensor memory accelerator (KernelSpec.TMAStoreBox set); the launch
	// encodes it. Zero for other kernels.
	TMAD TensorMap
}

// StreamKFlags is how many flag words (Params.Flags) a stream-K launch may
// use: one per block and consumer warpgroup (gemm_params.h's
// GR_STREAMK_FLAGS).
const StreamKFlags = 1024

// The values of Params.Scaling (gemm_params.h's GR_SCALE_*).
const (
	ScaleFolded int32 = iota // per-tensor scalars folded into Alpha
	ScaleTensor              // *ScaleA · *ScaleB, device scalars
	ScaleRow                 // ScaleA[m] · ScaleB[n]
	ScaleBlock               // 1×128 blocks of A, 128×128 of B, per k-block
)

// TensorMap is the storage of one CUtensorMap (gr_tensor_map): 128 opaque
// bytes the driver's cuTensorMapEncodeTiled fills.
type TensorMap [16]uint64
