package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gemmroute/gemmroute/autotune/report"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
)

var reportCmd = &command{
	Name:      "report",
	UsageLine: "-bench bench.csv [-sweep tune.csv] -out DIR [flags] | -readme README.md",
	Short:     "write a Markdown report with roofline plots from bench (and tune) CSVs",
	Long: `Report writes DIR/report.md from a bench run's CSV: every shape's graph-replay
and event times against the roofline and cuBLAS (bench -peer), with a
roofline plot per shape name. With -sweep, a tune run's tune.csv, it adds
the bucket loss: the routed kernel against the fastest correct candidate at
the same M.

With -readme FILE it instead rewrites the README's generated blocks (its
performance tables and the figures in their notes) from the committed CSVs
and logs under docs/perf, with the ceilings each of those runs measured; a
CPU test fails when README.md and those files disagree.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		benchPath := fs.String("bench", "", "autotune bench -csv output (with -peer for the cuBLAS column)")
		sweep := fs.String("sweep", "", "a tune run's tune.csv, for the bucket-loss table")
		outDir := fs.String("out", "", "directory for report.md and the roofline PNGs")
		title := fs.String("title", "gemmroute benchmark", "report title (say the card)")
		readme := fs.String("readme", "", "rewrite this README's generated blocks from the committed results under its directory (no other flag)")
		var roof rooflineFlags
		roof.register(fs, "the H200's measured ceilings")
		return func(std *stdio, _ []string) int {
			if *readme != "" {
				if *benchPath != "" || *outDir != "" || *sweep != "" {
					return std.usageErr("report", "-readme takes no -bench, -sweep or -out")
				}
				return writeReadme(std, *readme)
			}
			if *benchPath == "" || *outDir == "" {
				return std.usageErr("report", "-bench and -out are required")
			}
			if err := roof.check(); err != nil {
				return std.exit("report", err)
			}
			rows, err := report.ReadBench(*benchPath)
			if err != nil {
				return std.fail(err)
			}
			b := &report.Bench{Title: *title, Rows: rows, Sweep: *sweep, Inputs: []string{*benchPath, *sweep}}
			b.Ceilings = roof.of(dispatch.H200)
			plots, err := b.Write(*outDir)
			if err != nil {
				return std.fail(err)
			}
			fmt.Fprintf(std.out, "wrote %s (report.md and %d plots)\n", *outDir, plots)
			return 0
		}
	},
}

// writeReadme rewrites path's generated blocks from the results under its
// directory (the repository root).
func writeReadme(std *stdio, path string) int {
	old, err := os.ReadFile(path)
	if err != nil {
		return std.fail(err)
	}
	b, err := report.Readme(filepath.Dir(path), old)
	if err == nil && !bytes.Equal(b, old) {
		err = fileio.WriteAtomic(path, b)
	}
	if err != nil {
		return std.fail(err)
	}
	fmt.Fprintf(std.out, "%s: generated blocks up to date\n", path)
	return 0
}
