// Package dispatch runs a GEMM on an NVIDIA GPU with the precompiled kernel
// that is fastest for its shape, launched asynchronously on the caller's
// stream. The choice comes from a table of M buckets (buckets.yaml,
// embedded) that autotune measured; shapes it does not hold fall back to a
// default entry, then to an analytic model over the kernels that fit.
//
// # A GEMM on a stream
//
// Open an Engine on a device, describe each call as a Problem over device
// pointers in the nn.Linear layout (D[M,N] = Alpha·A[M,K]·B[N,K]ᵀ +
// Beta·C + Bias), and call GEMM:
//
//	eng, err := dispatch.Open(0, dispatch.Options{}) // embedded kernels and table
//	if err != nil { ... }
//	defer eng.Close()
//	p := dispatch.Problem{M: tokens, N: out, K: in, Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16},
//		LDA: in, LDB: in, LDC: out, A: x, B: w, D: y, Alpha: 1}
//	err = eng.GEMM(&p, s) // validates, plans, launches; never synchronises
//
// The engine retains the device's primary context and makes it current on
// the calling thread for each driver call, on whatever thread the call
// runs, and makes the thread's previous context (or none) current again
// before the call returns (see Engine): allocate the operands in that
// context (with gorgonia.org/cu: Device.RetainPrimaryCtx, and StreamOf for
// its streams). A stream gets its split-K workspace on its first GEMM that
// needs one (Options.WorkspaceBytes; Reserve sets another size). A shape
// seen before (same N, K, dtypes, alignment and M's power-of-two range)
// plans from a cache without allocating. Engine.Capture records GEMMs into
// a Graph that Graph.Launch replays.
//
// # Planning without a GPU
//
// Planning needs no GPU and works in a -tags nocuda build:
// NewPlanner(catalog, table, dispatch.H200, dispatch.Limits{}).Plan(&p)
// answers with the Plan the engine on that device with the default Options
// would launch (DefaultCatalog and DefaultTable are the embedded ones;
// DevicePreset knows the common GPUs; Limits say what the engine allows a
// plan, e.g. its Options.WorkspaceBytes). Fake, well
// aligned pointers will do: planning only reads their alignment.
//
// # FP8 (e4m3) scaling
//
// An e4m3 problem (Types e4m3→bf16 or e4m3→f16, sm_89 or newer: below, Plan
// refuses it as an *ArgError) is dequantised as its Types.Scaling says, the
// kernels scaling the fp32 accumulator before alpha, beta·C and bias:
// ScalingTensor with the scalars ScaleA and ScaleB (folded into alpha) or
// ScaleAPtr and ScaleBPtr to one device float32 each (a captured graph then
// replays with new scales); ScalingRow with a float32 per row of A and of B;
// ScalingBlock (ScaleBlock 128) with a float32 per 1×128 block of A and per
// 128×128 block of B, promoted to fp32 at every k-block. Problem documents
// the layouts and ScaleFloats the vectors' lengths. A kernel that does not
// take the mode is rejected by the filter, so block-scaled problems plan
// only on the kernels that take them.
//
// # Why this kernel
//
// Plan.Explain says which level answered (exact (N, K) entry, default entry
// or heuristic), the bucket, the kernel and split-K, every level passed over
// and why, and the kernels that cannot run the call, counted by the rule
// they break (arch, dtypes, e4m3 scaling mode, alignment of A or B,
// leading dimensions, K, shared memory, index width, workspace).
//
// # cuBLASLt as a routing candidate
//
// A table bucket may route its Ms to NVIDIA's cuBLASLt instead of a kernel
// of ours: it records the algorithm autotune measured fastest (Vendor: the
// opaque cublasLtMatmulAlgo_t in base64 and the library's version) in
// place of a kernel and digest. Only tables with such buckets route to
// cuBLASLt; no committed table (buckets.yaml) has any yet, so the engine
// runs our kernels only unless Options.Table holds one.
//
// Open loads the library at run time — Options.VendorLibraries, by default
// libcublasLt.so.13, then libcublasLt.so.12, from the dynamic loader's
// usual search path (LD_LIBRARY_PATH, the ld.so cache; a path names a
// file) — once per process, with no build- or link-time dependency, and
// makes one handle and two matmul descriptors (16-bit, and FP8 with fast
// accumulation off). Options.NoVendor turns it
// off (our kernels only: how every kernel floor is measured). Where no
// library loads, or NoVendor is set, the engine still runs: a bucket
// routed to cuBLASLt runs the kernel of ours that the tuner recorded beside
// the algorithm (Bucket.Kernel: our kernels' own choice there), or, in a
// bucket without one, is passed over to the next level (exact entry,
// default entry, heuristic) and counted as changed by KernelMatch; Explain
// says why ("cuBLASLt absent: libcublasLt.so.13: …", "cuBLASLt
// off: Options.NoVendor is set"). So is a bucket recorded by another
// version of the library than the loaded one, or whose algorithm the
// loaded library rejects (cublasLtMatmulAlgoCheck, at load for an exact
// entry). Per problem, the engine hands cuBLASLt the types VendorTypes
// admits — bf16 and f16, and e4m3 with per-tensor scales into bf16 or f16
// (scalars folded into alpha; scale pointers set as cuBLASLt's, per call,
// so a captured graph replays with new scales) — without a bias, K ≥ 1,
// whose pointers and row pitches meet the algorithm's alignment needs
// (16 bytes at least for e4m3) and whose workspace fits the stream's;
// otherwise that problem passes over the bucket, Explain saying why. Row
// and 128-block e4m3 scaling stay on our kernels.
//
// A plan routed to cuBLASLt has Plan.Vendor set and Plan.Kernel nil: print
// Plan.KernelName, which is Explain's "kernel: cuBLASLt 12.8.4 algorithm
// 1a2b3c4d" (version, and the start of the algorithm's SHA-256). It
// launches one cublasLtMatmul on the caller's stream with the stream's
// workspace, allocates nothing once planned and may be captured, like a
// plan of ours. A Planner of its own (NewPlanner, no GPU) never routes to
// cuBLASLt: it passes over such buckets as an engine without the library
// would.
//
// # Errors
//
// Every error wraps one of the Err sentinels, for errors.Is: bad input is
// ErrInvalidArgument as an *ArgError naming the field and the rule, and
// nothing is launched; ErrNoKernel says no kernel fits (its text groups the
// reasons like Explain); ErrWorkspace says a stream's Reserve is too small
// for a plan; a failed driver
// call is a *CUDAError (errors.As) with its CUresult; a failed cuBLASLt call
// wraps ErrVendor; a -tags nocuda build's Open returns ErrNoCUDA.
package dispatch
