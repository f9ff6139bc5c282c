package main

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
)

var compareCmd = &command{
	Name:      "compare",
	UsageLine: "[-threshold 3] [-manifest PATH] OLD.yaml NEW.yaml",
	Short:     "list per-bucket slowdowns between two measured tables; exit 1 past -threshold %",
	Long: `Compare matches the entries of two tables by key and their buckets by range,
and lists every M at which both recorded a time, with the change in % and
the kernels, and every entry that was measured in OLD and is not in NEW
(the model's guesses replaced it). It exits 1 when a point is slower by more
than -threshold % or an entry lost its measurements.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		threshold := fs.Float64("threshold", 3, "slowdown in % past which the command fails")
		manifest := fs.String("manifest", "", manifestHelp)
		return func(std *stdio, files []string) int {
			if !(*threshold >= 0) || math.IsInf(*threshold, 0) {
				return std.usageErr("compare", "-threshold %g: want a finite percentage ≥ 0", *threshold)
			}
			if len(files) != 2 {
				return std.usageErr("compare", "give two table files, the old one first")
			}
			tables, err := loadTables(*manifest, files...)
			if err != nil {
				return std.fail(err)
			}
			return printComparison(std, tables[0], tables[1], *threshold)
		}
	},
}

// printComparison writes the points both tables timed and returns the exit
// code.
func printComparison(std *stdio, oldT, newT *dispatch.Table, threshold float64) int {
	fmt.Fprintln(std.out, "| entry | bucket | M | old µs | new µs | change | old kernel → new kernel |\n| --- | --- | --- | --- | --- | --- | --- |")
	points, slower := 0, 0
	for _, ne := range newT.Entries {
		oe := oldT.Entry(ne.Key())
		if oe == nil {
			continue
		}
		for _, nb := range ne.Buckets {
			for _, ob := range oe.Buckets {
				if ob.MinM != nb.MinM || ob.MaxM != nb.MaxM {
					continue
				}
				for _, m := range slices.Sorted(maps.Keys(nb.TimesUS)) {
					ot, ok := ob.TimesUS[m]
					if !ok || ot <= 0 {
						continue
					}
					pct, mark := 100*(nb.TimesUS[m]/ot-1), ""
					if pct > threshold {
						mark, slower = " ✗", slower+1
					}
					points++
					fmt.Fprintf(std.out, "| %s | %s | %d | %.2f | %.2f | %+.1f %%%s | %s → %s |\n", ne.Key(), nb.String(), m, ot, nb.TimesUS[m], pct, mark, tuning.BucketCandidate(&ob).Column(), tuning.BucketCandidate(&nb).Column())
				}
			}
		}
	}
	lost := 0
	for _, oe := range oldT.Entries {
		if ne := newT.Entry(oe.Key()); oe.Measured() && ne != nil && !ne.Measured() {
			fmt.Fprintf(std.out, "%s lost its measurements: measured on %s, now source %s\n", oe.Key(), cmp.Or(oe.Device, oldT.Provenance.Device, "?"), cmp.Or(ne.Source, "unset, no times"))
			lost++
		}
	}
	switch {
	case lost > 0:
		fmt.Fprintf(std.err, "compare: %d entries lost their measurements\n", lost)
		return 1
	case points == 0:
		fmt.Fprintln(std.out, "no bucket has times at the same M in both tables: nothing to compare")
	case slower > 0:
		fmt.Fprintf(std.err, "compare: %d of %d points slower by more than %.1f %%\n", slower, points, threshold)
		return 1
	default:
		fmt.Fprintf(std.out, "ok: %d points, none slower by more than %.1f %%\n", points, threshold)
	}
	return 0
}
