package tuning_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
)

// FuzzReadShapes reads arbitrary shapes CSVs: an error names the file, and
// every shape read has M, N and K in 1…2^31 and a dtype; its weights derive
// without trouble.
func FuzzReadShapes(f *testing.F) {
	f.Add("name,M,N,K,dtype\nllama3-8b.qkv,1,6144,4096,bf16\nx,300,4096,14336,f16\n")
	f.Add("name,M,N,K\nx,1,4096,4096\n")
	f.Add("name,M,N,K\nx,0,4096,4096\ny,1,-1,4096\nz,1,1,99999999999\n")
	f.Add("name,M,N,K,dtype\n\"a,b\",1,2,3,e4m3\nq,1,2,3,bf17\n")
	f.Add("M,N\n1,2\n")
	f.Add("")
	path := filepath.Join(f.TempDir(), "shapes.csv")
	f.Fuzz(func(t *testing.T, text string) {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		shapes, err := tuning.ReadShapes(path)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), path), "the error names the file: %v", err)
			return
		}
		for _, s := range shapes {
			for _, d := range []int{s.M, s.N, s.K} {
				require.True(t, d >= 1 && d <= tuning.MaxDim, "%+v", s)
			}
			require.NoError(t, s.Types.Check(), "%+v", s)
		}
		ws := tuning.WeightsFromShapes(shapes, nil)
		require.LessOrEqual(t, len(ws), len(shapes))
	})
}
