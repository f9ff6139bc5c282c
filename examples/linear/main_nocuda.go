//go:build nocuda

// Command linear needs the default build on a machine with a GPU; this
// -tags nocuda build only says so.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "linear: built with -tags nocuda; run `go run ./examples/linear` (default build) on a machine with a GPU")
	os.Exit(2)
}
