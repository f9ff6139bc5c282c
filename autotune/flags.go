package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gemmroute/gemmroute/autotune/report"
	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// weightFlags say which weights a run tunes and up to which M: tune, model
// and points share them.
type weightFlags struct {
	model, shapes, types string
	maxM                 int
}

func (w *weightFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&w.model, "model", "", "tune a model's linear layers: "+tuning.ModelNames())
	fs.StringVar(&w.shapes, "shapes", "", "or the weights of a shapes CSV (name,M,N,K[,dtype]; M is ignored)")
	fs.StringVar(&w.types, "types", "", "comma-separated types to tune in, each "+kernels.TypesSyntax()+" (-> stands for →; default: bf16 for -model, the CSV's for -shapes)")
	fs.IntVar(&w.maxM, "max-m", 8192, "last bucket edge, a power of two: buckets [1,1], [2,2], [3,4], …, [max-m/2+1, max-m]")
}

// usageError is a bad flag value: exit code 2.
type usageError struct{ error }

// weights returns the weights the flags name.
func (w *weightFlags) weights() ([]tuning.Weight, error) {
	if (w.model == "") == (w.shapes == "") {
		return nil, usageError{errors.New("give one of -model and -shapes")}
	}
	if w.maxM < 1 || w.maxM > tuning.MaxDim || w.maxM&(w.maxM-1) != 0 {
		return nil, usageError{errors.New("-max-m " + strconv.Itoa(w.maxM) + " is not a power of two up to 2^31 (2147483648)")}
	}
	types, err := tuning.ParseTypesList(w.types)
	if err != nil {
		return nil, usageError{fmt.Errorf("-types: %w", err)}
	}
	if w.model != "" {
		if len(types) == 0 {
			types = []dispatch.Types{{In: dispatch.BF16, Out: dispatch.BF16}}
		}
		return tuning.ModelWeights(w.model, types)
	}
	shapes, err := tuning.ReadShapes(w.shapes)
	return tuning.WeightsFromShapes(shapes, types), err
}

// configFlags are how a run measures and chooses, and what it merges into:
// tune and model share them.
type configFlags struct {
	weightFlags
	manifest, base, splits string
	cfg                    tuning.Config
}

func (c *configFlags) register(fs *flag.FlagSet) {
	c.weightFlags.register(fs)
	d := tuning.DefaultConfig(nil, nil)
	c.cfg.VendorAlgorithms = d.VendorAlgorithms // tune's -vendor=false sets 0
	fs.StringVar(&c.manifest, "manifest", "", manifestHelp)
	fs.StringVar(&c.base, "base", "", "table to merge into (default: the embedded buckets.yaml)")
	fs.StringVar(&c.splits, "splits", "1,2,4,8", "split-K factors to try")
	fs.Int64Var(&c.cfg.Workspace, "workspace", d.Workspace, "split-K workspace per stream the table is for, bytes (an engine's Options.WorkspaceBytes): candidates needing more are not tried")
	fs.Float64Var(&c.cfg.Prune, "prune", d.Prune, "skip candidates the model estimates above this × the best estimate at every sample M (0: time all); the -base table's routes and runners-up for the weight, and for a 16-bit weight their builds in its type from the other 16-bit type's entry, are always timed")
	fs.IntVar(&c.cfg.ScreenReps, "screen-reps", d.ScreenReps, "graph replays of the screening timing")
	fs.IntVar(&c.cfg.Reps, "reps", d.Reps, "graph replays of a full timing (3× for near-ties and noisy timings)")
	fs.IntVar(&c.cfg.EventCalls, "event-calls", d.EventCalls, "per-call event timings of each choice, for the second column")
	fs.Float64Var(&c.cfg.Keep, "keep", d.Keep, "the screen keeps candidates within this × the fastest at some M")
	fs.Float64Var(&c.cfg.Tie, "tie", d.Tie, "time candidates within this fraction of the best worst-case slowdown again")
	fs.Float64Var(&c.cfg.Noise, "noise", d.Noise, "time again, then flag, timings whose p90 exceeds the median by more than this fraction")
	fs.IntVar(&c.cfg.MinM, "min-m", d.MinM, "first bucket to tune, a bucket's low edge (1, 17, 33, …): above 1 only buckets min-m…max-m are tuned and each entry keeps the -base table's others")
}

// config returns the run's configuration, catalog and base table. A bad
// flag value is a usageError.
func (c *configFlags) config() (*tuning.Config, *dispatch.Table, error) {
	ws, err := c.weights()
	if err != nil {
		return nil, nil, err
	}
	cfg := c.cfg
	cfg.Weights, cfg.MaxM = ws, c.maxM
	if cfg.Splits, err = parseInts(c.splits); err != nil {
		return nil, nil, usageError{errors.New("-splits " + strconv.Quote(c.splits) + ": want positive integers such as 1,2,4,8")}
	}
	cfg.Splits = distinct(cfg.Splits) // -splits 1,1,… tries 1 once
	var base *dispatch.Table
	if cfg.Catalog, base, err = loadCatalogAndTable(c.manifest, c.base); err != nil {
		return nil, nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, usageError{flagError(err)}
	}
	return &cfg, base, nil
}

// inputs are the files the flags name for the run to read: the shapes CSV,
// the manifest (-manifest, else $GEMMROUTE_KERNEL_DIR's) and the base table.
func (c *configFlags) inputs() []string {
	return []string{c.shapes, manifestPath(c.manifest), c.base}
}

// flagError names the flag of a *tuning.ConfigError.
func flagError(err error) error {
	var ce *tuning.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	f := map[string]string{"MaxM": "-max-m", "MinM": "-min-m", "Splits": "-splits", "Workspace": "-workspace", "Prune": "-prune", "ScreenReps": "-screen-reps",
		"Reps": "-reps", "EventCalls": "-event-calls", "Keep": "-keep", "Tie": "-tie", "Noise": "-noise"}[ce.Field]
	if f == "" {
		return err
	}
	return fmt.Errorf("%s %v: want %s %s", f, ce.Value, f, ce.Rule)
}

// exit returns the exit code err calls for after printing it.
func (s *stdio) exit(name string, err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return s.usageErr(name, "%v", ue.error)
	}
	return s.fail(err)
}

// distinct returns xs without repeats, in the order of first appearance.
func distinct(xs []int) []int {
	seen := map[int]bool{}
	return slices.DeleteFunc(xs, func(x int) bool {
		dup := seen[x]
		seen[x] = true
		return dup
	})
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

// rooflineFlags are the ceilings a report measures against: tune, bench
// and report share them.
type rooflineFlags struct{ readBW, peak, peakFP8 float64 }

// register defines -read-bw, -peak and -peak-fp8; 0 means the ceilings of
// whose (twice -peak for -peak-fp8: no device preset has an e4m3 rate).
func (r *rooflineFlags) register(fs *flag.FlagSet, whose string) {
	fs.Float64Var(&r.readBW, "read-bw", 0, "pure-read bandwidth for the roofline, bytes/s (default: "+whose+")")
	fs.Float64Var(&r.peak, "peak", 0, "dense 16-bit rate for the roofline, FLOP/s (default: "+whose+")")
	fs.Float64Var(&r.peakFP8, "peak-fp8", 0, "dense e4m3 rate for e4m3 shapes' roofline, FLOP/s, e.g. peer_cublas.py's (default: twice the 16-bit rate)")
}

// check returns a usageError for a flag that is neither 0 (the default)
// nor a rate report accepts.
func (r *rooflineFlags) check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"-read-bw", r.readBW}, {"-peak", r.peak}, {"-peak-fp8", r.peakFP8}} {
		if f.v != 0 {
			if err := report.CheckRate(f.name, f.v); err != nil {
				return usageError{fmt.Errorf("%w (0: the default)", err)}
			}
		}
	}
	return nil
}

// of returns the ceilings, dev's where a flag was left 0 (PeakFP8 0: twice
// the 16-bit rate, see report.Ceilings).
func (r *rooflineFlags) of(dev dispatch.DeviceInfo) report.Ceilings {
	return report.Ceilings{ReadBW: cmp.Or(r.readBW, dev.ReadBandwidth), Peak: cmp.Or(r.peak, dev.PeakFLOPS), PeakFP8: r.peakFP8}
}
