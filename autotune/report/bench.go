// Package report writes what autotune's runs leave for a person: bench
// results as CSV, Markdown reports of bench and tune runs against the
// roofline and cuBLAS, and roofline plots.
package report

import (
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
)

// Work is a GEMM's multiply-add flops and the bytes it must move at least
// computing in t: A and B read once in t.In (one byte each for e4m3;
// scales not counted), D written once in t.Out.
func Work(m, n, k int, t dispatch.Types) (flops, bytes float64) {
	in := float64(t.In.Size()) * (float64(m)*float64(k) + float64(n)*float64(k))
	return 2 * float64(m) * float64(n) * float64(k), in + float64(t.Out.Size())*float64(m)*float64(n)
}

// Ceilings are a card's measured limits, what the roofline is drawn with.
type Ceilings struct {
	ReadBW  float64 // pure-read bandwidth, bytes/s
	Peak    float64 // dense 16-bit tensor rate, FLOP/s
	PeakFP8 float64 // dense e4m3 tensor rate, FLOP/s (0: twice Peak, sm_89/sm_90's e4m3 rate)
}

// Rate is the dense rate of GEMMs with dt inputs, FLOP/s.
func (c Ceilings) Rate(dt dispatch.DType) float64 {
	switch {
	case dt != dispatch.E4M3:
		return c.Peak
	case c.PeakFP8 > 0:
		return c.PeakFP8
	}
	return 2 * c.Peak
}

// RooflineUS is the least time a GEMM of shape s can take, microseconds:
// its flops at the dense rate of its dtype or its bytes (Work) at the
// pure-read bandwidth, whichever is longer.
func (c Ceilings) RooflineUS(s tuning.Shape) float64 {
	flops, bytes := Work(s.M, s.N, s.K, s.Types)
	return max(flops/c.Rate(s.Types.In), bytes/c.ReadBW) * 1e6
}

// check returns an error unless every rate can draw a roofline (PeakFP8
// may also be 0).
func (c Ceilings) check() error {
	if err := CheckRate("report: read bandwidth", c.ReadBW); err != nil {
		return err
	}
	if err := CheckRate("report: peak rate", c.Peak); err != nil {
		return err
	}
	if c.PeakFP8 != 0 {
		return CheckRate("report: e4m3 peak rate", c.PeakFP8)
	}
	return nil
}

// BenchRow is one timed GEMM: the router's plan (an engine opened as
// usual, every candidate its table names, cuBLASLt included), its
// graph-replay and per-call event times, host costs, cuBLAS's time where
// known, and the same GEMM through our kernels alone.
type BenchRow struct {
	tuning.Shape
	Kernel               string
	SplitK               int
	Level                string  // the planner's level: exact, default, heuristic
	GraphUS, GraphP90    float64 // per call by graph replay: median, p90
	EventsUS, EventsP90  float64 // per call by events after an L2 flush
	FloorUS              float64 // the roofline time (Ceilings.RooflineUS)
	HostGEMM, HostLaunch float64 // µs per call on the host: GEMM, and Launch of a ready plan
	PeerUS               float64 // cuBLAS graph time (0: none)
	KernelsOnly          KernelsOnly
}

// KernelsOnly is a GEMM through our kernels alone: the plan of an engine
// opened with dispatch.Options.NoVendor over the same table (a bucket
// routed to cuBLASLt passed over to the next level), and its graph-replay
// times. The zero value is "not measured" (a CSV written before bench
// measured it, or a row no GPU ran).
type KernelsOnly struct {
	Kernel            string
	SplitK            int
	Level             string
	GraphUS, GraphP90 float64 // per call by graph replay: median, p90
}

// planColumns are the kernel, split-K and level columns of plan: its
// kernel's name, or for a plan routed to cuBLASLt (no Kernel) the
// algorithm's one-word Vendor.Tag ("cublaslt:12.8.4:1a2b3c4d").
func planColumns(plan dispatch.Plan) (kernel string, splitK int, level string) {
	kernel = plan.KernelName()
	if plan.Vendor != nil {
		kernel = plan.Vendor.Tag()
	}
	return kernel, plan.SplitK, plan.Level.String()
}

// SetPlan records in r what plan the router runs: its kernel's name, or
// for a plan routed to cuBLASLt the algorithm's one-word Vendor.Tag, as the
// kernel column; its split-K factor and level.
func (r *BenchRow) SetPlan(plan dispatch.Plan) {
	r.Kernel, r.SplitK, r.Level = planColumns(plan)
}

// Set records in k what plan our kernels alone run (a plan of an engine
// opened with dispatch.Options.NoVendor) and its graph-replay timing.
func (k *KernelsOnly) Set(plan dispatch.Plan, graph tuning.Timing) {
	k.Kernel, k.SplitK, k.Level = planColumns(plan)
	k.GraphUS, k.GraphP90 = graph.Median, graph.P90
}

// Router is what r's router columns say of the plan and its graph-replay
// times, as a KernelsOnly: the kernels-only columns of a GEMM the router
// plans as our kernels alone do.
func (r BenchRow) Router() KernelsOnly {
	return KernelsOnly{Kernel: r.Kernel, SplitK: r.SplitK, Level: r.Level, GraphUS: r.GraphUS, GraphP90: r.GraphP90}
}

// KernelsOnlyDiffers reports whether r's kernels-only columns are measured
// and say something other than the router's: another plan (the router's
// went to cuBLASLt) or another time.
func (r BenchRow) KernelsOnlyDiffers() bool {
	return r.KernelsOnly != KernelsOnly{} && r.KernelsOnly != r.Router()
}

// RooflinePct is the share of the roofline the GEMM reached, %.
func (r BenchRow) RooflinePct() float64 { return 100 * r.FloorUS / r.GraphUS }

// Ratio is cuBLAS's time over the router's (above 1: gemmroute is faster;
// 0: no peer).
func (r BenchRow) Ratio() float64 {
	if r.PeerUS > 0 {
		return r.PeerUS / r.GraphUS
	}
	return 0
}

// KernelsOnlyRatio is cuBLAS's time over our kernels alone's (0: no peer,
// or the kernels-only columns not measured).
func (r BenchRow) KernelsOnlyRatio() float64 {
	if r.PeerUS > 0 && r.KernelsOnly.GraphUS > 0 {
		return r.PeerUS / r.KernelsOnly.GraphUS
	}
	return 0
}

// label names a shape in reports and logs: its name, with its types when
// not bf16 ("down e4m3→bf16/row"), so that rows of one weight in several
// types stay apart.
func label(s tuning.Shape) string {
	if s.Types == (dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}) {
		return s.Name
	}
	return s.Name + " " + s.Types.String()
}

// Line is the row as bench prints it.
func (r BenchRow) Line() string {
	s := fmt.Sprintf("%-14s M=%5d N=%6d K=%6d graph=%8.2fus p90=%8.2f events=%8.2fus %6.1f%% roofline host=%5.2fus launch=%5.2fus  %s split=%d (%s)",
		label(r.Shape), r.M, r.N, r.K, r.GraphUS, r.GraphP90, r.EventsUS, r.RooflinePct(), r.HostGEMM, r.HostLaunch, r.Kernel, r.SplitK, r.Level)
	if r.PeerUS > 0 {
		s += fmt.Sprintf("  cuBLAS=%.2fus ×%.2f", r.PeerUS, r.Ratio())
	}
	if r.KernelsOnlyDiffers() {
		k := r.KernelsOnly
		s += fmt.Sprintf("  | kernels only: graph=%.2fus p90=%.2f %s split=%d (%s)", k.GraphUS, k.GraphP90, k.Kernel, k.SplitK, k.Level)
		if x := r.KernelsOnlyRatio(); x > 0 {
			s += fmt.Sprintf(" ×%.2f", x)
		}
	}
	return s
}

// BenchSummary is the line bench prints after its rows: against cuBLAS,
// the geometric mean and lowest of the router's ratios and of our kernels
// alone's (where measured), and on how many of the shapes where our
// kernels alone were measured the two differ. It is empty where there is
// nothing to say (no peer, our kernels alone not measured).
func BenchSummary(rows []BenchRow) string {
	var parts []string
	stat := func(who string, ratio func(BenchRow) float64) {
		var logs []float64
		for _, r := range rows {
			if x := ratio(r); x > 0 {
				logs = append(logs, math.Log(x))
			}
		}
		if len(logs) > 0 {
			parts = append(parts, fmt.Sprintf("%s ×%.3f, lowest ×%.2f on %d shapes", who, math.Exp(mean(logs)), math.Exp(slices.Min(logs)), len(logs)))
		}
	}
	stat("router", BenchRow.Ratio)
	stat("our kernels alone", BenchRow.KernelsOnlyRatio)
	if len(parts) > 0 {
		parts[0] = "against cuBLAS (geometric mean; above 1: gemmroute is faster): " + parts[0]
	}
	measured, differ := 0, 0
	for _, r := range rows {
		if r.KernelsOnly != (KernelsOnly{}) {
			measured++
		}
		if r.KernelsOnlyDiffers() {
			differ++
		}
	}
	if measured > 0 {
		parts = append(parts, fmt.Sprintf("the router and our kernels alone differ on %d of %d shapes", differ, measured))
	}
	if len(parts) == 0 {
		return ""
	}
	return "# " + strings.Join(parts, "; ")
}

// benchColumns are bench.csv's columns: the router's (kernel through
// speedup_vs_cublas, the columns every reader of older files knows), then
// our kernels alone's (kernels_only_*, empty where not measured).
var benchColumns = []string{"name", "M", "N", "K", "dtype", "scaling", "out", "kernel", "split_k", "level", "graph_us", "graph_p90_us", "events_us", "events_p90_us",
	"tflops", "gbps", "floor_us", "roofline_pct", "host_gemm_us", "host_launch_us", "cublas_graph_us", "speedup_vs_cublas",
	"kernels_only_kernel", "kernels_only_split_k", "kernels_only_level", "kernels_only_graph_us", "kernels_only_graph_p90_us", "kernels_only_speedup_vs_cublas"}

// WriteBench writes rows as bench.csv (atomically).
func WriteBench(path string, rows []BenchRow) error {
	var b csvBuilder
	b.row(benchColumns...)
	for _, r := range rows {
		flops, bytes := Work(r.M, r.N, r.K, r.Types)
		speed := ""
		if r.PeerUS > 0 {
			speed = ff(r.Ratio())
		}
		tflops, gbps := ff(flops/r.GraphUS/1e6), ff(bytes/r.GraphUS/1e3)
		fields := []string{r.Name, itoa(r.M), itoa(r.N), itoa(r.K), r.Types.In.String(), scalingColumn(r.Shape), r.Types.Out.String(), r.Kernel, itoa(r.SplitK), r.Level,
			ff(r.GraphUS), ff(r.GraphP90), ff(r.EventsUS), ff(r.EventsP90), tflops, gbps,
			ff(r.FloorUS), ff(r.RooflinePct()), ff(r.HostGEMM), ff(r.HostLaunch), ff(r.PeerUS), speed}
		b.row(append(fields, kernelsOnlyColumns(r)...)...)
	}
	return fileio.WriteAtomic(path, b.bytes())
}

// kernelsOnlyColumns are r's kernels_only_* fields: empty where not
// measured, the speedup empty without a peer.
func kernelsOnlyColumns(r BenchRow) []string {
	k := r.KernelsOnly
	if k == (KernelsOnly{}) {
		return make([]string, 6)
	}
	speed := ""
	if x := r.KernelsOnlyRatio(); x > 0 {
		speed = ff(x)
	}
	return []string{k.Kernel, itoa(k.SplitK), k.Level, ff(k.GraphUS), ff(k.GraphP90), speed}
}

// scalingColumn is the scaling column of a shape: its mode for e4m3, empty
// for 16-bit shapes (which have none).
func scalingColumn(s tuning.Shape) string {
	if !s.Types.Scaled() {
		return ""
	}
	return s.Types.Scaling.String()
}

// ReadBench reads a bench.csv (a missing or empty dtype is bf16, scaling
// tensor, out bf16 for e4m3, as in files written before the out column). The kernels_only_* columns are optional (files written before
// bench measured our kernels alone have none): where absent or their
// kernel is empty, a row's KernelsOnly is zero.
func ReadBench(path string) ([]BenchRow, error) {
	f, err := fileio.ReadCSV(path, "name", "M", "N", "K", "kernel", "split_k", "graph_us", "graph_p90_us", "events_us", "floor_us", "cublas_graph_us")
	if err != nil {
		return nil, err
	}
	var out []BenchRow
	for r := range f.Rows() {
		x := BenchRow{Shape: tuning.ShapeOf(r),
			Kernel: r.Raw("kernel"), SplitK: r.IntIn("split_k", 1, maxSplitK), Level: r.Str("level"),
			GraphUS: timeUS(r, "graph_us", false), GraphP90: timeUS(r, "graph_p90_us", true), EventsUS: timeUS(r, "events_us", true),
			FloorUS: timeUS(r, "floor_us", true), PeerUS: timeUS(r, "cublas_graph_us", true)}
		if k := r.Raw("kernels_only_kernel"); k != "" {
			x.KernelsOnly = KernelsOnly{Kernel: k, SplitK: r.IntIn("kernels_only_split_k", 1, maxSplitK), Level: r.Str("kernels_only_level"),
				GraphUS: timeUS(r, "kernels_only_graph_us", false), GraphP90: timeUS(r, "kernels_only_graph_p90_us", true)}
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// Bounds on the numbers of the CSVs report reads: times per call in µs (a
// nanosecond to 1000 s), split-K factors, and the roofline's rates per
// second. Within them every plot and table is finite.
const (
	minUS, maxUS     = 1e-3, 1e9
	maxSplitK        = 1024
	minRate, maxRate = 1e6, 1e18
)

// dims reads a row's M, N and K: each 1 to 2^31 (tuning.MaxDim).
func dims(r *fileio.Row) (m, n, k int) {
	return r.IntIn("M", 1, tuning.MaxDim), r.IntIn("N", 1, tuning.MaxDim), r.IntIn("K", 1, tuning.MaxDim)
}

// timeUS reads a time per call, µs, within [minUS, maxUS]; optional ones
// may be 0 (not measured).
func timeUS(r *fileio.Row, column string, optional bool) float64 {
	v := r.Float(column)
	switch {
	case !optional && !(v >= minUS && v <= maxUS):
		r.Fail(fmt.Errorf("%s must be positive, a time of %g to %g µs (is %g)", column, minUS, maxUS, v))
	case optional && v != 0 && !(v >= minUS && v <= maxUS):
		r.Fail(fmt.Errorf("%s must be 0 (not measured) or a time of %g to %g µs (is %g)", column, minUS, maxUS, v))
	}
	return v
}

// CheckRate returns an error naming what unless v is a rate per second a
// roofline can be drawn with: finite, 1e6 to 1e18 (bytes/s or FLOP/s).
func CheckRate(what string, v float64) error {
	if !(v >= minRate && v <= maxRate) {
		return fmt.Errorf("%s %g: want a rate of %g to %g per second", what, v, minRate, maxRate)
	}
	return nil
}

// csvBuilder collects CSV rows in memory for an atomic write.
type csvBuilder struct{ b strings.Builder }

func (c *csvBuilder) row(fields ...string) {
	w := csv.NewWriter(&c.b)
	_ = w.Write(fields) // writes to memory cannot fail
	w.Flush()
}

func (c *csvBuilder) bytes() []byte { return []byte(c.b.String()) }

func itoa(i int) string   { return strconv.Itoa(i) }
func ff(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
