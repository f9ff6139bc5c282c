package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// Every bucket of the committed table is counted once: matched, changed
// (its kernel rebuilt to other code since it was measured) or missing.
func TestDefaultTableCountsEveryBucket(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	tab, err := DefaultTable()
	require.NoError(t, err)
	buckets := 0
	for _, e := range tab.Entries {
		buckets += len(e.Buckets)
	}
	m := tab.MatchKernels(cat)
	assert.Equal(t, buckets, m.Matched+m.Changed+m.Missing)
	assert.Positive(t, m.Matched)
	assert.Zero(t, m.Missing, "every kernel the table names is shipped")
	assert.Equal(t, m, NewPlanner(cat, tab, H200, Limits{}).KernelMatch())
}

// A table from before a kernel change: the kernel set in which one kernel
// was rebuilt to other code (another digest) and one was dropped still
// loads the table; the buckets of those two kernels are counted changed and
// missing and planning passes over them (saying so); every other bucket
// routes as before.
func TestTableSurvivesKernelChange(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	tab, err := DefaultTable()
	require.NoError(t, err)
	p := Problem{M: 1, N: 4096, K: 4096, Types: Types{In: BF16, Out: BF16}, LDA: 4096, LDB: 4096, LDC: 4096, A: 1 << 20, B: 1 << 30, D: 1 << 40, Alpha: 1}
	before, err := NewPlanner(cat, tab, H200, Limits{}).Plan(&p)
	require.NoError(t, err)
	require.Equal(t, LevelExact, before.Level)
	changed := before.Kernel.Name
	q := p
	q.M = 8
	other, err := NewPlanner(cat, tab, H200, Limits{}).Plan(&q)
	require.NoError(t, err)
	require.Equal(t, LevelExact, other.Level)
	require.NotEqual(t, changed, other.Kernel.Name)
	dropped := other.Kernel.Name

	uses := map[string]int{}
	for _, e := range tab.Entries {
		for _, b := range e.Buckets {
			uses[b.Kernel]++
		}
	}
	m := cat.Manifest()
	var kept []kernels.KernelSpec
	for _, k := range m.Kernels {
		switch k.Name {
		case changed:
			k.Digest = kernels.DigestOf([]byte("rebuilt " + k.Name))
		case dropped:
			continue
		}
		kept = append(kept, k)
	}
	m.Kernels = kept
	newCat, err := kernels.NewCatalog(m)
	require.NoError(t, err)

	data, err := tab.Marshal()
	require.NoError(t, err)
	old, err := LoadTable("buckets.yaml", data, newCat)
	require.NoError(t, err, "a table from before the change loads")
	was := tab.MatchKernels(cat) // the two kernels' buckets all matched: they routed at the exact level
	want := KernelMatch{Matched: was.Matched - uses[changed] - uses[dropped], Changed: was.Changed + uses[changed], Missing: was.Missing + uses[dropped]}
	assert.Equal(t, want, old.MatchKernels(newCat))
	pl := NewPlanner(newCat, old, H200, Limits{})
	assert.Equal(t, want, pl.KernelMatch())
	assert.Equal(t, "matched 1, changed 2, missing 3", KernelMatch{Matched: 1, Changed: 2, Missing: 3}.String())

	after, err := pl.Plan(&p)
	require.NoError(t, err)
	assert.NotEqual(t, before.Level, after.Level, "the exact bucket is passed over")
	assert.Contains(t, after.Explain(), "names "+changed+", whose code changed since the table was measured (digest "+cat.Kernel(changed).Digest+" there, ")
	gone, err := pl.Plan(&q)
	require.NoError(t, err)
	assert.Contains(t, gone.Explain(), "names "+dropped+", not in the catalog")

	// The buckets of other kernels route as before.
	checked := 0
	for _, e := range old.Entries {
		for _, b := range e.Buckets {
			if b.Kernel == changed || b.Kernel == dropped || e.Arch != SM90 || e.Types.In != BF16 || e.N == 0 {
				continue
			}
			r := p
			r.M, r.N, r.K, r.LDA, r.LDB, r.LDC = b.MinM, e.N, e.K, e.K, e.K, e.N
			want, err := NewPlanner(cat, tab, H200, Limits{}).Plan(&r)
			require.NoError(t, err)
			got, err := pl.Plan(&r)
			require.NoError(t, err)
			if want.Kernel.Name == b.Kernel && want.Level == LevelExact { // the bucket routed it
				assert.Equal(t, want.Kernel.Name, got.Kernel.Name, "%s M=%d", e.Key(), r.M)
				assert.Equal(t, LevelExact, got.Level, "%s M=%d", e.Key(), r.M)
				checked++
			}
		}
	}
	assert.Greater(t, checked, 20, "buckets of other kernels checked")
}
