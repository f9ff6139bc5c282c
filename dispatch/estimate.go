package dispatch

import (
	"math"

	"github.com/gemmroute/gemmroute/kernels"
)

// EstimateSeconds is the analytic model: bytes over read bandwidth or flops
// over the kernel's rate, whichever is larger, stretched by the idle share of
// a partial last wave (for stream-K kernels, what their walk costs by the
// tail model, streamKCost, beyond the same tiles perfectly balanced), plus
// launch costs (and a repack kernel's copies). It ranks kernels; it is no timing.
// What depends on the kernel's family comes from its manifest entry's Model
// (a catalog accepts only known model kinds); a spec of another kind
// estimates +Inf, never chosen.
func EstimateSeconds(k *kernels.KernelSpec, p *Problem, splitK int, dev DeviceInfo) float64 {
	if k.Model.Kind != kernels.ModelDecode && k.Model.Kind != kernels.ModelTiled {
		return math.Inf(1)
	}
	bw, peak := dev.ReadBandwidth, dev.PeakFLOPS
	if bw == 0 {
		bw = 1e12
	}
	if peak == 0 {
		peak = 1e14
	}
	if p.Types.In == E4M3 { // the fp8 tensor rate is twice the 16-bit one (sm_89, sm_90)
		peak *= 2
	}
	repack := 0.0 // a repack kernel's copies: read, written, and their launch
	if k.Repack() {
		pk := packPlan(p, 0, 0, 0) // all of the copies, chunked or not
		repack = float64(packRows(p, pk))*float64(p.K+pk.k)*float64(p.Types.In.Size())/bw + 2e-6
		q := packed(p)
		p = &q
	}
	mTiles, nTiles := ceilDiv(p.M, k.TileM), ceilDiv(p.N, k.TileN)
	in, out := float64(p.Types.In.Size()), float64(p.Types.Out.Size())
	var bytes float64
	if tiled(k) {
		bytes = tiledBytes(k, p, mTiles, nTiles)
	} else {
		// Weights come from memory once per raster group of M tiles.
		// Activations are re-read by every N tile, from L2/L1, whose
		// bandwidth is taken as 3× memory's.
		bytes = float64(ceilDiv(mTiles, k.Model.RasterGroup))*float64(p.N)*float64(p.K)*in + 2*float64(p.M)*float64(p.N)*out
		bytes += float64(nTiles*mTiles*k.TileM) * float64(p.K) * in / 3
		bytes /= k.Model.StreamShare
	}
	if splitK > 1 {
		bytes += 2 * float64(splitK) * float64(p.M) * float64(p.N) * 4
	}
	if k.StreamK() { // partial tiles written and read back, through L2
		bytes += 2 * float64(streamKWorkspace(k, p, dev.SMs, tailParts(k, p, dev.SMs, DefaultWorkspaceBytes))) / 3
	}
	// Element loads (alignment below 16 bytes) issue 8× the instructions.
	if k.PtrAlign < 16 {
		bytes *= 1.5
	}
	flops := 2 * float64(p.M) * float64(p.N) * float64(p.K)
	rate := kernelRate(k, peak)
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
	if k.StreamK() { // whole waves, then the tail tiles' parts, each with its fixed cost and partial
		g := streamKGrid(k, p, dev.SMs)
		kt := float64(ceilDiv(p.K, k.TileK))
		ideal := blocks / float64(g) * (kt + tailItemKTiles)
		eff = math.Min(1, ideal/streamKCost(k, p, g, tailParts(k, p, dev.SMs, DefaultWorkspaceBytes)))
		blocks = float64(g)
	}
	// Latency hiding: the bytes in flight per SM against bandwidth × latency
	// (about a microsecond of memory latency under load).
	// (k.LoadBytes is per stage; a pipeline of S stages has S-1 in flight.)
	resident := math.Min(float64(perSM), math.Ceil(blocks/float64(dev.SMs)))
	inFlight := resident * float64(k.Threads*max(k.LoadBytes, 16)*max(k.Stages-1, 1))
	hide := math.Min(1, inFlight/(bw/float64(dev.SMs)*memLatency))
	t := math.Max(bytes/bw/math.Max(hide, 0.05), flops/rate) / math.Max(eff, 0.02)
	// A decode block walks K in rounds of (warps × TileK), a tiled block in
	// k-tiles of TileK; a split shorter than a round leaves lanes idle.
	round := max(1, k.Threads/32) * k.TileK
	if tiled(k) {
		round = k.TileK
	}
	if kps := ceilDiv(p.K, splitK); kps > 0 {
		t *= float64(ceilDiv(kps, round)*round) / float64(kps)
	}
	t += 2e-6 // launch and ramp
	if splitK > 1 && !k.SplitFixed() {
		t += 2e-6 // the reduce kernel (a split_fixed kernel sums its parts itself)
	}
	return t + repack
}

// memLatency is the memory latency under load that the model hides.
const memLatency = 1e-6

// blocksPerSM is how many blocks of k fit on one SM: threads, registers
// (when the manifest knows them) and shared memory.
func blocksPerSM(k *kernels.KernelSpec, dev DeviceInfo) int {
	n := min(2048/k.Threads, 32)
	if k.Registers > 0 {
		n = min(n, 65536/(((k.Registers+7)/8*8)*k.Threads))
	}
	if k.SmemBytes > 0 {
		n = min(n, (dev.SmemOptIn+1024)/(k.SmemBytes+1024))
	}
	return max(n, 1)
}

// tiled reports whether k stages k-tiles of both operands through shared
// memory (its model's kind is tiled).
func tiled(k *kernels.KernelSpec) bool { return k.Model.Kind == kernels.ModelTiled }

// tiledBytes is a tiled kernel's traffic in DRAM-equivalent bytes. Its
// blocks run in groups of Model.RasterGroup M tiles, so DRAM serves the
// weights once per group and the activations and output once; what the
// blocks read beyond that ((TileM + TileN) × K each) comes from L2, taken as
// 3× memory bandwidth as in the decode model.
func tiledBytes(k *kernels.KernelSpec, p *Problem, mTiles, nTiles int) float64 {
	in, out, kk := float64(p.Types.In.Size()), float64(p.Types.Out.Size()), float64(p.K)
	dram := float64(ceilDiv(mTiles, k.Model.RasterGroup))*float64(p.N)*kk*in + float64(p.M)*kk*in
	reads := float64(mTiles*nTiles) * float64(k.TileM+k.TileN) * kk * in
	return (dram + math.Max(0, reads-dram)/3 + 2*float64(p.M)*float64(p.N)*out) / k.Model.StreamShare
}

// kernelRate is the arithmetic rate k reaches: its model's share of peak.
func kernelRate(k *kernels.KernelSpec, peak float64) float64 { return peak * k.Model.RateShare }
