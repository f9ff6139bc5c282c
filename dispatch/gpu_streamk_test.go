//go:build !nocuda

package dispatch_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// Stream-K kernels are right and give the same bits every run, on shapes
// whose blocks share tiles — fewer tiles than SMs, and a data-parallel part
// followed by a shared one: each kernel's first run passes the float64
// check (bias, lda > K), two more direct runs and three replays of one CUDA
// graph give its bits (a replay finds the flags the previous run left zero)
// on a stream nobody but this test reserved. The repack variants run on the
// odd-K shape (their copies, then the stream-K kernel), every stream-K kernel
// on some shape.
func TestStreamKDeterministicAndReplayable(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	s := reservedStream(t, e, 64<<20)
	rng := rand.New(rand.NewPCG(91, 92))
	ran, kernels := 0, map[string]bool{}
	for _, c := range []gemmtest.Case{
		{Name: "shared", M: 600, N: 3000, K: 2056, LDA: 2072, Bias: true}, // ≤ 60 tiles on 132 SMs
		{Name: "dp+shared", M: 2200, N: 2048, K: 1032},                    // 288 128×128 tiles: 132 whole, 156 shared
		{Name: "skinny", M: 33, N: 4104, K: 4096, Bias: true},             // swap tiles, a few tiles of many k-tiles
		{Name: "odd K", M: 600, N: 769, K: 2051, Bias: true},              // the repack variants' (K·2 not a multiple of 16)
		{Name: "shifted tail", M: 600, N: 10240, K: 1032},                 // 400 128×128 tiles: the planned parts' shifted last M tile and the one before both split
		{Name: "long tail", M: 1200, N: 5120, K: 4096},                    // 400 128×128 tiles, 270 128×192: ws_stream_k on fewer blocks than SMs (streamKGrid: 124, 122)
	} {
		d := gemmtest.FillSampled(c, dispatch.BF16, rng, 20000)
		p, out := operands(t, d)
		for _, k := range e.Planner().Catalog().Kernels() {
			if !k.StreamK() || k.In != dispatch.BF16 {
				continue
			}
			name := k.Name + " on " + c.Name
			if e.Planner().CheckKernel(&k, &p, 1) != "" { // a repack variant on aligned operands, or the other way round
				continue
			}
			pl, err := e.Planner().PlanKernel(&p, k.Name, 1)
			require.NoError(t, err, name)
			run := func(launch func() error) []uint16 { return runOn(t, out, s, name, launch) }
			direct := func() error { return e.Launch(pl, &p, dispatch.Stream(s)) }
			first := run(direct)
			if !assert.NoError(t, d.Check(first), name) {
				continue
			}
			for r := 0; r < 2; r++ {
				assert.Equal(t, first, run(direct), "%s: direct run %d differs from the first", name, r+2)
			}
			g, err := gpu.Capture(s, direct)
			require.NoError(t, err, name)
			for r := 0; r < 3; r++ {
				assert.Equal(t, first, run(func() error { return gpu.Replay(g, s) }), "%s: graph replay %d differs", name, r+1)
			}
			require.NoError(t, gpu.DestroyGraph(g))
			ran++
			kernels[k.Name] = true
		}
	}
	for _, k := range e.Planner().Catalog().Kernels() {
		if k.StreamK() && k.In == dispatch.BF16 {
			assert.True(t, kernels[k.Name], "%s ran on no shape", k.Name)
		}
	}
	t.Logf("%d (stream-K kernel, shape) pairs bit-identical over 3 direct runs and 3 graph replays", ran)
	require.Positive(t, ran, "no stream-K kernel ran")
}
