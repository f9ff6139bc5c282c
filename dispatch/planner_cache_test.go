package dispatch

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// outcome is everything a plan tells its caller, for comparing planners.
type outcome struct {
	kernel, bucket, explain, err string
	splitK                       int
	level                        Level
}

func outcomeOf(out Plan, err error) outcome {
	o := outcome{splitK: out.SplitK, level: out.Level, bucket: out.Bucket(), explain: out.Explain()}
	if out.Kernel != nil {
		o.kernel = out.Kernel.Name
	}
	if err != nil {
		o.err = err.Error()
	}
	return o
}

// requireFresh asserts that shared plans p as a fresh planner over the same
// catalog, table and device does.
func requireFresh(t *testing.T, shared *Planner, p *Problem, history string) {
	t.Helper()
	got := outcomeOf(plan(t, shared, p))
	want := outcomeOf(plan(t, NewPlanner(shared.cat, shared.table, shared.dev, shared.lim), p))
	require.Equal(t, want, got, "M=%d N=%d K=%d on %s (cap %d B) after %s", p.M, p.N, p.K, shared.dev.Arch, shared.lim.WorkspaceBytes, history)
}

// The route cache must not make a plan depend on the calls before it: an M
// the constraints refuse, or one that breaks the workspace cap, first, and
// then a valid M of the same class.
func TestPlanIndependentOfHistory(t *testing.T) {
	cat, tab := testCatalog(t), testTable()
	// The exact (4096, 4096) bucket [1, 16] is decode90_bf16 split-K 4:
	// M = 9 needs 4·9·4096·4 B of workspace, M = 16 needs 1 MiB.
	capped := smallWorkspace(H200, 600_000)
	for _, tc := range []struct {
		name        string
		dev         target
		first, then Problem
	}{
		// 128-row tiles at most: 2^23 rows need 65536 > 65535 M tiles, 2^22+1 need 32769.
		{"grid limit", on(H200), testProblem(1<<23, 64, 64), testProblem(1<<22+1, 64, 64)},
		{"grid limit, then within", on(H200), testProblem(1<<22+1, 64, 64), testProblem(1<<23, 64, 64)},
		{"workspace cap", capped, testProblem(16, 4096, 4096), testProblem(9, 4096, 4096)},
		{"workspace cap, then within", capped, testProblem(9, 4096, 4096), testProblem(16, 4096, 4096)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared := newPlanner(cat, tab, tc.dev)
			_, _ = plan(t, shared, &tc.first)
			requireFresh(t, shared, &tc.then, fmt.Sprintf("M=%d", tc.first.M))
		})
	}
	// The exact entry answers M = 9 under that cap.
	p := testProblem(9, 4096, 4096)
	out, err := plan(t, newPlanner(cat, tab, capped), &p)
	require.NoError(t, err)
	require.Equal(t, LevelExact, out.Level)
}

// historyProblem draws problems where the cache can go wrong: M at the
// table's bucket edges, at powers of two and around each tile height's
// grid limit (65535 M tiles), with small N and K so that large M stay valid.
func historyProblem(rng *rand.Rand) Problem {
	var m int
	switch rng.IntN(3) {
	case 0:
		m = []int{1, 2, 3, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65}[rng.IntN(13)]
	case 1:
		m = 1<<rng.IntN(24) + rng.IntN(3) - 1
	default:
		m = maxGridY*[]int{4, 16, 64, 128}[rng.IntN(4)] + rng.IntN(5) - 2
	}
	m = max(m, 1)
	shape := [][2]int{{4096, 4096}, {1024, 1024}, {64, 64}, {128, 256}}[rng.IntN(4)]
	if m > 1<<16 {
		shape = [][2]int{{64, 64}, {128, 64}, {64, 256}}[rng.IntN(3)]
	}
	p := testProblem(m, shape[0], shape[1])
	if rng.IntN(4) == 0 {
		p.Types.In, p.Types.Out = F16, F16
	}
	return p
}

// Property: over a long sequence of problems on shared planners, every plan
// (kernel, split-K, level, bucket, Explain's text, error) is the one a fresh
// planner gives, on devices with and without small workspace caps.
func TestPlanAgreesWithFreshPlanner(t *testing.T) {
	devices := []target{on(A100), on(H200), smallWorkspace(H200, 1<<20), smallWorkspace(H200, 600_000), smallWorkspace(A100, 1<<16)}
	shared := testPlanners(t, devices)
	rng := rand.New(rand.NewPCG(12, 5))
	n := 3000
	if testing.Short() {
		n = 600
	}
	for i := range n {
		p := historyProblem(rng)
		requireFresh(t, shared[rng.IntN(len(shared))], &p, fmt.Sprintf("%d plans", i))
	}
}

// The route cache holds at most maxRoutes keys; the shapes beyond plan
// uncached, as a fresh planner plans them, and cached shapes stay cached.
func TestPlanCacheBounded(t *testing.T) {
	pl := NewPlanner(testCatalog(t), testTable(), H200, Limits{})
	for n := 1; n <= maxRoutes+50; n++ {
		p := testProblem(8, n, 64)
		_, err := plan(t, pl, &p)
		require.NoError(t, err)
	}
	require.Equal(t, maxRoutes, len(pl.cache), "routes cached")
	over := testProblem(8, maxRoutes+10, 64)
	requireFresh(t, pl, &over, "a full cache")
	require.Equal(t, maxRoutes, len(pl.cache), "routes cached")
	cached := testProblem(8, 1, 64)
	allocs := testing.AllocsPerRun(20, func() { _, _ = pl.Plan(&cached) })
	require.Zero(t, allocs, "a shape cached before the cache filled")
}
