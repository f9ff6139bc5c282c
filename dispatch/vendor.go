package dispatch

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Vendor routes a bucket to cuBLASLt instead of a kernel of ours: the
// algorithm the tuner chose, as the library identifies it, and the version
// of the library that chose it. A planner routes such a bucket only when
// the loaded library is that very version and an Engine launches it
// (VendorLibrary), for the problems the engine hands cuBLASLt (VendorTypes:
// bf16, f16, e4m3 with per-tensor scales; no bias, K ≥ 1) whose shape and
// alignment the algorithm takes; else it passes over it, saying why.
type Vendor struct {
	// Algo is the opaque cublasLtMatmulAlgo_t (VendorAlgoBytes bytes), in
	// standard base64 with padding.
	Algo string `yaml:"algo"`
	// Version is cublasLtGetVersion of the library that chose the
	// algorithm: major·10000 + minor·100 + patch (120804 for 12.8.4), at
	// least MinVendorVersion. Another version may read the bytes
	// differently, so the algorithm is used with that version only.
	Version int `yaml:"version"`
}

// VendorAlgoBytes is the size of cuBLASLt's cublasLtMatmulAlgo_t (uint64_t
// data[8]) in CUDA 12 and 13.
const VendorAlgoBytes = 64

// MinVendorVersion is the oldest cuBLASLt a vendor bucket may record: 12.0
// (the engine loads libcublasLt.so.13 or .so.12).
const MinVendorVersion = 120000

// VendorLibrary is what a planner knows of cuBLASLt on the machine it plans
// for (Planner.WithVendor): the loaded library's version, or why none is
// loaded. The zero value is an absent library. An Engine's planner's also
// carries the engine's launcher (unexported), without which a planner plans
// around every bucket routed to cuBLASLt.
type VendorLibrary struct {
	Version int // cublasLtGetVersion of the loaded library; 0: none loaded
	// Absent says why none is loaded, when Version is 0: the loader's
	// error ("cuBLASLt absent: libcublasLt.so.13: …; …"), or that
	// Options.NoVendor turned it off; Explain quotes it.
	Absent string

	launcher vendorLauncher // the engine's cuBLASLt; nil: nothing launches it
}

// vendorLauncher is an engine's cuBLASLt as its planner sees it.
type vendorLauncher interface {
	// vendorFit checks algo against p's shape — its M, N, K, types and
	// leading dimensions; not its pointers — on the engine's device
	// (cublasLtMatmulAlgoCheck) and reads what the algorithm needs.
	vendorFit(p *Problem, algo *[VendorAlgoBytes]byte) (vendorFit, error)
	// vendorHeuristic returns up to n algorithms cuBLASLt's heuristic
	// proposes for p's shape (cublasLtMatmulAlgoGetHeuristic), best first,
	// each needing at most maxWorkspace bytes of workspace.
	vendorHeuristic(p *Problem, maxWorkspace int64, n int) ([][VendorAlgoBytes]byte, error)
}

// vendorFit is what a cuBLASLt algorithm needs of a problem, in our
// operands' names (the engine maps cuBLASLt's A onto our B and its B onto
// our A: see the engine's ltMatrices).
type vendorFit struct {
	workspace int64 // bytes (cublasLtMatmulAlgoCheck's workspaceSize)
	// alignment, in bytes, of the pointer and the row pitch (leading
	// dimension × element size) of A, B, C and D (0: none).
	alignA, alignB, alignC, alignD int
	outOfPlace                     bool // D may be another buffer than C
}

// String names the algorithm as Explain does: "cuBLASLt 12.8.4 algorithm
// 1a2b3c4d", the library's version and the first four bytes of the
// SHA-256 of the algorithm's bytes, in hex (an algorithm has no name of
// its own: the digest tells algorithms apart in plans and reports).
func (v Vendor) String() string {
	return fmt.Sprintf("cuBLASLt %s algorithm %s", VendorVersion(v.Version), v.id())
}

// Tag names the algorithm in one word, for a CSV's kernel column and a
// log's fields: "cublaslt:12.8.4:1a2b3c4d" (see String).
func (v Vendor) Tag() string { return fmt.Sprintf("cublaslt:%s:%s", VendorVersion(v.Version), v.id()) }

// id is the hex of the first four bytes of the SHA-256 of v's algorithm.
func (v Vendor) id() string {
	a := v.bytes()
	sum := sha256.Sum256(a[:])
	return hex.EncodeToString(sum[:4])
}

// VendorVersion writes a cublasLtGetVersion value (Vendor.Version) as
// "12.8.4".
func VendorVersion(v int) string { return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100) }

// verdict is a planner's judgement of a bucket routed to cuBLASLt: why it
// is passed over for every problem ("" when it may route some), and how
// KernelMatch counts it.
type verdict struct {
	why string
	st  kernelState
}

// verdicts judges every bucket of t routed to cuBLASLt (keyed by its
// address in t) against lib.
func (lib VendorLibrary) verdicts(t *Table) map[*Bucket]verdict {
	v := map[*Bucket]verdict{}
	if t == nil {
		return v
	}
	for i := range t.Entries {
		for j := range t.Entries[i].Buckets {
			if b := &t.Entries[i].Buckets[j]; b.Vendor != nil {
				why, st := lib.judge(&t.Entries[i], b)
				v[b] = verdict{why, st}
			}
		}
	}
	return v
}

// judge says why a planner with lib passes over b, a bucket of e routed to
// cuBLASLt, whatever the problem ("" when it may route some), and how
// KernelMatch counts it: changed when the library is absent, of another
// version than b's, or (for an exact entry, checked at the entry's shape
// with packed operands at both ends of the bucket) rejects the algorithm;
// vendor otherwise.
func (lib VendorLibrary) judge(e *Entry, b *Bucket) (string, kernelState) {
	rec := b.Vendor.Version
	switch why := lib.usable(rec); {
	case why != "" && lib.Version == rec: // no launcher
		return why, kernelVendor
	case why != "":
		return why, kernelChanged
	case e.N == 0 || e.K == 0 || vendorTakes(&Problem{M: 1, N: e.N, K: e.K, Types: e.Types}) != "":
		return "", kernelVendor // judged per problem
	}
	algo := b.Vendor.bytes()
	for _, m := range []int{b.MinM, cmp.Or(b.MaxM, b.MinM)} {
		p := Problem{M: m, N: e.N, K: e.K, Types: e.Types, LDA: e.K, LDB: e.K, LDC: e.N, Alpha: 1}
		if _, err := lib.launcher.vendorFit(&p, &algo); err != nil {
			return fmt.Sprintf("cuBLASLt %s rejects the recorded algorithm at M=%d N=%d K=%d: %v", VendorVersion(rec), m, e.N, e.K, err), kernelChanged
		}
	}
	return "", kernelVendor
}

// usable says why lib cannot launch an algorithm that cuBLASLt of version
// rec chose — none loaded, another version loaded, or no engine's launcher
// — or "".
func (lib VendorLibrary) usable(rec int) string {
	switch {
	case lib.Version == 0:
		return cmp.Or(lib.Absent, "cuBLASLt absent: the planner was given no loaded library (Planner.WithVendor)")
	case lib.Version != rec:
		return fmt.Sprintf("recorded for cuBLASLt %s, loaded %s: retune the table with the loaded library", VendorVersion(rec), VendorVersion(lib.Version))
	case lib.launcher == nil:
		return fmt.Sprintf("cuBLASLt %s's algorithm, which only an Engine's planner routes (a Planner of its own launches nothing)", VendorVersion(rec))
	}
	return ""
}

// VendorLibrary is what pl knows of cuBLASLt (Planner.WithVendor): an
// Engine's planner's is the library the engine loaded, or why none is.
// A nil planner's is the zero value.
func (pl *Planner) VendorLibrary() VendorLibrary {
	if pl == nil {
		return VendorLibrary{}
	}
	return pl.lib
}

// VendorAlgorithms returns up to n (1 to MaxVendorAlgorithms) of the
// algorithms cuBLASLt's heuristic proposes for p
// (cublasLtMatmulAlgoGetHeuristic), best first, in the engine's layouts
// and within the planner's workspace limit, as Vendors of the loaded
// version: the tuner's vendor candidates. It fails, wrapping ErrNoKernel
// and saying why, where the planner cannot launch cuBLASLt (only an
// Engine's planner with the library loaded can) or the engine does not
// hand p to cuBLASLt (VendorTypes, without a bias); a failed cuBLASLt call
// wraps ErrVendor.
func (pl *Planner) VendorAlgorithms(p *Problem, n int) ([]Vendor, error) {
	if err := pl.check(p); err != nil {
		return nil, err
	}
	if n < 1 || n > MaxVendorAlgorithms {
		return nil, &ArgError{Field: "n", Value: n, Rule: fmt.Sprintf("must be 1 to %d algorithms", MaxVendorAlgorithms)}
	}
	if why := cmp.Or(pl.lib.usable(pl.lib.Version), vendorTakes(p)); why != "" {
		return nil, fmt.Errorf("%w: cuBLASLt's algorithms for M=%d N=%d K=%d: %s", ErrNoKernel, p.M, p.N, p.K, why)
	}
	ws := pl.lim.WorkspaceBytes
	if pl.lim.NoSplitK {
		ws = 0
	}
	algos, err := pl.lib.launcher.vendorHeuristic(p, ws, n)
	if err != nil {
		return nil, fmt.Errorf("%w: cuBLASLt %s's heuristic for M=%d N=%d K=%d: %w", ErrVendor, VendorVersion(pl.lib.Version), p.M, p.N, p.K, err)
	}
	out := make([]Vendor, len(algos))
	for i, a := range algos {
		out[i] = Vendor{Algo: base64.StdEncoding.EncodeToString(a[:]), Version: pl.lib.Version}
	}
	return out, nil
}

// MaxVendorAlgorithms is the most algorithms VendorAlgorithms asks
// cuBLASLt's heuristic for at once.
const MaxVendorAlgorithms = 64

// PlanVendor plans p on cuBLASLt's algorithm v, bypassing the table (level
// forced, as PlanKernel does for a kernel): how the tuner checks and times
// a vendor candidate. It fails, wrapping ErrNoKernel and saying why,
// unless the planner can launch v (an Engine's, with cuBLASLt of v's
// version loaded), the engine hands p to cuBLASLt, the library accepts the
// algorithm for p's shape (cublasLtMatmulAlgoCheck) and p's operands and
// the planner's Limits meet its alignment and workspace needs. A v that is
// not a recorded algorithm (see Vendor) is an *ArgError.
func (pl *Planner) PlanVendor(p *Problem, v Vendor) (Plan, error) {
	if err := pl.check(p); err != nil {
		return Plan{}, err
	}
	if field, why := v.check(); why != "" {
		return Plan{}, &ArgError{Field: "Vendor." + field, Value: v, Rule: why}
	}
	if p.empty() {
		return noop(p), nil
	}
	fail := func(why string) (Plan, error) {
		return Plan{}, fmt.Errorf("%w: %s for M=%d N=%d K=%d: %s", ErrNoKernel, v, p.M, p.N, p.K, why)
	}
	if why := cmp.Or(pl.lib.usable(v.Version), vendorTakes(p)); why != "" {
		return fail(why)
	}
	r := &route{vendor: &v, algo: v.bytes(), splitK: 1, level: LevelForced, bucket: "forced"}
	fit, err := pl.lib.launcher.vendorFit(p, &r.algo)
	if err != nil {
		return fail(fmt.Sprintf("cuBLASLt rejects the algorithm: %v", err))
	}
	r.fit = fit
	if why := fit.reject(p, pl.lim); why != "" {
		return fail(why)
	}
	return vendorGeometry(p, r, nil, pl.lim), nil
}

// bytes is v's algorithm, decoded (the loader checked it: VendorAlgoBytes
// of standard base64).
func (v *Vendor) bytes() [VendorAlgoBytes]byte {
	var a [VendorAlgoBytes]byte
	raw, _ := base64.StdEncoding.DecodeString(v.Algo)
	copy(a[:], raw)
	return a
}

// VendorTypes reports whether the engine hands cuBLASLt problems of types
// t — which the planner routes to a bucket's cuBLASLt algorithm and the
// tuner takes cuBLASLt's algorithms as candidates for: bf16 or f16 in and
// out; or e4m3 in with per-tensor scaling and bf16 or f16 out, cuBLASLt's
// FP8 matmul (A and B CUDA_R_8F_E4M3, C and D the output type, compute and
// scale 32F, fast accumulation off; scalar scales folded into alpha,
// scale pointers set as its A and B scale pointers). Row and 128-block
// scaling stay on our kernels (vendorTakes says why).
func VendorTypes(t Types) bool {
	if t.In == E4M3 {
		return t.Scaling == ScalingTensor && (t.Out == BF16 || t.Out == F16)
	}
	return t.In == t.Out && (t.In == BF16 || t.In == F16)
}

// vendorFP8Align is the alignment, in bytes, that cuBLASLt's FP8 matmul
// needs of every matrix's pointer and leading dimension (its documented
// FP8 requirements: 16-byte alignment), whatever an algorithm's
// capabilities say.
const vendorFP8Align = 16

// vendorTakes says why the engine does not hand p to cuBLASLt, or "".
func vendorTakes(p *Problem) string {
	switch t := p.Types; {
	case t.In == E4M3 && t.Scaling != ScalingTensor:
		return fmt.Sprintf("%s scaling stays on our kernels: the engine hands cuBLASLt e4m3 with per-tensor scales only (it sets cuBLASLt's A and B scale pointers, not its per-row or block scale modes)", t.Scaling)
	case !VendorTypes(t):
		return fmt.Sprintf("the engine launches cuBLASLt for bf16, f16 and e4m3 with per-tensor scales only, the problem is %s", t)
	case p.Bias != 0:
		return "the engine launches cuBLASLt without a bias, and the problem has one"
	case p.K == 0:
		return "K = 0: cuBLASLt's layouts need K ≥ 1"
	}
	return ""
}

// vendorRoute is p's route through b, a bucket routed to cuBLASLt, within
// key's limits, or why b cannot run p. The algorithm is checked at both
// ends of p's M class within b (the route holds for the class) and the
// larger workspace kept.
func (pl *Planner) vendorRoute(p *Problem, key routeKey, b *Bucket) (*route, string) {
	if v := pl.verdicts[b]; v.why != "" {
		return nil, v.why
	}
	if why := vendorTakes(p); why != "" {
		return nil, why
	}
	r := &route{vendor: b.Vendor, algo: b.Vendor.bytes(), splitK: 1}
	lo, hi := mClassRange(key.mClass)
	lo = max(lo, b.MinM)
	if b.MaxM != 0 {
		hi = min(hi, b.MaxM)
	}
	for i, m := range []int{lo, hi} {
		q := *p
		q.M = m
		fit, err := pl.lib.launcher.vendorFit(&q, &r.algo)
		if err != nil {
			return nil, fmt.Sprintf("cuBLASLt %s rejects the algorithm at M=%d: %v", VendorVersion(b.Vendor.Version), m, err)
		}
		if i > 0 {
			fit.workspace = max(fit.workspace, r.fit.workspace)
		}
		r.fit = fit
	}
	if why := r.fit.reject(p, key.lim); why != "" {
		return nil, why
	}
	return r, ""
}

// reject says why an algorithm that needs f cannot run p within lim
// (defaults filled in), or "". An e4m3 problem's operands need at least
// vendorFP8Align.
func (f vendorFit) reject(p *Problem, lim Limits) string {
	in, out := p.Types.In.Size(), p.Types.Out.Size()
	type operand struct {
		name        string
		ptr         DevicePtr
		pitch, need int // row pitch in bytes; alignment the algorithm needs
	}
	ops := []operand{{"A", p.A, p.LDA * in, f.alignA}, {"B", p.B, p.LDB * in, f.alignB}, {"D", p.D, p.LDC * out, f.alignD}}
	if p.Beta != 0 { // C is read
		ops = append(ops, operand{"C", p.C, p.LDC * out, f.alignC})
	}
	for _, o := range ops {
		if p.Types.In == E4M3 {
			o.need = max(o.need, vendorFP8Align)
		}
		if o.need > 0 && (uintptr(o.ptr)%uintptr(o.need) != 0 || o.pitch%o.need != 0) {
			return fmt.Sprintf("the algorithm needs %s's pointer and row pitch %d-byte aligned, they are %#x and %d B", o.name, o.need, uintptr(o.ptr), o.pitch)
		}
	}
	switch {
	case p.Beta != 0 && p.C != p.D && !f.outOfPlace:
		return "the algorithm writes D over C only (in place), and C is another buffer"
	case f.workspace > 0 && lim.NoSplitK:
		return fmt.Sprintf("the algorithm needs %d B of workspace, and this plan may have none (Limits.NoSplitK: a stream being captured without a workspace)", f.workspace)
	case f.workspace > lim.WorkspaceBytes:
		return fmt.Sprintf("the algorithm needs %d B of workspace, %d B reserved per stream (Limits.WorkspaceBytes, an engine's Options.WorkspaceBytes)", f.workspace, lim.WorkspaceBytes)
	}
	return ""
}

// vendorGeometry is the plan of a route to cuBLASLt for p: one
// cublasLtMatmul (no kernel of ours), with the workspace the algorithm
// needs.
func vendorGeometry(p *Problem, r *route, planner *Planner, lim Limits) Plan {
	return Plan{Vendor: r.vendor, SplitK: 1, WorkspaceBytes: r.fit.workspace, Level: r.level,
		problem: *p, kPerSplit: p.K, route: r, planner: planner, lim: lim}
}

// explainVendor writes Explain's lines of a plan routed to cuBLASLt.
func (pl *Plan) explainVendor(b *strings.Builder) {
	f := pl.route.fit
	fmt.Fprintf(b, "kernel: %s (the table's cublasLtMatmulAlgo_t)\n", pl.KernelName())
	fmt.Fprintf(b, "split-K: the algorithm's own, workspace %d B (cublasLtMatmulAlgoCheck)\n", pl.WorkspaceBytes)
	if pl.route.ours != "" {
		fmt.Fprintf(b, "without cuBLASLt (Options.NoVendor, no library): the bucket's kernel of ours, %s\n", pl.route.ours)
	}
	fmt.Fprintf(b, "launch 1 of 1: cublasLtMatmul, TN: D = Aᵀ·B in cuBLASLt's column-major terms (its A our B, its B our A, D our Dᵀ); alignment A %d, B %d, C %d, D %d B\n",
		f.alignA, f.alignB, f.alignC, f.alignD)
	switch p := &pl.problem; {
	case !p.Types.Scaled():
	case p.scalarScales():
		b.WriteString("e4m3: cuBLASLt's FP8 matmul, fast accumulation off; ScaleA·ScaleB folded into alpha, no scale pointers\n")
	default:
		b.WriteString("e4m3: cuBLASLt's FP8 matmul, fast accumulation off; ScaleBPtr and ScaleAPtr as its A and B scale pointers, set at each call (a captured graph reads the values then in them)\n")
	}
}

// vendorRecheck says why a plan routed to cuBLASLt cannot run p (made for
// another problem of the same shape, its pointers or strides may differ),
// or "".
func (pl *Plan) vendorRecheck(p *Problem, lim Limits) string {
	if why := vendorTakes(p); why != "" {
		return why
	}
	return pl.route.fit.reject(p, lim)
}

// check returns what is wrong with v as a table records it, or "".
func (v *Vendor) check() (field, problem string) {
	switch raw, err := base64.StdEncoding.DecodeString(v.Algo); {
	case v.Algo == "":
		return "algo", "algo is missing: record the cublasLtMatmulAlgo_t the tuner chose, in base64"
	case err != nil:
		return "algo", fmt.Sprintf("algo is not standard base64 (%v): write the bytes autotune recorded", err)
	case len(raw) != VendorAlgoBytes:
		return "algo", fmt.Sprintf("algo decodes to %d bytes; a cublasLtMatmulAlgo_t is %d: write the bytes autotune recorded", len(raw), VendorAlgoBytes)
	case v.Version < MinVendorVersion:
		return "version", fmt.Sprintf("version %d: record cublasLtGetVersion of the library that chose the algorithm (major·10000 + minor·100 + patch; cuBLASLt 12.0 or newer, %d and up)", v.Version, MinVendorVersion)
	}
	return "", ""
}
