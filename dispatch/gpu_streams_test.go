//go:build !nocuda

package dispatch_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// GEMMs on four streams the program never Reserves, at M = 1 … 2048 (split-K
// plans among them), are correct eagerly; captured per stream by
// Engine.Capture and replayed on a poisoned output, they give the same bits;
// a Reserve that replaces a captured stream's workspace leaves the graph
// working; and Close (graphs, then engine) gives every byte back.
func TestStreamsWithoutReserveEagerAndCaptured(t *testing.T) {
	free0, _, err := gpu.MemInfo()
	require.NoError(t, err)
	e, err := dispatch.Open(0, dispatch.Options{})
	require.NoError(t, err)
	streams := make([]dispatch.Stream, 4)
	for i := range streams {
		s, err := gpu.NewStream()
		require.NoError(t, err)
		t.Cleanup(func() { _ = gpu.DestroyStream(s) })
		streams[i] = dispatch.Stream(s)
	}
	rng := rand.New(rand.NewPCG(111, 112))
	type call struct {
		p dispatch.Problem
		d *gemmtest.Data
		s dispatch.Stream
	}
	var calls []call
	splits := 0
	for i, m := range []int{1, 7, 64, 300, 2048} {
		for j, nk := range [][2]int{{4096, 4096}, {4096, 14336}, {1000, 4096}} {
			d := gemmtest.FillSampled(gemmtest.Case{Name: "streams", M: m, N: nk[0], K: nk[1], Bias: j == 1}, dispatch.BF16, rng, 2000)
			p, _ := operands(t, d)
			pl, err := e.Plan(&p)
			require.NoError(t, err)
			if pl.SplitK > 1 {
				splits++
			}
			calls = append(calls, call{p, d, streams[(i+j)%len(streams)]})
		}
	}
	require.Positive(t, splits, "no split-K plan among the shapes: the test would not cover the workspace")
	for i := range calls {
		require.NoError(t, e.GEMM(&calls[i].p, calls[i].s), "M=%d N=%d K=%d", calls[i].p.M, calls[i].p.N, calls[i].p.K)
	}
	eager := make([][]uint16, len(calls))
	for i, c := range calls {
		waitStream(t, c.s)
		eager[i] = download(t, c.p)
		require.NoError(t, c.d.Check(eager[i]), "eager M=%d N=%d K=%d", c.p.M, c.p.N, c.p.K)
	}
	graphs := map[dispatch.Stream]*dispatch.Graph{}
	for _, s := range streams {
		g, err := e.Capture(s, func() error {
			for i := range calls {
				if calls[i].s == s {
					if err := e.GEMM(&calls[i].p, s); err != nil {
						return err
					}
				}
			}
			return nil
		})
		require.NoError(t, err)
		graphs[s] = g
	}
	// The captured workspaces outlive a replacing Reserve.
	for _, s := range streams {
		require.NoError(t, e.Reserve(s, 8<<20))
	}
	for _, c := range calls {
		require.NoError(t, gpu.Fill(uintptr(c.p.D), uint32(gemmtest.Poison)<<16|uint32(gemmtest.Poison), int64(c.p.M*c.p.LDC/2), cuda.Stream(c.s)))
	}
	for s, g := range graphs {
		require.NoError(t, g.Launch(s))
	}
	for i, c := range calls {
		waitStream(t, c.s)
		require.Equal(t, eager[i], download(t, c.p), "replay of M=%d N=%d K=%d differs from eager", c.p.M, c.p.N, c.p.K)
	}
	for _, g := range graphs {
		require.NoError(t, g.Close())
		require.NoError(t, g.Close(), "Close is idempotent")
		require.ErrorIs(t, g.Launch(0), dispatch.ErrClosed)
	}
	require.NoError(t, e.Close())
	free1, _, err := gpu.MemInfo()
	require.NoError(t, err)
	// The test's own operands are still allocated (freed by t.Cleanup).
	var operandBytes int64
	for _, c := range calls {
		operandBytes += int64(c.p.M*c.p.LDA+c.p.N*c.p.LDB+2*c.p.M*c.p.LDC) * 2
	}
	require.InDelta(t, float64(free0-operandBytes), float64(free1), 64<<20, "engine memory not back after Close: %d → %d (operands %d)", free0, free1, operandBytes)
}

// A GEMM captured on a stream that has no workspace, by the caller's own
// capture (not Engine.Capture), is planned without split-K and is correct.
func TestForeignCaptureWithoutWorkspacePlansNoSplit(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	s, err := gpu.NewStream()
	require.NoError(t, err)
	defer gpu.DestroyStream(s)
	d := gemmtest.FillSampled(gemmtest.Case{Name: "foreign", M: 64, N: 4096, K: 14336}, dispatch.BF16, rand.New(rand.NewPCG(121, 122)), 2000)
	p, out := operands(t, d)
	pl, err := e.Plan(&p)
	require.NoError(t, err)
	require.Greater(t, pl.SplitK, 1, "the shape must plan split-K for this test to mean anything")
	g, err := gpu.Capture(s, func() error { return e.GEMM(&p, dispatch.Stream(s)) })
	require.NoError(t, err)
	defer gpu.DestroyGraph(g)
	require.NoError(t, gpu.Replay(g, s))
	require.NoError(t, gpu.Sync(s))
	require.NoError(t, d.Check(out.download(t)))
}
