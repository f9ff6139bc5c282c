package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

func init() {
	commands["tune"] = command{"measure, gate and choose kernels per M bucket; write buckets.yaml and a report (the default command)", runTune}
}

// openMeasurers opens one measurer per device ordinal with a split-K
// workspace of the given size, and a function that closes them. The CUDA
// build opens engines; the nocuda build has none.
var openMeasurers func(devices []int, workspace int64) ([]measurer, func(), error)

// tuneMethod is the provenance's method line.
const tuneMethod = "autotune tune: constraint survivors × split-K gated against a float64 reference at each bucket's edges and hi−1; " +
	"screened, then timed by CUDA-graph replay over rotating weights (≥ 3× L2), median of the replays; near-ties and noisy timings timed again; " +
	"choice = least worst-case slowdown over the bucket's edges. Entries without times_us are heuristic, not measured."

func runTune(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("tune", "(-model NAME | -shapes CSV) -out buckets.yaml [flags]", stderr)
	model := fs.String("model", "", "tune a model's linear layers: "+modelNames())
	shapesPath := fs.String("shapes", "", "or the weights of a shapes CSV (name,M,N,K[,dtype]; M is ignored)")
	dtypeList := fs.String("dtypes", "", "comma-separated dtypes (bf16,f16; default: bf16 for -model, the CSV's for -shapes)")
	maxM := fs.Int("max-m", 8192, "last bucket edge, a power of two: buckets [1,1], [2,2], [3,4], …, [max-m/2+1, max-m]")
	out := fs.String("out", "", "table to write (atomically), merged into -base")
	basePath := fs.String("base", "", "table to merge into (default: the embedded buckets.yaml)")
	reportDir := fs.String("report", "", "directory for tune.md, tune.csv and roofline PNGs")
	peerPath := fs.String("peer", "", "peer_cublas.py output for the report's cuBLAS column (time the points of -write-shapes)")
	writeShapes := fs.String("write-shapes", "", "write the Ms the run will time as a shapes CSV (for peer_cublas.py) and exit")
	deviceList := fs.String("devices", "0", "comma-separated GPU ordinals to spread the work over (one kind of GPU)")
	manifest := fs.String("manifest", "", "kernel manifest JSON (default: $GEMMROUTE_KERNEL_DIR's, else the embedded one)")
	driver := fs.String("driver", "", "driver version for the provenance, e.g. 580.159.04")
	splitList := fs.String("splits", "1,2,4,8", "split-K factors to try")
	workspace := fs.Int64("workspace", dispatch.DefaultWorkspaceBytes, "split-K workspace per stream the table is for, bytes (an engine's Options.WorkspaceBytes): candidates needing more are not tried")
	prune := fs.Float64("prune", 4, "skip candidates the model estimates above this × the best estimate at every sample M (0: time all)")
	screenReps := fs.Int("screen-reps", 3, "graph replays of the screening timing")
	reps := fs.Int("reps", 20, "graph replays of a full timing (3× for near-ties and noisy timings)")
	eventCalls := fs.Int("event-calls", 50, "per-call event timings of each choice, for the second column")
	keep := fs.Float64("keep", 1.3, "the screen keeps candidates within this × the fastest at some M")
	tie := fs.Float64("tie", 0.02, "time candidates within this fraction of the best worst-case slowdown again")
	noise := fs.Float64("noise", 0.05, "time again, then flag, timings whose p90 exceeds the median by more than this fraction")
	dry := fs.Bool("dry-run", false, "measure nothing: size the run by the analytic model on -device (any build; writes no table)")
	preset := fs.String("device", "h200", "device preset for -dry-run: h200, h100 or a100")
	modelOut := fs.String("model-out", "", "with -dry-run: write the base table with the model's choices merged in as heuristic entries (no times_us), for an arch no GPU at hand can measure")
	readBW := fs.Float64("read-bw", 0, "pure-read bandwidth for the roofline, bytes/s (default: the device preset's)")
	peak := fs.Float64("peak", 0, "dense 16-bit rate for the roofline, FLOP/s (default: the device preset's)")
	if _, code := parse(fs, args); code >= 0 {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tune: "+format+"\n", a...)
		return 2
	}
	if (*model == "") == (*shapesPath == "") {
		return usageErr("give one of -model and -shapes")
	}
	if *out == "" && *writeShapes == "" && !*dry {
		return usageErr("-out is required")
	}
	if *maxM < 1 || *maxM&(*maxM-1) != 0 {
		return usageErr("-max-m %d is not a power of two", *maxM)
	}
	if *reps < 1 || *screenReps < 1 || *eventCalls < 1 || *keep < 1 || *tie < 0 || *noise < 0 || *prune < 0 || *workspace < 0 {
		return usageErr("-reps, -screen-reps and -event-calls must be ≥ 1, -keep ≥ 1, and -tie, -noise, -prune, -workspace ≥ 0")
	}
	dtypes, err := parseDTypes(*dtypeList)
	if err != nil {
		return usageErr("-dtypes: %v", err)
	}
	splits, err := parseInts(*splitList)
	if err != nil || slices.ContainsFunc(splits, func(s int) bool { return s < 1 }) {
		return usageErr("-splits %q: want positive integers such as 1,2,4,8", *splitList)
	}
	devices, err := parseInts(*deviceList)
	if err != nil || len(devices) == 0 || slices.ContainsFunc(devices, func(d int) bool { return d < 0 }) {
		return usageErr("-devices %q: want GPU ordinals such as 0,1", *deviceList)
	}
	var weights []weight
	if *model != "" {
		if len(dtypes) == 0 {
			dtypes = []dispatch.DType{dispatch.BF16}
		}
		weights, err = weightsOf(*model, dtypes)
	} else {
		var shapes []shape
		if shapes, err = readShapes(*shapesPath); err == nil {
			weights = weightsFromShapes(shapes, dtypes)
		}
	}
	if err != nil {
		return fail(stderr, err)
	}
	sp := spans(*maxM)
	if *writeShapes != "" {
		if err := writeAtomic(*writeShapes, pointsCSV(weights, sp)); err != nil {
			return fail(stderr, err)
		}
		fmt.Fprintf(stdout, "wrote %s: %d weights × the Ms of %d buckets\n", *writeShapes, len(weights), len(sp))
		return 0
	}
	cat, base, err := loadCatalogAndBase(*manifest, *basePath)
	if err != nil {
		return fail(stderr, err)
	}
	peer := map[string]float64{}
	if *peerPath != "" {
		if peer, err = readPeer(*peerPath); err != nil {
			return fail(stderr, err)
		}
	}
	cfg := &tuneConfig{cat: cat, weights: weights, maxM: *maxM, splits: splits, workspace: *workspace, prune: *prune,
		screenReps: *screenReps, reps: *reps, eventCalls: *eventCalls, keep: *keep, tie: *tie, noise: *noise}
	if *dry {
		return dryRunTune(cfg, base, sp, dryRunOptions{*preset, len(devices), *modelOut}, stdout, stderr)
	}
	if openMeasurers == nil {
		return fail(stderr, errors.New("tune: this build cannot measure: build without -tags nocuda and run on a GPU (-write-shapes works anywhere)"))
	}
	ms, closeAll, err := openMeasurers(devices, *workspace)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeAll()
	dev := ms[0].device()
	for _, m := range ms[1:] {
		if m.device().Name != dev.Name {
			return fail(stderr, fmt.Errorf("tune: -devices mixes %s and %s: tune one kind of GPU per run", dev.Name, m.device().Name))
		}
	}
	start := time.Now()
	results, err := cfg.run(ms, sp, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	var chosen strings.Builder
	fresh, err := buildEntries(samples(dev.Arch, results), base, edges(sp), &chosen)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintln(stderr, "tune: timing the choices by per-call events (the second column)")
	if err := cfg.eventColumns(ms, results, fresh); err != nil {
		return fail(stderr, err)
	}
	elapsed := time.Since(start)
	prov := measuredProvenance(cat, dev.Name, dev.SMs, dev.Arch, *driver, tuneMethod)
	if err := saveTable(*out, base, fresh, prov, cat); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d measured entries; %d weights × %d buckets on %d× %s in %s\n",
		*out, len(fresh), len(weights), len(sp), len(ms), dev.Name, elapsed.Round(time.Second))
	if *reportDir == "" {
		return 0
	}
	if *readBW == 0 {
		*readBW = dev.ReadBandwidth
	}
	if *peak == 0 {
		*peak = dev.PeakFLOPS
	}
	rep := tuneReport{cfg: cfg, dev: dev, devices: len(ms), elapsed: elapsed, results: results, entries: fresh,
		chosen: chosen.String(), peer: peer, readBW: *readBW, peak: *peak}
	if err := rep.write(*reportDir); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s (tune.md, tune.csv, roofline plots)\n", *reportDir)
	return 0
}

// run measures every (weight, bucket) over the measurers, largest Ms first
// so devices finish together, then times the default entries' missing
// contenders. A progress bar with ETA goes to progress.
func (cfg *tuneConfig) run(ms []measurer, sp []span, progress io.Writer) ([]*spanResult, error) {
	type unit struct {
		w  weight
		sp span
	}
	var units []unit
	for i := len(sp) - 1; i >= 0; i-- {
		for _, w := range cfg.weights {
			units = append(units, unit{w, sp[i]})
		}
	}
	bar := progressbar.NewOptions(len(units), progressbar.OptionSetWriter(progress), progressbar.OptionSetDescription("tune"),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionSetWidth(30))
	tick := func() { _ = bar.Add(1) }
	results := make([]*spanResult, len(units))
	err := runUnits(ms, len(units), tick, func(m measurer, i int) (err error) {
		results[i], err = cfg.tuneSpan(m, units[i].w, units[i].sp)
		return err
	})
	if err != nil {
		return nil, err
	}
	fills := fillUnits(results)
	var todo []*spanResult
	for _, r := range results {
		if len(fills[r]) > 0 {
			todo = append(todo, r)
		}
	}
	bar.ChangeMax(len(units) + len(todo))
	err = runUnits(ms, len(todo), tick, func(m measurer, i int) error { return cfg.fill(m, todo[i], fills[todo[i]]) })
	_ = bar.Finish()
	fmt.Fprintln(progress)
	slices.SortFunc(results, func(a, b *spanResult) int {
		return cmp.Or(slices.Index(cfg.weights, a.w)-slices.Index(cfg.weights, b.w), a.sp.lo-b.sp.lo)
	})
	return results, err
}

// runUnits calls do(m, i) for every i < n, spreading the calls over the
// measurers (one goroutine each), and done after each call that succeeds;
// after the first error no new call starts.
func runUnits(ms []measurer, n int, done func(), do func(measurer, int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(m, i); err != nil {
					failed.Store(true)
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				done()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// pointsCSV lists every M the run times (sample and probe Ms) per weight, in
// the shapes-CSV columns peer_cublas.py reads.
func pointsCSV(weights []weight, sp []span) []byte {
	var b strings.Builder
	b.WriteString("name,M,N,K,dtype\n")
	for _, w := range weights {
		for _, s := range sp {
			ms := s.sampleMs()
			if p := s.probeM(); p > 0 {
				ms = append(ms, p)
			}
			slices.Sort(ms)
			for _, m := range ms {
				fmt.Fprintf(&b, "%s,%d,%d,%d,%s\n", w.name, m, w.n, w.k, peerDType(w.dtype))
			}
		}
	}
	return []byte(b.String())
}

func parseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// measuredProvenance describes a table measured on one device with the
// current kernel set.
func measuredProvenance(cat *kernels.Catalog, device string, sms int, arch dispatch.Arch, driver, method string) dispatch.Provenance {
	return dispatch.Provenance{Source: "measured", Device: device, SMs: sms, Arch: arch.String(), Driver: driver,
		KernelSetHash: cat.Manifest.SourceHash, Date: time.Now().UTC().Format("2006-01-02"), Method: method}
}

// saveTable merges fresh entries into base, checks that the result loads
// against cat and writes it atomically to path.
func saveTable(path string, base *dispatch.Table, fresh []dispatch.Entry, prov dispatch.Provenance, cat *kernels.Catalog) error {
	t := &dispatch.Table{Provenance: prov, Entries: mergeEntries(base.Entries, fresh)}
	data, err := t.Marshal()
	if err != nil {
		return err
	}
	if _, err := dispatch.LoadTable(path, data, cat); err != nil {
		return fmt.Errorf("the table written would not load: %w", err)
	}
	return writeAtomic(path, data)
}
