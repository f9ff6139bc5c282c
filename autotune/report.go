package main

import (
	"flag"
	"fmt"

	"github.com/gemmroute/gemmroute/autotune/report"
	"github.com/gemmroute/gemmroute/dispatch"
)

var reportCmd = &command{
	Name:      "report",
	UsageLine: "-bench bench.csv [-sweep tune.csv] -out DIR [flags]",
	Short:     "write a Markdown report with roofline plots from bench (and tune) CSVs",
	Long: `Report writes DIR/report.md from a bench run's CSV: every shape's graph-replay
and event times against the roofline and cuBLAS (bench -peer), with a
roofline plot per shape name. With -sweep, a tune run's tune.csv, it adds
the bucket loss: the routed kernel against the fastest correct candidate at
the same M.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		benchPath := fs.String("bench", "", "autotune bench -csv output (with -peer for the cuBLAS column)")
		sweep := fs.String("sweep", "", "a tune run's tune.csv, for the bucket-loss table")
		outDir := fs.String("out", "", "directory for report.md and the roofline PNGs")
		title := fs.String("title", "gemmroute benchmark", "report title (say the card)")
		var roof rooflineFlags
		roof.register(fs, "the H200's measured ceilings")
		return func(std *stdio, _ []string) int {
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
