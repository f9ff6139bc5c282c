//go:build !nocuda

package dispatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/kernels"
)

// Engine launches GEMMs on one GPU. It is safe for concurrent use by many
// goroutines, each on its own stream. GEMM allocates nothing, does not
// synchronise and copies nothing between host and device, so it may be
// captured into a CUDA graph.
//
// Contexts and threads: the engine works in the device's primary context.
// Every method may be called from any goroutine, on any OS thread, whatever
// is current there: each driver call (the tensor-map encode of a TMA kernel
// among them) runs with the engine's context made current on the thread it
// runs on, and when the method returns, that thread has current again what
// it had before — no context, the primary context, or a context of the
// caller's own. The engine never leaves its context current on a caller's
// thread, nor takes another context away from it; when the caller's
// context is the engine's already (the usual set-up, see the README), it
// only reads which context is current.
type Engine struct {
	ctx     *cuda.Context
	dev     DeviceInfo
	planner *Planner // within the engine's Limits (its per-stream workspace)
	fns     map[*kernels.KernelSpec]launchFns
	modules []cuda.Module
	vendor  *vendorEngine // cuBLASLt; nil when off or absent

	mu     sync.RWMutex
	ws     map[Stream]*workspace
	graphs map[*Graph]struct{} // live graphs, closed by Close
	closed atomic.Bool
	once   sync.Once
	cerr   error
}

// launchFns are a kernel spec's functions, resolved at Open, indexed by the
// launchFn of a plan's launch.
type launchFns [numFns]cuda.Function

// workspace is one stream's split-K and stream-K scratch: bytes at ptr
// for partials, after the stream-K kernels' kernels.StreamKFlags flag words
// at flags (zeroed once, at allocation; every stream-K launch leaves them
// zero). It is reference-counted: the stream holds one reference and every
// Graph captured while it was current another, so a workspace a graph
// recorded is freed only when neither needs it (Reserve's replacement and
// Graph.Close both drop a reference).
type workspace struct {
	flags, ptr uintptr
	bytes      int64
	refs       int
}

// flagBytes is the room of a workspace's flags, ahead of its partials (a
// multiple of 256 bytes keeps the partials as aligned as the allocation).
const flagBytes = (kernels.StreamKFlags*4 + 255) / 256 * 256

// StreamOf returns the handle of a gorgonia.org/cu stream.
func StreamOf(s cu.Stream) Stream { return *(*Stream)(unsafe.Pointer(&s)) }

// Open retains device's primary context, loads the kernel images that have
// code for it (native code only where an image has it: see
// Options.JITImages) and resolves each kernel once. It loads cuBLASLt
// (Options.VendorLibraries; not with Options.NoVendor) and makes its handle,
// so that table buckets routed to it run; where it is absent the engine
// runs our kernels only, and the planner's Explain says why. Split-K workspace is
// reserved per stream later, on first need. Open, like every method, may
// be called on any thread and leaves the thread's current context as it
// found it.
func Open(device int, opts Options) (*Engine, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	ctx, err := cuda.Open(device)
	if err != nil {
		return nil, cudaErr(err)
	}
	e := &Engine{ctx: ctx, fns: map[*kernels.KernelSpec]launchFns{}, ws: map[Stream]*workspace{}, graphs: map[*Graph]struct{}{}}
	if err := e.open(opts); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func (e *Engine) open(opts Options) error {
	a, err := e.ctx.Attrs()
	if err != nil {
		return cudaErr(err)
	}
	e.dev = DeviceInfo{Name: a.Name, Arch: kernels.ArchFromCC(a.Major, a.Minor), SMs: a.SMs, L2Bytes: int64(a.L2Bytes), SmemOptIn: a.SmemOptIn, MemBytes: a.MemBytes}
	if p, ok := presetFor(a.Name); ok {
		e.dev.ReadBandwidth, e.dev.PeakFLOPS = p.ReadBandwidth, p.PeakFLOPS
	}
	cat, readImage, err := kernelSource(opts.KernelDir)
	if err != nil {
		return err
	}
	loaded, err := e.loadImages(cat, readImage, opts.JITImages)
	if err != nil {
		return err
	}
	table := opts.Table
	if table == nil {
		if table, err = DefaultTable(); err != nil {
			return err
		}
	}
	pl := NewPlanner(loaded, table, e.dev, Limits{WorkspaceBytes: opts.WorkspaceBytes, BatchInvariant: opts.BatchInvariant})
	e.planner = pl.WithVendor(e.openVendor(opts))
	return nil
}

// kernelSource returns the catalog and image reader: dir (or
// $GEMMROUTE_KERNEL_DIR: kernels.Dir) when set, else the embedded kernels.
func kernelSource(dir string) (*kernels.Catalog, func(string) ([]byte, error), error) {
	dir = kernels.Dir(dir)
	if dir == "" {
		cat, err := DefaultCatalog()
		return cat, func(f string) ([]byte, error) { return kernels.Images.ReadFile("images/" + f) }, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: kernel directory: %w", ErrManifest, err)
	}
	cat, err := kernels.ParseManifest(b)
	return cat, func(f string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, "images", f)) }, err
}

// loadImages loads each image with a kernel for this arch and returns the
// catalog of kernels whose code loaded. Where an image has native code for
// the arch, images that reach it only through PTX JIT are not loaded unless
// jit is set (Options.JITImages). An image the driver has no code for
// (NoBinaryForGpu) is skipped: its kernels are never routed to.
func (e *Engine) loadImages(cat *kernels.Catalog, readImage func(string) ([]byte, error), jit bool) (*kernels.Catalog, error) {
	var kept []kernels.KernelSpec
	var fns []launchFns
	var skipped []string
	m := cat.Manifest()
	native := false
	for _, im := range m.Images {
		native = native || im.Native(e.dev.Arch)
	}
	for _, im := range m.Images {
		if native && !im.Native(e.dev.Arch) && !jit {
			continue // PTX for this arch, where a native image covers it
		}
		var want []*kernels.KernelSpec
		for i := range m.Kernels {
			if k := &m.Kernels[i]; k.Image == im.File && k.RunsOn(e.dev.Arch) {
				want = append(want, k)
			}
		}
		if len(want) == 0 {
			continue
		}
		data, err := readImage(im.File)
		if err != nil {
			return nil, fmt.Errorf("%w: image %s: %w (rebuild with kernels/build.sh)", ErrNoBinary, im.File, err)
		}
		mod, err := e.ctx.LoadModule(data)
		var ce *cuda.Error
		if errors.As(err, &ce) && ce.NoBinaryForGPU() {
			skipped = append(skipped, fmt.Sprintf("%s %v", im.File, im.Targets))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w (loading image %s)", cudaErr(err), im.File)
		}
		e.modules = append(e.modules, mod)
		for _, k := range want {
			var f launchFns
			for _, fn := range kernelFns(k) { // what a plan's launches start
				name, smem := fn.of(k)
				if f[fn], err = e.ctx.Function(mod, name, smem); err != nil {
					break
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%w (image %s: manifest and image disagree: rebuild with kernels/build.sh)", cudaErr(err), im.File)
			}
			kept, fns = append(kept, *k), append(fns, f)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("%w: %s (%s): no image has code for it (skipped: %v); build kernels/ for this arch", ErrNoBinary, e.dev.Name, e.dev.Arch, skipped)
	}
	m.Kernels = kept
	loaded, err := kernels.NewCatalog(m)
	if err != nil {
		return nil, err
	}
	for i, k := range kept {
		e.fns[loaded.Kernel(k.Name)] = fns[i]
	}
	return loaded, nil
}

// Device describes the GPU the engine runs on.
func (e *Engine) Device() DeviceInfo { return e.dev }

// Planner is the engine's planner (its catalog holds only loaded kernels).
func (e *Engine) Planner() *Planner { return e.planner }

// Plan validates p and plans it as GEMM would, without launching. It makes
// no driver call: it needs no current context and changes none.
func (e *Engine) Plan(p *Problem) (Plan, error) {
	if e.closed.Load() {
		return Plan{}, ErrClosed
	}
	return e.planner.Plan(p)
}

// GEMM validates p, plans it and launches it on stream s asynchronously.
// Bad input returns a typed error and launches nothing. It may be called
// on any thread: the engine's context is current for the launch and the
// thread's own current context (or none) is back when GEMM returns.
func (e *Engine) GEMM(p *Problem, s Stream) error {
	pl, err := e.Plan(p)
	if err != nil {
		return err
	}
	return e.launch(pl, p, s)
}

// Launch launches a plan made earlier (by Plan or Planner().PlanKernel) for
// p on stream s, after checking the plan's kernel against p's live pointers,
// strides and shape again. Like GEMM, it leaves the calling thread's
// current context as it found it.
func (e *Engine) Launch(pl Plan, p *Problem, s Stream) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if pl.Level == LevelNoop || p.empty() {
		return nil
	}
	if q := &pl.problem; pl.Kernel == nil && pl.Vendor == nil || q.M != p.M || q.N != p.N || q.K != p.K {
		return fmt.Errorf("%w: plan is for M=%d N=%d K=%d, problem is M=%d N=%d K=%d", ErrInvalidArgument, q.M, q.N, q.K, p.M, p.N, p.K)
	}
	if pl.Vendor != nil {
		if why := pl.vendorRecheck(p, e.planner.lim); why != "" {
			return fmt.Errorf("%w: cuBLASLt %s's algorithm: %s", ErrNoKernel, VendorVersion(pl.Vendor.Version), why)
		}
		return e.launch(pl, p, s)
	}
	if rj := checkKernel(pl.Kernel, p, e.dev, e.planner.lim, pl.SplitK); !rj.ok() {
		return fmt.Errorf("%w: kernel %s: %s", ErrNoKernel, pl.Kernel.Name, rj.detail)
	}
	if !pl.packsAsPlanned(p) {
		return fmt.Errorf("%w: the plan copies%s for %s, this problem's pointers or leading dimensions need other copies: plan it for this problem",
			ErrInvalidArgument, pl.pack.operands(), pl.Kernel.Name)
	}
	return e.launch(pl, p, s)
}

// launch makes the plan's launches on s, in order, with s's workspace when
// the plan needs one: cuBLASLt's matmul for a plan routed to it; else it
// fills the parameter block and makes the plan's kernel launches (the
// repack, the GEMM kernel, the split-K reduce), their functions, grids,
// blocks and shared memory the plan's. It allocates nothing.
func (e *Engine) launch(pl Plan, p *Problem, s Stream) error {
	if pl.Level == LevelNoop {
		return nil
	}
	var ws *workspace
	if pl.WorkspaceBytes > 0 {
		var err error
		if ws, err = e.workspaceFor(s); err != nil {
			return err
		}
		if ws == nil { // s is being captured and has no workspace: plan without split-K
			lim := e.planner.lim
			lim.NoSplitK = true
			if pl, err = e.planner.plan(p, lim); err != nil {
				return err
			}
			return e.launch(pl, p, s)
		}
		if ws.bytes < pl.WorkspaceBytes {
			return fmt.Errorf("%w: %s needs %d B on stream %#x, %d B reserved by Reserve: reserve at least %d B (or 0 to release it, and let the engine reserve its default)",
				ErrWorkspace, pl.decomposition(), pl.WorkspaceBytes, uintptr(s), ws.bytes, pl.WorkspaceBytes)
		}
	}
	if pl.Vendor != nil {
		return e.launchVendor(&pl, p, s, ws)
	}
	f, ok := e.fns[pl.Kernel]
	if !ok {
		return fmt.Errorf("%w: %s is not loaded by this engine", ErrNoKernel, pl.Kernel.Name)
	}
	kp := kernels.Params{
		A: uintptr(p.A), B: uintptr(p.B), D: uintptr(p.D), Bias: uintptr(p.Bias),
		M: int64(p.M), N: int64(p.N), K: int64(p.K), LDA: int64(p.LDA), LDB: int64(p.LDB), LDC: int64(p.LDC),
		KPerSplit: int64(pl.kPerSplit), Beta: p.Beta, SplitK: int32(pl.kernelSplitK()), TailParts: int32(pl.tailParts),
	}
	kp.Alpha, kp.ScaleA, kp.ScaleB, kp.Scaling = p.kernelScales()
	if p.Beta != 0 {
		kp.C = uintptr(p.C)
	}
	if ws != nil {
		kp.Workspace, kp.Flags = ws.ptr, ws.flags
		if pk := pl.pack; pl.Kernel.Repack() { // the GEMM runs on the copies the repack launch writes
			if pk.a {
				kp.PackA, kp.PackLDA, kp.A, kp.LDA = kp.A, kp.LDA, ws.ptr+uintptr(pk.offA), int64(pk.k)
			}
			if pk.b {
				kp.PackB, kp.PackLDB, kp.B, kp.LDB = kp.B, kp.LDB, ws.ptr+uintptr(pk.offB), int64(pk.k)
			}
			kp.PackK, kp.K = kp.K, int64(pk.k)
		}
	}
	cs := cuda.Stream(s)
	k := pl.Kernel
	chunks := 1
	if k.Repack() {
		chunks = pl.pack.chunks(p.M)
	}
	srcA, d, c := kp.PackA, kp.D, kp.C
	for i := range chunks { // a chunked repack plan: rows r0… of A copied, then those rows of D computed
		if chunks > 1 {
			r0 := i * pl.pack.rows
			kp.M = int64(min(pl.pack.rows, p.M-r0))
			kp.PackA = srcA + uintptr(r0*p.LDA*p.Types.In.Size())
			kp.D = d + uintptr(r0*p.LDC*p.Types.Out.Size())
			if c != 0 {
				kp.C = c + uintptr(r0*p.LDC*p.Types.Out.Size())
			}
			if i > 0 { // B's copy, made by the first chunk's repack, stays
				kp.PackB = 0
			}
		}
		for _, l := range pl.plannedLaunches() {
			var err error
			if tm, ok := launchMaps(k); l.fn == fnMain && ok { // maps of A and B, and of D for a TMA-store kernel
				err = e.ctx.LaunchTMA(f[l.fn], l.grid, l.block, l.smemBytes, cs, &kp,
					cuda.TMA{DType: tm.in, BoxA: tm.boxA, BoxB: tm.boxB, Out: tm.out, BoxD: tm.boxD})
			} else {
				err = e.ctx.Launch(f[l.fn], l.grid, l.block, l.smemBytes, cs, &kp)
			}
			if err != nil {
				return cudaErr(err)
			}
		}
	}
	return nil
}

// workspaceFor returns stream s's workspace, reserving the engine's default
// (Options.WorkspaceBytes) the first time s needs one. A stream being
// captured cannot allocate: then it returns nil and the caller plans without
// split-K.
func (e *Engine) workspaceFor(s Stream) (*workspace, error) {
	e.mu.RLock()
	ws := e.ws[s]
	e.mu.RUnlock()
	if ws != nil {
		return ws, nil
	}
	capturing, err := e.ctx.Capturing(cuda.Stream(s))
	if err != nil || capturing {
		return nil, cudaErr(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if ws := e.ws[s]; ws != nil { // another goroutine reserved it meanwhile
		return ws, nil
	}
	return e.reserveLocked(s, e.planner.lim.WorkspaceBytes)
}

// Reserve sets aside bytes of split-K workspace for stream s, replacing the
// engine's own reservation (GEMM reserves Options.WorkspaceBytes on a
// stream's first split-K plan, so most programs never call Reserve). Do it
// outside any capture. A plan on s that needs more than bytes then fails
// with ErrWorkspace; bytes = 0 releases s's workspace. The memory a
// replaced reservation held is freed once no Graph uses it. It may be
// called on any thread and leaves the thread's current context as it was.
func (e *Engine) Reserve(s Stream, bytes int64) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if bytes < 0 {
		return &ArgError{Field: "bytes", Value: bytes, Rule: "must not be negative"}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if bytes == 0 {
		err := e.releaseLocked(e.ws[s])
		delete(e.ws, s)
		return err
	}
	_, err := e.reserveLocked(s, bytes)
	return err
}

// reserveLocked allocates bytes for s and drops s's reference to its old
// workspace. e.mu is held.
func (e *Engine) reserveLocked(s Stream, bytes int64) (*workspace, error) {
	flags, err := e.ctx.Alloc(flagBytes + bytes)
	if err != nil {
		return nil, cudaErr(err)
	}
	if err := e.zeroFlags(flags); err != nil {
		return nil, errors.Join(cudaErr(err), cudaErr(e.ctx.Free(flags)))
	}
	ws := &workspace{flags: flags, ptr: flags + flagBytes, bytes: bytes, refs: 1}
	old := e.ws[s]
	e.ws[s] = ws
	return ws, e.releaseLocked(old)
}

// releaseLocked drops one reference to ws and frees it at zero (cuMemFree
// waits for the work still using it). e.mu is held.
func (e *Engine) releaseLocked(ws *workspace) error {
	if ws == nil {
		return nil
	}
	if ws.refs--; ws.refs > 0 {
		return nil
	}
	return cudaErr(e.ctx.Free(ws.flags))
}

// zeroFlags zeroes the stream-K flags at flags before any launch can use
// them: on the legacy default stream, waited for (outside any capture:
// workspaces are never allocated during one).
func (e *Engine) zeroFlags(flags uintptr) error {
	if err := e.ctx.Fill(flags, 0, kernels.StreamKFlags, 0); err != nil {
		return err
	}
	return e.ctx.Sync(0)
}

// Close waits for the device, frees every workspace, unloads the kernels and
// releases the context. It is idempotent: later calls return the first
// call's result. Other methods return ErrClosed after it. It may be called
// on any thread and leaves the thread's current context as it was.
func (e *Engine) Close() error {
	e.once.Do(func() {
		e.closed.Store(true)
		var errs []error
		errs = append(errs, e.ctx.Synchronize())
		e.mu.Lock()
		for g := range e.graphs {
			errs = append(errs, g.closeLocked())
		}
		for _, w := range e.ws {
			errs = append(errs, e.releaseLocked(w))
		}
		e.mu.Unlock()
		for _, m := range e.modules {
			errs = append(errs, e.ctx.Unload(m))
		}
		if e.vendor != nil {
			errs = append(errs, e.vendor.close())
		}
		errs = append(errs, e.ctx.Close())
		e.cerr = cudaErr(errors.Join(errs...))
	})
	return e.cerr
}
