//go:build !nocuda

// Command quickstart is the README's quick start: one bf16 linear layer,
// y[M,4096] = x[M,4096] · W[4096,4096]ᵀ, on GPU 0 through gemmroute, run
// eagerly and then replayed from a CUDA graph.
//
//	go run ./examples/quickstart      # on a machine with a GPU
package main

import (
	"errors"
	"fmt"
	"log"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gemmroute/gemmroute/dispatch"
)

func main() {
	// gorgonia/cu acts on the context current on this OS thread: lock the
	// thread and make device 0's primary context current. The engine uses
	// the same primary context (it makes it current for each of its own
	// calls, on whatever thread, and gives the thread back as it found it).
	runtime.LockOSThread()
	dev, err := cu.GetDevice(0)
	check(err)
	ctx, err := dev.RetainPrimaryCtx()
	check(err)
	defer dev.ReleasePrimaryCtx()
	check(cu.SetCurrentContext(ctx))

	eng, err := dispatch.Open(0, dispatch.Options{}) // embedded kernels and table
	check(err)
	defer eng.Close()
	stream, err := cu.MakeStream(cu.NonBlocking)
	check(err)
	defer stream.Destroy()
	s := dispatch.StreamOf(stream)

	const m, n, k = 64, 4096, 4096
	x, w, y := alloc(m*k), alloc(n*k), alloc(m*n)
	defer cu.MemFree(x)
	defer cu.MemFree(w)
	defer cu.MemFree(y)
	one := make([]uint16, n*k)
	for i := range one {
		one[i] = 0x3c00 // bf16 2^-7: every y is 4096 · 2^-14 = 0.25 exactly
	}
	// Copy on the stream the GEMM runs on, so the copy is ordered before it.
	check(cu.MemcpyHtoDAsync(x, unsafe.Pointer(&one[0]), m*k*2, stream))
	check(cu.MemcpyHtoDAsync(w, unsafe.Pointer(&one[0]), n*k*2, stream))

	p := dispatch.Problem{M: m, N: n, K: k, Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16},
		LDA: k, LDB: k, LDC: n, A: dispatch.DevicePtr(x), B: dispatch.DevicePtr(w), D: dispatch.DevicePtr(y), Alpha: 1}
	err = eng.GEMM(&p, s) // validates, plans, launches asynchronously
	var arg *dispatch.ArgError
	var cuErr *dispatch.CUDAError
	switch {
	case errors.As(err, &arg):
		log.Fatalf("bad problem: field %s: %s", arg.Field, arg.Rule)
	case errors.Is(err, dispatch.ErrNoKernel):
		log.Fatalf("no kernel fits: %v", err)
	case errors.As(err, &cuErr):
		log.Fatalf("CUDA: %s failed with %s", cuErr.Call, cuErr.Name)
	case err != nil:
		log.Fatal(err)
	}
	check(stream.Synchronize())
	plan, _ := eng.Plan(&p)
	fmt.Print(plan.Explain()) // which kernel, why, and what was rejected

	// The same GEMM captured into a CUDA graph and replayed.
	g, err := eng.Capture(s, func() error { return eng.GEMM(&p, s) })
	check(err)
	defer g.Close()
	for range 10 {
		check(g.Launch(s))
	}
	check(stream.Synchronize())
	out := make([]uint16, m*n)
	check(cu.MemcpyDtoH(unsafe.Pointer(&out[0]), y, m*n*2))
	for i, v := range out {
		if v != 0x3e80 { // bf16 0.25; NaN or anything else fails
			log.Fatalf("y[%d] = bf16 %#04x, want 0x3e80 (0.25)", i, v)
		}
	}
	fmt.Println("all", m*n, "outputs are 0.25, eager and replayed")
}

func alloc(elems int64) cu.DevicePtr {
	p, err := cu.MemAlloc(elems * 2)
	check(err)
	return p
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
