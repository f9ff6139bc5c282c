package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
)

// sweepRow is one correct candidate's graph-replay time at one point of a
// tune run's tune.csv.
type sweepRow struct {
	m, n, k int
	cand    tuning.Candidate
	us      float64
}

// readSweep reads the correct graph-replay timings of a tune run's tune.csv:
// rows whose check failed are left out, so that a fast wrong kernel is
// never the fastest, and so are the per-call event timings (another method).
func readSweep(path string) ([]sweepRow, error) {
	f, err := fileio.ReadCSV(path, "M", "N", "K", "kernel", "split_k", "graph_us", "check")
	if err != nil {
		return nil, fmt.Errorf("%w (write it with autotune tune -report DIR)", err)
	}
	var out []sweepRow
	for r := range f.Rows() {
		if r.Str("check") != "ok" || r.Str("phase") == "events" {
			continue
		}
		m, n, k := dims(r)
		// A cuBLASLt candidate's kernel column is its tag
		// (tuning.Candidate.Column), kept as the Kernel: bench writes the
		// same tag for a plan routed to it (BenchRow.SetPlan), so the two
		// match in bucketLoss.
		s := sweepRow{m: m, n: n, k: k, cand: tuning.Candidate{Kernel: r.Raw("kernel"), SplitK: r.IntIn("split_k", 1, maxSplitK)}, us: timeUS(r, "graph_us", false)}
		if err := r.Err(); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// lossRow is the bucket loss at one measured point: the routed candidate's
// time over the fastest correct candidate's.
type lossRow struct {
	name       string
	m          int
	chosen     float64
	best       float64
	bestKernel string
}

// bucketLoss joins bench rows (the routed kernel) with a tune run's timings.
func bucketLoss(rows []BenchRow, sweep []sweepRow) []lossRow {
	type key struct{ m, n, k int }
	times := map[key]map[tuning.Candidate]float64{}
	for _, s := range sweep {
		kk := key{s.m, s.n, s.k}
		if times[kk] == nil {
			times[kk] = map[tuning.Candidate]float64{}
		}
		times[kk][s.cand] = s.us
	}
	var out []lossRow
	for _, r := range rows {
		cands := times[key{r.M, r.N, r.K}]
		chosen, ok := cands[tuning.Candidate{Kernel: r.Kernel, SplitK: r.SplitK}]
		if !ok {
			continue
		}
		l := lossRow{name: r.Name, m: r.M, chosen: chosen, best: math.Inf(1)}
		for cd, t := range cands {
			if t < l.best || (t == l.best && cd.String() < l.bestKernel) {
				l.best, l.bestKernel = t, cd.String()
			}
		}
		out = append(out, l)
	}
	return out
}

// Bench is a bench run to report on.
type Bench struct {
	Title string
	Rows  []BenchRow
	Sweep string // a tune run's tune.csv, for the bucket-loss table ("": none)
	// Inputs are the files the report is made from: Write refuses to write
	// over one.
	Inputs   []string
	Ceilings // the roofline's bandwidth and rates
}

// Write writes dir/report.md and a roofline plot per shape name, and
// returns how many plots it drew.
func (b *Bench) Write(dir string) (plots int, err error) {
	if err := b.check(); err != nil {
		return 0, err
	}
	var losses []lossRow
	if b.Sweep != "" {
		sweep, err := readSweep(b.Sweep)
		if err != nil {
			return 0, err
		}
		losses = bucketLoss(b.Rows, sweep)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	var md strings.Builder
	b.markdown(&md, losses)
	var names []string // in the order of first appearance
	byName := map[string][]BenchRow{}
	for _, r := range b.Rows {
		name := label(r.Shape)
		if byName[name] == nil {
			names = append(names, name)
		}
		byName[name] = append(byName[name], r)
	}
	for _, name := range names {
		png := plotName(name)
		rows := byName[name]
		if err := rooflinePlot(fileio.Outputs{Inputs: b.Inputs}, filepath.Join(dir, png), name, rows, b.Ceilings); err != nil {
			return 0, err
		}
		fmt.Fprintf(&md, "![%s](%s)\n\n", name, png)
	}
	return len(names), fileio.Outputs{Inputs: b.Inputs}.Write(filepath.Join(dir, "report.md"), []byte(md.String()))
}

func (b *Bench) markdown(w io.Writer, losses []lossRow) {
	fmt.Fprintf(w, "# %s\n\nRoofline: read %.2f TB/s, dense %.0f TFLOP/s (e4m3 %.0f). Times are per call by CUDA-graph replay over rotating weights (median, p90); events = per-call CUDA events after an L2 flush.\n\n", b.Title, b.ReadBW/1e12, b.Peak/1e12, b.Rate(dispatch.E4M3)/1e12)
	var logs []float64
	for _, r := range b.Rows {
		if r.Ratio() > 0 {
			logs = append(logs, math.Log(r.Ratio()))
		}
	}
	if len(logs) > 0 {
		fmt.Fprintf(w, "Against cuBLAS on %d shapes: geometric mean ×%.3f, lowest ×%.2f (above 1: gemmroute is faster).\n\n", len(logs), math.Exp(mean(logs)), math.Exp(slices.Min(logs)))
	}
	fmt.Fprintln(w, "| shape | M | N | K | graph µs (p90) | events µs | cuBLAS µs | ratio | % roofline | kernel (split-K) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range b.Rows {
		ratio := "–"
		if r.Ratio() > 0 {
			ratio = fmt.Sprintf("×%.2f", r.Ratio())
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.2f (%.2f) | %.2f | %.2f | %s | %.1f | `%s` (%d) |\n",
			label(r.Shape), r.M, r.N, r.K, r.GraphUS, r.GraphP90, r.EventsUS, r.PeerUS, ratio, b.RooflineUS(r.Shape)/r.GraphUS*100, r.Kernel, r.SplitK)
	}
	if len(losses) > 0 {
		var worst, sum float64
		fmt.Fprintln(w, "\n## Bucket loss\n\nThe routed kernel against the fastest correct candidate at that exact M (same sweep): the price of geometric buckets. Where the table was chosen from this sweep, these are the Ms it was chosen on (in-sample); Ms between them are not measured here.\n\n| shape | M | routed µs | fastest µs | loss | fastest candidate |\n| --- | --- | --- | --- | --- | --- |")
		for _, l := range losses {
			loss := 100 * (l.chosen/l.best - 1)
			worst, sum = max(worst, loss), sum+loss
			fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %.1f %% | `%s` |\n", l.name, l.m, l.chosen, l.best, loss, l.bestKernel)
		}
		fmt.Fprintf(w, "\nBucket loss over %d points: mean %.2f %%, worst %.1f %%.\n", len(losses), sum/float64(len(losses)), worst)
	}
	fmt.Fprintln(w)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
