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
"ok: N entries, M buckets", or every problem with its line and exits 1.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		manifest := fs.String("manifest", "", manifestHelp)
		return func(std *stdio, files []string) int {
			if len(files) != 1 {
				return std.usageErr("check", "give one table file")
			}
			ts, err := loadTables(*manifest, files[0])
			if err != nil {
				return std.fail(err) // TableErrors: one line each
			}
			buckets := 0
			for _, e := range ts[0].Entries {
				buckets += len(e.Buckets)
			}
			fmt.Fprintf(std.out, "ok: %d entries, %d buckets\n", len(ts[0].Entries), buckets)
			return 0
		}
	},
}
