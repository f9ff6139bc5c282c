package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// An experimental kernel (not yet run on a GPU) is never the heuristic's
// choice, and a table entry naming it routes to it: the heuristic's own pick
// for a problem, once marked experimental, gives way to another kernel and
// still runs the problem when the table names it.
func TestExperimentalKernelsOnlyByTable(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	dev, err := DevicePreset("h200")
	require.NoError(t, err)
	p := PlaceholderProblem(300, 4096, 4096, BF16)
	pick, err := NewPlanner(cat, nil, dev).Plan(&p)
	require.NoError(t, err)
	require.Equal(t, LevelHeuristic, pick.Level)

	m := cat.Manifest()
	for i := range m.Kernels {
		m.Kernels[i].Experimental = m.Kernels[i].Name == pick.Kernel.Name
	}
	exp, err := kernels.NewCatalog(m)
	require.NoError(t, err)
	pl, err := NewPlanner(exp, nil, dev).Plan(&p)
	require.NoError(t, err)
	assert.NotEqual(t, pick.Kernel.Name, pl.Kernel.Name, "the heuristic picked the experimental kernel")
	assert.False(t, pl.Kernel.Experimental)
	assert.Contains(t, pl.Explain(), "1 kernel: are experimental")

	tab := &Table{Entries: []Entry{{Arch: dev.Arch, In: BF16, Out: BF16, Layout: kernels.LayoutTN,
		Buckets: []Bucket{{MinM: 1, Kernel: pick.Kernel.Name, SplitK: pick.SplitK}}}}}
	pl, err = NewPlanner(exp, tab, dev).Plan(&p)
	require.NoError(t, err)
	assert.Equal(t, pick.Kernel.Name, pl.Kernel.Name)
	assert.True(t, pl.Kernel.Experimental)
	assert.Equal(t, LevelDefault, pl.Level)
}
