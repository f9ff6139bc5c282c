package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/gemmroute/gemmroute/autotune/report"
	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
)

// openMeasurers opens one measurer per GPU ordinal with a split-K workspace
// of the given size, loading cuBLASLt when vendor is set, and a function
// that closes them; nil in a build without CUDA. Tests inject fakes.
var openMeasurers = gpuMeasurers

var tuneCmd = &command{
	Name:      "tune",
	UsageLine: "(-model NAME | -shapes CSV) -out buckets.yaml [-report DIR] [flags]",
	Short:     "measure, gate and choose kernels per M bucket; write buckets.yaml and a report (the default command)",
	Long: `Tune measures every weight at every geometric M bucket on the GPUs of
-devices: the kernel × split-K candidates the constraints admit are gated
against a float64 reference, screened, timed by CUDA-graph replay over
rotating weights and chosen by the least worst-case slowdown over the
bucket's edges (from M = 257 on, and its geometric middle). For bf16, f16
and e4m3 per-tensor weights cuBLASLt's top heuristic algorithms (up to 8
per bucket) are candidates too, where the library loads
on every device (-vendor=false: our kernels only); one that wins is recorded
as the bucket's vendor algorithm, beside our kernels' own choice there (which
runs where cuBLASLt cannot). -base-routes times, of our kernels, only what
-base routes each bucket to and the bucket's recorded runner-up: a short run
that adds vendor routes to a tuned table, or with -vendor=false measures a
table's routes again after a kernel change (the changed kernels' buckets get
their new digests and times; the choice is re-made between the two);
-changed-since narrows that to the buckets whose kernels' digests are not
those of the manifest -base was measured with, the others keeping -base's.
Default entries are chosen over the aligned weights together. The entries
are merged into -base and written atomically to -out; -report writes
tune.md, tune.csv and roofline plots.

It needs the default (CUDA) build and a GPU. "autotune model" sizes the same
run without one; "autotune points" writes the Ms it times for peer_cublas.py.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		var f tuneFlags
		f.register(fs)
		return func(std *stdio, _ []string) int {
			cfg, base, err := f.config()
			if err != nil {
				return std.exit("tune", err)
			}
			if f.out == "" {
				return std.usageErr("tune", "-out is required")
			}
			inputs := append(f.inputs(), f.peer)
			if err := fileio.CheckNotInput(f.out, inputs...); err != nil {
				return std.fail(err)
			}
			if err := f.rooflineFlags.check(); err != nil {
				return std.exit("tune", err)
			}
			ords, err := parseInts(f.devices)
			if err != nil || len(ords) == 0 || slices.ContainsFunc(ords, func(d int) bool { return d < 0 }) || len(distinct(slices.Clone(ords))) < len(ords) {
				return std.usageErr("tune", "-devices %q: want distinct GPU ordinals such as 0,1", f.devices)
			}
			if f.changedSince != "" && !f.baseRoutes {
				return std.usageErr("tune", "-changed-since needs -base-routes: it narrows the re-measure of -base's routes")
			}
			peer := report.Peer{}
			if f.peer != "" {
				if peer, err = report.ReadPeer(f.peer); err != nil {
					return std.fail(err)
				}
			}
			if openMeasurers == nil {
				return std.fail(errors.New("tune: this build cannot measure: build without -tags nocuda and run on a GPU (\"autotune model\" and \"autotune points\" work anywhere)"))
			}
			for _, g := range report.GateTolerances(cfg.Weights) {
				fmt.Fprintf(std.out, "gate: %s\n", g)
			}
			if !f.vendor {
				cfg.VendorAlgorithms = 0
			}
			if f.baseRoutes {
				cfg.BaseRoutes = base
			}
			if f.changedSince != "" {
				old, err := loadCatalog(f.changedSince)
				if err != nil {
					return std.fail(fmt.Errorf("tune: -changed-since: %w", err))
				}
				cfg.Changed = tuning.ChangedSince(old, cfg.Catalog)
			}
			ms, closeAll, err := openMeasurers(ords, cfg.Workspace, f.vendor)
			if err != nil {
				return std.fail(err)
			}
			defer closeAll()
			_, note := cfg.VendorUse(ms)
			fmt.Fprintln(std.out, note)
			bar := progressbar.NewOptions(0, progressbar.OptionSetWriter(std.err), progressbar.OptionSetDescription("tune"),
				progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionShowElapsedTimeOnFinish(),
				progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionSetWidth(30))
			cfg.Progress = func(done, total int) { bar.ChangeMax(total); _ = bar.Set(done) }
			start := time.Now()
			if f.timeLimit > 0 {
				cfg.Deadline = start.Add(f.timeLimit)
			}
			res, err := tuning.Tune(cfg, ms, base)
			_ = bar.Finish()
			fmt.Fprintln(std.err)
			if err != nil {
				return std.fail(err)
			}
			elapsed := time.Since(start)
			method := tuning.Method
			if f.baseRoutes {
				method = tuning.MethodBaseRoutes
			}
			t, _, err := tuning.Merge(base, tuning.Provenance(cfg.Catalog, res.Device, f.driver, method), tuning.Measured(res.Entries, res.Device), cfg.Catalog, true)
			var notInvariant []string
			if err == nil && f.invariant { // each tuned weight's reduction class, judged against t
				var stop time.Time
				if f.invariantLimit > 0 {
					stop = time.Now().Add(f.invariantLimit)
				}
				notInvariant, err = tuning.Invariants(cfg, ms[0], t, stop)
			}
			if err == nil {
				err = saveTable(f.out, t)
			}
			if err != nil {
				return std.fail(err)
			}
			match := tableMatch(t, cfg, res.Device, ms)
			fmt.Fprintf(std.out, "wrote %s: %d measured entries; %d weights × %d buckets on %d× %s in %s; kernels: %s\n",
				f.out, len(res.Entries), len(cfg.Weights), len(cfg.Spans()), len(ms), res.Device.Name, elapsed.Round(time.Second), match)
			fmt.Fprintf(std.out, "time in the measurer's calls: %s\n", spentLine(res))
			if len(notInvariant) > 0 {
				fmt.Fprintf(std.out, "-invariant-limit %s: %d weights' classes not measured (their entries keep -base's; the default entry's class is chosen over the others): %s\n",
					f.invariantLimit, len(notInvariant), strings.Join(notInvariant, ", "))
			}
			if len(res.Unmeasured) > 0 || res.NoEvents {
				fmt.Fprintf(std.out, "-time-limit %s: %d (weight, bucket) units not tuned (their buckets keep -base's choices; buckets from M = %d tuned); events column left out: %t\n",
					f.timeLimit, len(res.Unmeasured), res.Config.MinM, res.NoEvents)
			}
			if f.report == "" {
				return 0
			}
			rep := report.Tune{Result: res, Devices: len(ms), Elapsed: elapsed, Peer: peer, Kernels: match, Inputs: append(inputs, f.out)}
			rep.Ceilings = f.of(res.Device)
			if err := rep.Write(f.report); err != nil {
				return std.fail(err)
			}
			fmt.Fprintf(std.out, "wrote %s (tune.md, tune.csv, roofline plots)\n", f.report)
			return 0
		}
	},
}

// tuneFlags are tune's flags: configFlags', the roofline's, and its own.
type tuneFlags struct {
	configFlags
	rooflineFlags
	out, report, peer, devices, driver string
	changedSince                       string
	invariant, vendor, baseRoutes      bool
	invariantLimit                     time.Duration
	timeLimit                          time.Duration
}

func (f *tuneFlags) register(fs *flag.FlagSet) {
	f.configFlags.register(fs)
	f.rooflineFlags.register(fs, "the device's")
	for _, s := range []struct {
		dst               *string
		name, value, help string
	}{
		{&f.out, "out", "", "table to write (atomically), merged into -base"},
		{&f.report, "report", "", "directory for tune.md, tune.csv and roofline PNGs"},
		{&f.peer, "peer", "", "peer_cublas.py output for the report's cuBLAS column (time the points of \"autotune points\")"},
		{&f.devices, "devices", "0", "comma-separated GPU ordinals to spread the work over (one kind of GPU)"},
		{&f.driver, "driver", "", "driver version for the provenance, e.g. 580.159.04"},
		{&f.changedSince, "changed-since", "", "with -base-routes: the manifest -base was measured with (e.g. from git show REV:kernels/manifest.json); time only the buckets whose route or recorded runner-up runs a kernel whose digest is not that manifest's, every other bucket keeping -base's"},
	} {
		fs.StringVar(s.dst, s.name, s.value, s.help)
	}
	fs.BoolVar(&f.vendor, "vendor", true, "time cuBLASLt's top heuristic algorithms per bucket beside our kernels (bf16, f16, e4m3 per-tensor) where the library loads; -vendor=false: our kernels only, as every kernel floor is measured")
	fs.DurationVar(&f.invariantLimit, "invariant-limit", 0, "with -invariant: stop starting weights' class measurements this long after they begin (e.g. 200s; 0: none): the weights left keep -base's classes, the default entry's is chosen over the others, and the table is written")
	fs.BoolVar(&f.invariant, "invariant", false, "also choose each tuned weight's reduction class for the batch-invariant mode (Options.BatchInvariant), by measurement against the tuned table, and the default entry's over those weights together")
	fs.DurationVar(&f.timeLimit, "time-limit", 0, "stop starting (weight, bucket) units this long after the start (e.g. 400s; 0: none): the run then tunes the buckets every weight finished, the others keep the -base table's choices, the events column is left out, and the table is written")
	fs.BoolVar(&f.baseRoutes, "base-routes", false, "of our kernels, time only the kernel and split-K -base routes each weight and bucket to and its recorded runner-up: with -vendor, adds cuBLASLt routes to a tuned table in a short run; with -vendor=false, measures the routes again after a kernel change")
}

// tableMatch counts t's buckets against cfg's kernels and the measurers'
// cuBLASLt (a bucket routed to it counts as cuBLASLt's where the version
// the tuner recorded is loaded; changed without one).
func tableMatch(t *dispatch.Table, cfg *tuning.Config, dev dispatch.DeviceInfo, ms []tuning.Measurer) dispatch.KernelMatch {
	var lib dispatch.VendorLibrary
	if vm, ok := ms[0].(tuning.VendorMeasurer); ok {
		lib = vm.VendorLibrary()
	}
	return dispatch.NewPlanner(cfg.Catalog, t, dev, dispatch.Limits{WorkspaceBytes: cfg.Workspace}).WithVendor(lib).KernelMatch()
}

// saveTable writes t to path atomically.
func saveTable(path string, t *dispatch.Table) error {
	data, err := t.Marshal()
	if err != nil {
		return err
	}
	return fileio.WriteAtomic(path, data)
}

// spentLine is where a run's time went, by phase: "gate 3393 calls 54 s,
// screen …" (tune.md has the table and the buckets).
func spentLine(res *tuning.Result) string {
	byPhase, _ := res.Spent()
	var parts []string
	for _, s := range byPhase {
		parts = append(parts, fmt.Sprintf("%s %d calls %.0f s", s.Phase, s.Calls, s.Seconds))
	}
	return strings.Join(parts, ", ")
}
