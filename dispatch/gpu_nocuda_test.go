//go:build nocuda

package dispatch_test

import "testing"

// The GPU tests (gpu_test.go) need the default build on a machine with a
// GPU; this build says so instead of passing silently.
func TestGPU(t *testing.T) {
	t.Skip("GPU tests skipped: built with -tags nocuda; run `go test ./dispatch` (default build) on a machine with a GPU")
}
