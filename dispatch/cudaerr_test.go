package dispatch

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/internal/cuda"
)

// A driver error reaches the caller as a *CUDAError that errors.As finds and
// that matches ErrCUDA, alone, inside a join (Close) or under context.
func TestCUDAError(t *testing.T) {
	require.NoError(t, cudaErr(nil))

	oom := &cuda.Error{Call: "cuMemAlloc", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY", Msg: "out of memory"}
	err := cudaErr(oom)
	var ce *CUDAError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, CUDAError{Call: "cuMemAlloc", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY", Msg: "out of memory"}, *ce)
	assert.ErrorIs(t, err, ErrCUDA)
	assert.Equal(t, "gemmroute: CUDA driver error: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", err.Error())

	ctx := fmt.Errorf("%w (loading image sm90.fatbin)", cudaErr(oom))
	ce = nil
	require.ErrorAs(t, ctx, &ce)
	assert.Equal(t, 2, ce.Code)

	free := &cuda.Error{Call: "cuMemFree", Code: 700, Name: "CUDA_ERROR_ILLEGAL_ADDRESS", Msg: "an illegal memory access was encountered"}
	joined := cudaErr(errors.Join(oom, free))
	assert.ErrorIs(t, joined, ErrCUDA)
	var codes []int
	for _, e := range joined.(interface{ Unwrap() []error }).Unwrap() {
		ce = nil
		require.ErrorAs(t, e, &ce)
		codes = append(codes, ce.Code)
	}
	assert.Equal(t, []int{2, 700}, codes)

	twice := cudaErr(errors.Join(cudaErr(oom), free))
	assert.Equal(t, "gemmroute: CUDA driver error: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory\n"+
		"gemmroute: CUDA driver error: cuMemFree: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered", twice.Error(),
		"an error turned once is kept as it is, its raw neighbour turned")

	other := cudaErr(errors.New("cuDeviceGet: no device"))
	assert.ErrorIs(t, other, ErrCUDA)
	assert.False(t, errors.As(other, &ce), "an error that is no driver result is not a *CUDAError")
	assert.Contains(t, other.Error(), "cuDeviceGet: no device")
}
