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
	Reserved                    int32
	Pad                         [2]int32
	// TMAA and TMAB are the tensor maps of A and B for kernels that load
	// through the tensor memory accelerator (KernelSpec.TMABox set); the
	// launch encodes them. Zero for other kernels.
	TMAA, TMAB TensorMap
}

// TensorMap is the storage of one CUtensorMap (gr_tensor_map): 128 opaque
// bytes the driver's cuTensorMapEncodeTiled fills.
type TensorMap [16]uint64
