//go:build !nocuda

package dispatch

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gemmroute/gemmroute/internal/cublaslt"
	"github.com/gemmroute/gemmroute/internal/cuda"
)

// vendorEngine is an engine's cuBLASLt, made at Open: the library, one
// handle (on the engine's device) and the two matmul descriptors the
// routes share (compute and scale 32F, TN: see ltMatrices): desc for
// 16-bit inputs, read-only once made, and fp8 for e4m3 (fast accumulation
// off), whose scale pointers each call sets under the descriptor's lock
// (cublaslt.NewScaledMatmulDesc). A call's layouts are initialised on the
// C stack by cublaslt.Handle.Matmul, so a planned call allocates nothing.
type vendorEngine struct {
	ctx       *cuda.Context
	lib       *cublaslt.Library
	h         *cublaslt.Handle
	desc, fp8 *cublaslt.MatmulDesc
}

// vendorLibs holds the cuBLASLt libraries loaded in this process, by
// candidate list: loaded once (a few hundred MB of code), never unloaded,
// shared by every engine.
var vendorLibs struct {
	sync.Mutex
	m map[string]*cublaslt.Library
}

// loadVendor returns the library the first usable of names loads, loading
// it the first time (cublaslt.Open's *LoadError when none is usable).
func loadVendor(names []string) (*cublaslt.Library, error) {
	key := strings.Join(names, "\x00")
	vendorLibs.Lock()
	defer vendorLibs.Unlock()
	if lib := vendorLibs.m[key]; lib != nil {
		return lib, nil
	}
	lib, err := cublaslt.Open(names)
	if err != nil {
		return nil, err
	}
	if vendorLibs.m == nil {
		vendorLibs.m = map[string]*cublaslt.Library{}
	}
	vendorLibs.m[key] = lib
	return lib, nil
}

// openVendor loads cuBLASLt as opts say, makes the engine's handle and
// descriptors, and returns what the planner is told: the version and the
// launcher, or why there is none (off by Options, absent, or the handle
// failed). The engine runs without cuBLASLt then.
func (e *Engine) openVendor(opts Options) VendorLibrary {
	if off, ok := opts.vendorOff(); ok {
		return off
	}
	names := opts.VendorLibraries
	if len(names) == 0 {
		names = cublaslt.DefaultNames
	}
	lib, err := loadVendor(names)
	if err != nil {
		return VendorLibrary{Absent: err.Error()}
	}
	v := &vendorEngine{ctx: e.ctx, lib: lib}
	err = e.ctx.Do(func() (err error) {
		if v.h, err = lib.NewHandle(); err != nil {
			return err
		}
		if v.desc, err = lib.NewMatmulDesc(cublaslt.Compute32F, cublaslt.R32F, cublaslt.OpT, cublaslt.OpN); err != nil {
			return err
		}
		v.fp8, err = lib.NewScaledMatmulDesc(cublaslt.OpT, cublaslt.OpN)
		return err
	})
	if err != nil {
		err = errors.Join(err, v.close())
		return VendorLibrary{Absent: fmt.Sprintf("cuBLASLt absent: %s (%s) loaded, but its handle or descriptors could not be made: %v", lib.Path(), lib.Version(), err)}
	}
	e.vendor = v
	return VendorLibrary{Version: int(lib.Version()), launcher: v}
}

// close destroys the handle and the descriptors (the library stays loaded).
func (v *vendorEngine) close() error {
	return v.ctx.Do(func() error {
		var errs []error
		for _, d := range []*cublaslt.MatmulDesc{v.desc, v.fp8} {
			if d != nil {
				errs = append(errs, d.Close())
			}
		}
		if v.h != nil {
			errs = append(errs, v.h.Close())
		}
		return errors.Join(errs...)
	})
}

// ltType is the cudaDataType_t of a dtype vendorTakes admits.
func ltType(d DType) cublaslt.DataType {
	switch d {
	case F16:
		return cublaslt.R16F
	case E4M3:
		return cublaslt.R8FE4M3
	}
	return cublaslt.R16BF
}

// descOf is the descriptor of p's matmul: the FP8 one for e4m3 inputs.
func (v *vendorEngine) descOf(p *Problem) *cublaslt.MatmulDesc {
	if p.Types.In == E4M3 {
		return v.fp8
	}
	return v.desc
}

// ltMatrices maps p onto cuBLASLt's column-major matmul
// D = alpha·op(A)·op(B) + beta·C. A row-major X[r,c] with leading
// dimension ld is, read column-major, Xᵀ[c,r] with the same ld; so our
// D[M,N] = A[M,K]·B[N,K]ᵀ (row-major) is Dᵀ[N,M] = B·Aᵀ column-major:
//
//   - cuBLASLt's A is our B, stored K×N (ld LDB), read transposed (OpT):
//     op(A) = B, N×K;
//   - cuBLASLt's B is our A, stored K×M (ld LDA), read as it is (OpN):
//     op(B) = Aᵀ, K×M;
//   - C and D are ours, stored N×M (ld LDC).
//
// In cuBLASLt's names m = N, n = M, k = K: the "TN" case (the one FP8
// needs on Hopper too).
func ltMatrices(p *Problem) (a, b, cd cublaslt.Matrix) {
	in, out := ltType(p.Types.In), ltType(p.Types.Out)
	a = cublaslt.Matrix{Type: in, Rows: uint64(p.K), Cols: uint64(p.N), LD: int64(p.LDB)}
	b = cublaslt.Matrix{Type: in, Rows: uint64(p.K), Cols: uint64(p.M), LD: int64(p.LDA)}
	cd = cublaslt.Matrix{Type: out, Rows: uint64(p.N), Cols: uint64(p.M), LD: int64(p.LDC)}
	return a, b, cd
}

// withLayouts makes the layouts of p's matmul (ltMatrices) and calls fn
// with them in the engine's context, destroying them after.
func (v *vendorEngine) withLayouts(p *Problem, fn func(cublaslt.Layouts) error) error {
	la, lb, lcd := ltMatrices(p)
	return v.ctx.Do(func() (err error) {
		var ls cublaslt.Layouts
		defer func() {
			for _, y := range []*cublaslt.Layout{ls.A, ls.B, ls.CD} {
				if y != nil {
					err = errors.Join(err, y.Close())
				}
			}
		}()
		if ls.A, err = v.lib.NewLayout(la); err != nil {
			return err
		}
		if ls.B, err = v.lib.NewLayout(lb); err != nil {
			return err
		}
		if ls.CD, err = v.lib.NewLayout(lcd); err != nil {
			return err
		}
		return fn(ls)
	})
}

// vendorFit checks algo against p's shape on the engine's device
// (cublasLtMatmulAlgoCheck over layouts made for it) and reads what the
// algorithm needs, in our operands' names (cuBLASLt's A is our B).
func (v *vendorEngine) vendorFit(p *Problem, algo *[VendorAlgoBytes]byte) (vendorFit, error) {
	a := (*cublaslt.Algo)(algo)
	var fit vendorFit
	err := v.withLayouts(p, func(ls cublaslt.Layouts) error {
		ws, err := v.h.AlgoCheck(v.descOf(p), ls, a)
		if err != nil {
			return err
		}
		caps, err := v.lib.Caps(a)
		if err != nil {
			return err
		}
		fit = vendorFit{workspace: ws, alignA: caps.Align[1], alignB: caps.Align[0], alignC: caps.Align[2], alignD: caps.Align[3], outOfPlace: caps.OutOfPlace}
		return nil
	})
	return fit, err
}

// vendorHeuristic asks cuBLASLt's heuristic for up to n algorithms for p's
// shape in the engine's layouts and descriptor, each within maxWorkspace
// bytes, best first.
func (v *vendorEngine) vendorHeuristic(p *Problem, maxWorkspace int64, n int) ([][VendorAlgoBytes]byte, error) {
	var out [][VendorAlgoBytes]byte
	err := v.withLayouts(p, func(ls cublaslt.Layouts) error {
		hs, err := v.h.Heuristic(v.descOf(p), ls, maxWorkspace, n)
		for _, h := range hs {
			out = append(out, h.Algo)
		}
		return err
	})
	return out, err
}

// launchVendor runs pl, a plan routed to cuBLASLt, for p on stream s: one
// cublasLtMatmul with the route's algorithm, the engine's handle and
// descriptor for p's inputs, host alpha and beta, and ws (s's workspace;
// nil when the algorithm needs none). An e4m3 problem's scalar scales are
// folded into alpha (no scale pointers); its scale pointers become
// cuBLASLt's, swapped as the operands are (its A is our B), so that a
// captured graph reads the scales current at each replay. It allocates
// nothing and is safe inside capture.
func (e *Engine) launchVendor(pl *Plan, p *Problem, s Stream, ws *workspace) error {
	v := e.vendor
	if v == nil {
		return fmt.Errorf("%w: the plan routes to cuBLASLt, which this engine has not loaded: plan with this engine (Engine.Plan)", ErrNoKernel)
	}
	a, b, cd := ltMatrices(p)
	alpha, scaleA, scaleB, _ := p.kernelScales() // vendorTakes admits 16-bit inputs and per-tensor scales only
	args := cublaslt.MatmulArgs{
		A: cublaslt.Operand{Matrix: a, Ptr: uintptr(p.B)}, B: cublaslt.Operand{Matrix: b, Ptr: uintptr(p.A)},
		CD: cd, C: uintptr(p.D), D: uintptr(p.D), Alpha: alpha, Beta: p.Beta, Stream: uintptr(s),
		ScaleA: scaleB, ScaleB: scaleA,
	}
	if p.Beta != 0 {
		args.C = uintptr(p.C)
	}
	if ws != nil {
		args.Workspace, args.WorkspaceBytes = ws.ptr, ws.bytes
	}
	algo := (*cublaslt.Algo)(&pl.route.algo)
	desc := v.descOf(p)
	if err := v.ctx.Do(func() error { return v.h.Matmul(desc, algo, &args) }); err != nil {
		return fmt.Errorf("%w: cuBLASLt %s's algorithm, M=%d N=%d K=%d: %w", ErrVendor, VendorVersion(pl.Vendor.Version), p.M, p.N, p.K, err)
	}
	return nil
}
