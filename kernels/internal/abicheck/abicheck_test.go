//go:build cgo

package abicheck

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

func TestParamsLayoutMatchesC(t *testing.T) {
	typ := reflect.TypeOf(kernels.Params{})
	require.Equal(t, Fields, typ.NumField(), "kernels.Params and gr_gemm_params have different field counts")
	require.Equal(t, Size(), typ.Size(), "sizeof differs")
	for i := 0; i < Fields; i++ {
		require.Equal(t, Offset(i), typ.Field(i).Offset, "offset of field %d (%s)", i, typ.Field(i).Name)
	}
}

func TestStreamKFlagsMatchC(t *testing.T) {
	require.Equal(t, StreamKFlags(), kernels.StreamKFlags, "kernels.StreamKFlags and GR_STREAMK_FLAGS differ")
}

// The kernels read Params.Scaling as gemm_params.h's GR_SCALE_* codes: a
// Go code that differs from its define would scale by the wrong mode.
func TestScaleCodesMatchC(t *testing.T) {
	want := []int32{kernels.ScaleFolded, kernels.ScaleTensor, kernels.ScaleRow, kernels.ScaleBlock, kernels.ScaleBlockK}
	require.Equal(t, want, ScaleCodes(), "kernels.Scale* and GR_SCALE_* differ")
}
