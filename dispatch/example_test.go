package dispatch_test

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
)

// llamaQKV is Llama-3-8B's fused qkv projection at 16 tokens, bf16, over
// fake device addresses (256-byte aligned): planning reads only their
// alignment.
func llamaQKV() dispatch.Problem {
	const m, n, k = 16, 6144, 4096
	return dispatch.Problem{M: m, N: n, K: k, Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16},
		LDA: k, LDB: k, LDC: n, A: 1 << 40, B: 2 << 40, D: 3 << 40, Alpha: 1}
}

// Plan a GEMM without a GPU: the embedded kernels and table, on the H200
// preset, answer with the kernel the engine there would launch.
func Example() {
	cat, err := dispatch.DefaultCatalog()
	if err != nil {
		log.Fatal(err)
	}
	table, err := dispatch.DefaultTable()
	if err != nil {
		log.Fatal(err)
	}
	planner := dispatch.NewPlanner(cat, table, dispatch.H200, dispatch.Limits{})
	p := llamaQKV()
	plan, err := planner.Plan(&p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("level:", plan.Level)
	fmt.Println("bucket:", plan.Bucket())
	fmt.Println("kernel:", plan.KernelName()) // Kernel is nil for a plan routed to cuBLASLt
	fmt.Println("split-K:", plan.SplitK)
	// Output:
	// level: exact (N,K) entry
	// bucket: [9, 16]
	// kernel: gemmroute_sm90_decode_mma_bf16_bf16_f32_tn_16x16x64_w4_u2_a16
	// split-K: 1
}

// Explain tells how a plan was chosen and which kernels cannot run the
// call, counted by the rule they break.
func ExamplePlan_Explain() {
	cat, _ := dispatch.DefaultCatalog()
	table, _ := dispatch.DefaultTable()
	p := llamaQKV()
	plan, err := dispatch.NewPlanner(cat, table, dispatch.H200, dispatch.Limits{}).Plan(&p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(plan.Explain())
	// Output:
	// problem: M=16 N=6144 K=4096
	// level: exact (N,K) entry
	// bucket: [9, 16]
	// source: measured on NVIDIA H100 80GB HBM3 (2026-12-07)
	// kernel: gemmroute_sm90_decode_mma_bf16_bf16_f32_tn_16x16x64_w4_u2_a16
	// split-K: 1 (K per split 4096), workspace 0 B
	// launch 1 of 1: gemmroute_sm90_decode_mma_bf16_bf16_f32_tn_16x16x64_w4_u2_a16 grid [384 1 1] block [128 1 1] smem 0 B
	// runner-up: gemmroute_sm90_ws_wgmma_swap_bf16_bf16_f32_tn_16x64x64_w8_s16_a16 split-K 1
	// rejected 419 of 474 kernels:
	//   27 kernels: built for another arch, e.g. gemmroute_sm80_decode_fma_bf16_bf16_f32_tn_1x2x256_w8_u4_a16: sm80.fatbin reaches sm_90 only through PTX JIT, and a native image covers it
	//   283 kernels: for another dtype pair
	//   6 kernels: copy operands that TMA reads as they are (their kernels without the copy run them), e.g. gemmroute_sm90_ws_wgmma_rp_bf16_bf16_f32_tn_128x128x64_w12_s6_a2: A and B are 16-byte aligned with 16-byte pitches and K = 4096 a multiple of 8
	//   103 kernels: are experimental: only a measured table entry routes to them, e.g. gemmroute_sm90_ws_wgmma_swap_bf16_bf16_f32_tn_64x128x128_w12_s4_a16: marked experimental in the manifest
}

// A Problem that breaks a rule is refused before anything is planned or
// launched, with an *ArgError naming the field and the rule.
func ExampleProblem_Validate() {
	p := llamaQKV()
	p.LDA = 1000 // fewer elements per row of A than K
	err := p.Validate()
	var ae *dispatch.ArgError
	if errors.As(err, &ae) {
		fmt.Printf("%s = %v: %s\n", ae.Field, ae.Value, ae.Rule)
	}
	fmt.Println(errors.Is(err, dispatch.ErrInvalidArgument))
	// Output:
	// LDA = 1000: must be >= K (4096): A is row-major [M,K]
	// true
}

// The e4m3 kernels are Hopper's: on an L4 (sm_89) no kernel fits, and the
// error says why; on an A100 (sm_80) e4m3 is a bad argument.
func Example_noKernel() {
	cat, _ := dispatch.DefaultCatalog()
	table, _ := dispatch.DefaultTable()
	p := llamaQKV()
	p.Types.In, p.ScaleA, p.ScaleB = dispatch.E4M3, 1, 1
	l4, _ := dispatch.DevicePreset("l4")
	_, err := dispatch.NewPlanner(cat, table, l4, dispatch.Limits{}).Plan(&p)
	fmt.Println(errors.Is(err, dispatch.ErrNoKernel))
	first, _, _ := strings.Cut(err.Error(), "\n")
	fmt.Println(first)
	_, err = dispatch.NewPlanner(cat, table, dispatch.A100, dispatch.Limits{}).Plan(&p)
	fmt.Println(err)
	// Output:
	// true
	// gemmroute: no kernel fits this problem: e4m3→bf16 M=16 N=6144 K=4096, tensor scaling (scalars folded into alpha) on sm_89
	// gemmroute: invalid Types.In = e4m3→bf16: e4m3 needs sm_89 or newer; device is sm_80
}

// Run a GEMM on GPU 0, on a stream of the caller's (here the legacy default
// stream; with gorgonia.org/cu, StreamOf converts a cu.Stream). x, w and y
// stand for device buffers allocated in the device's primary context.
func ExampleEngine_GEMM() {
	eng, err := dispatch.Open(0, dispatch.Options{})
	if errors.Is(err, dispatch.ErrNoCUDA) {
		log.Fatal("built with -tags nocuda: plan with NewPlanner instead")
	}
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	var x, w, y dispatch.DevicePtr // [16, 4096], [6144, 4096] and [16, 6144] bf16
	p := dispatch.Problem{M: 16, N: 6144, K: 4096, Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16},
		LDA: 4096, LDB: 4096, LDC: 6144, A: x, B: w, D: y, Alpha: 1}
	var s dispatch.Stream // the legacy stream; any stream gets its workspace on first need
	err = eng.GEMM(&p, s)
	var ce *dispatch.CUDAError
	switch {
	case errors.As(err, &ce):
		log.Fatalf("driver: %s returned %s (%d)", ce.Call, ce.Name, ce.Code)
	case err != nil:
		log.Fatal(err) // *ArgError, ErrNoKernel, ErrWorkspace, ...
	}
}
