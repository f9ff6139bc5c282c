package dispatch

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync"

	"github.com/gemmroute/gemmroute/kernels"
)

// route is the decision of planning one problem, the same for every M of
// its route key when the planner caches it (see Planner.Plan); immutable.
// What depends on the exact problem (the levels passed over, the
// rejections) is an explanation, made again for Explain and ErrNoKernel.
type route struct {
	kernel     *kernels.KernelSpec // nil: no kernel fits
	splitK     int
	level      Level
	bucket     string // e.g. "[17, 64]" or "M class (16, 32]"
	source     string // where the choice came from, e.g. "measured on NVIDIA H200 (2026-12-01)"
	runnerUp   string
	estimateUS float64
	runnerUS   float64
	// class is, in the batch-invariant mode, the reduction class every M
	// of the weight runs in, and classSource where the choice came from;
	// "" in the normal mode.
	class, classSource string
	// vendor is, for a route to cuBLASLt, the bucket's algorithm (kernel
	// is nil then), algo its bytes and fit what it needs of the problem.
	vendor *Vendor
	algo   [VendorAlgoBytes]byte
	fit    vendorFit
	// ours is, for a route to cuBLASLt from a bucket that also names a
	// kernel of ours, that kernel and split-K ("name split-K n"): what runs
	// without cuBLASLt.
	ours string
}

// explanation is what planning one exact problem passed over: the table
// levels that did not answer and the kernels the constraints rejected.
type explanation struct {
	notes    []string
	rejected []rejection
	kernels  int // in the catalog, of which rejected were left out
}

// maxRoutes bounds the route cache: once it holds that many keys, a new key
// is planned without being cached (the plans are the same, only slower and
// allocating), so that a stream of distinct shapes cannot grow it without
// bound.
const maxRoutes = 4096

// routeKey holds everything planning depends on besides the catalog, table
// and device: equal keys get equal routes.
type routeKey struct {
	types          Types // kernelTypes
	n, k           int
	mClass         uint8 // bits.Len(M-1): M in (2^(c-1), 2^c]
	alignA, alignB uint16
	ldA, ldB       uint16
	kAlign         uint16
	big            bool   // ≥ 2^31 elements
	lim            Limits // the planning limits, defaults filled in
	// What a route to cuBLASLt depends on besides: the alignment class of
	// D, its row pitch and (Beta ≠ 0) C; a bias; C read from another
	// buffer than D.
	alignCD      uint16
	bias, readsC bool
}

// Limits bound what a plan may ask of the engine that runs it. NewPlanner
// takes them; an Engine passes its own (its per-stream workspace) and, for
// a stream being captured that has no workspace, plans with NoSplitK set.
// The zero value is an engine's defaults: DefaultWorkspaceBytes of split-K
// workspace, split-K allowed.
type Limits struct {
	// WorkspaceBytes is the most split-K workspace a plan may need: the
	// per-stream reservation of the engine that runs it
	// (Options.WorkspaceBytes). 0 means DefaultWorkspaceBytes.
	WorkspaceBytes int64
	// NoSplitK plans every problem without split-K, so that no plan needs
	// a workspace.
	NoSplitK bool
	// BatchInvariant plans in the batch-invariant mode: for a given weight
	// (N, K), types, alignment and these Limits, row i of D depends bit for
	// bit on row i of A only, not on M or the other rows. Every M of a
	// weight runs a kernel of one reduction class (the table entry's
	// Invariant, else the default entry's, else the analytic model's
	// choice) at split-K 1; a class is never left for another, so a
	// problem no kernel of it fits fails with ErrNoKernel. Explain names
	// the mode and the class. Off, plans are the normal mode's.
	BatchInvariant bool
}

// workspaceLimit is the most workspace a plan within l may need: none
// with NoSplitK.
func (l Limits) workspaceLimit() int64 {
	if l.NoSplitK {
		return 0
	}
	return l.withDefaults().WorkspaceBytes
}

// withDefaults is l with its zero fields given their defaults.
func (l Limits) withDefaults() Limits {
	if l.WorkspaceBytes == 0 {
		l.WorkspaceBytes = DefaultWorkspaceBytes
	}
	return l
}

// Planner chooses kernels. It is safe for concurrent use. A plan depends
// only on the problem, the catalog, the table, the device and the Limits,
// never on the calls before it. Routes are cached per key (dtypes, N, K, M's
// power-of-two class, alignment classes, limits) so that a repeated shape plans without
// allocating; a key is cached only when its decision holds for every M of
// the class (some constraints depend on the exact M: the grid's M-tile
// limit, the split-K workspace cap), else each problem of it is planned
// afresh. The first call of a new key plans from scratch and grows the
// cache, up to maxRoutes (4096) keys: warm the shapes up before capturing.
type Planner struct {
	cat   *kernels.Catalog
	table *Table
	dev   DeviceInfo
	lim   Limits // defaults filled in
	match KernelMatch
	lib   VendorLibrary // the loaded cuBLASLt (Planner.WithVendor)
	// verdicts judges the table's buckets routed to cuBLASLt against lib
	// (keys: their addresses in table).
	verdicts map[*Bucket]verdict
	err      error // what is wrong with the arguments of NewPlanner; Plan returns it
	mu       sync.RWMutex
	cache    map[routeKey]*route
	// classes are the batch-invariant mode's choices by weight (weightKey),
	// up to maxRoutes of them.
	classes map[routeKey]*classChoice
}

// NewPlanner returns a planner over a catalog, a table (may be nil: heuristic
// only) and a device description, whose plans keep within lim (Limits{}:
// an engine opened with the default Options). A nil catalog, a device that
// describes no GPU (no arch, no SMs; see the presets) or a negative
// workspace limit makes every Plan fail with an *ArgError. The planner
// routes by its own copy of table: later edits of table do not change its
// plans.
func NewPlanner(cat *kernels.Catalog, table *Table, dev DeviceInfo, lim Limits) *Planner {
	pl := &Planner{cat: cat, table: table.Clone(), dev: dev, lim: lim.withDefaults(),
		err: checkPlanner(cat, dev, lim), cache: make(map[routeKey]*route), classes: make(map[routeKey]*classChoice)}
	pl.verdicts = pl.lib.verdicts(pl.table)
	pl.match = pl.table.matchKernels(cat, pl.verdicts)
	return pl
}

// WithVendor returns a planner like pl (its catalog, table, device and
// limits, a cache of its own) that knows lib as the machine's cuBLASLt: a
// bucket routed to cuBLASLt is counted (KernelMatch) and judged against
// lib's version, and routed when lib carries an engine's launcher (an
// Engine's planner's does; see Vendor); else it is passed over, Explain
// saying why. A planner from NewPlanner knows none (every such bucket:
// "cuBLASLt absent"). A nil pl gives nil.
func (pl *Planner) WithVendor(lib VendorLibrary) *Planner {
	if pl == nil {
		return nil
	}
	np := NewPlanner(pl.cat, pl.table, pl.dev, pl.lim)
	np.lib, np.verdicts = lib, lib.verdicts(np.table)
	np.match = np.table.matchKernels(np.cat, np.verdicts)
	return np
}

// KernelMatch says how many of the table's buckets the planner routes by:
// those whose kernel is in its catalog with the digest the bucket records
// (Table.MatchKernels, counted by NewPlanner; with WithVendor's cuBLASLt
// for buckets routed to it). An engine's is
// Engine.Planner().KernelMatch(). A nil planner's is zero.
func (pl *Planner) KernelMatch() KernelMatch {
	if pl == nil {
		return KernelMatch{}
	}
	return pl.match
}

// checkPlanner returns an *ArgError for the first argument of NewPlanner
// that cannot plan, or nil.
func checkPlanner(cat *kernels.Catalog, dev DeviceInfo, lim Limits) error {
	bad := func(field string, v any, rule string) error { return &ArgError{Field: field, Value: v, Rule: rule} }
	switch {
	case cat == nil:
		return bad("catalog", "nil", "NewPlanner needs a kernel catalog (DefaultCatalog, or kernels.ParseManifest)")
	case dev.Arch <= 0:
		return bad("DeviceInfo.Arch", dev.Arch, "must be a compute capability such as 90 (sm_90): describe the device as a preset (H200) or Engine.Device does")
	case dev.SMs <= 0:
		return bad("DeviceInfo.SMs", dev.SMs, "must be positive: describe the device as a preset (H200) or Engine.Device does")
	case dev.SmemOptIn < 0 || dev.L2Bytes < 0 || dev.MemBytes < 0:
		return bad("DeviceInfo", fmt.Sprintf("smem %d, L2 %d, memory %d", dev.SmemOptIn, dev.L2Bytes, dev.MemBytes), "sizes must not be negative")
	case !(dev.ReadBandwidth >= 0) || math.IsInf(dev.ReadBandwidth, 0) || !(dev.PeakFLOPS >= 0) || math.IsInf(dev.PeakFLOPS, 0):
		return bad("DeviceInfo", fmt.Sprintf("read %g B/s, peak %g FLOP/s", dev.ReadBandwidth, dev.PeakFLOPS), "rates must be finite and not negative (0: unknown)")
	case lim.WorkspaceBytes < 0:
		return bad("Limits.WorkspaceBytes", lim.WorkspaceBytes, "must not be negative (0: DefaultWorkspaceBytes)")
	}
	return nil
}

// check returns why pl cannot plan p: a nil planner, NewPlanner's
// arguments, or p itself.
func (pl *Planner) check(p *Problem) error {
	if pl == nil {
		return &ArgError{Field: "Planner", Value: "nil", Rule: "a nil *Planner: make one with NewPlanner (a nocuda Engine has none)"}
	}
	if pl.err != nil {
		return pl.err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if p.Types.In == E4M3 && !pl.dev.Arch.SupportsFP8() {
		return &ArgError{Field: "Types.In", Value: p.Types, Rule: fmt.Sprintf("e4m3 needs sm_89 or newer; device is %s", pl.dev.Arch)}
	}
	return nil
}

// Catalog returns the planner's kernel catalog.
func (pl *Planner) Catalog() *kernels.Catalog { return pl.cat }

// Plan validates p and chooses a kernel through the fallback order: exact
// (N, K) entry, default entry, heuristic, error. It never returns a kernel
// that fails p's constraints or the planner's Limits.
func (pl *Planner) Plan(p *Problem) (Plan, error) {
	var lim Limits
	if pl != nil { // a nil planner is refused by check
		lim = pl.lim
	}
	return pl.plan(p, lim)
}

// plan is Plan within lim (defaults filled in) instead of the planner's
// own limits: an engine's plan for a stream that cannot have a workspace.
func (pl *Planner) plan(p *Problem, lim Limits) (Plan, error) {
	if err := pl.check(p); err != nil {
		return Plan{}, err
	}
	if p.empty() {
		return noop(p), nil
	}
	key := pl.key(p, lim)
	pl.mu.RLock()
	r, cached := pl.cache[key]
	pl.mu.RUnlock()
	if !cached {
		r = pl.classRoute(p, key)
		if r == nil { // the decision changes within M's class: this M alone
			r, _ = pl.route(p, key)
		}
	}
	switch {
	case r.vendor != nil:
		return vendorGeometry(p, r, pl, lim), nil
	case r.kernel == nil:
		return Plan{}, pl.noKernelError(p, lim)
	}
	return geometry(p, r, pl, pl.dev.SMs, lim), nil
}

// classRoute plans p's key at the lowest and the highest M of its class and,
// when both get the same decision, caches and returns it (room permitting);
// else it returns nil. One decision at both ends is the decision for every M
// between them: table buckets are intervals of M, every constraint that
// depends on M (grid tiles, workspace, index width) holds for all M up to a
// limit, and the heuristic estimates every M of a class at the class's top.
// (A kernel that fits the top fits every M below it; the heuristic's best and
// runner-up over the larger set of the bottom stay best and runner-up over
// any set between.)
func (pl *Planner) classRoute(p *Problem, key routeKey) *route {
	lo, hi := *p, *p
	lo.M, hi.M = mClassRange(key.mClass)
	rlo, _ := pl.route(&lo, key)
	rhi, _ := pl.route(&hi, key)
	if *rlo != *rhi {
		return nil
	}
	return remember(&pl.mu, pl.cache, key, rlo)
}

// remember stores v under k in m, a cache that mu guards, unless another
// goroutine stored one first (remember returns that one) or m holds
// maxRoutes keys already (v is returned, not stored).
func remember[K comparable, V any](mu *sync.RWMutex, m map[K]V, k K, v V) V {
	mu.Lock()
	defer mu.Unlock()
	if prev, ok := m[k]; ok {
		return prev
	}
	if len(m) < maxRoutes {
		m[k] = v
	}
	return v
}

// mClassRange is the range of M of a route key's M class: [1, 1] for class
// 0, else (2^(c-1), 2^c].
func mClassRange(class uint8) (lo, hi int) {
	if class == 0 {
		return 1, 1
	}
	return 1<<class/2 + 1, 1 << class
}

// noop is the plan of an empty problem: nothing to launch.
func noop(p *Problem) Plan { return Plan{Level: LevelNoop, SplitK: 1, problem: *p} }

// PlanKernel plans p on the named kernel with the given split-K factor,
// bypassing the table; it fails when the kernel breaks a constraint.
func (pl *Planner) PlanKernel(p *Problem, name string, splitK int) (Plan, error) {
	if err := pl.check(p); err != nil {
		return Plan{}, err
	}
	k := pl.cat.Kernel(name)
	if k == nil {
		return Plan{}, fmt.Errorf("%w: kernel %q is not in the catalog", ErrNoKernel, name)
	}
	if p.empty() {
		return noop(p), nil
	}
	if rj := checkKernel(k, p, pl.dev, pl.lim, splitK); !rj.ok() {
		return Plan{}, fmt.Errorf("%w: kernel %s: %s", ErrNoKernel, name, rj.detail)
	}
	return geometry(p, &route{kernel: k, splitK: splitK, level: LevelForced, bucket: "forced"}, nil, pl.dev.SMs, pl.lim), nil
}

// noKernelError says why no kernel fits p within lim: the rejections
// grouped by rule.
func (pl *Planner) noKernelError(p *Problem, lim Limits) error {
	_, ex := pl.route(p, pl.key(p, lim))
	var b strings.Builder
	fmt.Fprintf(&b, "%s→%s M=%d N=%d K=%d%s on %s\n", p.Types.In, p.Types.Out, p.M, p.N, p.K, p.scalingText(), pl.dev.Arch)
	writeRejections(&b, ex.rejected, ex.kernels)
	return fmt.Errorf("%w: %s", ErrNoKernel, strings.TrimSuffix(b.String(), "\n"))
}

// key is p's route key within lim.
func (pl *Planner) key(p *Problem, lim Limits) routeKey {
	sz, out := uint64(p.Types.In.Size()), uint64(p.Types.Out.Size())
	alignCD := min(alignClass(uint64(p.D)), alignClass(uint64(p.LDC)*out))
	if p.Beta != 0 {
		alignCD = min(alignCD, alignClass(uint64(p.C)))
	}
	return routeKey{
		types: p.kernelTypes(), n: p.N, k: p.K,
		mClass: uint8(bits.Len(uint(p.M - 1))),
		alignA: alignClass(uint64(p.A)), alignB: alignClass(uint64(p.B)),
		ldA: alignClass(uint64(p.LDA) * sz), ldB: alignClass(uint64(p.LDB) * sz),
		kAlign:  alignClass(uint64(p.K)),
		big:     p.elements() >= 1<<31,
		lim:     lim,
		alignCD: alignCD, bias: p.Bias != 0, readsC: p.Beta != 0 && p.C != p.D,
	}
}

// bucketSource says where bucket b of table entry e came from: measured on
// which device, or the model's for which (Bucket.From: the bucket's own, else
// the entry's). The device is the bucket's or entry's own; else the
// table's, but only when the entry's arch is the table's (an older table's
// sm_80 entries name no device, and the table's H200 is not theirs: such an
// entry is described by its arch).
func bucketSource(e *Entry, b *Bucket, prov Provenance) string {
	src, dev, date := b.From(e)
	if dev == "" && prov.Arch != "" && prov.Arch != e.Arch.String() {
		dev = "an " + e.Arch.String() + " device (the entry names none)"
	} else {
		dev, date = cmp.Or(dev, prov.Device, "a device the table does not name"), cmp.Or(date, prov.Date)
	}
	if date != "" {
		date = " (" + date + ")"
	}
	if src == SourceMeasured {
		return "measured on " + dev + date
	}
	return "the analytic model's choice for " + dev + date + ", not measured"
}

// route plans p from scratch, uncached, within key's limits: table levels,
// then heuristic; the explanation says what it passed over.
func (pl *Planner) route(p *Problem, key routeKey) (*route, explanation) {
	if key.lim.BatchInvariant {
		return pl.invariantRoute(p, key)
	}
	r, ex := &route{}, explanation{}
	exact, def := pl.table.Find(pl.dev.Arch, key.types, p.N, p.K)
	for _, lv := range []struct {
		e     *Entry
		level Level
	}{{exact, LevelExact}, {def, LevelDefault}} {
		if lv.e == nil {
			ex.notes = append(ex.notes, fmt.Sprintf("%s: none in the table for %s %s N=%d K=%d", lv.level, pl.dev.Arch, key.types, p.N, p.K))
			continue
		}
		b := lv.e.Bucket(p.M)
		if b == nil {
			ex.notes = append(ex.notes, fmt.Sprintf("%s: no bucket holds M=%d", lv.level, p.M))
			continue
		}
		if b.Vendor != nil {
			vr, why := pl.vendorRoute(p, key, b)
			if why == "" {
				vr.level, vr.bucket, vr.runnerUp, vr.source = lv.level, b.String(), b.RunnerUp, bucketSource(lv.e, b, pl.table.Provenance)
				if b.Kernel != "" {
					vr.ours = fmt.Sprintf("%s split-K %d", b.Kernel, max(b.SplitK, 1))
				}
				return vr, ex
			}
			note := fmt.Sprintf("%s: bucket %s routes to cuBLASLt: %s", lv.level, b.String(), why)
			if b.Kernel == "" {
				ex.notes = append(ex.notes, note)
				continue
			}
			ex.notes = append(ex.notes, note+"; the bucket's kernel of ours instead")
		}
		k, st := bucketKernel(pl.cat, b)
		switch st {
		case kernelMissing:
			ex.notes = append(ex.notes, fmt.Sprintf("%s: bucket %s names %s, not in the catalog", lv.level, b.String(), b.Kernel))
			continue
		case kernelChanged:
			ex.notes = append(ex.notes, fmt.Sprintf("%s: bucket %s names %s, whose code changed since the table was measured (digest %s there, %s now): retune the table", lv.level, b.String(), b.Kernel, b.Digest, k.Digest))
			continue
		}
		if rj := checkKernel(k, p, pl.dev, key.lim, max(b.SplitK, 1)); !rj.ok() {
			ex.notes = append(ex.notes, fmt.Sprintf("%s: bucket %s names %s, which fails here: %s", lv.level, b.String(), b.Kernel, rj.detail))
			continue
		}
		r.kernel, r.splitK, r.level, r.bucket, r.runnerUp = k, max(b.SplitK, 1), lv.level, b.String(), b.RunnerUp
		r.source = bucketSource(lv.e, b, pl.table.Provenance)
		survivors, rejected := filter(pl.cat, p, pl.dev, key.lim, nil)
		ex.rejected, ex.kernels = rejected, len(survivors)+len(rejected)
		return r, ex
	}
	pl.heuristic(p, key, nil, r, &ex)
	return r, ex
}

// splitChoices are the split-K factors the heuristic considers.
var splitChoices = [...]int{1, 2, 3, 4, 6, 8, 12, 16}

// heuristic picks, over the constraint survivors and their split-K factors,
// the least estimated time at the top of p's power-of-two M class; with a
// class split (batch-invariant), over the survivors it admits at its split only.
func (pl *Planner) heuristic(p *Problem, key routeKey, cs *classSplit, r *route, ex *explanation) {
	var experimental func(*kernels.KernelSpec) bool
	if cs != nil {
		experimental = cs.experimental // a measured class at its split: the experimental kernels its tune gated
	}
	survivors, rejected := filter(pl.cat, p, pl.dev, key.lim, experimental)
	ex.rejected, ex.kernels = rejected, len(survivors)+len(rejected)
	rep := *p
	var lo int
	lo, rep.M = mClassRange(key.mClass)
	r.bucket = fmt.Sprintf("M class [%d, %d]", lo, rep.M)
	best, second := math.Inf(1), math.Inf(1)
	splits := splitChoices[:]
	var only [1]int
	if cs != nil { // the class's split alone
		only[0] = cs.split
		splits = only[:]
	}
	for _, k := range survivors {
		if cs != nil && !cs.admits(k, p.K) {
			continue
		}
		for _, s := range splits {
			if !fitsAt(k, p, pl.dev, key.lim, s) {
				continue
			}
			t := EstimateSeconds(k, &rep, s, pl.dev)
			name := k.Name
			if s > 1 {
				name = fmt.Sprintf("%s split-K %d", k.Name, s)
			}
			switch {
			case t < best:
				if r.kernel != nil {
					second, r.runnerUp = best, r.runnerUpName()
				}
				best, r.kernel, r.splitK = t, k, s
			case t < second:
				second, r.runnerUp = t, name
			}
		}
	}
	r.level = LevelHeuristic
	r.estimateUS, r.runnerUS = best*1e6, second*1e6
}

func (r *route) runnerUpName() string {
	if r.splitK > 1 {
		return fmt.Sprintf("%s split-K %d", r.kernel.Name, r.splitK)
	}
	return r.kernel.Name
}
