package dispatch

import (
	"math"
	"strings"
)

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
	round := max(1, k.Threads/32) * k.TileK
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
