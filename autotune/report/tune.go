package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// Tune is a tuning run to report on: tune.md, tune.csv (every timing and
// reject) and a roofline plot per weight.
type Tune struct {
	*tuning.Result
	Devices int
	Elapsed time.Duration
	Peer    Peer
	// Kernels is the written table's buckets against the kernel set
	// (dispatch.Table.MatchKernels): a base table's buckets of kernels
	// since changed or gone are counted, and not used.
	Kernels  dispatch.KernelMatch
	Ceilings // the roofline's bandwidth and rates
	// Inputs are the files the run read: Write refuses to write over one.
	Inputs []string
}

// Write writes the report into dir.
func (r *Tune) Write(dir string) error {
	if err := r.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	r.summary(&md)
	r.spent(&md)
	md.WriteString("## Choices\n\n| entry | bucket | choice | runner-up | bucket loss |\n| --- | --- | --- | --- | --- |\n")
	for _, c := range r.Choices {
		md.WriteString(choiceRow(c))
	}
	md.WriteString("\n")
	r.heldOut(&md)
	r.leftOut(&md)
	r.timedChoices(&md)
	r.Notes(&md)
	for _, w := range r.Config.Weights {
		rows := r.chosenRows(w)
		if len(rows) == 0 {
			continue
		}
		title := w.Name + " " + w.Types.String()
		png := plotName(w.Name + "-" + w.Types.String())
		if err := rooflinePlot(fileio.Outputs{Inputs: r.Inputs}, filepath.Join(dir, png), title, rows, r.Ceilings); err != nil {
			return err
		}
		fmt.Fprintf(&md, "![%s](%s)\n\n", title, png)
	}
	out := fileio.Outputs{Inputs: r.Inputs}
	if err := out.Write(filepath.Join(dir, "tune.csv"), r.csv().bytes()); err != nil {
		return err
	}
	return out.Write(filepath.Join(dir, "tune.md"), []byte(md.String()))
}

// choiceRow is one bucket of the Choices table.
func choiceRow(c tuning.Choice) string {
	b := c.Bucket
	if c.Loss == 0 {
		return fmt.Sprintf("| %s | %s | %s | unmeasured: a measured neighbour's or the base table's choice | |\n", c.Key, b.String(), tuning.BucketCandidate(&b))
	}
	runnerUp := "no runner-up: one candidate"
	if b.RunnerUp != "" {
		runnerUp = fmt.Sprintf("runner-up %s (+%.1f%%)", b.RunnerUp, b.MarginPct)
	}
	choice := tuning.BucketCandidate(&b).String()
	if b.Vendor != nil && b.Kernel != "" { // cuBLASLt won; the kernel runs where it cannot
		choice += fmt.Sprintf("; without cuBLASLt %s", tuning.Candidate{Kernel: b.Kernel, SplitK: b.SplitK})
		if len(b.KernelTimesUS) > 0 {
			if m := slices.Max(slices.Collect(maps.Keys(b.KernelTimesUS))); b.TimesUS[m] > 0 {
				choice += fmt.Sprintf(" (×%.2f the time at M = %d)", b.KernelTimesUS[m]/b.TimesUS[m], m)
			}
		}
	}
	return fmt.Sprintf("| %s | %s | %s | %s | bucket loss %.1f%% |\n", c.Key, b.String(), choice, runnerUp, 100*(c.Loss-1))
}

func (r *Tune) summary(w *strings.Builder) {
	c := r.Config
	var passed, rejected, pruned, timings, retimed int
	for _, s := range r.Spans {
		passed, rejected, pruned = passed+len(s.Passed), rejected+len(s.Rejects), pruned+len(s.Pruned)
		timings, retimed = timings+len(s.Log), retimed+len(s.Retimed)
	}
	fmt.Fprintf(w, "# Tuning on %s (%s, %d SMs)\n\n", r.Device.Name, r.Device.Arch, r.Device.SMs)
	fmt.Fprintf(w, "%d weights × %d buckets (M = %d…%d) on %d device(s) in %s. Split-K %v; %d replays per timing (screen %d, keep ≤ %.2f× the fastest); near-ties within %.0f %% and timings with p90 > median + %.0f %% timed again in %d interleaved rounds; candidates the model puts above %.1f× the best estimate not timed.\n\n",
		len(c.Weights), len(c.Spans()), max(c.MinM, 1), c.MaxM, r.Devices, r.Elapsed.Round(time.Second), c.Splits, c.Reps, c.ScreenReps, c.Keep, 100*c.Tie, 100*c.Noise, tuning.RetimeRounds, c.Prune)
	fmt.Fprintf(w, "Candidates over all (weight, bucket) pairs: %d passed the correctness gate, %d rejected by it, %d pruned by the model; %d timings taken, %d candidates timed again.\n\n",
		passed, rejected, pruned, timings, retimed)
	if len(r.Unmeasured) > 0 || r.NoEvents {
		fmt.Fprintf(w, "The run's time limit cut it: %d (weight, bucket) units not tuned (their buckets keep the base table's choices; the table's tuned buckets start at M = %d)", len(r.Unmeasured), max(c.MinM, 1))
		if r.NoEvents {
			w.WriteString("; the per-call events column was left out")
		}
		w.WriteString(".\n\n")
	}
	fmt.Fprintf(w, "Method: %s\n\n", tuning.Method)
	fmt.Fprintf(w, "The written table's buckets against the kernel set: %s (a changed or missing kernel's buckets, from the base table, are not used: tune them again).\n\n", r.Kernels)
	w.WriteString("Correctness gate (sampled elements against the float64 reference):\n\n")
	for _, g := range GateTolerances(c.Weights) {
		fmt.Fprintf(w, "- %s\n", g)
	}
	w.WriteString("\n")
}

// spent writes where the run's time went: the measurer's calls by phase and
// by bucket (wall time summed over the devices), and what lay outside them.
func (r *Tune) spent(w *strings.Builder) {
	byPhase, bySpan := r.Spent()
	if len(byPhase) == 0 {
		return
	}
	w.WriteString("## Where the time went\n\nWall time of the measurer's calls, summed over the devices (host work included: " +
		"operands, the reference, graph capture), to budget the next run by measurement.\n\n" +
		"| phase | calls | seconds | ms per call |\n| --- | --- | --- | --- |\n")
	var total float64
	for _, s := range byPhase {
		total += s.Seconds
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f |\n", s.Phase, s.Calls, s.Seconds, 1e3*s.Seconds/float64(max(s.Calls, 1)))
	}
	spans := slices.SortedFunc(maps.Keys(bySpan), func(a, b tuning.Span) int { return cmp.Compare(a.Lo, b.Lo) })
	var parts []string
	for _, s := range spans {
		parts = append(parts, fmt.Sprintf("[%d, %d] %.0f s", s.Lo, s.Hi, bySpan[s]))
	}
	fmt.Fprintf(w, "\nBy bucket: %s. The calls took %.0f s", strings.Join(parts, ", "), total)
	if r.Devices == 1 {
		fmt.Fprintf(w, " of the run's %.0f s (the rest: loading the kernels, choosing, writing)", r.Elapsed.Seconds())
	}
	w.WriteString(".\n\n")
}

// GateTolerances says, per types of weights, what the correctness gate
// accepts (gemmtest's tolerance).
func GateTolerances(weights []tuning.Weight) []string {
	var types []dispatch.Types
	for _, w := range weights {
		if !slices.Contains(types, w.Types) {
			types = append(types, w.Types)
		}
	}
	var out []string
	for _, t := range types {
		out = append(out, gemmtest.Types{Types: t}.ToleranceText())
	}
	return out
}

// route is the candidate the run's entry (exact, or with def the default)
// routes w at m to.
func (r *Tune) route(w tuning.Weight, m int, def bool) (tuning.Candidate, bool) {
	key := w.Key(r.Device.Arch)
	if def {
		key.N, key.K = 0, 0
	}
	b := (&dispatch.Table{Entries: r.Entries}).Route(key, m)
	if b == nil {
		return tuning.Candidate{}, false
	}
	return tuning.BucketCandidate(b), true
}

// heldOut writes the bucket loss at the probe Ms, which no choice saw.
func (r *Tune) heldOut(w *strings.Builder) {
	fmt.Fprintln(w, "## Bucket loss, held out\n\nAt each bucket's held-out M, one no choice was made on (its geometric middle; from M = 257 on, where the choice is made on the middle too, the middle of its upper half): the routed kernel's time against the fastest kept candidate there, for the exact entry and for the default entry.\n\n| weight | M | exact entry µs | loss | default entry µs | loss | fastest µs | fastest candidate |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
	var exactLoss, defLoss []float64
	for _, s := range r.Spans {
		pm := s.Span.ProbeM()
		if pm == 0 || len(s.Probe) == 0 {
			continue
		}
		best, bestC := math.Inf(1), tuning.Candidate{}
		for _, c := range slices.SortedFunc(maps.Keys(s.Probe), compareCandidates) {
			if t := s.Probe[c].Median; t < best {
				best, bestC = t, c
			}
		}
		cell := func(def bool, losses *[]float64) string {
			c, ok := r.route(s.Weight, pm, def)
			t, timed := s.Probe[c]
			if !ok || !timed {
				return "– | –"
			}
			*losses = append(*losses, 100*(t.Median/best-1))
			return fmt.Sprintf("%.2f | %.1f %%", t.Median, 100*(t.Median/best-1))
		}
		fmt.Fprintf(w, "| %s %s | %d | %s | %s | %.2f | `%s` |\n", s.Weight.Name, s.Weight.Types, pm, cell(false, &exactLoss), cell(true, &defLoss), best, bestC)
	}
	for _, l := range []struct {
		name string
		xs   []float64
	}{{"exact entries", exactLoss}, {"default entries", defLoss}} {
		if len(l.xs) > 0 {
			fmt.Fprintf(w, "\nHeld-out bucket loss of the %s over %d Ms: mean %.2f %%, worst %.1f %%.", l.name, len(l.xs), mean(l.xs), slices.Max(l.xs))
		}
	}
	fmt.Fprint(w, "\n\n")
}

// leftOut writes each measured default bucket chosen again without each of
// its weights, and that choice's loss on the weight left out: how the
// default entry may serve weights the tune did not see.
func (r *Tune) leftOut(w *strings.Builder) {
	rows := r.LeaveOneOut()
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "## Default entries, one weight left out\n\nEach default bucket chosen again over all its weights but one (the same criterion), and that choice's time on the weight left out against the fastest candidate there, at the worse of the bucket's edges; beside it the default entry's own loss on that weight (chosen with it in).\n\n| entry | bucket | weight left out | chosen without it | its loss | the default's loss |\n| --- | --- | --- | --- | --- | --- |")
	var out, in []float64
	for _, l := range rows {
		out, in = append(out, 100*(l.Loss-1)), append(in, 100*(l.InLoss-1))
		fmt.Fprintf(w, "| %s | [%d, %d] | %s | `%s` | %.1f %% | %.1f %% |\n", l.Key, l.Span.Lo, l.Span.Hi, l.Weight.Name, l.Choice, 100*(l.Loss-1), 100*(l.InLoss-1))
	}
	fmt.Fprintf(w, "\nOver %d (weight, bucket) pairs: left out, mean %.1f %%, worst %.1f %%; in, mean %.1f %%, worst %.1f %%.\n\n", len(rows), mean(out), slices.Max(out), mean(in), slices.Max(in))
}

// compareCandidates orders candidates by kernel name, then split-K, then
// (cuBLASLt's) version and algorithm.
func compareCandidates(a, b tuning.Candidate) int {
	return cmp.Or(strings.Compare(a.Kernel, b.Kernel), cmp.Compare(a.SplitK, b.SplitK),
		cmp.Compare(a.Vendor.Version, b.Vendor.Version), strings.Compare(a.Vendor.Algo, b.Vendor.Algo))
}

// chosenRows are the exact entries' choices at every timed M of w, for the
// cuBLAS table and the plots.
func (r *Tune) chosenRows(w tuning.Weight) []BenchRow {
	var rows []BenchRow
	for _, s := range r.Spans {
		if s.Weight != w {
			continue
		}
		for _, m := range s.Span.TimedMs() {
			c, ok := r.route(w, m, false)
			t, timed := s.Times[m][c]
			if m == s.Span.ProbeM() {
				t, timed = s.Probe[c]
			}
			if !ok || !timed {
				continue
			}
			sh := tuning.Shape{Name: w.Name, M: m, N: w.N, K: w.K, Types: w.Types}
			rows = append(rows, BenchRow{Shape: sh, Kernel: c.Column(), SplitK: c.SplitK,
				GraphUS: t.Median, GraphP90: t.P90, EventsUS: s.Events[m].Median, EventsP90: s.Events[m].P90,
				FloorUS: r.RooflineUS(sh), PeerUS: r.Peer.US(sh)})
		}
	}
	slices.SortFunc(rows, func(a, b BenchRow) int { return a.M - b.M })
	return rows
}

// timedChoices is the exact entries' choices at every timed M: graph
// replay, per-call events, % of the roofline, and cuBLAS when a peer CSV was
// given.
func (r *Tune) timedChoices(w *strings.Builder) {
	fmt.Fprintf(w, "## The choices, timed\n\nThe exact entries' choices at every timed M (probe Ms included): graph replay (median, p90), per-call events after an L2 flush, %% of the roofline (read %.2f TB/s, dense %.0f TFLOP/s, e4m3 %.0f)", r.ReadBW/1e12, r.Peak/1e12, r.Rate(dispatch.E4M3)/1e12)
	if len(r.Peer) > 0 {
		fmt.Fprint(w, ", and peer_cublas.py's graph-replay time (ratio above 1: gemmroute is faster)")
	}
	fmt.Fprintln(w, ".\n\n| weight | M | graph µs (p90) | events µs (p90) | % roofline | cuBLAS µs | ratio | kernel (split-K) |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
	var logs []float64
	for _, wt := range r.Config.Weights {
		for _, row := range r.chosenRows(wt) {
			peer, ratio := "–", "–"
			if row.Ratio() > 0 {
				peer, ratio = fmt.Sprintf("%.2f", row.PeerUS), fmt.Sprintf("×%.2f", row.Ratio())
				logs = append(logs, math.Log(row.Ratio()))
			}
			events := "–" // not timed: the run's time limit left the column out
			if row.EventsUS > 0 {
				events = fmt.Sprintf("%.2f (%.2f)", row.EventsUS, row.EventsP90)
			}
			fmt.Fprintf(w, "| %s %s | %d | %.2f (%.2f) | %s | %.1f | %s | %s | `%s` (%d) |\n",
				wt.Name, wt.Types, row.M, row.GraphUS, row.GraphP90, events, row.RooflinePct(), peer, ratio, row.Kernel, row.SplitK)
		}
	}
	if len(logs) > 0 {
		fmt.Fprintf(w, "\nAgainst cuBLAS over %d points: geometric mean ×%.3f, lowest ×%.2f.\n", len(logs), math.Exp(mean(logs)), math.Exp(slices.Min(logs)))
	}
	fmt.Fprintln(w)
}
