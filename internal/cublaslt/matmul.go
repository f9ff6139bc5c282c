package cublaslt

/*
#cgo noescape gr_lt_matmul_call
#cgo nocallback gr_lt_matmul_call
#include "lt.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// The values below are cuBLASLt's and the CUDA runtime's documented enum
// values (cublasLt.h, cublas_api.h, library_types.h; the same in CUDA 11.8,
// 12.x and 13.x), written as the project's own constants so that no cuBLAS
// header is needed to build.

// DataType is a cudaDataType_t: the element type of a matrix or a scale.
type DataType int32

// The element types the engine hands cuBLASLt.
const (
	R32F    DataType = 0  // CUDA_R_32F: float
	R16F    DataType = 2  // CUDA_R_16F: half
	R16BF   DataType = 14 // CUDA_R_16BF: nv_bfloat16
	R8FE4M3 DataType = 28 // CUDA_R_8F_E4M3: __nv_fp8_e4m3 (A and B of an FP8 matmul)
)

// ComputeType is a cublasComputeType_t: what a matmul multiplies and
// accumulates in.
type ComputeType int32

// Compute32F is CUBLAS_COMPUTE_32F (68): fp32 accumulation, the default
// for 16-bit inputs.
const Compute32F ComputeType = 68

// Operation is a cublasOperation_t: how a matmul reads an operand.
type Operation int32

// The operations.
const (
	OpN Operation = 0 // CUBLAS_OP_N: as stored
	OpT Operation = 1 // CUBLAS_OP_T: transposed
)

// cublasLtMatmulDescAttributes_t values set on a descriptor.
const (
	descTransA        = 3  // CUBLASLT_MATMUL_DESC_TRANSA, int32_t
	descTransB        = 4  // CUBLASLT_MATMUL_DESC_TRANSB, int32_t
	descAScalePointer = 17 // CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, void * (device float; NULL: 1)
	descBScalePointer = 18 // CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, void * (device float; NULL: 1)
	descFastAccum     = 25 // CUBLASLT_MATMUL_DESC_FAST_ACCUM, int8_t (0: FP8 partial sums promoted to fp32 periodically)
)

// prefMaxWorkspace is CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES (uint64_t),
// a cublasLtMatmulPreferenceAttributes_t.
const prefMaxWorkspace = 1

// cublasLtMatmulAlgoCapAttributes_t values Caps reads (each 4 bytes).
const (
	capOutOfPlace = 4  // CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT, int32_t
	capAlignA     = 16 // CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES, uint32_t; B, C, D follow (17, 18, 19)
)

// ErrStatus is what a *StatusError wraps: a cuBLASLt call returned a status
// other than CUBLAS_STATUS_SUCCESS.
var ErrStatus = errors.New("cuBLASLt call failed")

// ErrClosed is returned by a call on a Library, Handle, MatmulDesc or
// Layout after its Close.
var ErrClosed = errors.New("cublaslt: used after Close")

// StatusError is a cuBLASLt call's failure: the call and the
// cublasStatus_t it returned. It wraps ErrStatus.
type StatusError struct {
	Call   string // e.g. "cublasLtMatmul"
	Status int    // the cublasStatus_t
}

// statusNames are cublasStatus_t's values (cublas_api.h) and what to do
// about each.
var statusNames = map[int]struct{ name, hint string }{
	1:  {"CUBLAS_STATUS_NOT_INITIALIZED", "create the handle with the device's context current on the calling thread"},
	3:  {"CUBLAS_STATUS_ALLOC_FAILED", "free host or device memory and retry"},
	7:  {"CUBLAS_STATUS_INVALID_VALUE", "the shapes, leading dimensions, alignment or workspace conflict with the algorithm: check the problem, or retune"},
	8:  {"CUBLAS_STATUS_ARCH_MISMATCH", "the algorithm cannot run on this GPU: retune on it"},
	11: {"CUBLAS_STATUS_MAPPING_ERROR", "a GPU memory space could not be accessed: check the pointers"},
	13: {"CUBLAS_STATUS_EXECUTION_FAILED", "the kernel failed to launch: check the stream and the CUDA context"},
	14: {"CUBLAS_STATUS_INTERNAL_ERROR", "an internal cuBLASLt operation failed: check the driver and the library versions"},
	15: {"CUBLAS_STATUS_NOT_SUPPORTED", "this library does not support the configuration on this GPU: retune with it"},
	16: {"CUBLAS_STATUS_LICENSE_ERROR", "check the cuBLAS licence"},
}

// Error is "call: NAME (n): what to do".
func (e *StatusError) Error() string {
	if s, ok := statusNames[e.Status]; ok {
		return fmt.Sprintf("%s: %s (%d): %s", e.Call, s.name, e.Status, s.hint)
	}
	return fmt.Sprintf("%s: cublasStatus_t %d: see cuBLAS's documentation of cublasStatus_t", e.Call, e.Status)
}

// Unwrap returns ErrStatus.
func (e *StatusError) Unwrap() error { return ErrStatus }

// status is nil for CUBLAS_STATUS_SUCCESS, else the call's *StatusError.
func status(call string, r C.int) error {
	if r == 0 {
		return nil
	}
	return &StatusError{Call: call, Status: int(r)}
}

// entryPoints are the symbols Open resolves, in order.
func entryPoints() []string {
	names := make([]string, int(C.gr_lt_num_names()))
	for i := range names {
		names[i] = C.GoString(C.gr_lt_name(C.int(i)))
	}
	return names
}

// live returns l's entry points, or ErrClosed.
func (l *Library) live() (*C.gr_lt, error) {
	if l == nil || l.lt == nil {
		return nil, ErrClosed
	}
	return l.lt, nil
}

// Handle is a cuBLASLt handle (cublasLtHandle_t), tied to the device whose
// context was current when it was made. Its calls need that context
// current on the calling thread; the caller makes it so. Safe for use by
// several goroutines at once, as cuBLASLt's handle is.
type Handle struct {
	lib *Library
	h   C.uintptr_t
}

// NewHandle creates a handle (cublasLtCreate) for the device whose context
// is current on the calling thread. Make it outside stream capture: it
// may allocate device memory.
func (l *Library) NewHandle() (*Handle, error) {
	lt, err := l.live()
	if err != nil {
		return nil, err
	}
	var h C.uintptr_t
	if err := status("cublasLtCreate", C.gr_lt_handle_new(lt, &h)); err != nil {
		return nil, err
	}
	return &Handle{lib: l, h: h}, nil
}

// Close destroys the handle (cublasLtDestroy, which waits for its work);
// closing a closed Handle does nothing.
func (h *Handle) Close() error {
	if h.h == 0 {
		return nil
	}
	lt, err := h.lib.live()
	if err != nil {
		return err
	}
	err = status("cublasLtDestroy", C.gr_lt_handle_del(lt, h.h))
	h.h = 0
	return err
}

// live returns h's library entry points, or ErrClosed.
func (h *Handle) live() (*C.gr_lt, error) {
	if h == nil || h.h == 0 {
		return nil, ErrClosed
	}
	return h.lib.live()
}

// MatmulDesc is a matmul descriptor (cublasLtMatmulDesc_t): compute type,
// scale type (of alpha and beta, taken from host memory) and the
// operations on A and B, and for an FP8 matmul's (NewScaledMatmulDesc) the
// scale pointers of A and B, which each Matmul sets. It may be shared by
// several goroutines at once: a scaled descriptor's calls take its lock,
// so that each matmul runs with its own scale pointers.
type MatmulDesc struct {
	lib    *Library
	d      C.uintptr_t
	scaled bool       // made by NewScaledMatmulDesc: Matmul sets the scale pointers
	mu     sync.Mutex // held by a scaled descriptor's calls
}

// NewMatmulDesc creates a descriptor (cublasLtMatmulDescCreate) and sets
// CUBLASLT_MATMUL_DESC_TRANSA and TRANSB to opA and opB. It makes no GPU
// call.
func (l *Library) NewMatmulDesc(compute ComputeType, scale DataType, opA, opB Operation) (*MatmulDesc, error) {
	lt, err := l.live()
	if err != nil {
		return nil, err
	}
	var d C.uintptr_t
	if err := status("cublasLtMatmulDescCreate", C.gr_lt_desc_new(lt, &d, C.int(compute), C.int(scale))); err != nil {
		return nil, err
	}
	for _, a := range []struct {
		attr int
		op   Operation
	}{{descTransA, opA}, {descTransB, opB}} {
		if err := status("cublasLtMatmulDescSetAttribute", C.gr_lt_desc_set_i32(lt, d, C.int(a.attr), C.int32_t(a.op))); err != nil {
			return nil, errors.Join(err, status("cublasLtMatmulDescDestroy", C.gr_lt_desc_del(lt, d)))
		}
	}
	return &MatmulDesc{lib: l, d: d}, nil
}

// NewScaledMatmulDesc creates the descriptor of an FP8 matmul
// (cublasLtMatmulDescCreate): compute 32F and scale 32F (the types FP8
// requires), operations opA and opB (FP8 on Hopper takes TN only: OpT,
// OpN), and fast accumulation off (CUBLASLT_MATMUL_DESC_FAST_ACCUM 0, set
// rather than left to the default: the fp8 partial sums are promoted to
// fp32 periodically, the accuracy our e4m3 kernels and torch._scaled_mm's
// default have). Each Matmul sets its A and B scale pointers
// (MatmulArgs.ScaleA, ScaleB); AlgoCheck and Heuristic set them to NULL. It
// makes no GPU call.
func (l *Library) NewScaledMatmulDesc(opA, opB Operation) (*MatmulDesc, error) {
	d, err := l.NewMatmulDesc(Compute32F, R32F, opA, opB)
	if err != nil {
		return nil, err
	}
	if err := status("cublasLtMatmulDescSetAttribute", C.gr_lt_desc_set_i8(l.lt, d.d, descFastAccum, 0)); err != nil {
		return nil, errors.Join(fmt.Errorf("turning FP8 fast accumulation off: %w", err), d.Close())
	}
	d.scaled = true
	return d, nil
}

// hold locks a scaled descriptor (see MatmulDesc) and returns whether it
// did: the caller unlocks when it did.
func (d *MatmulDesc) hold() bool {
	if d.scaled {
		d.mu.Lock()
	}
	return d.scaled
}

// holdUnscaled is hold for AlgoCheck and Heuristic: a scaled descriptor's
// scale pointers are set to NULL first, so that what they answer never
// depends on the pointers of an earlier Matmul. On an error nothing is
// held.
func (d *MatmulDesc) holdUnscaled() (bool, error) {
	if !d.hold() {
		return false, nil
	}
	if err := status("cublasLtMatmulDescSetAttribute", C.gr_lt_desc_clear_scales(d.lib.lt, d.d, descAScalePointer, descBScalePointer)); err != nil {
		d.mu.Unlock()
		return false, err
	}
	return true, nil
}

// Close destroys the descriptor; closing a closed one does nothing.
func (d *MatmulDesc) Close() error {
	if d.d == 0 {
		return nil
	}
	lt, err := d.lib.live()
	if err != nil {
		return err
	}
	err = status("cublasLtMatmulDescDestroy", C.gr_lt_desc_del(lt, d.d))
	d.d = 0
	return err
}

// Matrix describes a column-major matrix as cuBLASLt's layouts do: element
// type, rows, columns and the leading dimension (elements between the
// starts of two columns, at least Rows).
type Matrix struct {
	Type       DataType
	Rows, Cols uint64
	LD         int64
}

// Layout is a matrix layout descriptor (cublasLtMatrixLayout_t) made by
// NewLayout, for AlgoCheck and Heuristic (Matmul initialises its own).
type Layout struct {
	lib *Library
	l   C.uintptr_t
}

// NewLayout creates a layout of m (cublasLtMatrixLayoutCreate). It makes
// no GPU call.
func (l *Library) NewLayout(m Matrix) (*Layout, error) {
	lt, err := l.live()
	if err != nil {
		return nil, err
	}
	var h C.uintptr_t
	if err := status("cublasLtMatrixLayoutCreate", C.gr_lt_layout_new(lt, &h, C.int(m.Type), C.uint64_t(m.Rows), C.uint64_t(m.Cols), C.int64_t(m.LD))); err != nil {
		return nil, err
	}
	return &Layout{lib: l, l: h}, nil
}

// Close destroys the layout; closing a closed one does nothing.
func (y *Layout) Close() error {
	if y.l == 0 {
		return nil
	}
	lt, err := y.lib.live()
	if err != nil {
		return err
	}
	err = status("cublasLtMatrixLayoutDestroy", C.gr_lt_layout_del(lt, y.l))
	y.l = 0
	return err
}

// Layouts are the layouts of one matmul: A, B, and C and D, which share
// one (D = alpha·op(A)·op(B) + beta·C).
type Layouts struct {
	A, B, CD *Layout
}

// handles returns the layouts' descriptors, or ErrClosed when one is nil or
// closed.
func (ls Layouts) handles() (a, b, cd C.uintptr_t, err error) {
	for _, y := range []*Layout{ls.A, ls.B, ls.CD} {
		if y == nil || y.l == 0 {
			return 0, 0, 0, fmt.Errorf("%w: a layout of A, B or C/D is nil or closed", ErrClosed)
		}
	}
	return ls.A.l, ls.B.l, ls.CD.l, nil
}

// AlgoBytes is the size of a cublasLtMatmulAlgo_t (uint64_t data[8]).
const AlgoBytes = 64

// Algo is an algorithm as cuBLASLt identifies it: the opaque
// cublasLtMatmulAlgo_t, which a library of the same version reads back.
type Algo [AlgoBytes]byte

// c is algo as the C struct, for the calls.
func (a *Algo) c() *C.gr_lt_algo { return (*C.gr_lt_algo)(unsafe.Pointer(a)) }

// AlgoCheck checks algo against desc and the layouts on the handle's
// device (cublasLtMatmulAlgoCheck) and returns the workspace it needs. A
// pass does not promise that every pointer runs: Caps says the alignment
// the algorithm needs. It needs the handle's context current.
func (h *Handle) AlgoCheck(desc *MatmulDesc, ls Layouts, algo *Algo) (workspace int64, err error) {
	lt, err := h.live()
	if err != nil {
		return 0, err
	}
	a, b, cd, err := ls.handles()
	if err != nil {
		return 0, err
	}
	if desc == nil || desc.d == 0 {
		return 0, fmt.Errorf("%w: the matmul descriptor is nil or closed", ErrClosed)
	}
	if held, err := desc.holdUnscaled(); err != nil {
		return 0, err
	} else if held {
		defer desc.mu.Unlock()
	}
	var ws C.size_t
	if err := status("cublasLtMatmulAlgoCheck", C.gr_lt_check(lt, h.h, desc.d, a, b, cd, algo.c(), &ws)); err != nil {
		return 0, err
	}
	return int64(ws), nil
}

// Caps are what an algorithm needs of the buffers it reads and writes.
type Caps struct {
	// Align is the alignment, in bytes, that A, B, C and D (in cuBLASLt's
	// order) need of their pointers and leading dimensions
	// (CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES … D_BYTES).
	Align [4]int
	// OutOfPlace says whether D may be another buffer than C
	// (CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT).
	OutOfPlace bool
}

// Caps reads algo's capabilities (cublasLtMatmulAlgoCapGetAttribute). It
// makes no GPU call.
func (l *Library) Caps(algo *Algo) (Caps, error) {
	var c Caps
	lt, err := l.live()
	if err != nil {
		return c, err
	}
	var v C.uint32_t
	for i := range c.Align {
		if err := status("cublasLtMatmulAlgoCapGetAttribute", C.gr_lt_cap_u32(lt, algo.c(), C.int(capAlignA+i), &v)); err != nil {
			return c, err
		}
		c.Align[i] = int(v)
	}
	if err := status("cublasLtMatmulAlgoCapGetAttribute", C.gr_lt_cap_u32(lt, algo.c(), capOutOfPlace, &v)); err != nil {
		return c, err
	}
	c.OutOfPlace = v != 0
	return c, nil
}

// Heuristic is one algorithm cuBLASLt's heuristic proposes.
type Heuristic struct {
	Algo      Algo
	Workspace int64   // bytes it needs
	Waves     float32 // its estimated device utilisation (1: one full wave)
}

// Heuristic asks cuBLASLt for up to n algorithms for desc and the layouts
// that need at most maxWorkspace bytes of workspace
// (cublasLtMatmulAlgoGetHeuristic), best estimated first. It needs the
// handle's context current. n must be positive.
func (h *Handle) Heuristic(desc *MatmulDesc, ls Layouts, maxWorkspace int64, n int) ([]Heuristic, error) {
	if n <= 0 || maxWorkspace < 0 {
		return nil, fmt.Errorf("cublaslt: Heuristic of %d algorithms within %d bytes: ask for at least one, within a workspace of 0 bytes or more", n, maxWorkspace)
	}
	lt, err := h.live()
	if err != nil {
		return nil, err
	}
	a, b, cd, err := ls.handles()
	if err != nil {
		return nil, err
	}
	if desc == nil || desc.d == 0 {
		return nil, fmt.Errorf("%w: the matmul descriptor is nil or closed", ErrClosed)
	}
	var pref C.uintptr_t
	if err := status("cublasLtMatmulPreferenceCreate", C.gr_lt_pref_new(lt, &pref)); err != nil {
		return nil, err
	}
	defer C.gr_lt_pref_del(lt, pref)
	if err := status("cublasLtMatmulPreferenceSetAttribute", C.gr_lt_pref_set_u64(lt, pref, prefMaxWorkspace, C.uint64_t(maxWorkspace))); err != nil {
		return nil, err
	}
	mem := (*C.gr_lt_heuristic)(C.calloc(C.size_t(n), C.sizeof_gr_lt_heuristic))
	if mem == nil {
		return nil, fmt.Errorf("cublaslt: allocating %d heuristic results failed (out of memory)", n)
	}
	defer C.free(unsafe.Pointer(mem))
	res := unsafe.Slice(mem, n)
	var got C.int
	if held, err := desc.holdUnscaled(); err != nil {
		return nil, err
	} else if held {
		defer desc.mu.Unlock()
	}
	if err := status("cublasLtMatmulAlgoGetHeuristic", C.gr_lt_heuristic_call(lt, h.h, desc.d, a, b, cd, pref, C.int(n), &res[0], &got)); err != nil {
		return nil, err
	}
	var out []Heuristic
	for i := range min(int(got), n) {
		r := &res[i]
		if r.state != 0 {
			continue
		}
		out = append(out, Heuristic{Algo: *(*Algo)(unsafe.Pointer(&r.algo)), Workspace: int64(r.workspace), Waves: float32(r.waves)})
	}
	return out, nil
}

// errScalePointers is Matmul's answer to scale pointers given with a
// descriptor that does not take them.
var errScalePointers = errors.New("cublaslt: MatmulArgs.ScaleA or ScaleB set with a descriptor that takes no scale pointers: make the descriptor with NewScaledMatmulDesc, or leave them 0")

// Operand is a matrix of a matmul and its device address.
type Operand struct {
	Matrix
	Ptr uintptr
}

// MatmulArgs are one matmul's operands: D = Alpha·op(A)·op(B) + Beta·C, C
// and D of one layout (CD; C may be D: in place), the workspace, and the
// stream (a CUstream; 0 is the legacy default stream). An FP8 matmul
// computes D = Alpha·ScaleA·ScaleB·op(A)·op(B) + Beta·C.
type MatmulArgs struct {
	A, B           Operand
	CD             Matrix
	C, D           uintptr
	Alpha, Beta    float32
	Workspace      uintptr
	WorkspaceBytes int64
	Stream         uintptr
	// ScaleA and ScaleB are device pointers to one float32 each, the
	// per-tensor scales of FP8 A and B (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
	// B_SCALE_POINTER), read when the matmul runs (a captured graph's
	// replays read the values then current); 0 is a scale of 1. Only a
	// scaled descriptor (NewScaledMatmulDesc) takes them.
	ScaleA, ScaleB uintptr
}

// matmulStages name what gr_lt_matmul_call's stage says failed.
var matmulStages = [...]string{"cublasLtMatrixLayoutInit (A)", "cublasLtMatrixLayoutInit (B)", "cublasLtMatrixLayoutInit (C/D)",
	"cublasLtMatmulDescSetAttribute (A_SCALE_POINTER)", "cublasLtMatmulDescSetAttribute (B_SCALE_POINTER)", "cublasLtMatmul"}

// Matmul enqueues D = Alpha·op(A)·op(B) + Beta·C with algo on args.Stream
// (cublasLtMatmul), asynchronously. The layouts are initialised in place on
// the C stack and alpha and beta passed from host memory, so it allocates
// nothing and is safe inside stream capture (the values are recorded). A
// scaled descriptor's scale pointers are set to args.ScaleA and ScaleB
// under its lock, held until cublasLtMatmul returns (the call reads them
// then). It needs the handle's context current on the calling thread.
func (h *Handle) Matmul(desc *MatmulDesc, algo *Algo, args *MatmulArgs) error {
	lt, err := h.live()
	if err != nil {
		return err
	}
	if desc == nil || desc.d == 0 {
		return ErrClosed
	}
	if !desc.scaled && (args.ScaleA != 0 || args.ScaleB != 0) {
		return errScalePointers
	}
	scaled := C.int(0)
	if desc.hold() {
		defer desc.mu.Unlock()
		scaled = 1
	}
	a, b, cd := &args.A, &args.B, &args.CD
	rc := C.gr_lt_matmul_call(lt, h.h, desc.d, algo.c(),
		C.int(a.Type), C.uint64_t(a.Rows), C.uint64_t(a.Cols), C.int64_t(a.LD), C.uintptr_t(a.Ptr),
		C.int(b.Type), C.uint64_t(b.Rows), C.uint64_t(b.Cols), C.int64_t(b.LD), C.uintptr_t(b.Ptr),
		C.int(cd.Type), C.uint64_t(cd.Rows), C.uint64_t(cd.Cols), C.int64_t(cd.LD), C.uintptr_t(args.C), C.uintptr_t(args.D),
		C.float(args.Alpha), C.float(args.Beta), C.uintptr_t(args.Workspace), C.size_t(args.WorkspaceBytes), C.uintptr_t(args.Stream),
		scaled, descAScalePointer, C.uintptr_t(args.ScaleA), descBScalePointer, C.uintptr_t(args.ScaleB))
	if rc.status == 0 {
		return nil
	}
	return status(matmulStages[min(max(int(rc.stage), 0), len(matmulStages)-1)], rc.status)
}
