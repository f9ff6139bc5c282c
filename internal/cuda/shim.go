//go:build !nocuda

// Package cuda is gemmroute's small CUDA layer: gorgonia.org/cu for devices,
// primary contexts, modules and memory, and a cgo shim for what gorgonia/cu
// lacks — a launch that passes gr_gemm_params by value with no per-call
// allocation and sets the context in the same C call, function attributes,
// stream capture and graphs, events, and error names.
//
// Every file here is built only without the nocuda tag: gorgonia/cu exits the
// process at init on a machine without a GPU.
package cuda

/*
#cgo CFLAGS: -I${SRCDIR}/../../kernels/src
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include "gemm_params.h"

static CUresult gr_launch(CUcontext ctx, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                          unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s, gr_gemm_params p) {
  CUresult r = cuCtxSetCurrent(ctx);
  if (r != CUDA_SUCCESS) return r;
  void *args[] = {&p};
  return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, s, args, NULL);
}

static const char *gr_error_name(CUresult r) {
  const char *s = NULL;
  if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == NULL) return "CUDA_ERROR_UNKNOWN";
  return s;
}

static const char *gr_error_string(CUresult r) {
  const char *s = NULL;
  if (cuGetErrorString(r, &s) != CUDA_SUCCESS || s == NULL) return "unknown error";
  return s;
}
*/
import "C"

import (
	"fmt"
	"reflect"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gemmroute/gemmroute/kernels"
)

// Error is a failed driver call.
type Error struct {
	Call string // driver entry point, e.g. cuLaunchKernel
	Code int    // CUresult
	Name string // e.g. CUDA_ERROR_NO_BINARY_FOR_GPU
	Msg  string // the driver's description
}

// Error names the call, the result code and the driver's description.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s (%d): %s", e.Call, e.Name, e.Code, e.Msg) }

// NoBinaryForGPU reports whether the driver found no code for the GPU.
func (e *Error) NoBinaryForGPU() bool { return e.Code == int(C.CUDA_ERROR_NO_BINARY_FOR_GPU) }

func check(call string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	return &Error{Call: call, Code: int(r), Name: C.GoString(C.gr_error_name(r)), Msg: C.GoString(C.gr_error_string(r))}
}

// wrap turns a gorgonia/cu error into an *Error.
func wrap(call string, err error) error {
	if err == nil {
		return nil
	}
	if v := reflect.ValueOf(err); v.Kind() == reflect.Int { // gorgonia/cu's CUresult
		return check(call, C.CUresult(v.Int()))
	}
	return fmt.Errorf("%s: %w", call, err)
}

// Stream is a raw CUstream (0: the legacy default stream).
type Stream uintptr

// Function is a raw CUfunction.
type Function uintptr

// The handles are driver pointers kept as integers; these read them back
// without a uintptr→unsafe.Pointer conversion.
func (s Stream) c() C.CUstream     { return *(*C.CUstream)(unsafe.Pointer(&s)) }
func (f Function) c() C.CUfunction { return *(*C.CUfunction)(unsafe.Pointer(&f)) }

// Context is a device's retained primary context. Methods make it current on
// a locked OS thread for the duration of each call.
type Context struct {
	Device cu.Device
	ctx    cu.CUContext
	raw    C.CUcontext
}

// Open retains the primary context of device ordinal.
func Open(ordinal int) (*Context, error) {
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, wrap("cuDeviceGet", err)
	}
	ctx, err := dev.RetainPrimaryCtx()
	if err != nil {
		return nil, wrap("cuDevicePrimaryCtxRetain", err)
	}
	return &Context{Device: dev, ctx: ctx, raw: *(*C.CUcontext)(unsafe.Pointer(&ctx))}, nil
}

// Close releases the primary context.
func (c *Context) Close() error {
	return wrap("cuDevicePrimaryCtxRelease", c.Device.ReleasePrimaryCtx())
}

// Do runs f with the context current on a locked OS thread.
func (c *Context) Do(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := check("cuCtxSetCurrent", C.cuCtxSetCurrent(c.raw)); err != nil {
		return err
	}
	return f()
}

// Launch starts f with p by value on stream. It allocates nothing and does
// not synchronise; it is safe inside stream capture.
func (c *Context) Launch(f Function, grid, block [3]uint32, smem int, s Stream, p *kernels.Params) error {
	return check("cuLaunchKernel", C.gr_launch(c.raw, f.c(),
		C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]), C.uint(block[0]), C.uint(block[1]), C.uint(block[2]),
		C.uint(smem), s.c(), *(*C.gr_gemm_params)(unsafe.Pointer(p))))
}
