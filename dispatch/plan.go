package dispatch

import (
	"fmt"
	"math"
	"strings"

	"github.com/gemmroute/gemmroute/internal/satmath"
	"github.com/gemmroute/gemmroute/kernels"
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
	LevelForced                 // a kernel named by the caller (Planner.PlanKernel)
)

var levelNames = [...]string{"none", "no-op", "exact (N,K) entry", "default entry", "heuristic", "forced"}

// String names the level as Explain does ("Level(n)" for no level).
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// Plan is how one problem will run: the kernel, its split-K factor and
// workspace, and (unexported) every launch it makes. Plans are values, made
// by Planner.Plan or Engine.Plan for one problem's shape; Explain tells how
// it was chosen and what it launches, and Engine.Launch runs it.
type Plan struct {
	Kernel *kernels.KernelSpec // the catalog's spec (do not modify); nil for a no-op and for cuBLASLt
	// Vendor is, for a plan routed to cuBLASLt, the table bucket's
	// algorithm and library version (do not modify); nil otherwise.
	Vendor         *Vendor
	SplitK         int   // blocks along K (1: no split)
	WorkspaceBytes int64 // fp32 partials needed when SplitK > 1
	Level          Level // which fallback level answered

	problem   Problem             // the problem planned
	kPerSplit int                 // K elements per split
	tailParts int                 // a stream-K kernel of planned parts: its tail split (Params.TailParts); else 1
	launches  [maxLaunches]launch // in order; the engine launches exactly these
	nLaunches uint8               // how many of launches are used
	route     *route
	planner   *Planner // that chose the route, for Explain; nil when forced
	lim       Limits   // the limits it was planned within, for Explain
	pack      packing  // a repack kernel's copies of A and B
}

// packing is where a repack kernel's plan puts its copies of A and B in
// the workspace (after any partials): which operands it copies, at which
// offsets, and their pitch (K rounded up to 16 bytes). Where a copy of all
// of A would not fit, the plan runs in chunks of rows of A: for each, the
// repack copies those rows (and B, the first time) and the GEMM computes
// those rows of D; stream order keeps one chunk's copy from overwriting
// the rows the previous chunk's GEMM reads.
type packing struct {
	a, b       bool
	offA, offB int64
	k          int
	rows       int // A's rows per chunk: M, or fewer (a multiple of the tile's M) when chunked
}

// maxChunks bounds the chunks of a plan: more would spend more on launches
// than the TMA kernels save.
const maxChunks = 64

// chunks is how many chunks a plan with packing pk runs for M rows.
func (pk packing) chunks(m int) int {
	if pk.rows <= 0 || pk.rows >= m {
		return 1
	}
	return ceilDiv(m, pk.rows)
}

// packsAsPlanned reports whether p needs exactly the copies pl makes: a
// repack plan made for one problem's alignment runs no other's.
func (pl *Plan) packsAsPlanned(p *Problem) bool {
	if pl.Kernel == nil || !pl.Kernel.Repack() {
		return true
	}
	a, b := needsPack(p)
	return a == pl.pack.a && b == pl.pack.b
}

// packPitch is the repack copies' pitch for K: 16 bytes of 16-bit elements.
func packPitch(k int) int { return ceilDiv(k, 8) * 8 }

// needsPack reports, for a 16-bit problem, whether TMA can read A (B) as it
// is: a 16-byte aligned base, a 16-byte multiple pitch, K a multiple of 8.
func needsPack(p *Problem) (a, b bool) {
	kOK := p.K%8 == 0
	a = !kOK || uintptr(p.A)%16 != 0 || p.LDA%8 != 0
	b = !kOK || uintptr(p.B)%16 != 0 || p.LDB%8 != 0
	return a, b
}

// packed is the problem a repack kernel runs: p on the copies — K and the
// leading dimensions the pitch, the copied operands at 256-byte aligned
// stand-ins (the engine points the launch at the workspace).
func packed(p *Problem) Problem {
	q := *p
	a, b := needsPack(p)
	q.K = packPitch(p.K)
	if a {
		q.A, q.LDA = 256, q.K
	}
	if b {
		q.B, q.LDB = 512, q.K
	}
	return q
}

// maxLaunches is the most launches a plan makes: the repack, the GEMM
// kernel and the split-K reduce.
const maxLaunches = 3

// launch is one kernel launch of a plan: which of the kernel's functions
// (the engine resolves them once, at Open), its name, geometry and dynamic
// shared memory. Every launch of a plan takes the same parameter block.
type launch struct {
	fn          launchFn
	name        string // the function's name in its image
	grid, block [3]uint32
	smemBytes   int
}

// launchFn says which of a kernel spec's functions a launch starts.
type launchFn uint8

const (
	fnMain   launchFn = iota // the GEMM kernel (KernelSpec.Name)
	fnReduce                 // its split-K reduce (KernelSpec.ReduceKernel)
	fnRepack                 // its operand repack (KernelSpec.RepackKernel)
	numFns
)

// kernelFns are the functions of k the engine resolves at Open: the GEMM
// kernel, its reduce when k can split K, its repack when it has one.
func kernelFns(k *kernels.KernelSpec) []launchFn {
	fns := []launchFn{fnMain}
	if k.MaxSplitK > 1 && !k.SplitFixed() { // a split_fixed kernel sums its parts itself: no reduce
		fns = append(fns, fnReduce)
	}
	if k.Repack() {
		fns = append(fns, fnRepack)
	}
	return fns
}

// of is function fn of kernel k: its name in k's image and the dynamic
// shared memory it runs with. Open resolves each function by it (setting
// its shared-memory limit) and geometry launches it with it.
func (fn launchFn) of(k *kernels.KernelSpec) (name string, smemBytes int) {
	switch fn {
	case fnReduce:
		return k.ReduceKernel, 0
	case fnRepack:
		return k.RepackKernel, 0
	}
	return k.Name, k.SmemBytes
}

// reduceThreads is the block of the split-K reduce kernels (their
// __launch_bounds__(256) in kernels/src/instances_gen.cu); reduceBlocksPerSM
// caps their grid-stride grid at that many blocks per SM.
const (
	reduceThreads     = 256
	reduceBlocksPerSM = 16
)

// geometry fills a Plan from a route and the live problem (no allocation):
// the GEMM launch and, with split-K, the reduce launch. planner is the one
// that chose the route (nil for PlanKernel's), sms the device's SM count
// (a persistent kernel's grid, the reduce's), lim the limits planned within.
func geometry(p *Problem, r *route, planner *Planner, sms int, lim Limits) Plan {
	k := r.kernel
	orig := p
	if k.Repack() { // the launches run on the copies
		q := packed(p)
		p = &q
	}
	s := r.splitK
	kps := p.K
	if s > 1 && p.K > 0 {
		kps = kPerSplit(p.K, s, k.TileK)
		s = max(1, ceilDiv(p.K, kps))
	} else {
		s = 1
	}
	pl := Plan{
		Kernel: k, SplitK: s, kPerSplit: kps, Level: r.level,
		problem: *orig, route: r, planner: planner, lim: lim, nLaunches: 1,
	}
	pl.tailParts = tailParts(k, p, sms, lim.workspaceLimit())
	if k.SplitFixed() { // the kernel splits every tile itself: Params.TailParts
		pl.tailParts = s
	}
	// split-K or stream-K partials (one of s and tailParts is 1)
	pl.WorkspaceBytes = workspaceNeed(k, p, max(s, pl.tailParts), sms, lim.workspaceLimit())
	if k.Repack() { // the copies after the partials; chunked, each launch covers a chunk's rows
		pl.pack = packPlan(orig, pl.WorkspaceBytes, lim.WorkspaceBytes, k.TileM)
		p.M = pl.pack.rows
	}
	main := launch{fn: fnMain,
		grid:  [3]uint32{uint32(ceilDiv(p.N, k.TileN)), uint32(ceilDiv(p.M, k.TileM)), uint32(s)},
		block: [3]uint32{uint32(k.Threads), 1, 1},
	}
	switch {
	case k.StreamK(): // the k-tiles of all tiles shared by one block per SM
		main.grid = [3]uint32{uint32(streamKGrid(k, p, sms)), 1, 1}
	case k.SplitFixed(): // every tile's s parts over at most one block per SM (splitFixedGrid)
		main.grid = [3]uint32{uint32(splitFixedGrid(k, p, sms, s, lim.workspaceLimit())), 1, 1}
	case k.Persistent: // at most one block per SM, walking the tiles (clusters: groups of M tiles, or of N tiles)
		c, mt, nt := max(k.Cluster, 1), int(main.grid[1]), int(main.grid[0])
		if k.ClusterAlongN {
			nt = ceilDiv(nt, c)
		} else {
			mt = ceilDiv(mt, c)
		}
		groups := int64(mt) * int64(nt) * int64(main.grid[2])
		main.grid = [3]uint32{uint32(int64(c) * min(groups, int64(max(sms/c, 1)))), 1, 1}
	}
	main.name, main.smemBytes = fnMain.of(k)
	pl.launches[0] = main
	if s > 1 && !k.SplitFixed() { // fp32 partials in the workspace, summed in a fixed order by the reduce
		red := launch{fn: fnReduce, grid: gridStride(p.M*p.N, sms), block: [3]uint32{reduceThreads, 1, 1}}
		red.name, red.smemBytes = fnReduce.of(k)
		pl.launches[1] = red
		pl.nLaunches = 2
	}
	if k.Repack() { // the copies' launch first
		pl.WorkspaceBytes = packEnd(orig, pl.pack)
		rp := launch{fn: fnRepack, grid: gridStride(packRows(orig, pl.pack)*pl.pack.k/8, sms), block: [3]uint32{reduceThreads, 1, 1}}
		rp.name, rp.smemBytes = fnRepack.of(k)
		copy(pl.launches[1:], pl.launches[:pl.nLaunches])
		pl.launches[0] = rp
		pl.nLaunches++
	}
	return pl
}

// gridStride is the grid of a grid-stride helper kernel (the reduce, the
// repack) over n items, a thread each: blocks of reduceThreads, at most
// reduceBlocksPerSM per SM.
func gridStride(n, sms int) [3]uint32 {
	return [3]uint32{uint32(min(ceilDiv(n, reduceThreads), sms*reduceBlocksPerSM)), 1, 1}
}

// packPlan lays out the copies of p's operands that need one after the
// first used bytes of the workspace, each on a 256-byte boundary. Where the
// copies would end past limit (the workspace per stream; 0: no limit) and
// nothing precedes them (no partials), A is copied in chunks of the most
// rows, a multiple of tileM, that fit beside B's copy, in at most
// maxChunks chunks; where none fit, the layout is M rows, and the plan's
// need exceeds the limit (the constraints reject it).
func packPlan(p *Problem, used, limit int64, tileM int) packing {
	pk := packing{k: packPitch(p.K), rows: p.M}
	pk.a, pk.b = needsPack(p)
	layout := func(rows int) {
		pk.rows, pk.offA, pk.offB = rows, 0, 0
		off := roundUp(used, 256)
		if pk.a {
			pk.offA, off = off, roundUp(off+satmath.Mul(int64(rows), int64(pk.k)*2), 256)
		}
		if pk.b {
			pk.offB = off
		}
	}
	layout(p.M)
	if limit <= 0 || !pk.a || used > 0 || packEnd(p, pk) <= limit || tileM <= 0 {
		return pk
	}
	rowBytes := int64(pk.k) * 2
	room := limit
	if pk.b { // B's copy, on a 256-byte boundary after A's
		room -= roundUp(satmath.Mul(int64(p.N), rowBytes), 256) + 256
	}
	rows := int(min(room/rowBytes, int64(p.M))) / tileM * tileM
	if rows < tileM || ceilDiv(p.M, rows) > maxChunks {
		return pk
	}
	layout(rows)
	return pk
}

// packEnd is the workspace a plan with packing pk for p needs in all.
func packEnd(p *Problem, pk packing) int64 {
	end := pk.offA + satmath.Mul(int64(pk.rows), int64(pk.k)*2)
	if pk.b {
		end = pk.offB + satmath.Mul(int64(p.N), int64(pk.k)*2)
	}
	return end
}

// packRows is how many rows the repack copies at most in one launch: a
// chunk of A, and B's N.
func packRows(p *Problem, pk packing) int {
	n := 0
	if pk.a {
		n += pk.rows
	}
	if pk.b {
		n += p.N
	}
	return n
}

// roundUp is x rounded up to a multiple of m (x ≥ 0, m > 0).
func roundUp(x, m int64) int64 { return (x + m - 1) / m * m }

// operands names the operands pk copies: " A", " B" or " A and B".
func (pk packing) operands() string {
	switch {
	case pk.a && pk.b:
		return " A and B"
	case pk.a:
		return " A"
	}
	return " B"
}

// decomposition names how pl splits K: "split-K s" or "stream-K".
func (pl *Plan) decomposition() string {
	if pl.Vendor != nil {
		return "cuBLASLt's algorithm"
	}
	if pl.Kernel != nil && pl.Kernel.StreamK() {
		return "stream-K"
	}
	if pl.Kernel != nil && pl.Kernel.SplitFixed() && pl.SplitK > 1 {
		return fmt.Sprintf("split-K %d, summed in the kernel", pl.SplitK)
	}
	return fmt.Sprintf("split-K %d", pl.SplitK)
}

// kPerSplit is the K per split of split-K s over k elements in k-tiles of
// tileK: ⌈k/s⌉ rounded up to whole k-tiles (kernels/src: ws_k_tiles, and
// ws_split_fixed computes the same).
func kPerSplit(k, s, tileK int) int { return ceilDiv(ceilDiv(k, s), tileK) * tileK }

// kernelSplitK is Params.SplitK of pl's GEMM launch: its split-K, but 1
// for a kernel that sums its parts itself (Params.TailParts carries them,
// and its epilogue writes D).
func (pl *Plan) kernelSplitK() int {
	if pl.Kernel.SplitFixed() {
		return 1
	}
	return pl.SplitK
}

// mainLaunch is pl's launch of its GEMM kernel (the zero launch for a no-op).
func (pl *Plan) mainLaunch() launch {
	for _, l := range pl.plannedLaunches() {
		if l.fn == fnMain {
			return l
		}
	}
	return launch{}
}

// plannedLaunches are the launches of pl, in order (none for a no-op).
func (pl *Plan) plannedLaunches() []launch { return pl.launches[:pl.nLaunches] }

// Bucket names the M range that answered: a table bucket such as
// "[17, 64]", the heuristic's power-of-two class, "forced", or "" for a no-op.
func (pl Plan) Bucket() string {
	if pl.route == nil {
		return ""
	}
	return pl.route.bucket
}

// KernelName names what the plan runs, as Explain's "kernel:" line does:
// the kernel's name, the algorithm (Vendor.String, "cuBLASLt 12.8.4
// algorithm 1a2b3c4d") for a plan routed to cuBLASLt, whose Kernel is nil,
// and "" for a no-op or the zero Plan. Print this rather than Kernel.Name.
func (pl Plan) KernelName() string {
	switch {
	case pl.Vendor != nil:
		return pl.Vendor.String()
	case pl.Kernel != nil:
		return pl.Kernel.Name
	}
	return ""
}

// Explain says how the plan was chosen: level, bucket, kernel, runner-up,
// each level that was passed over and why, and the kernels the constraints
// rejected, grouped by the rule they break with counts and examples.
func (pl Plan) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "problem: M=%d N=%d K=%d", pl.problem.M, pl.problem.N, pl.problem.K)
	if t := pl.problem.Types; t.Out != t.In || t.Scaled() { // what the line would not say otherwise
		fmt.Fprintf(&b, " %s→%s%s", t.In, t.Out, pl.problem.scalingText())
	}
	b.WriteString("\n")
	if pl.Level == LevelNoop {
		b.WriteString("plan: no-op (M or N is 0): nothing is launched\n")
		return b.String()
	}
	if pl.route == nil || pl.Kernel == nil && pl.Vendor == nil {
		b.WriteString("plan: none\n")
		return b.String()
	}
	r := pl.route
	if r.class != "" {
		fmt.Fprintf(&b, "mode: batch-invariant, reduction class %s (%s); split-K %d at every M\n", r.class, r.classSource, pl.SplitK)
	}
	fmt.Fprintf(&b, "level: %s\nbucket: %s\n", pl.Level, r.bucket)
	if r.source != "" {
		fmt.Fprintf(&b, "source: %s\n", r.source)
	}
	if pl.Vendor != nil {
		pl.explainVendor(&b)
	} else {
		fmt.Fprintf(&b, "kernel: %s\n", pl.Kernel.Name)
		fmt.Fprintf(&b, "split-K: %d (K per split %d), workspace %d B\n", pl.SplitK, pl.kPerSplit, pl.WorkspaceBytes)
	}
	ls := pl.plannedLaunches()
	for i, l := range ls {
		fmt.Fprintf(&b, "launch %d of %d: %s grid %v block %v smem %d B", i+1, len(ls), l.name, l.grid, l.block, l.smemBytes)
		switch {
		case l.fn == fnReduce:
			fmt.Fprintf(&b, " (sums the %d fp32 partials into D)", pl.SplitK)
		case l.fn == fnRepack:
			fmt.Fprintf(&b, " (copies%s to the workspace at a pitch of %d elements: their alignment rules out TMA)", pl.pack.operands(), pl.pack.k)
			if c := pl.pack.chunks(pl.problem.M); c > 1 {
				fmt.Fprintf(&b, "; these launches run %d times, over %d rows of A and D at a time (B copied the first time only): all of A's copy would not fit the workspace", c, pl.pack.rows)
			}
		case pl.Kernel.TailParts() && pl.tailParts == 1:
			b.WriteString(" (stream-K of planned parts, none split here: every tile whole, in waves)")
		case pl.Kernel.TailParts():
			fmt.Fprintf(&b, " (stream-K: whole tiles in waves, the partial last wave's tiles split along K in %d parts; split tiles are summed in the kernel, in a fixed order)", pl.tailParts)
		case pl.Kernel.StreamK():
			q := pl.problem
			if pl.Kernel.Repack() { // a launch covers a chunk's rows
				q.M = pl.pack.rows
			}
			switch full, rest, parts := streamKSplit(pl.Kernel, &q, int(l.grid[0]), 1); {
			case parts == 1:
				b.WriteString(" (stream-K, none split here: every tile whole, in waves)")
			default:
				fmt.Fprintf(&b, " (stream-K: %d tiles whole in waves of %d blocks, the last %d split along K in %d parts, a block each; split tiles are summed in the kernel, in a fixed order)", full, l.grid[0], rest, parts)
			}
		case pl.Kernel.SplitFixed() && pl.SplitK > 1:
			fmt.Fprintf(&b, " (every tile split along K in %d parts, %s; the kernel sums them in the reduce kernel's order)", pl.SplitK, splitFixedWalk(int(l.grid[0]), tileCount(pl.Kernel, &pl.problem), pl.SplitK))
		case pl.Kernel.Cluster > 1 && pl.Kernel.ClusterAlongN:
			fmt.Fprintf(&b, " (clusters of %d blocks along N)", pl.Kernel.Cluster)
		case pl.Kernel.Cluster > 1:
			fmt.Fprintf(&b, " (clusters of %d blocks)", pl.Kernel.Cluster)
		}
		b.WriteString("\n")
	}
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
	if pl.lim.NoSplitK {
		b.WriteString("limits: no split-K (no workspace)\n")
	}
	if pl.planner != nil { // what planning this very problem passed over
		_, ex := pl.planner.route(&pl.problem, pl.planner.key(&pl.problem, pl.lim))
		for _, n := range ex.notes {
			fmt.Fprintf(&b, "passed over: %s\n", n)
		}
		writeRejections(&b, ex.rejected, ex.kernels)
	}
	return b.String()
}

// tileCount is how many TileM × TileN tiles cover p's output.
func tileCount(k *kernels.KernelSpec, p *Problem) int64 {
	return int64(ceilDiv(p.M, k.TileM)) * int64(ceilDiv(p.N, k.TileN))
}

// streamKGrid is stream-K kernel k's grid for p on sms SMs: at most a block
// per SM, one per k-tile of the problem (so that no block's part is empty)
// and as many as kernels.StreamKFlags serve. A kernel of planned parts takes
// that most (tailParts chooses its split). ws_stream_k splits a tail of R
// tiles in ⌊G/R⌋ parts, each of whose partials its finisher reads back one
// after another: for 5120 × 4096 at M = 1200 on 128x128 tiles, 400 tiles on
// 132 blocks leave R = 4 in 32 parts. So where G would split its tail in
// more parts than a kernel of planned parts may (maxTailParts), its grid is
// the one of [⌈3G/4⌉, G] whose walk the tail model (streamKCost) finds
// shortest, where that is at least streamKGridGain shorter than G's (at
// M = 1200, 124 blocks: R = 28 in 4 parts, 36 % shorter) and needs no
// more workspace; else G.
func streamKGrid(k *kernels.KernelSpec, p *Problem, sms int) int {
	units := satmath.Mul(tileCount(k, p), int64(ceilDiv(p.K, k.TileK)))
	g := int(max(1, min(int64(sms), units, int64(kernels.StreamKFlags/max(k.Threads/128, 1)))))
	if _, _, parts := streamKSplit(k, p, g, 1); k.TailParts() || parts <= maxTailParts {
		return g
	}
	best, bestCost := g, streamKCost(k, p, g, 1)
	most, slots := bestCost*(1-streamKGridGain), streamKSlots(k, p, g, 1)
	for h := g - 1; h >= (3*g+3)/4; h-- {
		if c := streamKCost(k, p, h, 1); c < bestCost && c <= most && streamKSlots(k, p, h, 1) <= slots {
			best, bestCost = h, c
		}
	}
	return best
}

// streamKGridGain is how much shorter, by streamKCost, a smaller grid's
// walk must be for streamKGrid to take it: the tail model came within 3.3 %
// of the best measured split (worst case; see tailItemKTiles), so a smaller
// gain could be the model's error.
const streamKGridGain = 0.05

// streamKCost is how long a stream-K kernel's walk of p with tail split s
// (streamKSplit: ws_stream_k's own where the kernel does not plan its parts)
// on a grid of g blocks runs, in k-tiles of its tile, by the tail model of
// tailParts: its whole waves, each as long as a tile and an item's fixed
// cost, then its tail's part-waves, and a partial's round trip per part.
func streamKCost(k *kernels.KernelSpec, p *Problem, g, s int) float64 {
	full, rest, parts := streamKSplit(k, p, g, s)
	kt := int64(ceilDiv(p.K, k.TileK))
	c := float64((full+int64(g)-1)/int64(g)) * (float64(kt) + tailItemKTiles) // planned parts of 1 take every tile whole
	if rest > 0 {
		c += tailCost(rest, parts, kt, int64(g))
	}
	return c
}

// streamKSplit is how a stream-K kernel's grid of g blocks divides p (as
// kernels/src/ws_streamk.cuh does): full tiles taken whole in full/g waves,
// and the rest tiles of the partial last wave split along K into parts of
// equal k-tiles — ws_stream_k: as many as give each block one part
// (⌊g/rest⌋); a kernel of planned parts (KernelSpec.TailParts): s, the
// plan's tail split (all tiles whole when it is 1), several parts a block
// where rest·s > g.
func streamKSplit(k *kernels.KernelSpec, p *Problem, g, s int) (full, rest, parts int64) {
	tiles, kt := tileCount(k, p), int64(ceilDiv(p.K, k.TileK))
	full = tiles / int64(g) * int64(g)
	rest, parts = tiles-full, 1
	if rest > 0 {
		parts = max(1, min(int64(g)/rest, kt))
		if k.TailParts() {
			parts = max(1, min(int64(s), kt))
		}
		kp := (kt + parts - 1) / parts
		parts = (kt + kp - 1) / kp
	}
	if k.TailParts() && parts == 1 {
		full, rest = tiles, 0
	}
	return full, rest, parts
}

// streamKSlots is how many fp32 partial tiles a stream-K kernel writes for
// p with tail split s on a grid of g blocks: every part but a tail tile's
// last, and for a tail tile more where a shift kernel may move its shifted
// last M tile's neighbour into the tail (kernels/src/ws_streamk.cuh): for
// planned parts wherever the full tiles are not all; for ws_stream_k_shift
// where shiftMovesFull says so (it then splits R + 1 tiles in ⌊G/(R + 1)⌋
// parts, no more slots than (R + 1)·(S − 1)).
func streamKSlots(k *kernels.KernelSpec, p *Problem, g, s int) int64 {
	full, rest, parts := streamKSplit(k, p, g, s)
	if parts > 1 && full > 0 && (k.TailParts() || shiftMovesFull(k, p, full)) {
		rest++
	}
	return rest * (parts - 1)
}

// shiftMovesFull reports whether a stream-K walk whose last M tile is
// shifted (it starts at M − TileM, where M is not a multiple of TileM) takes
// one tile fewer whole than full: where full falls between the shifted tile
// and the one before, adjacent ids in the first raster group of M tiles
// (walked from the last), so both run in the tail, split alike.
func shiftMovesFull(k *kernels.KernelSpec, p *Problem, full int64) bool {
	mt, nt := int64(ceilDiv(p.M, k.TileM)), int64(ceilDiv(p.N, k.TileN))
	rows := min(int64(k.Model.RasterGroup), mt)
	return p.M >= k.TileM && p.M%k.TileM != 0 && rows >= 2 && full > 0 && full < rows*nt && full%rows == 1
}

// streamKWorkspace is the workspace stream-K kernel k needs for p with tail
// split s on sms SMs: a TileM × TileN fp32 partial per slot, none when the
// grid divides the tiles.
func streamKWorkspace(k *kernels.KernelSpec, p *Problem, sms, s int) int64 {
	return satmath.Mul(streamKSlots(k, p, streamKGrid(k, p, sms), s), partialTileBytes(k))
}

// partialTileBytes is one fp32 TileM × TileN partial tile of a stream-K
// kernel: a slot of its workspace.
func partialTileBytes(k *kernels.KernelSpec) int64 { return int64(k.TileM) * int64(k.TileN) * 4 }

// splitFixedGrid is the grid of a kernel that splits every tile itself
// (KernelSpec.SplitFixed) in s parts for p on sms SMs within limit bytes of
// workspace (kernels/src/ws_splitfixed.cuh): min(SMs, tiles·s), the parts
// shared by all blocks where the tiles are fewer (the walk "across", one
// slot a part), else each block running its tiles' parts in turn ("along",
// one slot a block) — also where across's slots would pass limit (a grid
// of one block a tile).
func splitFixedGrid(k *kernels.KernelSpec, p *Problem, sms, s int, limit int64) int {
	tiles := max(tileCount(k, p), 1)
	g := int(min(int64(sms), satmath.Mul(tiles, int64(max(s, 1)))))
	if splitFixedAcross(g, tiles) && satmath.Mul(satmath.Mul(tiles, int64(s)), partialTileBytes(k)) > limit {
		return int(tiles)
	}
	return g
}

// splitFixedAcross is ws_split_fixed's choice of walk on g blocks for
// tiles tiles: across where the tiles are fewer than the blocks and their
// arrival counters (one a consumer warpgroup, three at most) fit the
// kernels.StreamKFlags flag words.
func splitFixedAcross(g int, tiles int64) bool {
	return tiles < int64(g) && tiles*tailFlagsPerSlot <= kernels.StreamKFlags
}

// splitFixedWalk says how such a kernel on g blocks walks the s parts of
// tiles tiles.
func splitFixedWalk(g int, tiles int64, s int) string {
	if splitFixedAcross(g, tiles) {
		return fmt.Sprintf("the %d parts shared by %d blocks, the last part of a tile to finish summing them", satmath.Mul(tiles, int64(s)), g)
	}
	return "each block running its tiles' parts one after another"
}

// splitFixedSlots is how many fp32 partial tiles such a kernel writes:
// across, one a part; along, one a block (its tiles' running sums); none
// at s = 1.
func splitFixedSlots(k *kernels.KernelSpec, p *Problem, sms, s int, limit int64) int64 {
	if s <= 1 {
		return 0
	}
	tiles := max(tileCount(k, p), 1)
	if g := splitFixedGrid(k, p, sms, s, limit); !splitFixedAcross(g, tiles) {
		return int64(g)
	}
	return satmath.Mul(tiles, int64(s))
}

// maxTailParts is the most parts a stream-K kernel of planned parts splits
// a tail tile into.
const maxTailParts = 8

// tailFlagsPerSlot is the flag words ws_stream_k_planned counts per partial
// slot when it bounds the tail split (kernels/src/ws_streamk.cuh: three,
// the most consumer warpgroups); past kernels.StreamKFlags it runs every
// tile whole, so tailParts never asks for more.
const tailFlagsPerSlot = 3

// The tail model's costs, in k-tiles of the kernel's tile, fitted to
// kbench's timings of ws_wgmma_sk_tp_sh_ts at every tail split 1…8 (H100,
// four weights × M = 300, 600, 850, 1200, four tiles: docs/perf/2026-12-07-h200-f,
// call K): a work item's fixed cost (its pipeline's start and end, its
// epilogue or partial) and a partial tile's round trip through the
// workspace. Fitted on three weights, the model's split for the fourth came
// within 0.2 % of the best measured (geomean; worst 3.3 %).
const (
	tailItemKTiles    = 11.5
	tailPartialKTiles = 6.0
)

// tailParts is the tail split a stream-K kernel of planned parts runs p
// with on sms SMs within limit bytes of workspace (Params.TailParts; 1 for
// other kernels): of 1…maxTailParts, the one whose tail is shortest by a
// model in k-tiles — each of the ⌈rest·S/G⌉ part-waves as long as a part
// and an item's fixed cost, and a partial's round trip per part — with its
// partials in limit bytes and kernels.StreamKFlags flag words. S = 1 runs
// the tail tiles whole. (The grid's own choice, ws_stream_k's ⌊G/R⌋, splits
// a tail of 3 tiles of 128x192 at 5120 × 4096, M = 600, into 32 parts: 81.0
// µs in call K; the model's S = 3 there 50.4, the best measured, S = 4, 49.7.)
func tailParts(k *kernels.KernelSpec, p *Problem, sms int, limit int64) int {
	if !k.TailParts() {
		return 1
	}
	g := int64(streamKGrid(k, p, sms))
	kt := int64(ceilDiv(p.K, k.TileK))
	best, bestCost := 1, tailCost(1, 1, kt, g)
	for s := 2; s <= maxTailParts; s++ {
		_, rest, parts := streamKSplit(k, p, int(g), s)
		if parts != int64(s) || rest == 0 {
			continue // the same as a smaller split, or no tail
		}
		slots := streamKSlots(k, p, int(g), s)
		if slots*tailFlagsPerSlot > kernels.StreamKFlags || satmath.Mul(slots, partialTileBytes(k)) > limit {
			continue
		}
		if cost := tailCost(rest, parts, kt, g); cost < bestCost {
			best, bestCost = s, cost
		}
	}
	return best
}

// tailCost is the tail model's time, in k-tiles, of rest tail tiles of kt
// k-tiles split in parts parts on g blocks: ⌈rest·parts/g⌉ part-waves, each
// as long as a part and an item's fixed cost, and a partial's round trip
// per part where the tiles are split.
func tailCost(rest, parts, kt, g int64) float64 {
	c := float64((rest*parts+g-1)/g) * (float64((kt+parts-1)/parts) + tailItemKTiles)
	if parts > 1 {
		c += float64(parts) * tailPartialKTiles
	}
	return c
}

// needsPackAny reports whether a repack kernel would copy any of p's
// operands.
func needsPackAny(p *Problem) bool {
	a, b := needsPack(p)
	return a || b
}

// planWorkspace is the workspace a plan of kernel k for p with split-K s on
// sms SMs needs: its partials and, for a repack kernel, the copies after
// them, chunked to fit limit where they can be (geometry lays them out the
// same way).
func planWorkspace(k *kernels.KernelSpec, p *Problem, s, sms int, limit int64) int64 {
	if !k.Repack() {
		return workspaceNeed(k, p, s, sms, limit)
	}
	q := packed(p)
	return packEnd(p, packPlan(p, workspaceNeed(k, &q, s, sms, limit), limit, k.TileM))
}

// workspaceNeed is the workspace kernel k needs for p with split-K s on
// sms SMs within limit bytes: split-K partials, stream-K partials, or none.
func workspaceNeed(k *kernels.KernelSpec, p *Problem, s, sms int, limit int64) int64 {
	switch {
	case k.StreamK():
		return streamKWorkspace(k, p, sms, s)
	case k.SplitFixed():
		return satmath.Mul(splitFixedSlots(k, p, sms, s, limit), partialTileBytes(k))
	case s > 1:
		return splitWorkspace(p, s)
	}
	return 0
}

// splitWorkspace is the workspace split-K s needs for p: s fp32 partials of
// the M×N output.
// It saturates at math.MaxInt64 rather than overflow (a split-K factor
// beyond kernels.MaxSplitK reaches here only from a hand-made KernelSpec).
func splitWorkspace(p *Problem, s int) int64 {
	return satmath.Mul(satmath.Mul(int64(s), int64(p.M)), satmath.Mul(int64(p.N), 4))
}

// Source says where the table entry that routed the plan came from:
// "measured on NVIDIA H200 (2026-12-01)", or "the analytic model's choice
// for …, not measured"; "" when no table entry routed it (the heuristic, a
// no-op, a forced kernel).
func (pl Plan) Source() string {
	if pl.route == nil {
		return ""
	}
	return pl.route.source
}
