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

// cuTensorMapEncodeTiled (CUDA 12.0) with the project's own prototype, the
// enums as ints, so that a build against CUDA 11.x headers reaches it through
// cuGetProcAddress.
typedef CUresult (*gr_encode_tiled_fn)(void *map, int dtype, unsigned rank, void *base, const cuuint64_t *dims,
                                       const cuuint64_t *strides, const unsigned *box, const unsigned *elem_strides,
                                       int interleave, int swizzle, int l2_promotion, int oob_fill);
static gr_encode_tiled_fn gr_encode_tiled;

static CUresult gr_init_tma(void) {
  if (gr_encode_tiled != NULL) return CUDA_SUCCESS;
#if CUDA_VERSION >= 12000
  return cuGetProcAddress("cuTensorMapEncodeTiled", (void **)&gr_encode_tiled, 12000, 0, NULL);
#else
  return cuGetProcAddress("cuTensorMapEncodeTiled", (void **)&gr_encode_tiled, 12000, 0);
#endif
}

// gr_encode_kmajor fills map with the K-major 2-D map gemm_params.h
// describes: dims {k, rows}, row stride ld elements, a box of 64 elements by
// box_rows, 128-byte swizzle, 256-byte L2 promotion, zero fill.
static CUresult gr_encode_kmajor(gr_tensor_map *map, int dtype, unsigned esize, const void *base, int64_t k,
                                 int64_t rows, int64_t ld, unsigned box_rows) {
  cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows};
  cuuint64_t strides[1] = {(cuuint64_t)ld * esize};
  unsigned box[2] = {128 / esize, box_rows}, elem[2] = {1, 1};
  return gr_encode_tiled(map, dtype, 2, (void *)base, dims, strides, box, elem, 0, 3, 3, 0);
}

// gr_launch_tma encodes p's tensor maps into its own copy of p, then
// launches: no Go memory crosses, nothing is allocated.
static CUresult gr_launch_tma(CUcontext ctx, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned smem, CUstream s, gr_gemm_params p, int dtype,
                              unsigned esize, unsigned box_a, unsigned box_b) {
  CUresult r = gr_init_tma();
  if (r != CUDA_SUCCESS) return r;
  if ((r = gr_encode_kmajor(&p.tma_a, dtype, esize, p.a, p.k, p.m, p.lda, box_a)) != CUDA_SUCCESS) return r;
  if ((r = gr_encode_kmajor(&p.tma_b, dtype, esize, p.b, p.k, p.n, p.ldb, box_b)) != CUDA_SUCCESS) return r;
  return gr_launch(ctx, f, gx, gy, gz, bx, by, bz, smem, s, p);
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

// Synchronize waits for all work on the context's device.
func (c *Context) Synchronize() error {
	return c.Do(func() error { return check("cuCtxSynchronize", C.cuCtxSynchronize()) })
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

// TMA describes the tensor maps a TMA kernel's launch encodes into its
// parameters: the element type and the rows of A's and B's boxes
// (kernels.KernelSpec.TMABox).
type TMA struct {
	DType      kernels.DType
	BoxA, BoxB int
}

// tmaDType is the CUtensorMapDataType of an element type.
func tmaDType(d kernels.DType) C.int {
	switch d {
	case kernels.BF16:
		return 9 // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
	case kernels.F16:
		return 6 // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
	}
	return 0 // CU_TENSOR_MAP_DATA_TYPE_UINT8: one-byte types (e4m3)
}

// LaunchTMA is Launch for a kernel that loads through tensor maps: it
// encodes p's maps of A and B (gemm_params.h) on the host, in C, then
// launches. cuTensorMapEncodeTiled is resolved at run time, so a build
// against CUDA 11 headers reaches it on a CUDA 12 driver. It allocates
// nothing and is safe inside stream capture (the maps travel in the
// parameters the graph records).
func (c *Context) LaunchTMA(f Function, grid, block [3]uint32, smem int, s Stream, p *kernels.Params, t TMA) error {
	return check("cuTensorMapEncodeTiled/cuLaunchKernel", C.gr_launch_tma(c.raw, f.c(),
		C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]), C.uint(block[0]), C.uint(block[1]), C.uint(block[2]),
		C.uint(smem), s.c(), *(*C.gr_gemm_params)(unsafe.Pointer(p)), tmaDType(t.DType), C.uint(t.DType.Size()),
		C.uint(t.BoxA), C.uint(t.BoxB)))
}
