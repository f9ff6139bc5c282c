package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// kernelsOnlyRows are a row the router sent to cuBLASLt (our kernels alone
// measured apart), one it planned as our kernels alone do (copied), one no
// GPU measured our kernels alone for, and one without a peer.
func kernelsOnlyRows() []BenchRow {
	bf16 := tuningtest.Types("bf16")
	vendor := BenchRow{Shape: tuning.Shape{Name: "qkv", M: 128, N: 6144, K: 4096, Types: bf16}, Kernel: "cublaslt:12.8.4:f5a5fd42", SplitK: 1, Level: "exact (N,K) entry",
		GraphUS: 20, GraphP90: 21, EventsUS: 25, EventsP90: 26, FloorUS: 11.5, HostGEMM: 1.5, HostLaunch: 1.2, PeerUS: 21,
		KernelsOnly: KernelsOnly{Kernel: "ws_wgmma_64x96", SplitK: 2, Level: "default entry", GraphUS: 24, GraphP90: 25.5}}
	same := BenchRow{Shape: tuning.Shape{Name: "o", M: 1, N: 4096, K: 4096, Types: bf16}, Kernel: "k1", SplitK: 1, Level: "exact (N,K) entry",
		GraphUS: 12.5, GraphP90: 13, EventsUS: 18, EventsP90: 19, FloorUS: 7.4, HostGEMM: 1, HostLaunch: 0.8, PeerUS: 14}
	same.KernelsOnly = same.Router()
	unmeasured := same
	unmeasured.M, unmeasured.KernelsOnly = 2, KernelsOnly{}
	noPeer := vendor
	noPeer.M, noPeer.PeerUS = 256, 0
	return []BenchRow{vendor, same, unmeasured, noPeer}
}

// WriteBench writes the router's columns as before and our kernels
// alone's after them (empty where not measured, the speedup empty without
// a peer); ReadBench reads every column back.
func TestBenchKernelsOnlyRoundTrip(t *testing.T) {
	rows := kernelsOnlyRows()
	out := filepath.Join(t.TempDir(), "bench.csv")
	require.NoError(t, WriteBench(out, rows))
	text, err := os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.Split(string(text), "\n")
	assert.True(t, strings.HasPrefix(lines[0], "name,M,N,K,dtype,scaling,out,kernel,split_k,level,graph_us,graph_p90_us,"), "the router's columns keep their names")
	assert.True(t, strings.HasSuffix(lines[0], ",cublas_graph_us,speedup_vs_cublas,kernels_only_kernel,kernels_only_split_k,kernels_only_level,kernels_only_graph_us,kernels_only_graph_p90_us,kernels_only_speedup_vs_cublas"), lines[0])
	assert.True(t, strings.HasSuffix(lines[1], ",21.000,1.050,ws_wgmma_64x96,2,default entry,24.000,25.500,0.875"), lines[1])
	assert.True(t, strings.HasSuffix(lines[2], `,14.000,1.120,k1,1,"exact (N,K) entry",12.500,13.000,1.120`), lines[2])
	assert.True(t, strings.HasSuffix(lines[3], ",14.000,1.120,,,,,,"), lines[3])
	assert.True(t, strings.HasSuffix(lines[4], ",0.000,,ws_wgmma_64x96,2,default entry,24.000,25.500,"), lines[4])

	back, err := ReadBench(out)
	require.NoError(t, err)
	want := rows
	for i := range want {
		want[i].EventsP90, want[i].HostGEMM, want[i].HostLaunch = 0, 0, 0 // columns ReadBench does not read
	}
	assert.Equal(t, want, back)
}

// A bench.csv written before the kernels-only columns reads as before,
// KernelsOnly zero: committed ones under docs/perf (an e4m3 run and bf16
// runs), and a minimal one. The README's runs have the columns: there the
// table routed nothing to cuBLASLt, so our kernels alone are the router on
// every shape.
func TestReadBenchWithoutKernelsOnly(t *testing.T) {
	for _, p := range []string{readmeBF16Bench, readmeBF16Before, readmeFP8Bench} {
		rows, err := ReadBench(filepath.Join("..", "..", filepath.FromSlash(p)))
		require.NoError(t, err, p)
		require.NotEmpty(t, rows, p)
		for _, r := range rows {
			require.NotZero(t, r.KernelsOnly, "%s: %+v", p, r)
			require.False(t, r.KernelsOnlyDiffers(), "%s: %+v", p, r)
		}
	}
	for _, p := range []string{"docs/perf/2026-12-02-h200-b/c5/bench.csv", "docs/perf/2026-12-01-h200-sk/c6/bench-C.csv", "docs/perf/2026-12-01-h200-fp8/call8-bench.csv"} {
		rows, err := ReadBench(filepath.Join("..", "..", filepath.FromSlash(p)))
		require.NoError(t, err, p)
		require.NotEmpty(t, rows, p)
		for _, r := range rows {
			require.Zero(t, r.KernelsOnly, "%s: %+v", p, r)
			require.False(t, r.KernelsOnlyDiffers())
			require.Zero(t, r.KernelsOnlyRatio())
		}
	}
	path := filepath.Join(t.TempDir(), "bench.csv")
	write(t, path, benchHeader+"x,1,4096,4096,bf16,k,1,exact,10,11,15,16,3.4,3400,7.4,74,4,4,12,1.2\n")
	rows, err := ReadBench(path)
	require.NoError(t, err)
	assert.Equal(t, []BenchRow{{Shape: tuning.Shape{Name: "x", M: 1, N: 4096, K: 4096, Types: tuningtest.Types("bf16")}, Kernel: "k", SplitK: 1, Level: "exact",
		GraphUS: 10, GraphP90: 11, EventsUS: 15, FloorUS: 7.4, PeerUS: 12}}, rows)
}

// A kernels-only kernel needs a valid split-K and graph time; an empty one
// leaves the row's KernelsOnly zero.
func TestReadBenchKernelsOnlyRefused(t *testing.T) {
	header := strings.TrimSuffix(benchHeader, "\n") + ",kernels_only_kernel,kernels_only_split_k,kernels_only_level,kernels_only_graph_us,kernels_only_graph_p90_us,kernels_only_speedup_vs_cublas\n"
	router := "x,1,4096,4096,bf16,k,1,exact,10,11,15,16,3.4,3400,7.4,74,4,4,12,1.2,"
	path := filepath.Join(t.TempDir(), "bench.csv")
	for tail, want := range map[string]string{
		"k2,1,exact,0,,":      "bench.csv:2: kernels_only_graph_us must be positive",
		"k2,,exact,9,9,1.3":   `bench.csv:2: kernels_only_split_k "" is not a whole number`,
		"k2,1,exact,9,-1,1.3": "bench.csv:2: kernels_only_graph_p90_us must be 0 (not measured) or a time",
	} {
		write(t, path, header+router+tail+"\n")
		_, err := ReadBench(path)
		assert.ErrorContains(t, err, want, tail)
	}
	write(t, path, header+router+",,,,,\n")
	rows, err := ReadBench(path)
	require.NoError(t, err)
	assert.Zero(t, rows[0].KernelsOnly)
}

// bench's line shows our kernels alone where they differ from the router:
// their time, plan and ratio to cuBLAS; else it is the router's line alone.
func TestBenchLineKernelsOnly(t *testing.T) {
	rows := kernelsOnlyRows()
	assert.True(t, strings.HasSuffix(rows[0].Line(), "cublaslt:12.8.4:f5a5fd42 split=1 (exact (N,K) entry)  cuBLAS=21.00us ×1.05"+
		"  | kernels only: graph=24.00us p90=25.50 ws_wgmma_64x96 split=2 (default entry) ×0.88"), rows[0].Line())
	for _, r := range rows[1:3] {
		assert.False(t, r.KernelsOnlyDiffers())
		assert.NotContains(t, r.Line(), "kernels only")
		assert.True(t, strings.HasSuffix(r.Line(), "k1 split=1 (exact (N,K) entry)  cuBLAS=14.00us ×1.12"), r.Line())
	}
	assert.True(t, strings.HasSuffix(rows[3].Line(), "(exact (N,K) entry)  | kernels only: graph=24.00us p90=25.50 ws_wgmma_64x96 split=2 (default entry)"), "no peer, no ratio: %s", rows[3].Line())
}

// KernelsOnly.Set records a plan of ours as SetPlan does, with its graph
// timing.
func TestKernelsOnlySet(t *testing.T) {
	var k KernelsOnly
	k.Set(dispatch.Plan{Kernel: &kernels.KernelSpec{Name: "k"}, SplitK: 3, Level: dispatch.LevelHeuristic}, tuning.Timing{Median: 8, P90: 9})
	var r BenchRow
	r.SetPlan(dispatch.Plan{Kernel: &kernels.KernelSpec{Name: "k"}, SplitK: 3, Level: dispatch.LevelHeuristic})
	assert.Equal(t, KernelsOnly{Kernel: "k", SplitK: 3, Level: r.Level, GraphUS: 8, GraphP90: 9}, k)
}

// bench's last line: both columns against cuBLAS (each over the rows that
// have its ratio) and how often they differ; nothing without a peer or
// our kernels alone.
func TestBenchSummary(t *testing.T) {
	rows := kernelsOnlyRows()
	assert.Equal(t, "# against cuBLAS (geometric mean; above 1: gemmroute is faster): router ×1.096, lowest ×1.05 on 3 shapes; "+
		"our kernels alone ×0.990, lowest ×0.88 on 2 shapes; the router and our kernels alone differ on 2 of 3 shapes", BenchSummary(rows))
	assert.Equal(t, "# against cuBLAS (geometric mean; above 1: gemmroute is faster): router ×1.120, lowest ×1.12 on 1 shapes; "+
		"our kernels alone ×1.120, lowest ×1.12 on 1 shapes; the router and our kernels alone differ on 0 of 1 shapes", BenchSummary(rows[1:2]),
		"one plan: the same numbers, said to be the same")
	assert.Equal(t, "# the router and our kernels alone differ on 1 of 1 shapes", BenchSummary(rows[3:]))
	old := rows[2]
	assert.Equal(t, "# against cuBLAS (geometric mean; above 1: gemmroute is faster): router ×1.120, lowest ×1.12 on 1 shapes", BenchSummary([]BenchRow{old}))
	old.PeerUS = 0
	assert.Empty(t, BenchSummary([]BenchRow{old}))
	assert.Empty(t, BenchSummary(nil))
}
