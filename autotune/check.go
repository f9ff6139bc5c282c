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
			cat, err := loadCatalog(*manifest)
			if err != nil {
				return std.fail(err)
			}
			t, err := loadTable(files[0], cat)
			if err != nil {
				return std.fail(err) // TableErrors: one line each
			}
			buckets := 0
			for _, e := range t.Entries {
				buckets += len(e.Buckets)
			}
			fmt.Fprintf(std.out, "ok: %d entries, %d buckets\n", len(t.Entries), buckets)
			return 0
		}
	},
}
