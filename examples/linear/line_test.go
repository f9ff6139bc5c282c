package main

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// A plan of our kernel names it and its split-K; one routed to cuBLASLt
// (no Kernel) names the algorithm as Explain does.
func TestCheckedLine(t *testing.T) {
	p := dispatch.Problem{M: 64, N: 4096, K: 4096}
	kernel := dispatch.Plan{Kernel: &kernels.KernelSpec{Name: "gemmroute_sm90_x"}, SplitK: 2, Level: dispatch.LevelExact}
	assert.Equal(t, "o        M=64    N=4096   K=4096   checked  gemmroute_sm90_x split-K 2 (exact (N,K) entry)", checkedLine("o", &p, kernel))
	v := &dispatch.Vendor{Algo: base64.StdEncoding.EncodeToString(make([]byte, dispatch.VendorAlgoBytes)), Version: 120804}
	vendor := dispatch.Plan{Vendor: v, SplitK: 1, Level: dispatch.LevelExact}
	assert.Equal(t, "o        M=64    N=4096   K=4096   checked  cuBLASLt 12.8.4 algorithm f5a5fd42 (exact (N,K) entry)", checkedLine("o", &p, vendor))
}
