package main

import (
	"fmt"
	"io"
)

func init() {
	commands["check"] = command{"validate a bucket table against the kernel manifest", runCheck}
}

// runCheck loads FILE as a table against the catalog and prints
// "ok: N entries, M buckets", or every error with its line and exits 1.
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "FILE [-manifest PATH]", stderr)
	manifest := fs.String("manifest", "", "kernel manifest JSON (default: the embedded kernels/manifest.json)")
	files, code := parse(fs, args)
	if code >= 0 {
		return code
	}
	if len(files) != 1 {
		fs.Usage()
		return 2
	}
	cat, err := loadCatalog(*manifest)
	if err != nil {
		return fail(stderr, err)
	}
	t, err := loadTableFile(files[0], cat)
	if err != nil {
		return fail(stderr, err) // TableErrors: one line each
	}
	buckets := 0
	for _, e := range t.Entries {
		buckets += len(e.Buckets)
	}
	fmt.Fprintf(stdout, "ok: %d entries, %d buckets\n", len(t.Entries), buckets)
	return 0
}
