package main

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gemmroute/gemmroute/dispatch"
)

func init() {
	commands["report"] = command{"write a Markdown report with roofline plots from bench (and tune) CSVs", runReport}
}

// reportRow is one bench.csv row as the report needs it.
type reportRow struct {
	name                          string
	m, n, k, split                int
	kernel                        string
	graph, p90, events, evP90     float64
	peer                          float64
	roofPct, tflops, floor, ratio float64
}

func readBenchCSV(path string) ([]reportRow, error) {
	rows, col, err := readCSV(path, "name", "M", "N", "K", "kernel", "split_k", "graph_us", "graph_p90_us", "events_us", "tflops", "floor_us", "roofline_pct", "cublas_graph_us")
	if err != nil {
		return nil, err
	}
	var out []reportRow
	for i, r := range rows {
		var x reportRow
		x.name, x.kernel = r[col["name"]], r[col["kernel"]]
		var bad error
		for _, f := range []struct {
			c   string
			dst *int
		}{{"M", &x.m}, {"N", &x.n}, {"K", &x.k}, {"split_k", &x.split}} {
			if *f.dst, err = strconv.Atoi(r[col[f.c]]); err != nil {
				bad = err
			}
		}
		for _, f := range []struct {
			c   string
			dst *float64
		}{{"graph_us", &x.graph}, {"graph_p90_us", &x.p90}, {"events_us", &x.events}, {"tflops", &x.tflops},
			{"floor_us", &x.floor}, {"roofline_pct", &x.roofPct}, {"cublas_graph_us", &x.peer}} {
			if *f.dst, err = strconv.ParseFloat(r[col[f.c]], 64); err != nil {
				bad = err
			}
		}
		if bad == nil && (x.graph <= 0 || x.m < 1 || x.n < 1 || x.k < 1) {
			bad = fmt.Errorf("graph_us must be positive and M, N, K at least 1")
		}
		if bad != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+2, bad)
		}
		if x.peer > 0 {
			x.ratio = x.peer / x.graph
		}
		out = append(out, x)
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
func bucketLoss(rows []reportRow, samples []sample) []lossRow {
	type key struct{ m, n, k int }
	times := map[key]map[candidate]float64{}
	for _, s := range samples {
		kk := key{s.m, s.n, s.k}
		if times[kk] == nil {
			times[kk] = map[candidate]float64{}
		}
		times[kk][s.cand] = s.us
	}
	var out []lossRow
	for _, r := range rows {
		cands := times[key{r.m, r.n, r.k}]
		chosen, ok := cands[candidate{r.kernel, r.split}]
		if !ok {
			continue
		}
		l := lossRow{name: r.name, m: r.m, chosen: chosen, best: math.Inf(1)}
		for cd, t := range cands {
			if t < l.best || (t == l.best && cd.String() < l.bestKernel) {
				l.best, l.bestKernel = t, cd.String()
			}
		}
		out = append(out, l)
	}
	return out
}

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", "-bench bench.csv [-sweep tune.csv] -out DIR [flags]", stderr)
	benchPath := fs.String("bench", "", "autotune bench -csv output (with -peer for the cuBLAS column)")
	sweepPath := fs.String("sweep", "", "a tune run's tune.csv, for the bucket-loss table")
	manifest := fs.String("manifest", "", "kernel manifest JSON the sweep's kernels are in (default: the embedded one)")
	outDir := fs.String("out", "", "directory for report.md and the roofline PNGs")
	title := fs.String("title", "gemmroute benchmark", "report title (say the card)")
	readBW := fs.Float64("read-bw", 4.54e12, "pure-read bandwidth for the roofline, bytes/s")
	peak := fs.Float64("peak", 750e12, "dense 16-bit rate for the roofline, FLOP/s")
	if _, code := parse(fs, args); code >= 0 {
		return code
	}
	if *benchPath == "" || *outDir == "" {
		fs.Usage()
		return 2
	}
	rows, err := readBenchCSV(*benchPath)
	if err != nil {
		return fail(stderr, err)
	}
	var losses []lossRow
	if *sweepPath != "" {
		cat, err := loadCatalog(*manifest)
		if err != nil {
			return fail(stderr, err)
		}
		samples, err := readSweep(*sweepPath, cat, io.Discard)
		if err != nil {
			return fail(stderr, err)
		}
		losses = bucketLoss(rows, samples)
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return fail(stderr, err)
	}
	var md strings.Builder
	writeReport(&md, *title, rows, losses, *readBW, *peak)
	for _, name := range shapeNames(rows) {
		png := "roofline-" + fileSafe(name) + ".png"
		if err := rooflinePlot(filepath.Join(*outDir, png), name, rowsOf(rows, name), *readBW, *peak); err != nil {
			return fail(stderr, err)
		}
		fmt.Fprintf(&md, "![%s](%s)\n\n", name, png)
	}
	if err := writeAtomic(filepath.Join(*outDir, "report.md"), []byte(md.String())); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s (report.md and %d plots)\n", *outDir, len(shapeNames(rows)))
	return 0
}

func writeReport(w io.Writer, title string, rows []reportRow, losses []lossRow, readBW, peak float64) {
	fmt.Fprintf(w, "# %s\n\nRoofline: read %.2f TB/s, dense %.0f TFLOP/s. Times are per call by CUDA-graph replay over rotating weights (median, p90); events = per-call CUDA events after an L2 flush.\n\n", title, readBW/1e12, peak/1e12)
	var logSum float64
	var n int
	low := math.Inf(1)
	for _, r := range rows {
		if r.ratio > 0 {
			logSum += math.Log(r.ratio)
			n++
			low = min(low, r.ratio)
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "Against cuBLAS on %d shapes: geometric mean ×%.3f, lowest ×%.2f (above 1: gemmroute is faster).\n\n", n, math.Exp(logSum/float64(n)), low)
	}
	fmt.Fprintln(w, "| shape | M | N | K | graph µs (p90) | events µs | cuBLAS µs | ratio | % roofline | kernel (split-K) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range rows {
		ratio := "–"
		if r.ratio > 0 {
			ratio = fmt.Sprintf("×%.2f", r.ratio)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.2f (%.2f) | %.2f | %.2f | %s | %.1f | `%s` (%d) |\n",
			r.name, r.m, r.n, r.k, r.graph, r.p90, r.events, r.peer, ratio, r.roofPct, r.kernel, r.split)
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

func shapeNames(rows []reportRow) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.name) {
			out = append(out, r.name)
		}
	}
	return out
}

func rowsOf(rows []reportRow, name string) []reportRow {
	out := slices.DeleteFunc(slices.Clone(rows), func(r reportRow) bool { return r.name != name })
	slices.SortFunc(out, func(a, b reportRow) int { return cmp.Compare(a.m, b.m) })
	return out
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func fileSafe(s string) string { return unsafeChars.ReplaceAllString(s, "_") }

// powersOfTwo ticks a log axis at 1, 2, 4, …
type powersOfTwo struct{}

func (powersOfTwo) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for v := 1.0; v <= hi*1.0001; v *= 2 {
		if v >= lo*0.9999 {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
	}
	return ts
}

// oneTwoFive ticks a log axis at 1, 2 and 5 times powers of ten.
type oneTwoFive struct{}

func (oneTwoFive) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, f := range []float64{1, 2, 5} {
			if v := f * math.Pow(10, e); v >= lo*0.9999 && v <= hi*1.0001 {
				ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return ts
}

// rooflinePlot draws achieved TFLOP/s against M for gemmroute and cuBLAS
// beside the roofline min(peak, read bandwidth × arithmetic intensity).
func rooflinePlot(path, name string, rows []reportRow, readBW, peak float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (N=%d, K=%d)", name, rows[0].n, rows[0].k)
	p.X.Label.Text, p.Y.Label.Text = "M (tokens)", "TFLOP/s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = powersOfTwo{}, oneTwoFive{}
	var ours, peer, roof plotter.XYs
	for _, r := range rows {
		flops, bytes := gemmWork(r.m, r.n, r.k, dispatch.BF16) // 16-bit operands
		x := float64(r.m)
		ours = append(ours, plotter.XY{X: x, Y: flops / r.graph / 1e6})
		if r.peer > 0 {
			peer = append(peer, plotter.XY{X: x, Y: flops / r.peer / 1e6})
		}
		roof = append(roof, plotter.XY{X: x, Y: math.Min(peak, readBW*flops/bytes) / 1e12})
	}
	for _, s := range []struct {
		label string
		xys   plotter.XYs
		dash  bool
	}{{"roofline", roof, true}, {"gemmroute", ours, false}, {"cuBLAS", peer, false}} {
		if len(s.xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			return err
		}
		switch s.label {
		case "roofline":
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		case "cuBLAS":
			l.Color, pts.Color = plotColor(200, 60, 40), plotColor(200, 60, 40)
		default:
			l.Color, pts.Color = plotColor(30, 90, 200), plotColor(30, 90, 200)
		}
		p.Add(l, pts)
		p.Legend.Add(s.label, l, pts)
	}
	// Explicit ranges: gonum pads a one-point axis down to zero, which a
	// log scale cannot draw.
	p.X.Min, p.X.Max = float64(rows[0].m)/1.5, float64(rows[len(rows)-1].m)*1.5
	p.Y.Min, p.Y.Max = math.Inf(1), 0
	for _, xys := range []plotter.XYs{ours, peer, roof} {
		for _, xy := range xys {
			p.Y.Min, p.Y.Max = math.Min(p.Y.Min, xy.Y/1.5), math.Max(p.Y.Max, xy.Y*1.5)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}

func plotColor(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 255} }
