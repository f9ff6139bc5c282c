// Package tuningtest has what tests of the tuning pipeline share: a small
// kernel manifest with one kernel of each role, and a fake GPU that answers
// checks and timings from a formula (VendorGPU: cuBLASLt's algorithms too).
package tuningtest

import (
	"encoding/base64"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// Manifest has sm_90 kernels of four kinds and one sm_80 kernel the tuner
// must not time on an sm_90 device (not native there):
//
//	t90_row:   1 token per block, fast at M = 1, hopeless at large M
//	t90_mma:   16×64 tiles, split-K up to 8
//	t90_big:   128×128 tiles, for large M
//	t90_wrong: fast everywhere but wrong: the gate must throw it out
//	t90_any:   2-byte alignment, the only one for odd N and K
//	t90_fp8:   e4m3→bf16, per-tensor and per-row scales
//	t90_fp8b:  e4m3→bf16, 128-block scales only
//	t80_mma:   the sm_80 image
func Manifest() kernels.Manifest {
	// The analytic model's view of each family, as the generator writes it.
	models := map[string]kernels.Model{
		"decode_fma": {Kind: kernels.ModelDecode, RateShare: 1.0 / 12, StreamShare: 1, RasterGroup: 1},
		"decode_mma": {Kind: kernels.ModelDecode, RateShare: 0.25, StreamShare: 1, RasterGroup: 1},
		"tiled_mma":  {Kind: kernels.ModelTiled, RateShare: 0.45, StreamShare: 0.8, RasterGroup: 8},
	}
	k := func(name, image, family string, arch dispatch.Arch, tm, tn, split, align int) kernels.KernelSpec {
		s := kernels.KernelSpec{Name: name, Image: image, Family: family, MinArch: arch, In: dispatch.BF16, Out: dispatch.BF16,
			Layout: kernels.LayoutTN, TileM: tm, TileN: tn, TileK: 64, Stages: 2, Threads: 128,
			PtrAlign: align, LDAlign: align, KMultiple: align / 2, MaxSplitK: split, Reduction: kernels.ReduceNone,
			IndexBits: 64, LoadBytes: 64, Model: models[family], Digest: kernels.DigestOf([]byte(name))}
		if split > 1 {
			s.Reduction, s.ReduceKernel = kernels.ReduceWorkspace, "reduce"
		}
		return s
	}
	fp8 := func(name string, s ...kernels.Scaling) kernels.KernelSpec {
		spec := k(name, "sm90.fatbin", "decode_mma", dispatch.SM90, 16, 64, 1, 16)
		spec.In, spec.KMultiple, spec.Scalings = dispatch.E4M3, 16, s
		return spec
	}
	return kernels.Manifest{Schema: kernels.SchemaVersion, Images: []kernels.Image{{File: "sm90.fatbin", SmemLimit: 227 << 10}, {File: "sm80.fatbin", SmemLimit: 227 << 10}},
		Kernels: []kernels.KernelSpec{
			k("t90_row", "sm90.fatbin", "decode_fma", dispatch.SM90, 1, 64, 1, 16),
			k("t90_mma", "sm90.fatbin", "decode_mma", dispatch.SM90, 16, 64, 8, 16),
			k("t90_big", "sm90.fatbin", "tiled_mma", dispatch.SM90, 128, 128, 1, 16),
			k("t90_wrong", "sm90.fatbin", "decode_mma", dispatch.SM90, 16, 64, 1, 16),
			k("t90_any", "sm90.fatbin", "decode_fma", dispatch.SM90, 4, 64, 1, 2),
			fp8("t90_fp8", kernels.ScalingTensor, kernels.ScalingRow),
			fp8("t90_fp8b", kernels.ScalingBlock),
			k("t80_mma", "sm80.fatbin", "decode_mma", dispatch.SM80, 16, 64, 1, 16),
		}}
}

// Catalog is Manifest's catalog.
func Catalog() (*kernels.Catalog, error) { return kernels.NewCatalog(Manifest()) }

// GPU is an injected Measurer: times come from Speed, t90_wrong fails every
// check, and calls are recorded.
type GPU struct {
	Dev   dispatch.DeviceInfo
	Speed func(w tuning.Weight, m int, c tuning.Candidate) float64 // µs
	Noisy map[tuning.Candidate]int                                 // the first n timings of c have a p90 twice the median
	Fail  error                                                    // returned by every timing once set
	Delay time.Duration

	mu     sync.Mutex
	Gated  []tuning.Candidate
	Timed  []TimeCall
	noises map[tuning.Candidate]int
}

// TimeCall is one Time (or Events) call a GPU answered.
type TimeCall struct {
	W    tuning.Weight
	M    int
	C    tuning.Candidate
	Reps int
}

// NewGPU returns an H200 that answers by Speed.
func NewGPU() *GPU {
	return &GPU{Dev: dispatch.H200, Speed: Speed, noises: map[tuning.Candidate]int{}}
}

// Speed: t90_row wins at M = 1, t90_mma in the teens, t90_big at large M;
// split-K 4 helps t90_mma at small M; t90_wrong is fastest of all; the e4m3
// kernels take half t90_mma's time (t90_fp8b a little less).
func Speed(w tuning.Weight, m int, c tuning.Candidate) float64 {
	work := float64(w.N) * float64(w.K) / (4096 * 4096)
	var t float64
	switch c.Kernel {
	case "t90_row":
		t = 8 * work * float64(m)
	case "t90_mma":
		t = 10*work*math.Ceil(float64(m)/16) + 1
		if c.SplitK == 4 && m <= 16 {
			t *= 0.9
		} else if c.SplitK > 1 {
			t *= 1.2 + 0.01*float64(c.SplitK)
		}
	case "t90_big":
		t = 30*work*math.Ceil(float64(m)/128) + 5
	case "t90_wrong":
		t = 1
	case "t90_any":
		t = 12 * work * math.Ceil(float64(m)/4)
	case "t90_fp8", "t90_fp8b":
		t = 5*work*math.Ceil(float64(m)/16) + 1
		if c.Kernel == "t90_fp8b" {
			t *= 0.9
		}
	}
	return t
}

// Device returns Dev.
func (f *GPU) Device() dispatch.DeviceInfo { return f.Dev }

// Check records the call and fails t90_wrong.
func (f *GPU) Check(w tuning.Weight, m int, c tuning.Candidate) error {
	f.mu.Lock()
	f.Gated = append(f.Gated, c)
	f.mu.Unlock()
	if c.Kernel == "t90_wrong" {
		return fmt.Errorf("%w: D[3,17] = 1.5, want 0.25", tuning.ErrWrong)
	}
	return nil
}

// Time answers Speed (p90 1 % above, or twice the median while c is noisy).
func (f *GPU) Time(w tuning.Weight, m int, c tuning.Candidate, reps int) (tuning.Timing, error) {
	time.Sleep(f.Delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Fail != nil {
		return tuning.Timing{}, f.Fail
	}
	f.Timed = append(f.Timed, TimeCall{w, m, c, reps})
	med := f.Speed(w, m, c)
	if f.noises[c] < f.Noisy[c] {
		f.noises[c]++
		return tuning.Timing{Median: med, P90: 2 * med}, nil
	}
	return tuning.Timing{Median: med, P90: 1.01 * med}, nil
}

// Events answers Time plus 5 µs (6 µs at the p90).
func (f *GPU) Events(w tuning.Weight, m int, c tuning.Candidate, calls int) (tuning.Timing, error) {
	t, err := f.Time(w, m, c, calls)
	return tuning.Timing{Median: t.Median + 5, P90: t.P90 + 6}, err
}

// Types reads the text form of a Types ("bf16", "e4m3→bf16/row") that a
// test writes literally; a malformed one panics.
func Types(text string) dispatch.Types {
	t, err := kernels.ParseTypes(text)
	if err != nil {
		panic(err)
	}
	return t
}

// VendorGPU is a GPU that also measures cuBLASLt (a tuning.VendorMeasurer):
// its heuristic proposes Algos at every M, the library does not take a
// candidate c at M = Unfit[c], and a cuBLASLt candidate's time is
// VendorUS(m). The Ms the heuristic was asked at are recorded.
type VendorGPU struct {
	*GPU
	Lib      dispatch.VendorLibrary
	Algos    []tuning.Candidate
	Unfit    map[tuning.Candidate]int
	VendorUS func(m int) float64
	Asked    []int
}

// NewVendorGPU returns an H200 with cuBLASLt 12.8.4 whose heuristic
// proposes algos, each taking vendorUS(m) µs; our kernels answer Speed.
func NewVendorGPU(vendorUS func(m int) float64, algos ...tuning.Candidate) *VendorGPU {
	g := &VendorGPU{GPU: NewGPU(), Lib: dispatch.VendorLibrary{Version: 120804}, Algos: algos, Unfit: map[tuning.Candidate]int{}, VendorUS: vendorUS}
	g.Speed = func(w tuning.Weight, m int, c tuning.Candidate) float64 {
		if c.IsVendor() {
			return g.VendorUS(m)
		}
		return Speed(w, m, c)
	}
	return g
}

// VendorAlgo is a cuBLASLt 12.8.4 candidate whose algorithm's bytes are i
// and 63 zeros.
func VendorAlgo(i byte) tuning.Candidate {
	b := make([]byte, dispatch.VendorAlgoBytes)
	b[0] = i
	return tuning.Candidate{SplitK: 1, Vendor: dispatch.Vendor{Algo: base64.StdEncoding.EncodeToString(b), Version: 120804}}
}

// VendorLibrary returns Lib.
func (g *VendorGPU) VendorLibrary() dispatch.VendorLibrary { return g.Lib }

// VendorAlgorithms records m and returns the first n of Algos.
func (g *VendorGPU) VendorAlgorithms(w tuning.Weight, m, n int) ([]tuning.Candidate, error) {
	g.mu.Lock()
	g.Asked = append(g.Asked, m)
	g.mu.Unlock()
	return g.Algos[:min(n, len(g.Algos))], nil
}

// VendorFits refuses c at M = Unfit[c] as the engine's planner would.
func (g *VendorGPU) VendorFits(w tuning.Weight, m int, c tuning.Candidate) error {
	if g.Unfit[c] == m {
		return fmt.Errorf("%w: %s: cuBLASLt rejects the algorithm: CUBLAS_STATUS_NOT_SUPPORTED", dispatch.ErrNoKernel, c)
	}
	return nil
}
