package main

import (
	"flag"
	"fmt"
)

var checkCmd = &command{
	Name:      "check",
	UsageLine: "[-manifest PATH] FILE",
	Short:     "validate a bucket table against the kernel manifest",
	Long: `Check loads FILE as a bucket table against the kernel manifest and prints
"ok: N entries, M buckets; kernels: matched N, changed N, missing N", or
every problem with its line and exits 1. A bucket is matched when the
manifest's kernel of its name has the digest of the code it was measured
with; a changed or missing one is not used: calls it would route fall back
to the next table level, then the heuristic.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		manifest := fs.String("manifest", "", manifestHelp)
		return func(std *stdio, files []string) int {
			if len(files) != 1 {
				return std.usageErr("check", "give one table file")
			}
			cat, t, err := loadCatalogAndTable(*manifest, files[0])
			if err != nil {
				return std.fail(err) // TableErrors: one line each
			}
			buckets := 0
			for _, e := range t.Entries {
				buckets += len(e.Buckets)
			}
			fmt.Fprintf(std.out, "ok: %d entries, %d buckets; kernels: %s\n", len(t.Entries), buckets, t.MatchKernels(cat))
			return 0
		}
	},
}
