package dispatch

import (
	"fmt"
	"math"
	"strings"

	"github.com/gemmroute/gemmroute/kernels"
)

// Level says which part of the fallback order answered a plan.
type Level uint8

// The fallback order, best first.
const (
	LevelNone      Level = iota // no plan
	LevelNoop                   // M = 0 or N = 0: nothing to launch
	LevelExact                  // the table's entry for this exact (N, K)
	LevelDefault                // the table's default entry for the arch and dtypes
	LevelHeuristic              // analytic model over the constraint survivors
	LevelForced                 // a kernel named by the caller (Planner.PlanKernel)
)

var levelNames = [...]string{"none", "no-op", "exact (N,K) entry", "default entry", "heuristic", "forced"}

// String names the level as Explain does ("Level(n)" for no level).
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// Plan is how one problem will run: the kernel, its split-K factor and
// workspace, and (unexported) its launch geometry. Plans are values, made by
// Planner.Plan or Engine.Plan for one problem's shape; Explain tells how it
// was chosen and Engine.Launch runs it.
type Plan struct {
	Kernel         *kernels.KernelSpec // the catalog's spec (do not modify); nil for a no-op
	SplitK         int                 // blocks along K (1: no split)
	WorkspaceBytes int64               // fp32 partials needed when SplitK > 1
	Level          Level               // which fallback level answered

	problem     Problem   // the problem planned
	kPerSplit   int       // K elements per split
	grid, block [3]uint32 // launch geometry of the main kernel
	smemBytes   int       // dynamic shared memory of the main kernel
	route       *route
	planner     *Planner // that chose the route, for Explain; nil when forced
}

// geometry fills a Plan from a route and the live problem (no allocation);
// planner is the one that chose the route (nil for PlanKernel's), sms the
// device's SM count (a persistent kernel's grid).
func geometry(p *Problem, r *route, planner *Planner, sms int) Plan {
	k := r.kernel
	s := r.splitK
	kps := p.K
	if s > 1 && p.K > 0 {
		kps = ceilDiv(ceilDiv(p.K, s), k.TileK) * k.TileK
		s = max(1, ceilDiv(p.K, kps))
	} else {
		s = 1
	}
	pl := Plan{
		Kernel: k, SplitK: s, kPerSplit: kps, smemBytes: k.SmemBytes, Level: r.level,
		problem: *p, route: r, planner: planner,
		grid:  [3]uint32{uint32(ceilDiv(p.N, k.TileN)), uint32(ceilDiv(p.M, k.TileM)), uint32(s)},
		block: [3]uint32{uint32(k.Threads), 1, 1},
	}
	if k.Persistent { // at most one block per SM, walking the tiles (clusters: groups of M tiles)
		c := max(k.Cluster, 1)
		groups := int64(ceilDiv(int(pl.grid[1]), c)) * int64(pl.grid[0]) * int64(pl.grid[2])
		pl.grid = [3]uint32{uint32(int64(c) * min(groups, int64(max(sms/c, 1)))), 1, 1}
	}
	if s > 1 {
		pl.WorkspaceBytes = splitWorkspace(p, s)
	}
	return pl
}

// Bucket names the M range that answered: a table bucket such as
// "[17, 64]", the heuristic's power-of-two class, "forced", or "" for a no-op.
func (pl Plan) Bucket() string {
	if pl.route == nil {
		return ""
	}
	return pl.route.bucket
}

// Explain says how the plan was chosen: level, bucket, kernel, runner-up,
// each level that was passed over and why, and the kernels the constraints
// rejected, grouped by the rule they break with counts and examples.
func (pl Plan) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "problem: M=%d N=%d K=%d", pl.problem.M, pl.problem.N, pl.problem.K)
	if pl.problem.In == E4M3 {
		fmt.Fprintf(&b, " %s→%s%s", pl.problem.In, pl.problem.Out, pl.problem.scalingText())
	}
	b.WriteString("\n")
	if pl.Level == LevelNoop {
		b.WriteString("plan: no-op (M or N is 0): nothing is launched\n")
		return b.String()
	}
	if pl.route == nil || pl.Kernel == nil {
		b.WriteString("plan: none\n")
		return b.String()
	}
	r := pl.route
	fmt.Fprintf(&b, "level: %s\nbucket: %s\n", pl.Level, r.bucket)
	if r.source != "" {
		fmt.Fprintf(&b, "source: %s\n", r.source)
	}
	fmt.Fprintf(&b, "kernel: %s\n", pl.Kernel.Name)
	fmt.Fprintf(&b, "split-K: %d (K per split %d), workspace %d B\n", pl.SplitK, pl.kPerSplit, pl.WorkspaceBytes)
	fmt.Fprintf(&b, "launch: grid %v block %v smem %d B\n", pl.grid, pl.block, pl.smemBytes)
	if r.estimateUS > 0 {
		fmt.Fprintf(&b, "estimate: %.1f µs (model, not a measurement)\n", r.estimateUS)
	}
	if r.runnerUp != "" {
		if r.runnerUS > 0 && !math.IsInf(r.runnerUS, 0) {
			fmt.Fprintf(&b, "runner-up: %s (%.1f µs estimated)\n", r.runnerUp, r.runnerUS)
		} else {
			fmt.Fprintf(&b, "runner-up: %s\n", r.runnerUp)
		}
	}
	if pl.planner != nil { // what planning this very problem passed over
		_, ex := pl.planner.route(&pl.problem, pl.planner.key(&pl.problem))
		for _, n := range ex.notes {
			fmt.Fprintf(&b, "passed over: %s\n", n)
		}
		writeRejections(&b, ex.rejected, ex.kernels)
	}
	return b.String()
}

// splitWorkspace is the workspace split-K s needs for p: s fp32 partials of
// the M×N output.
// It saturates at math.MaxInt64 rather than overflow (a split-K factor
// beyond kernels.MaxSplitK reaches here only from a hand-made KernelSpec).
func splitWorkspace(p *Problem, s int) int64 {
	return mulSat(mulSat(int64(s), int64(p.M)), mulSat(int64(p.N), 4))
}

// mulSat returns a·b for a, b ≥ 0, saturated at math.MaxInt64; 0 when
// either is negative.
func mulSat(a, b int64) int64 {
	switch {
	case a <= 0 || b <= 0:
		return 0
	case a > math.MaxInt64/b:
		return math.MaxInt64
	}
	return a * b
}

// Source says where the table entry that routed the plan came from:
// "measured on NVIDIA H200 (2026-12-01)", or "the analytic model's choice
// for …, not measured"; "" when no table entry routed it (the heuristic, a
// no-op, a forced kernel).
func (pl Plan) Source() string {
	if pl.route == nil {
		return ""
	}
	return pl.route.source
}
