package main

import (
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gemmroute/gemmroute/dispatch"
)

// tuneReport is what a tune run writes for a person: tune.md, tune.csv
// (every timing and reject) and a roofline plot per weight.
type tuneReport struct {
	cfg          *tuneConfig
	dev          dispatch.DeviceInfo
	devices      int
	elapsed      time.Duration
	results      []*spanResult
	entries      []dispatch.Entry // the measured entries written
	chosen       string           // buildEntries' Markdown rows
	peer         map[string]float64
	readBW, peak float64
}

func (r *tuneReport) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	r.summary(&md)
	fmt.Fprintf(&md, "## Choices\n\n| entry | bucket | choice | runner-up | bucket loss |\n| --- | --- | --- | --- | --- |\n%s\n", r.chosen)
	r.heldOut(&md)
	r.timedChoices(&md)
	r.notes(&md)
	for _, w := range r.cfg.weights {
		rows := r.chosenRows(w)
		if len(rows) == 0 {
			continue
		}
		png := "roofline-" + fileSafe(w.name+"-"+w.dtype.String()) + ".png"
		if err := rooflinePlot(filepath.Join(dir, png), w.name+" "+w.dtype.String(), rows, r.readBW, r.peak); err != nil {
			return err
		}
		fmt.Fprintf(&md, "![%s %s](%s)\n\n", w.name, w.dtype, png)
	}
	if err := writeAtomic(filepath.Join(dir, "tune.csv"), r.csv()); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "tune.md"), []byte(md.String()))
}

func (r *tuneReport) summary(w *strings.Builder) {
	c := r.cfg
	var passed, rejected, pruned, timings, retimed int
	for _, s := range r.results {
		passed, rejected, pruned = passed+len(s.passed), rejected+len(s.rejects), pruned+len(s.pruned)
		timings, retimed = timings+len(s.log), retimed+len(s.retimed)
	}
	fmt.Fprintf(w, "# Tuning on %s (%s, %d SMs)\n\n", r.dev.Name, r.dev.Arch, r.dev.SMs)
	fmt.Fprintf(w, "%d weights × %d buckets (M = 1…%d) on %d device(s) in %s. Split-K %v; %d replays per timing (screen %d, keep ≤ %.2f× the fastest); near-ties within %.0f %% and timings with p90 > median + %.0f %% timed again with 3× the replays; candidates the model puts above %.1f× the best estimate not timed.\n\n",
		len(c.weights), len(spans(c.maxM)), c.maxM, r.devices, r.elapsed.Round(time.Second), c.splits, c.reps, c.screenReps, c.keep, 100*c.tie, 100*c.noise, c.prune)
	fmt.Fprintf(w, "Candidates over all (weight, bucket) pairs: %d passed the correctness gate, %d rejected by it, %d pruned by the model; %d timings taken, %d candidates timed again.\n\n",
		passed, rejected, pruned, timings, retimed)
	fmt.Fprintf(w, "Method: %s\n\n", tuneMethod)
}

// heldOut writes the bucket loss at the probe Ms, which no choice saw.
func (r *tuneReport) heldOut(w *strings.Builder) {
	fmt.Fprintln(w, "## Bucket loss, held out\n\nAt each bucket's geometric middle (an M no choice was made on): the routed kernel's time against the fastest kept candidate there, for the exact entry and for the default entry.\n\n| weight | M | exact entry µs | loss | default entry µs | loss | fastest µs | fastest candidate |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
	var exactLoss, defLoss []float64
	for _, s := range r.results {
		pm := s.sp.probeM()
		if pm == 0 || len(s.probe) == 0 {
			continue
		}
		best, bestC := math.Inf(1), candidate{}
		for _, c := range slices.SortedFunc(maps.Keys(s.probe), compareCandidates) {
			if t := s.probe[c].med; t < best {
				best, bestC = t, c
			}
		}
		cell := func(def bool, losses *[]float64) string {
			c, ok := routedIn(r.entries, s.w, pm, def)
			t, timed := s.probe[c]
			if !ok || !timed {
				return "– | –"
			}
			*losses = append(*losses, 100*(t.med/best-1))
			return fmt.Sprintf("%.2f | %.1f %%", t.med, 100*(t.med/best-1))
		}
		fmt.Fprintf(w, "| %s %s | %d | %s | %s | %.2f | `%s` |\n", s.w.name, s.w.dtype, pm, cell(false, &exactLoss), cell(true, &defLoss), best, bestC)
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

// chosenRows are the exact entries' choices at every timed M of w, for the
// cuBLAS table and the plots.
func (r *tuneReport) chosenRows(w weight) []reportRow {
	var rows []reportRow
	for _, s := range r.results {
		if s.w != w {
			continue
		}
		for _, m := range s.sp.timedMs() {
			c, ok := routedIn(r.entries, w, m, false)
			t, timed := s.times[m][c]
			if m == s.sp.probeM() {
				t, timed = s.probe[c]
			}
			if !ok || !timed {
				continue
			}
			row := reportRow{name: w.name, m: m, n: w.n, k: w.k, kernel: c.kernel, split: c.split, graph: t.med, p90: t.p90,
				events: s.events[m].med, evP90: s.events[m].p90, peer: r.peer[peerKey(w.name, m, w.n, w.k, w.dtype)]}
			if row.peer > 0 {
				row.ratio = row.peer / row.graph
			}
			rows = append(rows, row)
		}
	}
	slices.SortFunc(rows, func(a, b reportRow) int { return a.m - b.m })
	return rows
}

// timedChoices is the exact entries' choices at every timed M: graph
// replay, per-call events, % of the roofline, and cuBLAS when a peer CSV was
// given.
func (r *tuneReport) timedChoices(w *strings.Builder) {
	fmt.Fprintf(w, "## The choices, timed\n\nThe exact entries' choices at every timed M (probe Ms included): graph replay (median, p90), per-call events after an L2 flush, %% of the roofline (read %.2f TB/s, dense %.0f TFLOP/s)", r.readBW/1e12, r.peak/1e12)
	if len(r.peer) > 0 {
		fmt.Fprint(w, ", and peer_cublas.py's graph-replay time (ratio above 1: gemmroute is faster)")
	}
	fmt.Fprintln(w, ".\n\n| weight | M | graph µs (p90) | events µs (p90) | % roofline | cuBLAS µs | ratio | kernel (split-K) |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
	var logs []float64
	for _, wt := range r.cfg.weights {
		for _, row := range r.chosenRows(wt) {
			peer, ratio := "–", "–"
			if row.ratio > 0 {
				peer, ratio = fmt.Sprintf("%.2f", row.peer), fmt.Sprintf("×%.2f", row.ratio)
				logs = append(logs, math.Log(row.ratio))
			}
			flops, bytes := gemmWork(row.m, row.n, row.k, wt.dtype)
			roof := 100 * max(flops/r.peak, bytes/r.readBW) * 1e6 / row.graph
			fmt.Fprintf(w, "| %s %s | %d | %.2f (%.2f) | %.2f (%.2f) | %.1f | %s | %s | `%s` (%d) |\n",
				wt.name, wt.dtype, row.m, row.graph, row.p90, row.events, row.evP90, roof, peer, ratio, row.kernel, row.split)
		}
	}
	if len(logs) > 0 {
		fmt.Fprintf(w, "\nAgainst cuBLAS over %d points: geometric mean ×%.3f, lowest ×%.2f.\n", len(logs), math.Exp(mean(logs)), math.Exp(slices.Min(logs)))
	}
	fmt.Fprintln(w)
}

// notes lists the gate's rejects, noisy final timings and re-timed near-ties.
func (r *tuneReport) notes(w *strings.Builder) {
	fmt.Fprintln(w, "## Rejected by the correctness gate")
	where := map[candidate][]string{}
	first := map[candidate]string{}
	var order []candidate
	for _, s := range r.results {
		for _, rj := range s.rejects {
			if _, seen := first[rj.c]; !seen {
				first[rj.c] = rj.why
				order = append(order, rj.c)
			}
			where[rj.c] = append(where[rj.c], fmt.Sprintf("%s %s M=%d", s.w.name, s.w.dtype, rj.m))
		}
	}
	for _, c := range order {
		fmt.Fprintf(w, "\n- `%s`, at %d Ms (%s); the first: %s", c, len(where[c]), strings.Join(where[c], ", "), first[c])
	}
	if len(order) == 0 {
		fmt.Fprint(w, "\nNone: every candidate timed matched the float64 reference.")
	}
	fmt.Fprintf(w, "\n\n## Noisy timings (p90 > median + %.0f %% after timing again)\n", 100*r.cfg.noise)
	n := 0
	for _, s := range r.results {
		for _, m := range slices.Sorted(maps.Keys(s.times)) {
			for _, c := range slices.SortedFunc(maps.Keys(s.times[m]), compareCandidates) {
				if t := s.times[m][c]; t.dispersion() > r.cfg.noise {
					fmt.Fprintf(w, "\n- %s %s M=%d `%s`: median %.2f µs, p90 %.2f µs (+%.1f %%)", s.w.name, s.w.dtype, m, c, t.med, t.p90, 100*t.dispersion())
					n++
				}
			}
		}
	}
	if n == 0 {
		fmt.Fprint(w, "\nNone.")
	}
	fmt.Fprint(w, "\n\n## Timed again (near-ties and noisy timings)\n")
	n = 0
	for _, s := range r.results {
		if len(s.retimed) > 0 {
			names := make([]string, len(s.retimed))
			for i, c := range s.retimed {
				names[i] = "`" + c.String() + "`"
			}
			fmt.Fprintf(w, "\n- %s %s, bucket %d–%d: %s", s.w.name, s.w.dtype, s.sp.lo, s.sp.hi, strings.Join(names, ", "))
			n++
		}
	}
	if n == 0 {
		fmt.Fprint(w, "\nNone.")
	}
	fmt.Fprint(w, "\n\n")
}

// csv is every timing and reject of the run, with the columns autotune
// table and report read, plus the phase.
func (r *tuneReport) csv() []byte {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"name", "M", "N", "K", "dtype", "kernel", "split_k", "graph_us", "graph_p90_us", "check", "phase"})
	for _, s := range r.results {
		head := func(m int, c candidate) []string {
			return []string{s.w.name, itoa(m), itoa(s.w.n), itoa(s.w.k), s.w.dtype.String(), c.kernel, itoa(c.split)}
		}
		for _, rj := range s.rejects {
			_ = cw.Write(append(head(rj.m, rj.c), "", "", "wrong: "+strings.ReplaceAll(rj.why, "\n", " "), "gate"))
		}
		for _, l := range s.log {
			_ = cw.Write(append(head(l.m, l.c), ff(l.t.med), ff(l.t.p90), "ok", l.phase))
		}
	}
	cw.Flush()
	return []byte(b.String())
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
