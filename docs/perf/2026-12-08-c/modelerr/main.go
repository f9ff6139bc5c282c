// Command modelerr measures the analytic model (dispatch.EstimateSeconds) against the timings of tune runs
// (tune.csv: every candidate the tuner timed, by graph replay). For each (weight, M) it takes the candidate the
// model estimates fastest, over all candidates and over the non-experimental ones (what the heuristic may pick),
// and prints its measured time over the fastest measured: the geomean, and per M regime for the non-experimental
// pick. It also prints how often the fastest measured candidate lies beyond 1.5× the model's best estimate
// (what tune -prune 1.5 could drop where it is not an incumbent) and, per family, measured over estimated time.
//
// usage: go run -tags nocuda ./docs/perf/2026-12-08-c/modelerr [-device h100] [-v] [-pruned] TUNE.csv...
// (-device names the dispatch.DevicePreset the timings came from)
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

type timed struct {
	kernel     string
	family     string
	split      int
	meas, est  float64 // µs
	experiment bool
}

func main() {
	device := flag.String("device", "h100", "device preset the timings were taken on")
	verbose := flag.Bool("v", false, "print each point's non-experimental pick and the fastest")
	pruned := flag.Bool("pruned", false, "print each fastest candidate beyond 1.5× the best estimate")
	flag.Parse()
	cat, err := dispatch.DefaultCatalog()
	check(err)
	dev, err := dispatch.DevicePreset(*device)
	check(err)
	points := map[string][]timed{}
	for _, f := range flag.Args() {
		fh, err := os.Open(f)
		check(err)
		rows, err := csv.NewReader(fh).ReadAll()
		check(err)
		col := map[string]int{}
		for i, c := range rows[0] {
			col[c] = i
		}
		for _, r := range rows[1:] {
			types, err := kernels.ParseTypes(r[col["dtype"]])
			if err != nil || r[col["check"]] != "ok" {
				continue
			}
			k := cat.Kernel(r[col["kernel"]])
			if k == nil {
				continue // a kernel since renamed or removed
			}
			m, n, kk := atoi(r[col["M"]]), atoi(r[col["N"]]), atoi(r[col["K"]])
			split := atoi(r[col["split_k"]])
			us, err := strconv.ParseFloat(r[col["graph_us"]], 64)
			check(err)
			p := dispatch.PlaceholderProblem(m, n, kk, types)
			key := fmt.Sprintf("%s %d", r[col["name"]], m)
			points[key] = append(points[key], timed{k.Name, k.Family, split, us, dispatch.EstimateSeconds(k, &p, split, dev) * 1e6, k.Experimental})
		}
	}
	var all, plain []float64
	byRegime := map[string][]float64{}
	byFamily := map[string][]float64{}
	beyond := 0
	keys := slices.Sorted(maps.Keys(points))
	for _, key := range keys {
		g := points[key]
		pick, best := fastest(g, func(t timed) bool { return true })
		all = append(all, pick.meas/best.meas)
		for _, t := range g {
			byFamily[t.family] = append(byFamily[t.family], t.meas/t.est)
		}
		if best.est > 1.5*pick.est {
			beyond++
			if *pruned {
				fmt.Printf("beyond 1.5x: %s %s/%d %.1f µs, estimate %.1f (best estimate %.1f)\n", key, best.kernel, best.split, best.meas, best.est, pick.est)
			}
		}
		pick, best = fastest(g, func(t timed) bool { return !t.experiment })
		if pick.kernel == "" {
			continue
		}
		plain = append(plain, pick.meas/best.meas)
		m := atoi(strings.Fields(key)[1])
		byRegime[regime(m)] = append(byRegime[regime(m)], pick.meas/best.meas)
		if *verbose {
			fmt.Printf("%-24s pick %s/%d %.1f µs (estimate %.1f), fastest %s/%d %.1f (%.2f)\n", key, pick.kernel, pick.split, pick.meas, pick.est, best.kernel, best.split, best.meas, pick.meas/best.meas)
		}
	}
	fmt.Printf("the model's pick over the fastest: every candidate %.3f (n %d), the non-experimental %.3f (n %d)\n", geomean(all), len(all), geomean(plain), len(plain))
	for _, r := range []string{"≤ 16", "17–256", "257–1023", "≥ 1024"} {
		if len(byRegime[r]) > 0 {
			fmt.Printf("  non-experimental, M %s: %.3f (n %d)\n", r, geomean(byRegime[r]), len(byRegime[r]))
		}
	}
	fmt.Printf("fastest beyond 1.5× the best estimate: %d of %d points\n", beyond, len(keys))
	for _, f := range slices.Sorted(maps.Keys(byFamily)) {
		x := slices.Sorted(slices.Values(byFamily[f]))
		fmt.Printf("%-24s n %5d  measured/estimate %.2f (p10 %.2f, p90 %.2f)\n", f, len(x), geomean(x), x[len(x)/10], x[len(x)*9/10])
	}
}

// fastest returns, of the candidates ok admits, the one the model estimates
// fastest and the one measured fastest.
func fastest(g []timed, ok func(timed) bool) (pick, best timed) {
	pick.est, best.meas = math.Inf(1), math.Inf(1)
	for _, t := range g {
		if !ok(t) {
			continue
		}
		if t.est < pick.est {
			pick = t
		}
		if t.meas < best.meas {
			best = t
		}
	}
	return pick, best
}

func regime(m int) string {
	switch {
	case m <= 16:
		return "≤ 16"
	case m <= 256:
		return "17–256"
	case m < 1024:
		return "257–1023"
	}
	return "≥ 1024"
}

func geomean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += math.Log(v)
	}
	return math.Exp(s / float64(len(x)))
}

func atoi(s string) int {
	v, err := strconv.Atoi(s)
	check(err)
	return v
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "modelerr:", err)
		os.Exit(1)
	}
}
