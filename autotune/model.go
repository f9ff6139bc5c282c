package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
)

var modelCmd = &command{
	Name:      "model",
	UsageLine: "(-model NAME | -shapes CSV) [-device h200] [-devices N] [-out buckets.yaml] [flags]",
	Short:     "run tune on the analytic model: predict a run's wall time, or write the model's choices as heuristic entries",
	Long: `Model runs tune's pipeline with the analytic model (dispatch.EstimateSeconds)
in place of a GPU, on the device preset -device: nothing is measured. It
prints what a real run on -devices such GPUs would do and its predicted wall
time. With -out it writes the base table with the model's choices merged in
as heuristic entries (no times_us, runner-up or margin), for an arch no GPU
at hand can measure. It works in any build.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		var c configFlags
		c.register(fs)
		preset := fs.String("device", "h200", "device preset: "+strings.Join(dispatch.DevicePresetNames(), ", "))
		devices := fs.Int("devices", 1, "how many such GPUs the real run would spread the work over")
		out := fs.String("out", "", "write the base table with the model's choices merged in as heuristic entries")
		force := fs.Bool("force", false, "with -out: let the model's choices replace measured entries too")
		return func(std *stdio, _ []string) int {
			if *devices < 1 || *devices > 1024 {
				return std.usageErr("model", "-devices %d: want 1 to 1024", *devices)
			}
			cfg, base, err := c.config()
			if err == nil && *out != "" {
				cfg.Unmeasured = true // its choices enter the table unmeasured: no experimental kernel
				err = fileio.CheckNotInput(*out, c.inputs()...)
			}
			if err != nil {
				return std.exit("model", err)
			}
			dev, err := dispatch.DevicePreset(*preset)
			if err != nil {
				return std.fail(err)
			}
			mms := make([]*tuning.ModelMeasurer, *devices)
			ms := make([]tuning.Measurer, *devices)
			for i := range mms {
				mms[i] = tuning.NewModelMeasurer(dev, cfg.Catalog, cfg.MaxM)
				ms[i] = mms[i]
			}
			res, err := tuning.Tune(cfg, ms, base)
			var kept []dispatch.EntryKey
			var t *dispatch.Table
			if err == nil && *out != "" {
				if t, kept, err = tuning.Merge(base, base.Provenance, tuning.Heuristic(res.Entries, dev), cfg.Catalog, *force); err == nil {
					err = saveTable(*out, t)
				}
			}
			if err != nil {
				return std.fail(err)
			}
			if *out != "" {
				fmt.Fprintf(std.out, "wrote %s: %d %s entries chosen by the model (heuristic: no times_us), merged into the base table; kernels: %s\n",
					*out, len(res.Entries)-len(kept), dev.Arch, t.MatchKernels(cfg.Catalog))
				for _, k := range kept {
					fmt.Fprintf(std.out, "kept the measured entry %s (-force replaces it)\n", k)
				}
			}
			printPrediction(std, cfg, res, mms)
			return 0
		}
	},
}

// printPrediction says what the modelled run did and would take.
func printPrediction(std *stdio, cfg *tuning.Config, res *tuning.Result, mms []*tuning.ModelMeasurer) {
	var checks, timings, pruned int
	var wall, checkSecs float64
	bySpan := map[tuning.Span]float64{}
	for _, m := range mms {
		p := m.Prediction()
		checks, timings, wall, checkSecs = checks+p.Checks, timings+p.Timings, max(wall, p.Seconds), checkSecs+p.CheckSeconds
		for s, secs := range p.BySpan {
			bySpan[s] += secs
		}
	}
	for _, r := range res.Spans {
		pruned += len(r.Pruned)
	}
	sp := cfg.Spans()
	fmt.Fprintf(std.out, "dry run, nothing measured: %d weights × %d buckets (M = %d…%d) on %d× %s: %d gate runs, %d timings, %d candidates pruned by the model.\n",
		len(cfg.Weights), len(sp), max(cfg.MinM, 1), cfg.MaxM, len(mms), res.Device.Name, checks, timings, pruned)
	fmt.Fprint(std.out, "Predicted seconds per bucket (all devices):")
	for _, s := range sp {
		fmt.Fprintf(std.out, " [%d,%d] %.0f", s.Lo, s.Hi, bySpan[s])
	}
	fmt.Fprintln(std.out)
	fmt.Fprintf(std.out, "Predicted wall time by the analytic model and host-cost guesses: %.1f min, %.1f min of it gating (a prediction, not a measurement).\n",
		wall/60, checkSecs/60/float64(len(mms)))
}
