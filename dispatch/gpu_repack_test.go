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

// A repack plan whose copy of A does not fit the workspace runs in chunks
// of rows (those rows copied, then the GEMM on them; B copied once): every
// bf16 repack kernel without split-K or stream-K runs the odd shape at
// M = 4100 (two chunks, the second partial; A's offset copy, D's rows, the
// bias) in a stream's default 32 MiB, passes the float64 check directly and
// in a graph replay, offset beta·C included.
func TestRepackInChunks(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	s := reservedStream(t, e, dispatch.DefaultWorkspaceBytes)
	rng := rand.New(rand.NewPCG(93, 94))
	c := gemmtest.Case{Name: "odd K, large M", M: 4100, N: 769, K: 5125, Beta: 0.5, Bias: true}
	d := gemmtest.FillSampled(c, dispatch.BF16, rng, 4000)
	p, out := operands(t, d)
	ran := 0
	for _, k := range e.Planner().Catalog().Kernels() {
		if !k.Repack() || k.StreamK() || k.In != dispatch.BF16 {
			continue
		}
		if why := e.Planner().CheckKernel(&k, &p, 1); why != "" {
			t.Logf("%s: %s", k.Name, why)
			continue
		}
		pl, err := e.Planner().PlanKernel(&p, k.Name, 1)
		require.NoError(t, err, k.Name)
		require.Contains(t, pl.Explain(), "these launches run", "%s: not chunked:\n%s", k.Name, pl.Explain())
		run := func(launch func() error) []uint16 { return runOn(t, out, s, k.Name, launch) }
		direct := func() error { return e.Launch(pl, &p, dispatch.Stream(s)) }
		if !assert.NoError(t, d.Check(run(direct)), k.Name) {
			continue
		}
		g, err := gpu.Capture(s, direct)
		require.NoError(t, err, k.Name)
		assert.NoError(t, d.Check(run(func() error { return gpu.Replay(g, s) })), "%s: graph replay", k.Name)
		require.NoError(t, gpu.DestroyGraph(g))
		ran++
	}
	t.Logf("%d repack kernels ran M = %d in chunks", ran, c.M)
	require.Positive(t, ran, "no repack kernel ran in chunks")
}
