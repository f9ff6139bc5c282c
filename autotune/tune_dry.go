package main

import (
	"fmt"
	"io"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// dryRun is a measurer that runs nothing, for sizing a tune run before a GPU
// is at hand: every gate passes, every timing is the analytic model's
// estimate, and seconds adds up the wall time the real run would spend by
// that model and the host-cost guesses below. No timing it answers may enter
// a table: tune -dry-run writes none, and -model-out only the choices.
type dryRun struct {
	dev                dispatch.DeviceInfo
	cat                *kernels.Catalog
	spans              []span
	seconds            float64
	bySpan             map[span]float64 // seconds per bucket
	gates, timings     int
	gateSecs           float64 // of seconds, the gates' share
	checkedAt, timedAt shape   // the (weight, M) whose buffers a real measurer would hold
}

// Host-side guesses for the parts of a real run that are not kernel time:
// random inputs, copies between host and device, the checker's scan, and a
// graph capture.
const (
	hostElemsPerSec  = 1e9  // random bf16 draws (parallel) or checker scans
	copyBytesPerSec  = 20e9 // host↔device copies
	hostAllocPerSec  = 10e9 // zeroing the checker's reference arrays
	graphCaptureSecs = 1e-3
	eventCallSecs    = 6e-6 // what a pair of events adds to one call
)

func (d *dryRun) device() dispatch.DeviceInfo { return d.dev }

// spend adds predicted seconds at M to the total and to M's bucket.
func (d *dryRun) spend(m int, secs float64) {
	d.seconds += secs
	for _, s := range d.spans {
		if m >= s.lo && m <= s.hi {
			d.bySpan[s] += secs
		}
	}
}

// estimate is the model's seconds for c at (w, m).
func (d *dryRun) estimate(w weight, m int, c candidate) (float64, error) {
	k := d.cat.Kernel(c.kernel)
	if k == nil {
		return 0, fmt.Errorf("kernel %q is not in the manifest", c.kernel)
	}
	p := problemAt(w, m)
	return dispatch.EstimateSeconds(k, &p, c.split, d.dev), nil
}

func (d *dryRun) gate(w weight, m int, c candidate) error {
	est, err := d.estimate(w, m, c)
	if err != nil {
		return err
	}
	mk, nk, mn := float64(m)*float64(w.k), float64(w.n)*float64(w.k), float64(m)*float64(w.n)
	if s := (shape{w.name, m, w.n, w.k, w.dtype}); d.checkedAt != s {
		d.checkedAt = s
		d.spend(m, (mk+nk+mn)/hostElemsPerSec+2*(mk+nk)/copyBytesPerSec+17*mn/hostAllocPerSec)
	}
	d.gates++
	d.spend(m, est+2*mn/copyBytesPerSec+mn/hostElemsPerSec)
	d.gateSecs += est + 2*mn/copyBytesPerSec + mn/hostElemsPerSec
	return nil
}

func (d *dryRun) time(w weight, m int, c candidate, reps int) (timing, error) {
	est, err := d.estimate(w, m, c)
	if err != nil {
		return timing{}, err
	}
	copies := weightCopies(w.n, w.k, w.dtype, d.dev.L2Bytes)
	if s := (shape{w.name, m, w.n, w.k, w.dtype}); d.timedAt != s {
		d.timedAt = s
		elems := float64(m)*float64(w.k) + float64(w.n)*float64(w.k)
		d.spend(m, elems/hostElemsPerSec+2*elems/copyBytesPerSec)
	}
	d.timings++
	d.spend(m, graphCaptureSecs+float64((reps+3)*graphCalls(m, w.n, w.k, copies))*est)
	us := est * 1e6
	return timing{us, us}, nil
}

func (d *dryRun) events(w weight, m int, c candidate, calls int) (timing, error) {
	est, err := d.estimate(w, m, c)
	if err != nil {
		return timing{}, err
	}
	flush := float64(2*d.dev.L2Bytes) / d.dev.ReadBandwidth
	d.spend(m, float64(calls+10)*(est+flush+eventCallSecs))
	us := (est + eventCallSecs) * 1e6
	return timing{us, us}, nil
}

// dryRunOptions: the device preset modelled, how many of it, and where to
// write the model's table ("" for none).
type dryRunOptions struct {
	preset   string
	devices  int
	modelOut string
}

// dryRunTune runs the tune pipeline on dry measurers, one per device, up to
// building the entries (so a catalog that leaves a bucket without a kernel
// fails here too), and prints what the real run would do and its predicted
// wall time. With o.modelOut it writes the entries, stripped of every
// "measured" field, merged into base: heuristic entries by the model.
func dryRunTune(cfg *tuneConfig, base *dispatch.Table, sp []span, o dryRunOptions, stdout, stderr io.Writer) int {
	dev, err := dispatch.DevicePreset(o.preset)
	if err != nil {
		return fail(stderr, err)
	}
	dry := make([]*dryRun, o.devices)
	ms := make([]measurer, o.devices)
	for i := range dry {
		dry[i] = &dryRun{dev: dev, cat: cfg.cat, spans: sp, bySpan: map[span]float64{}}
		ms[i] = dry[i]
	}
	results, err := cfg.run(ms, sp, io.Discard)
	var fresh []dispatch.Entry
	if err == nil {
		fresh, err = buildEntries(samples(dev.Arch, results), base, edges(sp), io.Discard)
	}
	if err == nil {
		err = cfg.eventColumns(ms, results, fresh)
	}
	if err == nil && o.modelOut != "" {
		err = saveTable(o.modelOut, base, heuristicEntries(fresh), base.Provenance, cfg.cat)
	}
	if err != nil {
		return fail(stderr, err)
	}
	if o.modelOut != "" {
		fmt.Fprintf(stdout, "wrote %s: %d %s entries chosen by the model (heuristic: no times_us), merged into the base table\n", o.modelOut, len(fresh), dev.Arch)
	}
	var gates, timings, pruned int
	var wall, gateSecs float64
	for _, d := range dry {
		gates, timings, wall, gateSecs = gates+d.gates, timings+d.timings, max(wall, d.seconds), gateSecs+d.gateSecs
	}
	for _, r := range results {
		pruned += len(r.pruned)
	}
	fmt.Fprintf(stdout, "dry run, nothing measured: %d weights × %d buckets (M = 1…%d) on %d× %s: %d gate runs, %d timings, %d candidates pruned by the model.\n",
		len(cfg.weights), len(sp), cfg.maxM, o.devices, dev.Name, gates, timings, pruned)
	fmt.Fprint(stdout, "Predicted seconds per bucket (all devices):")
	for _, s := range sp {
		var secs float64
		for _, d := range dry {
			secs += d.bySpan[s]
		}
		fmt.Fprintf(stdout, " [%d,%d] %.0f", s.lo, s.hi, secs)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "Predicted wall time by the analytic model and host-cost guesses: %.1f min, %.1f min of it gating (a prediction, not a measurement).\n", wall/60, gateSecs/60/float64(o.devices))
	return 0
}

// heuristicEntries drops what only a measurement may say (times, runner-up,
// margin) from entries a dry run chose, so they read as heuristic.
func heuristicEntries(es []dispatch.Entry) []dispatch.Entry {
	for i := range es {
		for j := range es[i].Buckets {
			b := &es[i].Buckets[j]
			b.TimesUS, b.RunnerUp, b.MarginPct = nil, "", 0
		}
	}
	return es
}
