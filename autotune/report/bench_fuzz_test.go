package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
)

// FuzzReadBench reads arbitrary bench CSVs: an error names the file, and
// every row read has bounded dimensions and times, so that its roofline,
// rate and ratios are finite and positive where they must be.
func FuzzReadBench(f *testing.F) {
	f.Add(benchHeader + "x,1,4096,4096,bf16,test_simt_bf16,1,exact,10,11,15,16,3.4,3400,7.4,74,4,4,12,1.2\n")
	f.Add(benchHeader + "y,2,64,64,,k,2,heuristic,3,3,6,7,0.003,5,0.1,3,4,4,0,\n")
	f.Add(benchHeader + "x,1,4096,4096,bf16,k,1,exact,+Inf,11,15,16,3.4,3400,7.4,74,4,4,12,1.2\n")
	f.Add(benchHeader + "x,1,4096,4096,bf16,k,1,exact,1e-300,NaN,15,16,3.4,3400,7.4,74,4,4,-12,1.2\n")
	f.Add(benchHeader + "x,4294967296,4096,4096,bf16,k,99999,exact,10,11,15,16,3.4,3400,7.4,74,4,4,12,1.2\n")
	ko := strings.TrimSuffix(benchHeader, "\n") + ",kernels_only_kernel,kernels_only_split_k,kernels_only_level,kernels_only_graph_us,kernels_only_graph_p90_us,kernels_only_speedup_vs_cublas\n"
	f.Add(ko + "x,1,4096,4096,bf16,cublaslt:12.8.4:f5a5fd42,1,exact,10,11,15,16,3.4,3400,7.4,74,4,4,12,1.2,k,2,default,12,13,1\n")
	f.Add(ko + "x,1,4096,4096,bf16,k,1,exact,10,11,15,16,3.4,3400,7.4,74,4,4,12,1.2,k,0,default,1e-9,NaN,\n")
	f.Add("name,M\nx,1\n")
	path := filepath.Join(f.TempDir(), "bench.csv")
	f.Fuzz(func(t *testing.T, text string) {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		rows, err := ReadBench(path)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), path), "the error names the file: %v", err)
			return
		}
		finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
		for _, r := range rows {
			for _, d := range []int{r.M, r.N, r.K} {
				require.True(t, d >= 1 && d <= tuning.MaxDim, "%+v", r)
			}
			require.True(t, r.SplitK >= 1 && r.SplitK <= maxSplitK, "%+v", r)
			require.True(t, r.GraphUS >= minUS && r.GraphUS <= maxUS, "%+v", r)
			for _, x := range []float64{r.GraphP90, r.EventsUS, r.FloorUS, r.PeerUS} {
				require.True(t, x == 0 || x >= minUS && x <= maxUS, "%+v", r)
			}
			floor := Ceilings{ReadBW: minRate, Peak: maxRate}.RooflineUS(r.Shape)
			require.True(t, finite(floor) && floor > 0, "roofline %g of %+v", floor, r)
			require.True(t, finite(r.RooflinePct()) && finite(r.Ratio()) && finite(r.KernelsOnlyRatio()), "%+v", r)
			if k := r.KernelsOnly; k != (KernelsOnly{}) {
				require.True(t, k.Kernel != "" && k.SplitK >= 1 && k.SplitK <= maxSplitK && k.GraphUS >= minUS && k.GraphUS <= maxUS, "%+v", r)
				require.True(t, k.GraphP90 == 0 || k.GraphP90 >= minUS && k.GraphP90 <= maxUS, "%+v", r)
			}
			flops, _ := Work(r.M, r.N, r.K, r.Types)
			require.True(t, finite(flops/r.GraphUS/1e6), "%+v", r)
		}
	})
}
