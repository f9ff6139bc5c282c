package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const benchHeader = "name,M,N,K,dtype,kernel,split_k,level,graph_us,graph_p90_us,events_us,events_p90_us,tflops,gbps,floor_us,roofline_pct,host_gemm_us,host_launch_us,cublas_graph_us,speedup_vs_cublas\n"

func TestReport(t *testing.T) {
	dir := t.TempDir()
	bench := filepath.Join(dir, "bench.csv")
	require.NoError(t, os.WriteFile(bench, []byte(benchHeader+
		"x,1,4096,4096,bf16,test_simt_bf16,1,exact,10,11,15,16,3.4,3400,7.4,74,4,4,12,1.2\n"+
		"x,2,4096,4096,bf16,test_mma_bf16,2,exact,12,12,16,17,5.6,2800,7.4,62,4,4,10,0.833\n"+
		"y z/1,1,64,64,bf16,test_simt_bf16,1,heuristic,3,3,6,7,0.003,5,0.1,3,4,4,0,\n"), 0o644))
	sweep := filepath.Join(dir, "sweep.csv")
	require.NoError(t, os.WriteFile(sweep, []byte(sweepHeader+
		"x,1,4096,4096,bf16,test_simt_bf16,1,10,11,ok\n"+
		"x,1,4096,4096,bf16,test_mma_bf16,2,9,9,ok\n"+
		"x,2,4096,4096,bf16,test_mma_bf16,2,12,12,ok\n"), 0o644))
	out := filepath.Join(dir, "report")
	code, stdout, stderr := runCLI("report", "-bench", bench, "-sweep", sweep, "-manifest", testManifest, "-out", out, "-title", "Test GPU")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "2 plots")
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	text := string(md)
	assert.Contains(t, text, "# Test GPU")
	assert.Contains(t, text, "Against cuBLAS on 2 shapes: geometric mean ×1.000, lowest ×0.83")
	assert.Contains(t, text, "| x | 1 | 10.00 | 9.00 | 11.1 % | `test_mma_bf16 split-K 2` |")
	assert.Contains(t, text, "mean 5.56 %, worst 11.1 %")
	for _, png := range []string{"roofline-x.png", "roofline-y_z_1.png"} {
		b, err := os.ReadFile(filepath.Join(out, png))
		require.NoError(t, err, png)
		assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")), "%s is not a PNG", png)
		assert.Contains(t, text, "("+png+")")
	}
}
