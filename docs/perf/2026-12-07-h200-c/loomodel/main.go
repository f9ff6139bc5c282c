// Command loomodel leaves one weight out of a tune's timings (tune.csv, no GPU) and compares, per bucket, what
// it would run under three policies: the default entry chosen over the others (least worst-case slowdown), the
// analytic model (dispatch.EstimateSeconds on the H200 preset, at the bucket's top M) ranking the others' own
// choices and that default, and the model over every candidate the weight timed (the heuristic level). A cost
// is the worst slowdown over the bucket's edges against the fastest candidate timed past the screen.
//
// usage: go run -tags nocuda ./docs/perf/2026-12-07-h200-c/loomodel TUNE.csv
package main

import (
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
)

type cand struct {
	k string
	s int
}

// sorted lists a map's candidates in name order, so that ties resolve the same every run.
func sorted[V any](m map[cand]V) []cand {
	return slices.SortedFunc(maps.Keys(m), func(a, b cand) int {
		if a.k != b.k {
			return strings.Compare(a.k, b.k)
		}
		return a.s - b.s
	})
}

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		panic(err)
	}
	cat, err := dispatch.DefaultCatalog()
	if err != nil {
		panic(err)
	}
	type wm struct {
		w string
		m int
	}
	t := map[wm]map[cand]float64{}
	full := map[wm]map[cand]bool{}
	shape := map[string][2]int{}
	for _, r := range rows[1:] {
		if r[9] != "ok" || r[7] == "" {
			continue
		}
		m, _ := strconv.Atoi(r[1])
		n, _ := strconv.Atoi(r[2])
		k, _ := strconv.Atoi(r[3])
		s, _ := strconv.Atoi(r[6])
		us, _ := strconv.ParseFloat(r[7], 64)
		key, c := wm{r[0], m}, cand{r[5], s}
		shape[r[0]] = [2]int{n, k}
		if t[key] == nil {
			t[key], full[key] = map[cand]float64{}, map[cand]bool{}
		}
		if _, ok := t[key][c]; r[10] != "screen" || !ok {
			t[key][c] = us
		}
		if r[10] != "screen" {
			full[key][c] = true
		}
	}
	ws := slices.Sorted(maps.Keys(shape))
	slow := func(w string, c cand, edges []int) float64 {
		worst := 0.0
		for _, m := range edges {
			best := math.Inf(1)
			for f := range full[wm{w, m}] {
				best = min(best, t[wm{w, m}][f])
			}
			v, ok := t[wm{w, m}][c]
			if !ok {
				return math.Inf(1)
			}
			worst = max(worst, v/best)
		}
		return worst
	}
	choose := func(set []string, edges []int) cand {
		var bc cand
		bv := math.Inf(1)
		for _, c := range sorted(full[wm{set[0], edges[0]}]) {
			worst := 0.0
			for _, w := range set {
				for _, m := range edges {
					if !full[wm{w, m}][c] {
						worst = math.Inf(1)
					}
				}
				worst = max(worst, slow(w, c, edges))
			}
			if worst < bv {
				bc, bv = c, worst
			}
		}
		return bc
	}
	est := func(c cand, m, n, k int) float64 {
		ks := cat.Kernel(c.k)
		if ks == nil {
			return math.Inf(1)
		}
		p := dispatch.Problem{M: m, N: n, K: k, Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}}
		return dispatch.EstimateSeconds(ks, &p, c.s, dispatch.H200)
	}
	var lg [4]float64
	cnt := 0
	for _, lo := range []int{17, 33, 65, 129, 257} {
		hi := 2 * (lo - 1)
		edges := []int{lo, hi}
		fmt.Printf("bucket [%d, %d]\n", lo, hi)
		for _, w := range ws {
			var others []string
			for _, o := range ws {
				if o != w {
					others = append(others, o)
				}
			}
			def := choose(others, edges)
			// candidates: every other weight's own choice and the default, ranked by the model at the bucket's top
			cands := []cand{def}
			for _, o := range others {
				cands = append(cands, choose([]string{o}, edges))
			}
			n, k := shape[w][0], shape[w][1]
			bm, bv := def, math.Inf(1)
			for _, c := range cands {
				if v := est(c, hi, n, k); v < bv {
					bm, bv = c, v
				}
			}
			// the model over every candidate the weight timed (the heuristic level)
			hm, hv := def, math.Inf(1)
			for _, c := range sorted(t[wm{w, hi}]) {
				if v := est(c, hi, n, k); v < hv {
					hm, hv = c, v
				}
			}
			own, d, mr, h := slow(w, choose([]string{w}, edges), edges), slow(w, def, edges), slow(w, bm, edges), slow(w, hm, edges)
			fmt.Printf("  %-18s own ×%.3f default ×%.3f model-ranked ×%.3f (%s s%d) heuristic ×%.3f\n", w, own, d, mr, bm.k[15:], bm.s, h)
			if !math.IsInf(mr, 1) && !math.IsInf(h, 1) {
				for i, v := range []float64{own, d, mr, h} {
					lg[i] += math.Log(v)
				}
				cnt++
			}
		}
	}
	for i, nm := range []string{"own", "default", "model-ranked", "heuristic"} {
		fmt.Printf("%s geomean ×%.3f over %d\n", nm, math.Exp(lg[i]/float64(cnt)), cnt)
	}
}
