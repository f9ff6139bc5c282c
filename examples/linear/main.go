//go:build !nocuda

// Command linear is the README's quick start as a program: Llama-3-8B's
// four projections (qkv, o, gate_up, down) at M = 1, 7, 64, 300 and 2048 on
// four CUDA streams through one gemmroute engine on GPU 0. It uploads random
// bf16 activations and weights on the stream it launches on, poisons every
// output with NaN, checks sampled outputs against a float64 CPU reference
// (a NaN fails), then captures each stream's GEMMs into a graph, replays it
// on poisoned outputs and requires the same bits. Memory and streams come
// from gorgonia.org/cu, as in an application; no cgo, no Reserve.
//
//	go run ./examples/linear        # on a machine with a GPU (default build)
package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
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

// gemm is one projection at one M: host copies of its inputs, its problem
// and the stream it runs on.
type gemm struct {
	name   string
	a, w   []uint16
	p      dispatch.Problem
	stream cu.Stream
	eager  []uint16
}

func run() error {
	// gorgonia/cu calls act on the context current on this OS thread: lock
	// it and make device 0's primary context current (the engine uses the
	// primary context too; it makes it current for each of its own calls,
	// on whatever thread, and gives the thread back as it found it).
	runtime.LockOSThread()
	dev, err := cu.GetDevice(0)
	if err != nil {
		return err
	}
	ctx, err := dev.RetainPrimaryCtx()
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
	fmt.Printf("%s (%s, %d SMs)\n", eng.Device().Name, eng.Device().Arch, eng.Device().SMs)

	streams := make([]cu.Stream, 4)
	for i := range streams {
		if streams[i], err = cu.MakeStream(cu.NonBlocking); err != nil {
			return err
		}
		defer streams[i].Destroy()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var gemms []*gemm
	var bufs []cu.DevicePtr
	defer func() {
		for _, b := range bufs {
			cu.MemFree(b)
		}
	}()
	for i, proj := range []struct {
		name string
		n, k int
	}{{"qkv", 6144, 4096}, {"o", 4096, 4096}, {"gate_up", 28672, 4096}, {"down", 4096, 14336}} {
		for j, m := range []int{1, 7, 64, 300, 2048} {
			g := &gemm{name: proj.name, a: randomBF16(rng, m*proj.k), w: randomBF16(rng, proj.n*proj.k), stream: streams[(i+j)%4]}
			g.p = dispatch.Problem{M: m, N: proj.n, K: proj.k, Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16},
				LDA: proj.k, LDB: proj.k, LDC: proj.n, Alpha: 1}
			for _, t := range []struct {
				dst  *dispatch.DevicePtr
				host []uint16
			}{{&g.p.A, g.a}, {&g.p.B, g.w}, {&g.p.D, make([]uint16, m*proj.n)}} {
				ptr, err := cu.MemAlloc(int64(len(t.host)) * 2)
				if err != nil {
					return err
				}
				bufs = append(bufs, ptr)
				*t.dst = dispatch.DevicePtr(ptr)
				// On the stream the GEMM runs on: ordered before it.
				if err := cu.MemcpyHtoDAsync(ptr, unsafe.Pointer(&t.host[0]), int64(len(t.host))*2, g.stream); err != nil {
					return err
				}
			}
			gemms = append(gemms, g)
		}
	}
	// Eager: poison, GEMM, check.
	for _, g := range gemms {
		if err := poison(g); err != nil {
			return err
		}
		if err := eng.GEMM(&g.p, dispatch.StreamOf(g.stream)); err != nil {
			return fmt.Errorf("%s M=%d: %w", g.name, g.p.M, err)
		}
	}
	for _, g := range gemms {
		if g.eager, err = download(g); err != nil {
			return err
		}
		if err := check(g, g.eager, rng); err != nil {
			return fmt.Errorf("%s M=%d: %w", g.name, g.p.M, err)
		}
		plan, err := eng.Plan(&g.p)
		if err != nil {
			return fmt.Errorf("%s M=%d: %w", g.name, g.p.M, err)
		}
		fmt.Println(checkedLine(g.name, &g.p, plan))
	}
	// Captured: one graph per stream, replayed on poisoned outputs.
	for _, st := range streams {
		s := dispatch.StreamOf(st)
		graph, err := eng.Capture(s, func() error {
			for _, g := range gemms {
				if g.stream == st {
					if err := eng.GEMM(&g.p, s); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		defer graph.Close()
		for _, g := range gemms {
			if g.stream == st {
				if err := poison(g); err != nil {
					return err
				}
			}
		}
		if err := graph.Launch(s); err != nil {
			return err
		}
	}
	for _, g := range gemms {
		replayed, err := download(g)
		if err != nil {
			return err
		}
		if !slices.Equal(replayed, g.eager) {
			return fmt.Errorf("%s M=%d: the graph replay differs from the eager GEMM", g.name, g.p.M)
		}
	}
	fmt.Printf("%d GEMMs on %d streams: correct eagerly, and bit-identical replayed from graphs\n", len(gemms), len(streams))
	return nil
}

// poison fills g's output with bf16 NaN on its stream.
func poison(g *gemm) error {
	return cu.MemsetD16Async(cu.DevicePtr(g.p.D), 0x7fc0, int64(g.p.M*g.p.N), g.stream)
}

// download waits for g's stream and copies its output back.
func download(g *gemm) ([]uint16, error) {
	if err := g.stream.Synchronize(); err != nil {
		return nil, err
	}
	d := make([]uint16, g.p.M*g.p.N)
	return d, cu.MemcpyDtoH(unsafe.Pointer(&d[0]), cu.DevicePtr(g.p.D), int64(len(d))*2)
}

// check compares 64 sampled outputs with a float64 reference; the test is
// written so that NaN fails it.
func check(g *gemm, d []uint16, rng *rand.Rand) error {
	m, n, k := g.p.M, g.p.N, g.p.K
	for range 64 {
		i, j := rng.IntN(m), rng.IntN(n)
		var ref, mag float64
		for kk := range k {
			x := float64(bf16(g.a[i*k+kk])) * float64(bf16(g.w[j*k+kk]))
			ref, mag = ref+x, mag+math.Abs(x)
		}
		got := float64(bf16(d[i*n+j]))
		if !(math.Abs(got-ref) <= math.Abs(ref)/128+1e-5*mag) {
			return fmt.Errorf("D[%d,%d] = %g, float64 reference %g", i, j, got, ref)
		}
	}
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
