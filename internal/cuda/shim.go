//go:build !nocuda

// Package cuda is gemmroute's small CUDA layer: gorgonia.org/cu for devices,
// primary contexts, modules and memory, and a cgo shim for what gorgonia/cu
// lacks — a launch that passes gr_gemm_params by value with no per-call
// allocation and sets the context in the same C call, function attributes,
// stream capture and graphs, events, and error names.
//
// Every call that needs a context makes its Context current on the OS
// thread it runs on, whatever the goroutine's thread, and makes current
// again what was current there before — none, or another context — when it
// returns: a caller's thread is left as it was found. Launch and LaunchTMA
// do both in the same C call as the launch (no channel, no allocation; one
// thread-local read when the context is current already).
//
// Every file here is built only without the nocuda tag: gorgonia/cu exits the
// process at init on a machine without a GPU.
package cuda

/*
#cgo CFLAGS: -I${SRCDIR}/../../kernels/src
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include "gemm_params.h"

// gr_enter makes ctx current on the calling thread and returns what was
// current before (NULL: none), for gr_leave. The common case, ctx already
// current, costs one thread-local read.
typedef struct {
  CUresult r;
  CUcontext prev;
} gr_entered;

static gr_entered gr_enter(CUcontext ctx) {
  gr_entered e = {CUDA_SUCCESS, NULL};
  if ((e.r = cuCtxGetCurrent(&e.prev)) != CUDA_SUCCESS) return e;
  if (e.prev != ctx) e.r = cuCtxSetCurrent(ctx);
  return e;
}

// gr_leave makes prev, from gr_enter, current again (none when it is NULL).
static CUresult gr_leave(CUcontext ctx, CUcontext prev) {
  return prev == ctx ? CUDA_SUCCESS : cuCtxSetCurrent(prev);
}

// gr_result is a shim call made in a context: r is the first failure (of
// making the context current when entered is 0, else of the call itself)
// and restore the result of making the caller's context current again.
typedef struct {
  CUresult r, restore;
  int entered;
} gr_result;

static CUresult gr_launch_raw(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                              unsigned bz, unsigned smem, CUstream s, gr_gemm_params *p) {
  void *args[] = {p};
  return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, s, args, NULL);
}

static gr_result gr_launch(CUcontext ctx, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                           unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s, gr_gemm_params p) {
  gr_result res = {CUDA_SUCCESS, CUDA_SUCCESS, 0};
  gr_entered e = gr_enter(ctx);
  if ((res.r = e.r) != CUDA_SUCCESS) return res;
  res.entered = 1;
  res.r = gr_launch_raw(f, gx, gy, gz, bx, by, bz, smem, s, &p);
  res.restore = gr_leave(ctx, e.prev);
  return res;
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

// gr_encode_d fills map with gemm_params.h's map of D: dims {n, m}, row
// stride ldc elements of esize bytes, a box of box_cols x box_rows, swizzled
// by the span of a box row (128 or 64 bytes: what ws_epilogue_tma.cuh's
// staging buffer holds), no L2 promotion, no fill (a store map:
// out-of-bounds elements are not written).
static CUresult gr_encode_d(gr_tensor_map *map, int dtype, unsigned esize, void *base, int64_t n, int64_t m,
                            int64_t ldc, unsigned box_cols, unsigned box_rows) {
  cuuint64_t dims[2] = {(cuuint64_t)n, (cuuint64_t)m};
  cuuint64_t strides[1] = {(cuuint64_t)ldc * esize};
  unsigned box[2] = {box_cols, box_rows}, elem[2] = {1, 1};
  int swizzle = box_cols * esize == 128 ? 3 : box_cols * esize == 64 ? 2 : 1;  // CU_TENSOR_MAP_SWIZZLE_128B, _64B, _32B
  return gr_encode_tiled(map, dtype, 2, base, dims, strides, box, elem, 0, swizzle, 0, 0);
}

// gr_launch_tma makes ctx current (the encoder, like the launch, fails
// with CUDA_ERROR_INVALID_CONTEXT on a thread with none), encodes p's
// tensor maps into its own copy of p (tma_d too when box_d_rows > 0),
// launches, and makes the caller's context current again: no Go memory
// crosses, nothing is allocated.
static gr_result gr_launch_tma(CUcontext ctx, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned smem, CUstream s, gr_gemm_params p, int dtype,
                               unsigned esize, unsigned box_a, unsigned box_b, int dtype_d, unsigned esize_d,
                               unsigned box_d_cols, unsigned box_d_rows) {
  gr_result res = {CUDA_SUCCESS, CUDA_SUCCESS, 0};
  gr_entered e = gr_enter(ctx);
  if ((res.r = e.r) != CUDA_SUCCESS) return res;
  res.entered = 1;
  if ((res.r = gr_init_tma()) == CUDA_SUCCESS &&
      (res.r = gr_encode_kmajor(&p.tma_a, dtype, esize, p.a, p.k, p.m, p.lda, box_a)) == CUDA_SUCCESS &&
      (res.r = gr_encode_kmajor(&p.tma_b, dtype, esize, p.b, p.k, p.n, p.ldb, box_b)) == CUDA_SUCCESS &&
      (box_d_rows == 0 ||
       (res.r = gr_encode_d(&p.tma_d, dtype_d, esize_d, p.d, p.n, p.m, p.ldc, box_d_cols, box_d_rows)) == CUDA_SUCCESS))
    res.r = gr_launch_raw(f, gx, gy, gz, bx, by, bz, smem, s, &p);
  res.restore = gr_leave(ctx, e.prev);
  return res;
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
	"errors"
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

// Context is a device's retained primary context. Each method that needs it
// makes it current on the calling OS thread (locked for the duration of the
// call) and, before returning, makes current again what the thread had
// current before: none, this context, or another one.
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

// enterCall names the calls that make a context current, for their errors.
const enterCall = "cuCtxGetCurrent/cuCtxSetCurrent"

// restoreErr is the error of making the caller's context current again
// after call (which itself succeeded or failed as reported beside it).
func restoreErr(after string, r C.CUresult) error {
	return check("cuCtxSetCurrent (restoring the caller's context after "+after+")", r)
}

// inContext is the error of a shim call that made the context current
// around call: nil, or the failure of entering, of the call, or of
// restoring the caller's context (joined to the call's own failure). A
// restore failure alone means call itself succeeded (a kernel was
// launched).
func inContext(call string, r C.gr_result) error {
	if r.r == C.CUDA_SUCCESS && r.restore == C.CUDA_SUCCESS {
		return nil
	}
	var err error
	switch {
	case r.r != C.CUDA_SUCCESS && r.entered == 0:
		return check(enterCall, r.r) // nothing was changed, nothing to restore
	case r.r != C.CUDA_SUCCESS:
		err = check(call, r.r)
	}
	if r.restore != C.CUDA_SUCCESS {
		return errors.Join(err, restoreErr(call, r.restore))
	}
	return err
}

// Do runs f on a locked OS thread with the context current, then makes
// current again what was current on that thread before (none, or another
// context). A failure to restore it is joined to f's result.
func (c *Context) Do(f func() error) (err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	in := C.gr_enter(c.raw)
	if in.r != C.CUDA_SUCCESS {
		return check(enterCall, in.r)
	}
	defer func() {
		if r := C.gr_leave(c.raw, in.prev); r != C.CUDA_SUCCESS {
			err = errors.Join(err, restoreErr("the call", r))
		}
	}()
	return f()
}

// Launch starts f with p by value on stream, with the context current on
// the calling thread for the launch (and the caller's context current again
// after it), all in one C call. It allocates nothing and does not
// synchronise; it is safe inside stream capture.
func (c *Context) Launch(f Function, grid, block [3]uint32, smem int, s Stream, p *kernels.Params) error {
	return inContext("cuLaunchKernel", C.gr_launch(c.raw, f.c(),
		C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]), C.uint(block[0]), C.uint(block[1]), C.uint(block[2]),
		C.uint(smem), s.c(), *(*C.gr_gemm_params)(unsafe.Pointer(p))))
}

// TMA describes the tensor maps a TMA kernel's launch encodes into its
// parameters: the element type and the rows of A's and B's boxes
// (kernels.KernelSpec.TMABox) and, for a kernel that stores D through TMA,
// D's element type and box {columns, rows} (kernels.KernelSpec.TMAStoreBox;
// zero: no map of D).
type TMA struct {
	DType      kernels.DType
	BoxA, BoxB int
	Out        kernels.DType
	BoxD       [2]int
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

// LaunchTMA is Launch for a kernel that loads through tensor maps: in one C
// call it makes the context current (the encoder needs one as the launch
// does), encodes p's maps of A and B (gemm_params.h) and, when t.BoxD is
// set, of D on the host, launches,
// and makes the caller's context current again. cuTensorMapEncodeTiled is
// resolved at run time, so a build against CUDA 11 headers reaches it on a
// CUDA 12 driver. It allocates nothing and is safe inside stream capture
// (the maps travel in the parameters the graph records).
func (c *Context) LaunchTMA(f Function, grid, block [3]uint32, smem int, s Stream, p *kernels.Params, t TMA) error {
	return inContext("cuTensorMapEncodeTiled/cuLaunchKernel", C.gr_launch_tma(c.raw, f.c(),
		C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]), C.uint(block[0]), C.uint(block[1]), C.uint(block[2]),
		C.uint(smem), s.c(), *(*C.gr_gemm_params)(unsafe.Pointer(p)), tmaDType(t.DType), C.uint(t.DType.Size()),
		C.uint(t.BoxA), C.uint(t.BoxB), tmaDType(t.Out), C.uint(t.Out.Size()), C.uint(t.BoxD[0]), C.uint(t.BoxD[1])))
}
