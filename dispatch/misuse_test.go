package dispatch

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Misusing the API gets a typed error naming what is wrong, never a panic
// (issue 12 item 5): a nil problem, a nil planner or catalog, a device that
// describes no GPU.
func TestPlannerMisuse(t *testing.T) {
	cat := testCatalog(t)
	p := testProblem(16, 4096, 4096)
	noGPU := DeviceInfo{}
	nanBW := H200
	nanBW.ReadBandwidth = math.NaN()
	var nilPlanner *Planner
	for _, c := range []struct {
		name  string
		pl    *Planner
		p     *Problem
		field string
	}{
		{"nil problem", NewPlanner(cat, nil, H200, Limits{}), nil, "Problem"},
		{"nil catalog", NewPlanner(nil, testTable(), H200, Limits{}), &p, "catalog"},
		{"nil planner", nilPlanner, &p, "Planner"},
		{"zero DeviceInfo", NewPlanner(cat, nil, noGPU, Limits{}), &p, "DeviceInfo.Arch"},
		{"no SMs", NewPlanner(cat, nil, DeviceInfo{Arch: SM90}, Limits{}), &p, "DeviceInfo.SMs"},
		{"NaN bandwidth", NewPlanner(cat, nil, nanBW, Limits{}), &p, "DeviceInfo"},
		{"negative workspace limit", NewPlanner(cat, nil, H200, Limits{WorkspaceBytes: -1}), &p, "Limits.WorkspaceBytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, call := range []func() error{
				func() error { _, err := c.pl.Plan(c.p); return err },
				func() error { _, err := c.pl.PlanKernel(c.p, "mma80_bf16", 1); return err },
			} {
				var err error
				require.NotPanics(t, func() { err = call() })
				var ae *ArgError
				require.ErrorAs(t, err, &ae)
				assert.ErrorIs(t, err, ErrInvalidArgument)
				assert.Equal(t, c.field, ae.Field, "%v", err)
			}
		})
	}
	var nilProblem *Problem
	var ae *ArgError
	require.ErrorAs(t, nilProblem.Validate(), &ae)
	assert.Equal(t, "Problem", ae.Field)
}

// A negative Options.WorkspaceBytes is refused by Open in both builds,
// before any device is touched.
func TestOpenRefusesNegativeWorkspace(t *testing.T) {
	_, err := Open(0, Options{WorkspaceBytes: -1})
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, ErrInvalidArgument)
	assert.Equal(t, "Options.WorkspaceBytes", ae.Field)
}

func TestLevelString(t *testing.T) {
	assert.Equal(t, "heuristic", LevelHeuristic.String())
	assert.Equal(t, "forced", LevelForced.String())
	assert.NotPanics(t, func() { _ = Level(200).String() })
	assert.Equal(t, "Level(200)", Level(200).String())
	assert.Equal(t, "Level(6)", Level(LevelForced+1).String())
}
