package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/gemmroute/gemmroute"
	"github.com/gemmroute/gemmroute/dispatch"
)

func init() {
	commands["table"] = command{"write a measured bucket table from bench -sweep results", runTable}
}

// tableEdges are the upper edges of the measured M buckets; the last bucket
// is open. Buckets with no measured M keep the base table's choice.
var tableEdges = []int{1, 2, 4, 8, 16}

// sample is one correct candidate's graph-replay time at one M.
type sample struct {
	arch    dispatch.Arch
	dtype   dispatch.DType
	n, k, m int
	cand    candidate
	us      float64
}

// candidate is a kernel with a split-K factor.
type candidate struct {
	kernel string
	split  int
}

// String is "kernel split-K N".
func (c candidate) String() string { return fmt.Sprintf("%s split-K %d", c.kernel, c.split) }

// readSweep reads bench -sweep rows; rows whose check failed are reported
// and dropped, so a fast wrong kernel never enters the table.
func readSweep(path string, cat *dispatch.Catalog, report io.Writer) ([]sample, error) {
	rows, col, err := readCSV(path, "M", "N", "K", "dtype", "kernel", "split_k", "graph_us", "check")
	if err != nil {
		return nil, fmt.Errorf("%w (write it with autotune bench -sweep)", err)
	}
	var out []sample
	for i, r := range rows {
		line := i + 2
		if r[col["check"]] != "ok" {
			fmt.Fprintf(report, "rejected %s split-K %s at M=%s N=%s K=%s: %s\n", r[col["kernel"]], r[col["split_k"]], r[col["M"]], r[col["N"]], r[col["K"]], r[col["check"]])
			continue
		}
		k := cat.Kernel(r[col["kernel"]])
		if k == nil {
			return nil, fmt.Errorf("%s:%d: kernel %q is not in the manifest", path, line, r[col["kernel"]])
		}
		s := sample{arch: k.MinArch, cand: candidate{kernel: k.Name}}
		var perr error
		ints := []*int{&s.m, &s.n, &s.k, &s.cand.split}
		for j, name := range []string{"M", "N", "K", "split_k"} {
			if *ints[j], err = strconv.Atoi(r[col[name]]); err != nil {
				perr = err
			}
		}
		if s.us, err = strconv.ParseFloat(r[col["graph_us"]], 64); err != nil || s.us <= 0 {
			perr = fmt.Errorf("graph_us %q", r[col["graph_us"]])
		}
		if s.dtype, err = dispatch.ParseDType(r[col["dtype"]]); err != nil {
			perr = err
		}
		if perr != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, perr)
		}
		out = append(out, s)
	}
	return out, nil
}

// point is one measured problem: M and the weight shape.
type point struct{ m, n, k int }

// choice is the outcome for one bucket.
type choice struct {
	best, runnerUp candidate
	worst, margin  float64           // best's worst-case slowdown over the bucket's points (1 = best everywhere); runner-up's excess, %
	times          map[point]float64 // best's time at each point
	loss           map[point]float64 // best's time over the fastest candidate's at each point (the bucket loss)
}

// choose picks, among candidates measured at every point of times, the one
// with the least worst-case slowdown against the fastest candidate at each
// point; ties go to the lower total time. ok is false when no candidate covers
// every point.
func choose(times map[point]map[candidate]float64) (c choice, ok bool) {
	fastest := map[point]float64{}
	var common []candidate
	first := true
	for m, cands := range times {
		fastest[m] = math.Inf(1)
		var here []candidate
		for cd, t := range cands {
			fastest[m] = min(fastest[m], t)
			here = append(here, cd)
		}
		if first {
			common, first = here, false
		} else {
			common = slices.DeleteFunc(common, func(cd candidate) bool { return !slices.Contains(here, cd) })
		}
	}
	type scored struct {
		cd           candidate
		worst, total float64
	}
	var ranked []scored
	for _, cd := range common {
		s := scored{cd: cd}
		for m, cands := range times {
			s.worst = max(s.worst, cands[cd]/fastest[m])
			s.total += cands[cd]
		}
		ranked = append(ranked, s)
	}
	if len(ranked) == 0 {
		return c, false
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.worst, b.worst), cmp.Compare(a.total, b.total), cmp.Compare(a.cd.kernel, b.cd.kernel), cmp.Compare(a.cd.split, b.cd.split))
	})
	c = choice{best: ranked[0].cd, worst: ranked[0].worst, times: map[point]float64{}, loss: map[point]float64{}}
	if len(ranked) > 1 {
		c.runnerUp, c.margin = ranked[1].cd, 100*(ranked[1].worst-ranked[0].worst)
	}
	for m, cands := range times {
		c.times[m] = cands[c.best]
		c.loss[m] = cands[c.best] / fastest[m]
	}
	return c, true
}

// entryKey names an entry: arch, dtype and exact shape (0, 0 for a default).
type entryKey struct {
	arch  dispatch.Arch
	dtype dispatch.DType
	n, k  int
}

// buildEntries turns samples into one exact entry per measured shape and one
// default entry per (arch, dtype), chosen over all its shapes together.
// Buckets without measurements copy the base table's choice.
func buildEntries(samples []sample, base *dispatch.Table, report io.Writer) ([]dispatch.Entry, error) {
	byKey := map[entryKey][]sample{}
	for _, s := range samples {
		byKey[entryKey{s.arch, s.dtype, s.n, s.k}] = append(byKey[entryKey{s.arch, s.dtype, s.n, s.k}], s)
		// Defaults learn from shapes every 16-byte kernel can run (N, K
		// multiples of 8); others would drag them to the unaligned kernels.
		if s.n%8 == 0 && s.k%8 == 0 {
			def := entryKey{s.arch, s.dtype, 0, 0}
			byKey[def] = append(byKey[def], s)
		}
	}
	keys := slices.SortedFunc(func(yield func(entryKey) bool) {
		for k := range byKey {
			if !yield(k) {
				return
			}
		}
	}, func(a, b entryKey) int {
		return cmp.Or(cmp.Compare(a.arch, b.arch), cmp.Compare(a.dtype, b.dtype), cmp.Compare(a.n, b.n), cmp.Compare(a.k, b.k))
	})
	var out []dispatch.Entry
	for _, key := range keys {
		e := dispatch.Entry{Arch: key.arch, In: key.dtype, Out: key.dtype, Layout: dispatch.LayoutTN, N: key.n, K: key.k}
		_, fallback := base.Find(key.arch, key.dtype, key.dtype, key.n, key.k)
		lo := 1
		var bs []measuredBucket
		for i := 0; i <= len(tableEdges); i++ {
			hi := 0
			if i < len(tableEdges) {
				hi = tableEdges[i]
			}
			bs = append(bs, bucketFor(byKey[key], lo, hi, fallback))
			lo = hi + 1
		}
		inheritUnmeasured(bs)
		for _, b := range bs {
			if b.Kernel == "" {
				return nil, fmt.Errorf("%s %s N=%d K=%d: bucket [%d, %d] has no measurement, no measured neighbour and no base default", key.arch, key.dtype, key.n, key.k, b.MinM, b.MaxM)
			}
			reportBucket(report, key, b)
			e.Buckets = append(e.Buckets, b.Bucket)
		}
		out = append(out, e)
	}
	return out, nil
}

// inheritUnmeasured gives each unmeasured bucket the choice of the nearest
// measured bucket below it (else above): the same shape's constraints hold
// there, which the base table's default may not satisfy.
func inheritUnmeasured(bs []measuredBucket) {
	for i := range bs {
		if bs[i].loss != 0 {
			continue
		}
		for _, j := range nearest(i, len(bs)) {
			if bs[j].loss != 0 {
				bs[i].Kernel, bs[i].SplitK = bs[j].Kernel, bs[j].SplitK
				break
			}
		}
	}
}

// nearest lists the indices below i (closest first), then those above.
func nearest(i, n int) []int {
	var out []int
	for j := i - 1; j >= 0; j-- {
		out = append(out, j)
	}
	for j := i + 1; j < n; j++ {
		out = append(out, j)
	}
	return out
}

// measuredBucket is a bucket with its worst bucket loss for the report
// (0: not measured).
type measuredBucket struct {
	dispatch.Bucket
	loss float64
}

// bucketFor chooses the bucket [lo, hi] (hi 0: open) over the samples in it:
// a candidate must be measured at every (M, shape) there. times_us keeps, per
// M, the chosen kernel's slowest time over the shapes. A bucket with no
// measurement takes the fallback entry's choice for now (inheritUnmeasured
// may replace it) or none.
func bucketFor(samples []sample, lo, hi int, fallback *dispatch.Entry) measuredBucket {
	b := measuredBucket{Bucket: dispatch.Bucket{MinM: lo, MaxM: hi}}
	times := map[point]map[candidate]float64{}
	for _, s := range samples {
		if s.m < lo || (hi != 0 && s.m > hi) {
			continue
		}
		pt := point{s.m, s.n, s.k}
		if times[pt] == nil {
			times[pt] = map[candidate]float64{}
		}
		times[pt][s.cand] = s.us
	}
	if c, ok := choose(times); ok {
		b.Kernel, b.SplitK, b.MarginPct = c.best.kernel, c.best.split, round2(c.margin)
		if c.runnerUp.kernel != "" {
			b.RunnerUp = c.runnerUp.String()
		}
		b.TimesUS = map[int]float64{}
		for pt, t := range c.times {
			b.TimesUS[pt.m] = max(b.TimesUS[pt.m], round2(t))
		}
		for _, l := range c.loss {
			b.loss = max(b.loss, l)
		}
		return b
	}
	if fallback != nil {
		fb := fallback.Bucket(lo)
		b.Kernel, b.SplitK = fb.Kernel, fb.SplitK
	}
	return b
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func reportBucket(w io.Writer, key entryKey, b measuredBucket) {
	shape := "default"
	if key.n != 0 {
		shape = fmt.Sprintf("N=%d K=%d", key.n, key.k)
	}
	hi := "∞"
	if b.MaxM != 0 {
		hi = strconv.Itoa(b.MaxM)
	}
	if b.loss == 0 {
		fmt.Fprintf(w, "| %s %s %s | [%d, %s] | %s split-K %d | unmeasured: a measured neighbour's or the base table's choice | |\n", key.arch, key.dtype, shape, b.MinM, hi, b.Kernel, b.SplitK)
		return
	}
	fmt.Fprintf(w, "| %s %s %s | [%d, %s] | %s split-K %d | runner-up %s (+%.1f%%) | bucket loss %.1f%% |\n",
		key.arch, key.dtype, shape, b.MinM, hi, b.Kernel, b.SplitK, b.RunnerUp, b.MarginPct, 100*(b.loss-1))
}

// mergeEntries replaces base entries that fresh ones cover and keeps the rest.
func mergeEntries(base []dispatch.Entry, fresh []dispatch.Entry) []dispatch.Entry {
	same := func(a, b dispatch.Entry) bool {
		return a.Arch == b.Arch && a.In == b.In && a.Out == b.Out && a.Layout == b.Layout && a.N == b.N && a.K == b.K
	}
	var out []dispatch.Entry
	for _, e := range base {
		if !slices.ContainsFunc(fresh, func(f dispatch.Entry) bool { return same(e, f) }) {
			out = append(out, e)
		}
	}
	return append(out, fresh...)
}

// writeAtomic writes data to a temporary file beside path and renames it, so
// an interrupted run leaves the old file intact.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".buckets-*.yaml")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func runTable(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("table", "-sweep SWEEP.csv -out buckets.yaml [flags]", stderr)
	sweep := fs.String("sweep", "", "bench -sweep CSV (correctness-gated graph-replay times)")
	out := fs.String("out", "", "table to write (atomically)")
	basePath := fs.String("base", "", "table to merge into (default: the embedded buckets.yaml)")
	manifest := fs.String("manifest", "", "kernel manifest JSON (default: the embedded one)")
	device := fs.String("device", "", "device the sweep ran on, e.g. \"NVIDIA H200\"")
	sms := fs.Int("sms", 0, "its multiprocessor count")
	driver := fs.String("driver", "", "its driver version")
	if _, code := parse(fs, args); code >= 0 {
		return code
	}
	if *sweep == "" || *out == "" {
		fs.Usage()
		return 2
	}
	cat, err := loadCatalog(*manifest)
	if err != nil {
		return fail(stderr, err)
	}
	baseData, name := gemmroute.DefaultTable, "buckets.yaml (embedded)"
	if *basePath != "" {
		if baseData, err = os.ReadFile(*basePath); err != nil {
			return fail(stderr, err)
		}
		name = *basePath
	}
	base, err := dispatch.LoadTable(name, baseData, cat)
	if err != nil {
		return fail(stderr, err)
	}
	samples, err := readSweep(*sweep, cat, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintln(stdout, "| entry | bucket | choice | runner-up | bucket loss |\n| --- | --- | --- | --- | --- |")
	fresh, err := buildEntries(samples, base, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	t := &dispatch.Table{Entries: mergeEntries(base.Entries, fresh), Provenance: dispatch.Provenance{
		Source: "measured for the entries whose buckets carry times_us; the others heuristic, not measured",
		Device: *device, SMs: *sms, Driver: *driver, KernelSetHash: cat.Manifest.SourceHash,
		Date:   time.Now().UTC().Format("2006-01-02"),
		Method: "autotune bench -sweep: correctness-gated candidates, CUDA-graph replay over rotating weights (≥ 3× L2), median of 20 replays; choice = least worst-case slowdown over the bucket's Ms",
	}}
	for _, s := range samples {
		t.Provenance.Arch = s.arch.String()
	}
	data, err := t.Marshal()
	if err != nil {
		return fail(stderr, err)
	}
	if _, err := dispatch.LoadTable(*out, data, cat); err != nil {
		return fail(stderr, fmt.Errorf("the table written would not load: %w", err))
	}
	if err := writeAtomic(*out, data); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d entries (%d measured)\n", *out, len(t.Entries), len(fresh))
	return 0
}
