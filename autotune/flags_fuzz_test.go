package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// FuzzPointsFlags runs "autotune points" with arbitrary -max-m and -types
// values (the weight flags tune and model share): either it writes a shapes
// CSV with a bounded number of rows, or it exits 1 or 2 with one line on
// stderr, never a panic or a hang.
func FuzzPointsFlags(f *testing.F) {
	for _, s := range [][2]string{{"8192", ""}, {"1", "bf16,f16"}, {"4611686018427387904", "bf16"}, {"2147483648", "f16"},
		{"-8", "bf16"}, {"1000", ""}, {"64", "e4m3"}, {"64", "e4m3→bf16,e4m3->f16/row"}, {"0x10", "bf16,,f16"}, {"9223372036854775807", ""}} {
		f.Add(s[0], s[1])
	}
	out := filepath.Join(f.TempDir(), "points.csv")
	f.Fuzz(func(t *testing.T, maxM, types string) {
		os.Remove(out)
		code, _, errOut := runCLI("points", "-model", "llama3.2-1b", "-max-m", maxM, "-types", types, "-out", out)
		if code != 0 {
			require.Contains(t, []int{1, 2}, code)
			require.NotContains(t, errOut, "goroutine")
			if !strings.Contains(errOut, "usage: autotune points") { // a flag the flag package refused prints the usage too
				require.Equal(t, 1, strings.Count(errOut, "\n"), "%q", errOut)
			}
			return
		}
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Less(t, strings.Count(string(data), "\n"), 100*len(kernels.AllTypes())*32*2+2, "rows: weights × Ms of at most 32 buckets × types")
	})
}
