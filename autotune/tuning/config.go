// Package tuning is gemmroute's GPU-free tuning pipeline: for each weight
// and geometric M bucket it lists the kernel × split-K candidates the
// constraints admit, gates them for correctness, screens and times them,
// chooses each bucket's kernel (least worst-case slowdown over the bucket's
// edges), derives default entries, and merges the result into a base table
// with provenance. Measuring is behind the Measurer interface, so that an
// inference server can tune its own weights at start-up with the GPU
// harness, and a run can be sized beforehand with ModelMeasurer.
package tuning

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// Config says what a tuning run measures and how.
type Config struct {
	Catalog *kernels.Catalog
	Weights []Weight
	MaxM    int // last bucket edge, a power of two
	// MinM is the first bucket tuned: 1 (0 too), or a bucket's low edge
	// 2^j + 1 up to MaxM. Above 1 the run retunes buckets MinM…MaxM alone:
	// each tuned entry keeps the base table's buckets outside that range
	// (its exact entry's, else the default's), which must have the
	// geometric edges.
	MinM       int
	Splits     []int   // split-K factors tried
	Workspace  int64   // largest split-K workspace a candidate may need, bytes (an engine's Options.WorkspaceBytes)
	Prune      float64 // skip candidates the model puts above Prune× the best estimate at every sample M (0: time all)
	ScreenReps int     // replays of the screening timing
	Reps       int     // replays of a full timing (3× for near-ties and noisy timings)
	EventCalls int     // per-call event timings of each choice (the second column)
	Keep       float64 // the screen keeps candidates within Keep× the fastest at some sample M
	Tie        float64 // candidates within Tie (a fraction) of the best worst-case slowdown are timed again
	Noise      float64 // timings whose p90 exceeds the median by more than Noise are timed again, then flagged
	// VendorAlgorithms is how many of cuBLASLt's heuristic algorithms per
	// bucket are candidates beside our kernels, for the weights whose types
	// the engine hands cuBLASLt (dispatch.VendorTypes: bf16, f16, e4m3
	// per-tensor), where every measurer measures the same loaded version
	// (VendorUse); 0: our kernels only.
	VendorAlgorithms int
	// BaseRoutes, when set, narrows our candidates for a weight and bucket
	// to the kernels and split-Ks this table's exact and default entries
	// route it to at the bucket's sample Ms (in a bucket routed to
	// cuBLASLt, the kernel recorded beside it) and those buckets' recorded
	// runners-up: a short run that, with VendorAlgorithms, adds vendor
	// routes to a tuned table without retuning our kernels, and without,
	// measures a table's routes again after their kernels' code changed
	// (new digests, times and margins; the choice re-made between the two).
	BaseRoutes *dispatch.Table
	// Changed, with BaseRoutes, narrows the run to the (weight, bucket)
	// units whose routes and recorded runners-up there (BaseRoutes' exact
	// and default entries', as BaseRoutes times them) name a kernel it
	// reports: those whose compiled code changed since the table was
	// measured (tune -changed-since). Every other bucket of BaseRoutes'
	// entries keeps its choice, times and provenance; a default entry's
	// bucket is chosen again only where its own route or runner-up changed
	// (then every weight is timed there), and a weight without an exact
	// entry in BaseRoutes gets none. nil: every unit.
	Changed func(kernel string) bool
	// Deadline, when set, is when the run stops starting (weight, bucket)
	// units: those not started keep the base table's choices, as buckets
	// outside MinM…MaxM do, and the events column is left out where the
	// deadline has passed before it (Result.Unmeasured, Result.NoEvents), so
	// that a run short of time writes what it measured rather than being
	// killed with nothing written.
	Deadline time.Time
	// Unmeasured, when set, leaves experimental kernels out of the
	// candidates: the run's choices enter a table without a measurement
	// (autotune model -out), so they may name only kernels the planner's
	// heuristic picks; an experimental kernel enters a table only through a
	// tune that gated it on a GPU (the loader refuses it in a model's bucket).
	Unmeasured bool
	// incumbent is the table the run merges into (Tune's base): what it
	// routes each weight and bucket to is timed whatever the model says.
	incumbent *dispatch.Table

	// Progress, when set, is called after each unit of work (one weight ×
	// bucket, or filling in one) with the units done and planned so far,
	// from one goroutine at a time.
	Progress func(done, total int)
}

// DefaultConfig is the configuration autotune tunes with, for weights over
// the kernels of cat.
func DefaultConfig(cat *kernels.Catalog, weights []Weight) Config {
	return Config{Catalog: cat, Weights: weights, MinM: 1, MaxM: 8192, Splits: []int{1, 2, 4, 8}, Workspace: dispatch.DefaultWorkspaceBytes,
		Prune: 4, ScreenReps: 3, Reps: 20, EventCalls: 50, Keep: 1.3, Tie: 0.02, Noise: 0.05, VendorAlgorithms: DefaultVendorAlgorithms}
}

// MaxDim is the largest M, N or K a problem may have (dispatch.Problem's
// bound), and so the largest MaxM and shape dimension the tuner takes.
const MaxDim = 1 << 31

// Bounds on a Config's counts and ratios: beyond them a run would not end
// in any useful time, or the value is a typo.
const (
	maxReps   = 1_000_000
	maxRatio  = 1e6
	maxSplitK = kernels.MaxSplitK
)

// repeats reports whether a value of xs (at most maxSplitK long) repeats.
func repeats(xs []int) bool {
	s := slices.Clone(xs)
	slices.Sort(s)
	return len(slices.Compact(s)) < len(xs)
}

// ConfigError names the Config field that broke a rule.
type ConfigError struct {
	Field string // e.g. "MaxM"
	Value any
	Rule  string
}

// Error says which field broke which rule.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("tuning: %s = %v: want %s", e.Field, e.Value, e.Rule)
}

// Validate returns a *ConfigError for the first field that breaks its rule.
func (c *Config) Validate() error {
	for _, r := range []struct {
		bad   bool
		field string
		value any
		rule  string
	}{
		{c.Catalog == nil, "Catalog", nil, "a catalog: the kernels to tune"},
		{len(c.Weights) == 0, "Weights", 0, "at least one weight"},
		{c.MaxM < 1 || c.MaxM > MaxDim || c.MaxM&(c.MaxM-1) != 0, "MaxM", c.MaxM, "a power of two up to 2^31 (the last bucket edge)"},
		{c.MinM < 0 || c.MinM > 1 && (c.MinM > c.MaxM || (c.MinM-1)&(c.MinM-2) != 0), "MinM", c.MinM, "1, or a bucket's low edge 2^j + 1 up to MaxM (such as 17)"},
		{len(c.Splits) == 0 || len(c.Splits) > maxSplitK || slices.ContainsFunc(c.Splits, func(s int) bool { return s < 1 || s > maxSplitK }) || repeats(c.Splits),
			"Splits", c.Splits, "positive split-K factors up to 1024, each once, such as 1,2,4,8"},
		{c.Workspace < 0, "Workspace", c.Workspace, "≥ 0 bytes"},
		{!in(c.Prune, 0, maxRatio), "Prune", c.Prune, "≥ 0 and ≤ 1e6 (0: time all)"},
		{c.ScreenReps < 1 || c.ScreenReps > maxReps, "ScreenReps", c.ScreenReps, "≥ 1 and ≤ 1000000"},
		{c.Reps < 1 || c.Reps > maxReps, "Reps", c.Reps, "≥ 1 and ≤ 1000000"},
		{c.EventCalls < 1 || c.EventCalls > maxReps, "EventCalls", c.EventCalls, "≥ 1 and ≤ 1000000"},
		{!in(c.Keep, 1, maxRatio), "Keep", c.Keep, "≥ 1 and ≤ 1e6 (a ratio to the fastest)"},
		{!in(c.Tie, 0, maxRatio), "Tie", c.Tie, "≥ 0 and ≤ 1e6 (a fraction)"},
		{!in(c.Noise, 0, maxRatio), "Noise", c.Noise, "≥ 0 and ≤ 1e6 (a fraction)"},
		{c.VendorAlgorithms < 0 || c.VendorAlgorithms > dispatch.MaxVendorAlgorithms, "VendorAlgorithms", c.VendorAlgorithms, "0 (our kernels only) to 64 of cuBLASLt's algorithms per bucket"},
		{c.Changed != nil && c.BaseRoutes == nil, "Changed", "set", "only with BaseRoutes: the routes whose kernels changed are the table's"},
	} {
		if r.bad {
			return &ConfigError{r.field, r.value, r.rule}
		}
	}
	return nil
}

// in reports whether x is a number in [lo, hi] (NaN is not).
func in(x, lo, hi float64) bool { return x >= lo && x <= hi && !math.IsNaN(x) }

// Spans are the buckets the run tunes: Spans(MaxM) from MinM on.
func (c *Config) Spans() []Span {
	sp := Spans(c.MaxM)
	for i, s := range sp {
		if s.Lo >= c.MinM {
			return sp[i:]
		}
	}
	return nil
}

// pastDeadline reports whether the run's Deadline is set and has passed.
func (c *Config) pastDeadline() bool { return !c.Deadline.IsZero() && time.Now().After(c.Deadline) }
