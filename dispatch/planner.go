package dispatch

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync"
)

// Level says which part of the fallback order answered a plan.
type Level uint8

// The fallback order, best first.
const (
	LevelNone      Level = iota // no plan
	LevelNoop                   // M = 0 or N = 0: nothing to launch
	LevelExact                  // the table's entry for this exact (N, K)
	LevelDefault                // the table's default entry for the arch and dtypes
	LevelHeuristic              // analytic model over the constraint survivors
	LevelForced                 // a kernel named by the caller
)

// String names the level as Explain does.
func (l Level) String() string {
	return [...]string{"none", "no-op", "exact (N,K) entry", "default entry", "heuristic", "forced"}[l]
}

// Plan is how one problem will run: the kernel, its launch geometry and its
// split-K workspace. Plans are values; Explain tells how it was chosen.
type Plan struct {
	Kernel         *KernelSpec // nil for a no-op
	SplitK         int         // blocks along K (1: no split)
	KPerSplit      int         // K elements per split
	Grid, Block    [3]uint32   // launch geometry of the main kernel
	SmemBytes      int         // dynamic shared memory of the main kernel
	WorkspaceBytes int64       // fp32 partials needed when SplitK > 1
	Level          Level       // which fallback level answered
	M, N, K        int
	route          *route
}

// route is the cached, immutable outcome of planning one route key.
type route struct {
	kernel     *KernelSpec
	splitK     int
	level      Level
	bucket     string // e.g. "[17, 64]" or "M class (16, 32]"
	runnerUp   string
	estimateUS float64
	runnerUS   float64
	notes      []string
	rejected   []Rejection
}

// routeKey holds everything planning depends on besides the catalog, table
// and device: equal keys get equal routes.
type routeKey struct {
	in, out        DType
	n, k           int
	mClass         uint8 // bits.Len(M-1): M in (2^(c-1), 2^c]
	alignA, alignB uint16
	ldA, ldB       uint16
	kAlign         uint16
	big            bool // ≥ 2^31 elements
}

// Planner chooses kernels. It is safe for concurrent use; routes are cached
// per key (dtypes, N, K, M's power-of-two class, alignment classes) so that a
// repeated shape plans without allocating. The first call of a new key plans
// from scratch and grows the cache: warm the shapes up before capturing.
type Planner struct {
	cat   *Catalog
	table *Table
	dev   DeviceInfo
	mu    sync.RWMutex
	cache map[routeKey]*route
}

// NewPlanner returns a planner over a catalog, a table (may be nil: heuristic
// only) and a device description.
func NewPlanner(cat *Catalog, table *Table, dev DeviceInfo) *Planner {
	return &Planner{cat: cat, table: table, dev: dev, cache: make(map[routeKey]*route)}
}

// Device returns the device the planner plans for.
func (pl *Planner) Device() DeviceInfo { return pl.dev }

// Catalog returns the planner's kernel catalog.
func (pl *Planner) Catalog() *Catalog { return pl.cat }

// Plan validates p and chooses a kernel through the fallback order: exact
// (N, K) entry, default entry, heuristic, error. It never returns a kernel
// that fails p's constraints.
func (pl *Planner) Plan(p *Problem) (Plan, error) {
	if err := p.Validate(); err != nil {
		return Plan{}, err
	}
	if p.Empty() {
		return Plan{Level: LevelNoop, M: p.M, N: p.N, K: p.K, SplitK: 1}, nil
	}
	key := pl.key(p)
	pl.mu.RLock()
	r := pl.cache[key]
	pl.mu.RUnlock()
	if r != nil && r.kernel != nil && CheckKernel(r.kernel, p, pl.dev, r.splitK) != "" {
		// A constraint that depends on the exact M (the grid limit): plan this one uncached.
		return pl.planUncached(p, key)
	}
	if r == nil {
		r = pl.route(p, key)
		pl.mu.Lock()
		pl.cache[key] = r
		pl.mu.Unlock()
	}
	if r.kernel == nil {
		return Plan{}, pl.noKernelError(p, r)
	}
	return geometry(p, r), nil
}

func (pl *Planner) planUncached(p *Problem, key routeKey) (Plan, error) {
	r := pl.route(p, key)
	if r.kernel == nil {
		return Plan{}, pl.noKernelError(p, r)
	}
	return geometry(p, r), nil
}

// PlanKernel plans p on the named kernel with the given split-K factor,
// bypassing the table; it fails when the kernel breaks a constraint.
func (pl *Planner) PlanKernel(p *Problem, name string, splitK int) (Plan, error) {
	if err := p.Validate(); err != nil {
		return Plan{}, err
	}
	k := pl.cat.Kernel(name)
	if k == nil {
		return Plan{}, fmt.Errorf("%w: kernel %q is not in the catalog", ErrNoKernel, name)
	}
	if p.Empty() {
		return Plan{Level: LevelNoop, M: p.M, N: p.N, K: p.K, SplitK: 1}, nil
	}
	if why := CheckKernel(k, p, pl.dev, splitK); why != "" {
		return Plan{}, fmt.Errorf("%w: kernel %s: %s", ErrNoKernel, name, why)
	}
	return geometry(p, &route{kernel: k, splitK: splitK, level: LevelForced, bucket: "forced"}), nil
}

// noKernelError lists every rejected kernel with its reason.
func (pl *Planner) noKernelError(p *Problem, r *route) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s→%s M=%d N=%d K=%d on %s", p.In, p.Out, p.M, p.N, p.K, pl.dev.Arch)
	if p.In == E4M3 && !pl.dev.Arch.SupportsFP8() {
		b.WriteString(": e4m3 needs sm_89 or newer")
	}
	for _, rj := range r.rejected {
		fmt.Fprintf(&b, "\n  %s: %s", rj.Kernel, rj.Reason)
	}
	return fmt.Errorf("%w: %s", ErrNoKernel, b.String())
}

func (pl *Planner) key(p *Problem) routeKey {
	sz := uint64(p.In.Size())
	return routeKey{
		in: p.In, out: p.Out, n: p.N, k: p.K,
		mClass: uint8(bits.Len(uint(p.M - 1))),
		alignA: alignClass(uint64(p.A)), alignB: alignClass(uint64(p.B)),
		ldA: alignClass(uint64(p.LDA) * sz), ldB: alignClass(uint64(p.LDB) * sz),
		kAlign: alignClass(uint64(p.K)),
		big:    p.Elements() >= 1<<31,
	}
}

// route plans a key from scratch (cache miss): table levels, then heuristic.
func (pl *Planner) route(p *Problem, key routeKey) *route {
	r := &route{}
	exact, def := pl.table.Find(pl.dev.Arch, p.In, p.Out, p.N, p.K)
	for _, lv := range []struct {
		e     *Entry
		level Level
	}{{exact, LevelExact}, {def, LevelDefault}} {
		if lv.e == nil {
			r.notes = append(r.notes, fmt.Sprintf("%s: none in the table for %s %s→%s N=%d K=%d", lv.level, pl.dev.Arch, p.In, p.Out, p.N, p.K))
			continue
		}
		b := lv.e.Bucket(p.M)
		if b == nil {
			r.notes = append(r.notes, fmt.Sprintf("%s: no bucket holds M=%d", lv.level, p.M))
			continue
		}
		k := pl.cat.Kernel(b.Kernel)
		if k == nil {
			r.notes = append(r.notes, fmt.Sprintf("%s: bucket %s names %s, not in the catalog", lv.level, bucketText(b), b.Kernel))
			continue
		}
		if why := CheckKernel(k, p, pl.dev, max(b.SplitK, 1)); why != "" {
			r.notes = append(r.notes, fmt.Sprintf("%s: bucket %s names %s, which fails here: %s", lv.level, bucketText(b), b.Kernel, why))
			continue
		}
		r.kernel, r.splitK, r.level, r.bucket, r.runnerUp = k, max(b.SplitK, 1), lv.level, bucketText(b), b.RunnerUp
		_, r.rejected = Filter(pl.cat, p, pl.dev)
		return r
	}
	pl.heuristic(p, key, r)
	return r
}

func bucketText(b *Bucket) string {
	if b.MaxM == 0 {
		return fmt.Sprintf("[%d, ∞)", b.MinM)
	}
	return fmt.Sprintf("[%d, %d]", b.MinM, b.MaxM)
}

// splitChoices are the split-K factors the heuristic considers.
var splitChoices = [...]int{1, 2, 3, 4, 6, 8, 12, 16}

// heuristic picks, over the constraint survivors and their split-K factors,
// the least estimated time at the top of p's power-of-two M class.
func (pl *Planner) heuristic(p *Problem, key routeKey, r *route) {
	survivors, rejected := Filter(pl.cat, p, pl.dev)
	r.rejected = rejected
	rep := *p
	rep.M = 1 << key.mClass
	lo := 1<<key.mClass/2 + 1
	if key.mClass == 0 {
		lo = 1
	}
	r.bucket = fmt.Sprintf("M class [%d, %d]", lo, rep.M)
	best, second := math.Inf(1), math.Inf(1)
	for _, k := range survivors {
		for _, s := range splitChoices {
			if s > k.MaxSplitK || s > max(1, ceilDiv(p.K, k.TileK)) {
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

// EstimateSeconds is the analytic model: bytes over read bandwidth or flops
// over the family's rate, whichever is larger, stretched by the idle share of
// a partial last wave, plus launch costs. It ranks kernels; it is no timing.
func EstimateSeconds(k *KernelSpec, p *Problem, splitK int, dev DeviceInfo) float64 {
	bw, peak := dev.ReadBandwidth, dev.PeakFLOPS
	if bw == 0 {
		bw = 1e12
	}
	if peak == 0 {
		peak = 1e14
	}
	mTiles, nTiles := ceilDiv(p.M, k.TileM), ceilDiv(p.N, k.TileN)
	in, out := float64(p.In.Size()), float64(p.Out.Size())
	// Weights come from memory once per M tile. Activations are re-read by
	// every N tile, from L2/L1, whose bandwidth is taken as 3× memory's.
	bytes := float64(mTiles)*float64(p.N)*float64(p.K)*in + 2*float64(p.M)*float64(p.N)*out
	bytes += float64(nTiles*mTiles*k.TileM) * float64(p.K) * in / 3
	if splitK > 1 {
		bytes += 2 * float64(splitK) * float64(p.M) * float64(p.N) * 4
	}
	// Element loads (alignment below 16 bytes) issue 8× the instructions.
	if k.PtrAlign < 16 {
		bytes *= 1.5
	}
	flops := 2 * float64(p.M) * float64(p.N) * float64(p.K)
	rate := familyRate(k, peak)
	// A tile does TileM tokens of work however few tokens it holds.
	flops *= float64(mTiles*k.TileM) / float64(p.M)
	perSM := blocksPerSM(k, dev)
	slots := float64(dev.SMs * perSM)
	blocks := float64(mTiles * nTiles * splitK)
	waves := math.Ceil(blocks / slots)
	// One wave: bandwidth scales with the SMs that have work. More: the
	// partial last wave idles its share of the slots.
	eff := math.Min(1, blocks/float64(dev.SMs))
	if waves > 1 {
		eff = blocks / (waves * slots)
	}
	// Latency hiding: the bytes in flight per SM against bandwidth × latency
	// (about a microsecond of memory latency under load).
	resident := math.Min(float64(perSM), math.Ceil(blocks/float64(dev.SMs)))
	inFlight := resident * float64(k.Threads*max(k.LoadBytes, 16))
	hide := math.Min(1, inFlight/(bw/float64(dev.SMs)*memLatency))
	t := math.Max(bytes/bw/math.Max(hide, 0.05), flops/rate) / math.Max(eff, 0.02)
	// A block walks K in rounds of (warps × TileK); a split shorter than a
	// round leaves lanes idle.
	round := k.Threads / 32 * k.TileK
	if kps := ceilDiv(p.K, splitK); kps > 0 {
		t *= float64(ceilDiv(kps, round)*round) / float64(kps)
	}
	t += 2e-6 // launch and ramp
	if splitK > 1 {
		t += 2e-6 // the reduce kernel
	}
	return t
}

// memLatency is the memory latency under load that the model hides.
const memLatency = 1e-6

// blocksPerSM is how many blocks of k fit on one SM: threads, registers
// (when the manifest knows them) and shared memory.
func blocksPerSM(k *KernelSpec, dev DeviceInfo) int {
	n := min(2048/k.Threads, 32)
	if k.Registers > 0 {
		n = min(n, 65536/(((k.Registers+7)/8*8)*k.Threads))
	}
	if k.SmemBytes > 0 {
		n = min(n, (dev.SmemOptIn+1024)/(k.SmemBytes+1024))
	}
	return max(n, 1)
}

// familyRate is the arithmetic rate a family reaches, as a share of peak.
func familyRate(k *KernelSpec, peak float64) float64 {
	switch {
	case strings.Contains(k.Family, "fma"):
		return peak / 12 // CUDA-core FMA
	case strings.Contains(k.Family, "decode"):
		return peak / 4 // mma.sync with a narrow token side
	}
	return peak / 2 // tiled mma.sync on Hopper
}

// geometry fills a Plan from a route and the live problem (no allocation).
func geometry(p *Problem, r *route) Plan {
	k := r.kernel
	s := r.splitK
	kps := p.K
	if s > 1 && p.K > 0 {
		kps = ceilDiv(ceilDiv(p.K, s), k.TileK) * k.TileK
		s = max(1, ceilDiv(p.K, kps))
	} else {
		s = 1
	}
	pl := Plan{
		Kernel: k, SplitK: s, KPerSplit: kps, SmemBytes: k.SmemBytes, Level: r.level,
		M: p.M, N: p.N, K: p.K, route: r,
		Grid:  [3]uint32{uint32(ceilDiv(p.N, k.TileN)), uint32(ceilDiv(p.M, k.TileM)), uint32(s)},
		Block: [3]uint32{uint32(k.Threads), 1, 1},
	}
	if s > 1 {
		pl.WorkspaceBytes = int64(s) * int64(p.M) * int64(p.N) * 4
	}
	return pl
}

// Bucket names the M range that answered: a table bucket such as
// "[17, 64]", the heuristic's power-of-two class, "forced", or "" for a no-op.
func (pl Plan) Bucket() string {
	if pl.route == nil {
		return ""
	}
	return pl.route.bucket
}

// RunnerUp names the second choice the table or heuristic recorded ("" if none).
func (pl Plan) RunnerUp() string {
	if pl.route == nil {
		return ""
	}
	return pl.route.runnerUp
}

// Explain says how the plan was chosen: level, bucket, kernel, runner-up,
// each level that was passed over and each rejected kernel with its reason.
func (pl Plan) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "problem: M=%d N=%d K=%d\n", pl.M, pl.N, pl.K)
	if pl.Level == LevelNoop {
		b.WriteString("plan: no-op (M or N is 0): nothing is launched\n")
		return b.String()
	}
	if pl.route == nil || pl.Kernel == nil {
		b.WriteString("plan: none\n")
		return b.String()
	}
	r := pl.route
	fmt.Fprintf(&b, "level: %s\nbucket: %s\nkernel: %s\n", pl.Level, r.bucket, pl.Kernel.Name)
	fmt.Fprintf(&b, "split-K: %d (K per split %d), workspace %d B\n", pl.SplitK, pl.KPerSplit, pl.WorkspaceBytes)
	fmt.Fprintf(&b, "launch: grid %v block %v smem %d B\n", pl.Grid, pl.Block, pl.SmemBytes)
	if r.estimateUS > 0 {
		fmt.Fprintf(&b, "estimate: %.1f µs (model, not a measurement)\n", r.estimateUS)
	}
	if r.runnerUp != "" {
		if r.runnerUS > 0 && !math.IsInf(r.runnerUS, 0) {
			fmt.Fprintf(&b, "runner-up: %s (%.1f µs estimated)\n", r.runnerUp, r.runnerUS)
		} else {
			fmt.Fprintf(&b, "runner-up: %s\n", r.runnerUp)
		}
	}
	for _, n := range r.notes {
		fmt.Fprintf(&b, "passed over: %s\n", n)
	}
	wrongTypes := 0
	for _, rj := range r.rejected {
		if strings.HasPrefix(rj.Reason, "computes ") {
			wrongTypes++ // other dtypes: counted, not listed
			continue
		}
		fmt.Fprintf(&b, "rejected: %s: %s\n", rj.Kernel, rj.Reason)
	}
	if wrongTypes > 0 {
		fmt.Fprintf(&b, "rejected: %d kernels for other dtypes\n", wrongTypes)
	}
	return b.String()
}
