package main

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/gemmroute/gemmroute/dispatch"
)

func init() {
	commands["compare"] = command{"list per-bucket slowdowns between two measured tables; exit 1 past -threshold %", runCompare}
}

// slowdown is one measured point present in both tables.
type slowdown struct {
	entry         string
	bucket        string
	m             int
	oldUS, newUS  float64
	oldK, newK    string
	pct           float64 // (new/old - 1) × 100
	pastThreshold bool
}

// compareTables matches entries by key and buckets by range, and compares
// the times both recorded at the same M.
func compareTables(oldT, newT *dispatch.Table, threshold float64) []slowdown {
	var out []slowdown
	for _, ne := range newT.Entries {
		oe := findEntry(oldT, ne)
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
					s := slowdown{entry: entryName(ne), bucket: nb.String(), m: m, oldUS: ot, newUS: nb.TimesUS[m],
						oldK: ob.Kernel, newK: nb.Kernel, pct: 100 * (nb.TimesUS[m]/ot - 1)}
					s.pastThreshold = s.pct > threshold
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func findEntry(t *dispatch.Table, e dispatch.Entry) *dispatch.Entry {
	for i := range t.Entries {
		if sameEntryKey(t.Entries[i], e) {
			return &t.Entries[i]
		}
	}
	return nil
}

func entryName(e dispatch.Entry) string {
	if e.N == 0 {
		return fmt.Sprintf("%s %s→%s default", e.Arch, e.In, e.Out)
	}
	return fmt.Sprintf("%s %s→%s N=%d K=%d", e.Arch, e.In, e.Out, e.N, e.K)
}

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", "OLD.yaml NEW.yaml [-threshold 3] [-manifest PATH]", stderr)
	threshold := fs.Float64("threshold", 3, "slowdown in % past which the command fails")
	manifest := fs.String("manifest", "", "kernel manifest JSON (default: the embedded one)")
	files, code := parse(fs, args)
	if code >= 0 {
		return code
	}
	if len(files) != 2 {
		fs.Usage()
		return 2
	}
	cat, err := loadCatalog(*manifest)
	if err != nil {
		return fail(stderr, err)
	}
	var tables [2]*dispatch.Table
	for i, f := range files {
		if tables[i], err = loadTableFile(f, cat); err != nil {
			return fail(stderr, err)
		}
	}
	rows := compareTables(tables[0], tables[1], *threshold)
	if len(rows) == 0 {
		fmt.Fprintln(stdout, "no bucket has times at the same M in both tables: nothing to compare")
		return 0
	}
	fmt.Fprintln(stdout, "| entry | bucket | M | old µs | new µs | change | old kernel → new kernel |\n| --- | --- | --- | --- | --- | --- | --- |")
	failed := 0
	for _, r := range rows {
		mark := ""
		if r.pastThreshold {
			mark, failed = " ✗", failed+1
		}
		fmt.Fprintf(stdout, "| %s | %s | %d | %.2f | %.2f | %+.1f %%%s | %s → %s |\n", r.entry, r.bucket, r.m, r.oldUS, r.newUS, r.pct, mark, r.oldK, r.newK)
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "compare: %d of %d points slower by more than %.1f %%\n", failed, len(rows), *threshold)
		return 1
	}
	fmt.Fprintf(stdout, "ok: %d points, none slower by more than %.1f %%\n", len(rows), *threshold)
	return 0
}
