//go:build !nocuda

// Command linear runs Llama-3-8B's four projections (qkv, o, gate_up, down)
// at M = 1 and 16 through a gemmroute engine on GPU 0: it uploads random
// bf16 activations and weights, checks sampled outputs against a float64 CPU
// reference, and prints each plan and its time. Memory, streams and events
// come from gorgonia.org/cu, as in an application.
//
//	go run ./examples/linear        # on a machine with a GPU (default build)
package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gemmroute/gemmroute/dispatch"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "linear:", err)
		os.Exit(1)
	}
}

func run() error {
	// gorgonia/cu calls need the context current on this OS thread.
	runtime.LockOSThread()
	dev, err := cu.GetDevice(0)
	if err != nil {
		return err
	}
	ctx, err := dev.RetainPrimaryCtx() // the engine uses the primary context too
	if err != nil {
		return err
	}
	defer dev.ReleasePrimaryCtx()
	if err := cu.SetCurrentContext(ctx); err != nil {
		return err
	}
	eng, err := dispatch.Open(0, dispatch.Options{})
	if err != nil {
		return err
	}
	defer eng.Close()
	stream, err := cu.MakeStream(cu.NonBlocking)
	if err != nil {
		return err
	}
	defer stream.Destroy()
	s := dispatch.StreamOf(stream)
	if err := eng.Reserve(s, 64<<20); err != nil { // split-K workspace for this stream
		return err
	}
	fmt.Printf("%s (%s, %d SMs)\n", eng.Device().Name, eng.Device().Arch, eng.Device().SMs)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, proj := range []struct {
		name string
		n, k int
	}{{"qkv", 6144, 4096}, {"o", 4096, 4096}, {"gate_up", 28672, 4096}, {"down", 4096, 14336}} {
		for _, m := range []int{1, 16} {
			if err := runOne(eng, stream, s, rng, proj.name, m, proj.n, proj.k); err != nil {
				return fmt.Errorf("%s M=%d: %w", proj.name, m, err)
			}
		}
	}
	return nil
}

// runOne uploads one problem, runs it, checks 64 sampled outputs and times
// 20 calls between two events.
func runOne(eng *dispatch.Engine, stream cu.Stream, s dispatch.Stream, rng *rand.Rand, name string, m, n, k int) error {
	a, w := randomBF16(rng, m*k), randomBF16(rng, n*k)
	var bufs []cu.DevicePtr
	defer func() {
		for _, b := range bufs {
			cu.MemFree(b)
		}
	}()
	upload := func(h []uint16) (dispatch.DevicePtr, error) {
		p, err := cu.MemAlloc(int64(len(h)) * 2)
		if err != nil {
			return 0, err
		}
		bufs = append(bufs, p)
		return dispatch.DevicePtr(p), cu.MemcpyHtoD(p, unsafe.Pointer(&h[0]), int64(len(h))*2)
	}
	p := dispatch.Problem{M: m, N: n, K: k, In: dispatch.BF16, Out: dispatch.BF16, LDA: k, LDB: k, LDC: n, Alpha: 1}
	var err error
	if p.A, err = upload(a); err != nil {
		return err
	}
	if p.B, err = upload(w); err != nil {
		return err
	}
	if p.D, err = upload(make([]uint16, m*n)); err != nil {
		return err
	}
	plan, err := eng.Plan(&p)
	if err != nil {
		return err
	}
	if err := eng.GEMM(&p, s); err != nil {
		return err
	}
	if err := stream.Synchronize(); err != nil {
		return err
	}
	d := make([]uint16, m*n)
	if err := cu.MemcpyDtoH(unsafe.Pointer(&d[0]), cu.DevicePtr(p.D), int64(len(d))*2); err != nil {
		return err
	}
	worst := 0.0
	for range 64 {
		i, j := rng.IntN(m), rng.IntN(n)
		var ref, mag float64
		for kk := range k {
			x := float64(bf16(a[i*k+kk])) * float64(bf16(w[j*k+kk]))
			ref, mag = ref+x, mag+math.Abs(x)
		}
		worst = max(worst, math.Abs(float64(bf16(d[i*n+j]))-ref)/(math.Abs(ref)/128+1e-5*mag))
	}
	if worst > 1 {
		return fmt.Errorf("result off the float64 reference (%.2f × tolerance)", worst)
	}
	start, _ := cu.MakeEvent(cu.DefaultEvent)
	end, _ := cu.MakeEvent(cu.DefaultEvent)
	defer cu.DestroyEvent(&start)
	defer cu.DestroyEvent(&end)
	const calls = 20
	for range 3 { // warm-up
		if err := eng.GEMM(&p, s); err != nil {
			return err
		}
	}
	if err := start.Record(stream); err != nil {
		return err
	}
	for range calls {
		if err := eng.GEMM(&p, s); err != nil {
			return err
		}
	}
	if err := end.Record(stream); err != nil {
		return err
	}
	if err := end.Synchronize(); err != nil {
		return err
	}
	ms, err := start.Elapsed(end)
	if err != nil {
		return err
	}
	us := ms * 1e3 / calls
	gbps := float64(2*(m*k+n*k+m*n)) / us / 1e3
	fmt.Printf("%-8s M=%-3d N=%-6d K=%-6d %8.2f µs/call (events, L2 warm) %6.0f GB/s  checked ✓  %s split-K %d (%s, bucket %s)\n",
		name, m, n, k, us, gbps, plan.Kernel.Name, plan.SplitK, plan.Level, plan.Bucket())
	return nil
}

func randomBF16(rng *rand.Rand, n int) []uint16 {
	out := make([]uint16, n)
	for i := range out {
		f := math.Float32bits(float32(rng.Float64()*2 - 1))
		out[i] = uint16((f + 0x7fff + (f>>16)&1) >> 16) // round to nearest even
	}
	return out
}

func bf16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
