package main

import (
	"flag"
	"fmt"

	"github.com/gemmroute/gemmroute/autotune/report"
	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/internal/fileio"
)

var pointsCmd = &command{
	Name:      "points",
	UsageLine: "(-model NAME | -shapes CSV) [-types bf16,f16] [-max-m 8192] -out points.csv",
	Short:     "write the Ms a tune run times as a shapes CSV, for peer_cublas.py",
	Long: `Points writes every M that tune with the same weight flags times (each
bucket's edges and its held-out middle) for every weight, in the columns of a
shapes CSV (name,M,N,K,dtype) that scripts/peer_cublas.py reads; give
its output to tune -peer for the report's cuBLAS column. It needs no GPU.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		var w weightFlags
		w.register(fs)
		out := fs.String("out", "", "shapes CSV to write")
		return func(std *stdio, _ []string) int {
			if *out == "" {
				return std.usageErr("points", "-out is required")
			}
			ws, err := w.weights()
			if err == nil {
				err = fileio.Outputs{Inputs: []string{w.shapes}}.Write(*out, report.Points(ws, w.maxM))
			}
			if err != nil {
				return std.exit("points", err)
			}
			fmt.Fprintf(std.out, "wrote %s: %d weights × the Ms of %d buckets\n", *out, len(ws), len(tuning.Spans(w.maxM)))
			return 0
		}
	},
}
