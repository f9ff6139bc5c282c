package main

import (
	"fmt"

	"github.com/gemmroute/gemmroute/kernels"
)

// instance is one template instantiation, compiled into every image.
type instance struct {
	family   string // decode_fma | decode_mma | tiled_mma | tiled_wgmma
	in, out  kernels.DType
	tm, tn   int // tokens and output columns per block
	vec      int // decode_fma: elements per load (8: 16-byte, 1: any alignment)
	lv       int // decode_mma: 16-byte vectors per lane per row and slice
	warps, u int // warps per block; decode: K slices loaded ahead
	// tiled_mma: K per k-tile, warps along M and along N (wm·wn = warps),
	// shared-memory stages, and 16-byte cp.async loads (aligned) or element
	// loads (any alignment, any K).
	// tiled_wgmma: BK is 64, a warpgroup per 64 rows of BM, cp.async loads.
	bk, wm, wn, stages int
	aligned            bool
}

// hopper reports whether the instance needs sm_90a (wgmma): it is compiled
// into the images built with -DGR_HOPPER only.
func (in instance) hopper() bool { return in.family == "tiled_wgmma" }

// imageSpec is one fatbin: the arch tag of its kernel names, the arch range
// its code runs on and the nvcc targets that give that range.
type imageSpec struct {
	file, tag        string
	minArch, maxArch kernels.Arch
	targets          []string
	flags            string
	hopper           bool // holds the sm_90a-only instances (flags define GR_HOPPER)
	smemLimit        int  // the largest opt-in shared memory of any device it serves
}

var images = []imageSpec{
	{file: "sm80.fatbin", tag: "sm80", minArch: kernels.SM80, maxArch: 0,
		targets:   []string{"sm_80", "compute_80"},
		flags:     "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80",
		smemLimit: 163 << 10},
	{file: "sm90.fatbin", tag: "sm90", minArch: kernels.SM90, maxArch: kernels.SM90,
		targets: []string{"sm_90a"},
		flags:   "-gencode arch=compute_90a,code=sm_90a -DGR_HOPPER", hopper: true,
		smemLimit: 227 << 10},
}

// commonFlags are the nvcc flags every image is built with.
const commonFlags = "-O3 -std=c++17 --fatbin -Xptxas -v"

// instances is the kernel set: the decode and tiled families in both dtypes.
func instances() []instance {
	var out []instance
	for _, dt := range []kernels.DType{kernels.BF16, kernels.F16} {
		// decode_fma, 16-byte loads: {tokens, columns, warps, stage rounds}.
		for _, c := range [][4]int{{1, 2, 8, 4}, {1, 4, 8, 2}, {1, 2, 4, 4}, {2, 4, 8, 2}, {4, 2, 8, 2}} {
			out = append(out, instance{family: "decode_fma", in: dt, out: dt, tm: c[0], tn: c[1], vec: 8, warps: c[2], u: c[3]})
		}
		// decode_fma, element loads: any alignment, any K.
		for _, c := range [][3]int{{1, 4, 4}, {4, 4, 2}, {16, 4, 1}} {
			out = append(out, instance{family: "decode_fma", in: dt, out: dt, tm: c[0], tn: c[1], vec: 1, warps: 8, u: c[2]})
		}
		// decode_mma: {tokens, columns, warps, stage slices, vectors per lane}.
		for _, c := range [][5]int{{8, 16, 8, 2, 1}, {8, 16, 4, 4, 1}, {16, 16, 8, 2, 1}, {16, 16, 4, 2, 1}, {16, 32, 8, 1, 1},
			{8, 16, 8, 2, 2}, {8, 16, 4, 2, 2}, {16, 16, 8, 2, 2}, {16, 16, 4, 2, 2}, {8, 16, 8, 4, 1},
			// 16 tokens × 32 columns with 128-byte row segments: half the
			// activation loads per weight byte of 16×16 (M = 9…16 gap).
			{16, 32, 4, 1, 2}, {16, 32, 8, 1, 2}} {
			out = append(out, instance{family: "decode_mma", in: dt, out: dt, tm: c[0], tn: c[1], warps: c[2], u: c[3], lv: c[4]})
		}
		// tiled_mma: {BM, BN, BK, warps along M, warps along N, stages}, with
		// cp.async, then with element loads.
		tiled := func(c [6]int, aligned bool) instance {
			return instance{family: "tiled_mma", in: dt, out: dt, tm: c[0], tn: c[1], bk: c[2], wm: c[3], wn: c[4],
				warps: c[3] * c[4], stages: c[5], aligned: aligned}
		}
		for _, c := range [][6]int{{16, 64, 64, 1, 4, 4}, {32, 128, 64, 1, 4, 4}, {64, 128, 32, 2, 2, 4}, {128, 128, 32, 2, 4, 4}, {128, 256, 32, 2, 4, 3}} {
			out = append(out, tiled(c, true))
		}
		for _, c := range [][6]int{{64, 64, 32, 2, 2, 2}, {128, 128, 32, 2, 4, 2}} {
			out = append(out, tiled(c, false))
		}
		// tiled_wgmma (sm_90a): {BM, BN, stages}; 64x… tiles leave room for
		// two blocks per SM, 128x… tiles take one.
		for _, c := range [][3]int{{64, 128, 4}, {64, 256, 3}, {128, 128, 5}, {128, 256, 4}} {
			out = append(out, instance{family: "tiled_wgmma", in: dt, out: dt, tm: c[0], tn: c[1], bk: 64,
				warps: c[0] / 16, stages: c[2], aligned: true})
		}
	}
	return out
}

var cuType = map[kernels.DType]string{kernels.BF16: "__nv_bfloat16", kernels.F16: "__half"}

func (in instance) tileK() int {
	switch in.family {
	case "decode_fma":
		return 32 * in.vec
	case "tiled_mma", "tiled_wgmma":
		return in.bk
	}
	return 32 * in.lv
}

func (in instance) align() int {
	if in.family == "decode_fma" && in.vec == 1 || in.family == "tiled_mma" && !in.aligned {
		return in.in.Size()
	}
	return 16
}

// suffix is the kernel name after "gemmroute_<arch>_".
func (in instance) suffix() string {
	depth := fmt.Sprintf("u%d", in.u) // decode: K slices per register stage
	if in.stages > 0 {
		depth = fmt.Sprintf("s%d", in.stages) // shared-memory stages
	}
	return fmt.Sprintf("%s_%s_%s_f32_tn_%dx%dx%d_w%d_%s_a%d", in.family, in.in, in.out, in.tm, in.tn, in.tileK(), in.warps, depth, in.align())
}

// call is the template call the extern "C" wrapper makes.
func (in instance) call() string {
	t, o := cuType[in.in], cuType[in.out]
	switch in.family {
	case "decode_fma":
		return fmt.Sprintf("gr::decode_fma<%s, %s, %d, %d, %d, %d, %d>(p)", t, o, in.tm, in.tn, in.vec, in.warps, in.u)
	case "tiled_mma":
		return fmt.Sprintf("gr::tiled_mma<%s, %s, %d, %d, %d, %d, %d, %d, %t>(p)", t, o, in.tm, in.tn, in.bk, in.wm, in.wn, in.stages, in.aligned)
	case "tiled_wgmma":
		return fmt.Sprintf("gr::tiled_wgmma<%s, %s, %d, %d, %d>(p)", t, o, in.tm, in.tn, in.stages)
	}
	return fmt.Sprintf("gr::decode_mma<%s, %s, %d, %d, %d, %d, %d>(p)", t, o, in.tm/8, in.tn/16, in.warps, in.u, in.lv)
}

// stageCount is the pipeline depth the manifest records (1: registers only).
func (in instance) stageCount() int { return max(in.stages, 1) }

// smemBytes is the dynamic shared memory a block uses: the tiled families'
// STAGES k-tiles of A and B, tiled_wgmma's with 1024 bytes to align them
// (the decode families use static shared memory only).
func (in instance) smemBytes() int {
	switch in.family {
	case "tiled_mma":
		return in.stages * (in.tm + in.tn) * in.bk * in.in.Size()
	case "tiled_wgmma":
		return in.stages*(in.tm+in.tn)*in.bk*in.in.Size() + 1024
	}
	return 0
}

func reduceSuffix(out kernels.DType) string { return fmt.Sprintf("splitk_reduce_f32_%s", out) }

// spec is the manifest entry of an instance in one image.
func (in instance) spec(im imageSpec) kernels.KernelSpec {
	a := in.align()
	return kernels.KernelSpec{
		Name: "gemmroute_" + im.tag + "_" + in.suffix(), Image: im.file, Family: in.family,
		MinArch: im.minArch, MaxArch: im.maxArch, In: in.in, Out: in.out, Layout: kernels.LayoutTN,
		TileM: in.tm, TileN: in.tn, TileK: in.tileK(), Stages: in.stageCount(), Threads: in.warps * 32, SmemBytes: in.smemBytes(),
		PtrAlign: a, LDAlign: a, KMultiple: a / in.in.Size(),
		MaxSplitK: 16, Reduction: kernels.ReduceWorkspace,
		ReduceKernel: "gemmroute_" + im.tag + "_" + reduceSuffix(in.out),
		IndexBits:    64,
		LoadBytes:    in.loadBytes(),
	}
}

// loadBytes is the weight bytes a thread loads per pipeline stage.
func (in instance) loadBytes() int {
	switch in.family {
	case "decode_fma":
		return in.u * in.tn * in.vec * in.in.Size()
	case "tiled_mma", "tiled_wgmma":
		return in.tn * in.bk * in.in.Size() / (in.warps * 32)
	}
	return in.u * in.lv * (in.tn / 16) * 2 * 16
}
