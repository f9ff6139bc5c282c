package cuda

import "fmt"

// Error is a failed driver call. It has no build tag, unlike the rest of the
// package, so that code converting it (dispatch's CUDAError) is tested in
// the nocuda build.
type Error struct {
	Call string // driver entry point, e.g. cuLaunchKernel
	Code int    // CUresult
	Name string // e.g. CUDA_ERROR_NO_BINARY_FOR_GPU
	Msg  string // the driver's description
}

// Error names the call, the result code and the driver's description.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s (%d): %s", e.Call, e.Name, e.Code, e.Msg) }
