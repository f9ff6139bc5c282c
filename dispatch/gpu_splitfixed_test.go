//go:build !nocuda

package dispatch_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// A kernel that sums its parts itself (KernelSpec.SplitFixed, kernels/src/
// ws_splitfixed.cuh) never waits for a block that may not have started:
// ten launches on each of two streams at once — grids the SMs cannot hold
// side by side — all finish, each with the bits of a launch alone, which
// passes the float64 check. Both walks: a block a part (M = 129, split-K 2:
// 128 blocks of 128x128 on 132 SMs) and a block per SM running its tiles'
// parts in turn (M = 1024, split-K 4). A walk whose blocks waited on one
// another could hang here: the test waits a minute, then fails.
func TestSplitFixedTwoStreams(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	s1, s2 := reservedStream(t, e, 64<<20), reservedStream(t, e, 64<<20)
	pl := e.Planner()
	rng := rand.New(rand.NewPCG(41, 42))
	ran := 0
	for _, c := range []struct {
		gemmtest.Case
		split int
	}{
		{gemmtest.Case{Name: "a block a part", M: 129, N: 4096, K: 4096, Bias: true}, 2},
		{gemmtest.Case{Name: "a block per SM", M: 1024, N: 4096, K: 4104}, 4},
	} {
		d := gemmtest.FillSampled(c.Case, dispatch.BF16, rng, 20000)
		p1, out1 := operands(t, d)
		p2, out2 := operands(t, d)
		for _, k := range pl.Catalog().Kernels() {
			if !k.SplitFixed() || k.In != dispatch.BF16 || pl.CheckKernel(&k, &p1, c.split) != "" {
				continue
			}
			name := k.Name + " on " + c.Name
			plan, err := pl.PlanKernel(&p1, k.Name, c.split)
			require.NoError(t, err, name)
			require.Greater(t, plan.SplitK, 1, name)
			alone := runOn(t, out1, s1, name, func() error { return e.Launch(plan, &p1, dispatch.Stream(s1)) })
			if !assert.NoError(t, d.Check(alone), name) {
				continue
			}
			repoison(t, out1)
			repoison(t, out2)
			waitStream(t, 0)
			for range 10 {
				require.NoError(t, e.Launch(plan, &p1, dispatch.Stream(s1)), name)
				require.NoError(t, e.Launch(plan, &p2, dispatch.Stream(s2)), name)
			}
			done := make(chan error, 1)
			go func() { done <- errors.Join(gpu.Sync(s1), gpu.Sync(s2)) }()
			select {
			case err := <-done:
				require.NoError(t, err, name)
			case <-time.After(time.Minute):
				t.Fatalf("%s: two streams' launches still running after a minute: a block waits for one that has not started", name)
			}
			assert.Equal(t, alone, out1.download(t), "%s: stream 1", name)
			assert.Equal(t, alone, out2.download(t), "%s: stream 2", name)
			ran++
		}
	}
	t.Logf("%d (kernel, walk) pairs finished on two streams at once with the bits of a launch alone", ran)
	require.Positive(t, ran, "no split_fixed kernel ran")
}
