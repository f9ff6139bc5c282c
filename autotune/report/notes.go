package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/autotune/tuning"
)

// Notes writes the gate's rejects, noisy final timings and re-timed
// near-ties.
func (r *Tune) Notes(w *strings.Builder) {
	fmt.Fprintln(w, "## Rejected by the correctness gate")
	where := map[tuning.Candidate][]string{}
	first := map[tuning.Candidate]string{}
	var order []tuning.Candidate
	for _, s := range r.Spans {
		for _, rj := range s.Rejects {
			if _, seen := first[rj.Candidate]; !seen {
				first[rj.Candidate] = rj.Why
				order = append(order, rj.Candidate)
			}
			where[rj.Candidate] = append(where[rj.Candidate], fmt.Sprintf("%s %s M=%d", s.Weight.Name, s.Weight.Types, rj.M))
		}
	}
	for _, c := range order {
		fmt.Fprintf(w, "\n- `%s`, at %d Ms (%s); the first: %s", c, len(where[c]), strings.Join(where[c], ", "), first[c])
	}
	if len(order) == 0 {
		fmt.Fprint(w, "\nNone: every candidate timed matched the float64 reference.")
	}
	noise := r.Config.Noise
	fmt.Fprintf(w, "\n\n## Noisy timings (p90 > median + %.0f %% after timing again)\n", 100*noise)
	n := 0
	for _, s := range r.Spans {
		for _, m := range slices.Sorted(maps.Keys(s.Times)) {
			for _, c := range slices.SortedFunc(maps.Keys(s.Times[m]), compareCandidates) {
				if t := s.Times[m][c]; t.Dispersion() > noise {
					fmt.Fprintf(w, "\n- %s %s M=%d `%s`: median %.2f µs, p90 %.2f µs (+%.1f %%)", s.Weight.Name, s.Weight.Types, m, c, t.Median, t.P90, 100*t.Dispersion())
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
	for _, s := range r.Spans {
		if len(s.Retimed) > 0 {
			names := make([]string, len(s.Retimed))
			for i, c := range s.Retimed {
				names[i] = "`" + c.String() + "`"
			}
			fmt.Fprintf(w, "\n- %s %s, bucket %d–%d: %s", s.Weight.Name, s.Weight.Types, s.Span.Lo, s.Span.Hi, strings.Join(names, ", "))
			n++
		}
	}
	if n == 0 {
		fmt.Fprint(w, "\nNone.")
	}
	fmt.Fprint(w, "\n\n")
}

// csv is every timing and reject of the run, with the columns report
// reads (readSweep), plus the phase.
func (r *Tune) csv() *csvBuilder {
	var b csvBuilder
	b.row("name", "M", "N", "K", "dtype", "kernel", "split_k", "graph_us", "graph_p90_us", "check", "phase")
	for _, s := range r.Spans {
		head := func(m int, c tuning.Candidate) []string {
			return []string{s.Weight.Name, itoa(m), itoa(s.Weight.N), itoa(s.Weight.K), s.Weight.Types.String(), c.Column(), itoa(c.SplitK)}
		}
		for _, rj := range s.Rejects {
			b.row(append(head(rj.M, rj.Candidate), "", "", "wrong: "+strings.ReplaceAll(rj.Why, "\n", " "), "gate")...)
		}
		for _, l := range s.Log {
			b.row(append(head(l.M, l.Candidate), ff(l.Timing.Median), ff(l.Timing.P90), "ok", l.Phase)...)
		}
	}
	return &b
}
