package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// The committed generated source must be what the instance list renders.
func TestInstancesCUUpToDate(t *testing.T) {
	got, err := os.ReadFile("../../src/instances_gen.cu")
	require.NoError(t, err)
	want, err := instancesCU()
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "kernels/src/instances_gen.cu is stale: run `go generate ./kernels`")
}

// The kernel bench's instance list is the generator's.
func TestKbenchInstancesUpToDate(t *testing.T) {
	want, err := kbenchInstances()
	require.NoError(t, err)
	got, err := os.ReadFile("../../../" + kbenchList)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "run go generate ./kernels")
	// every entry names all of X's 17 arguments once: SCHED, EPI and REL
	// each in its place, defaults included
	entries := 0
	for _, line := range strings.Split(string(want), "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "X(") {
			entries++
			args := strings.Split(strings.TrimSuffix(strings.TrimSuffix(l, " \\"), ")"), ", ")
			require.Len(t, args, 17, l)
			require.True(t, strings.HasPrefix(args[12], "gr::ws_schedule") || strings.HasPrefix(args[12], "gr::ws_stream_k") || args[12] == "gr::ws_split_fixed", l)
			require.True(t, strings.HasPrefix(args[13], "gr::ws_epi_"), l)
			require.True(t, strings.HasPrefix(args[14], "gr::ws_release_") || args[14] == "gr::ws_promote_lagged", l)
		}
	}
	require.NotZero(t, entries)
}

// The manifest must list what the instance list declares, with the digests
// of the committed images.
func TestManifestListsInstances(t *testing.T) {
	var m kernels.Manifest
	b, err := os.ReadFile("../../manifest.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	regs := map[string]int{}
	for _, k := range m.Kernels {
		regs[k.Name] = k.Registers
	}
	digests, err := imageDigests(os.DirFS("../../images"))
	require.NoError(t, err)
	want, err := manifestJSON(buildInfo{hash: m.SourceHash, nvcc: m.NVCC, date: m.Built, registers: regs, digests: digests})
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(b), "kernels/manifest.json is stale: run `go generate ./kernels`")
}

// The fatbins must have been built from the sources as they are now.
func TestFatbinsBuiltFromCurrentSources(t *testing.T) {
	cat, err := kernels.ParseManifest(kernels.ManifestJSON)
	require.NoError(t, err)
	h, err := kernels.SourceHash(os.DirFS("../../src"))
	require.NoError(t, err)
	require.Equal(t, h, cat.Manifest().SourceHash,
		"kernel sources changed since the fatbins were built: run `bash kernels/build.sh` on a machine with nvcc ≥ 12 and commit kernels/images and kernels/manifest.json")
	for _, im := range cat.Manifest().Images {
		fi, err := kernels.Images.Open("images/" + im.File)
		require.NoError(t, err, "image %s missing", im.File)
		st, err := fi.Stat()
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(1024), "image %s is empty", im.File)
	}
}

// Every tiled_mma instance satisfies the template's static_asserts (so a
// bad tile fails here, not in nvcc on the GPU runner) and its manifest entry
// says what tiled_mma.cuh's header promises.
func TestTiledInstances(t *testing.T) {
	list, err := instances()
	require.NoError(t, err)
	cu, err := instancesCU()
	require.NoError(t, err)
	perDType := map[kernels.DType][]string{}
	for _, in := range list {
		a, ok := in.args.(tiledMMAArgs)
		if !ok {
			continue
		}
		require.Equal(t, &tiledMMA, in.family())
		name := in.suffix()
		perDType[in.in] = append(perDType[in.in], name[len("tiled_mma_")+len(in.in.String()+"_"+in.out.String()):])
		tl := in.args.tile()
		threads, cpr := tl.warps*32, a.bk/8
		require.Equal(t, a.wm*a.wn, tl.warps, name)
		require.Equal(t, [4]int{a.bm, a.bn, a.bk, a.stages}, [4]int{tl.bm, tl.bn, tl.bk, tl.depth}, name)
		require.Zero(t, a.bm%(16*a.wm), "%s: warp tile rows are a multiple of 16", name)
		require.Zero(t, a.bn%(16*a.wn), "%s: warp tile columns are a multiple of 16", name)
		require.True(t, a.bk >= 16 && a.bk&(a.bk-1) == 0, "%s: BK is a power of two ≥ 16", name)
		require.GreaterOrEqual(t, a.stages, 2, name)
		step := threads / cpr
		require.Zero(t, threads%cpr, name)
		require.Zero(t, a.bm%step, "%s: the threads tile A's chunks", name)
		require.Zero(t, a.bn%step, "%s: the threads tile B's chunks", name)

		k := in.spec(images[0])
		require.Equal(t, a.stages*(a.bm+a.bn)*a.bk*in.in.Size(), k.SmemBytes, name)
		require.LessOrEqual(t, k.SmemBytes, images[0].smemLimit, "%s: fits sm_80's opt-in shared memory", name)
		require.Equal(t, a.stages, k.Stages, name)
		require.Equal(t, a.bn*a.bk*in.in.Size()/threads, k.LoadBytes, name)
		require.Equal(t, 16, k.MaxSplitK, name)
		require.Equal(t, 64, k.IndexBits, name)
		if a.aligned {
			require.Equal(t, [3]int{16, 16, 8}, [3]int{k.PtrAlign, k.LDAlign, k.KMultiple}, name)
		} else {
			require.Equal(t, [3]int{in.in.Size(), in.in.Size(), 1}, [3]int{k.PtrAlign, k.LDAlign, k.KMultiple}, name)
		}
		require.Contains(t, string(cu), fmt.Sprintf("__launch_bounds__(%d) GR_NAME(GR_ARCH, %s)", threads, name))
	}
	require.NotEmpty(t, perDType[kernels.BF16])
	require.Equal(t, perDType[kernels.BF16], perDType[kernels.F16], "both dtypes get the same tiles")
}

// Each family's check refuses what its template's static_asserts refuse.
func TestArgsChecks(t *testing.T) {
	for _, a := range []kernelArgs{
		decodeFMAArgs{bm: 1, bn: 2, vec: 4, warps: 8, u: 2},
		decodeMMAArgs{bm: 12, bn: 16, warps: 8, u: 2, lv: 1},
		decodeMMAArgs{bm: 8, bn: 24, warps: 8, u: 2, lv: 1},
		tiledMMAArgs{bm: 24, bn: 64, bk: 32, wm: 1, wn: 4, stages: 3, aligned: true},                                     // warp tile rows 24
		tiledMMAArgs{bm: 64, bn: 64, bk: 48, wm: 2, wn: 2, stages: 3, aligned: true},                                     // BK not a power of two
		tiledMMAArgs{bm: 64, bn: 64, bk: 32, wm: 2, wn: 2, stages: 1, aligned: true},                                     // one stage
		tiledMMAArgs{bm: 16, bn: 256, bk: 32, wm: 1, wn: 8, stages: 3, aligned: true},                                    // 64-row steps over a 16-row tile
		tiledWGMMAArgs{bm: 32, bn: 128, stages: 4},                                                                       // half a warpgroup
		tiledWGMMAArgs{bm: 64, bn: 192, stages: 4},                                                                       // not n128 wgmma
		tiledWGMMAArgs{bm: 64, bn: 128, stages: 2},                                                                       // too shallow
		wsWGMMAArgs{f: &wsWGMMA, bm: 320, bn: 128, stages: 2, kb: 1},                                                     // five consumers
		wsWGMMAArgs{f: &wsWGMMASK, bm: 256, bn: 128, stages: 4, kb: 1},                                                   // stream-K's fixup of 128 rows
		wsWGMMAArgs{f: &wsWGMMASwap, bm: 64, bn: 256, stages: 4, kb: 1},                                                  // 256 weight rows
		wsWGMMAArgs{f: &wsWGMMA, bm: 256, bn: 128, stages: 4, kb: 1, fp8: true},                                          // e4m3 at BM = 256
		wsWGMMAArgs{f: &wsWGMMA, bm: 128, bn: 80, stages: 4, kb: 1},                                                      // no n80 wgmma here
		wsWGMMAArgs{f: &wsWGMMASwap, bm: 24, bn: 128, stages: 4, kb: 1},                                                  // n24 and a partial atom
		wsWGMMAArgs{f: &wsWGMMASwapTS, bm: 64, bn: 256, stages: 4, kb: 1},                                                // 256 weight rows, TMA-stored
		wsWGMMAArgs{f: &wsWGMMASwap, bm: 64, bn: 64, stages: 1, kb: 1},                                                   // one stage
		wsWGMMAArgs{f: &wsWGMMASwap, bm: 64, bn: 64, stages: 4, kb: 0},                                                   // no box per stage
		decodeFMAArgs{bm: 1, bn: 4, vec: 8, warps: 8, u: 2, fp8: true},                                                   // 8-byte e4m3 loads
		wsWGMMAArgs{f: &wsWGMMAB128, bm: 128, bn: 128, stages: 4, kb: 1},                                                 // block scales on 16-bit inputs
		wsWGMMAArgs{f: &wsWGMMAB128, bm: 128, bn: 256, stages: 4, kb: 1, fp8: true},                                      // two B blocks per consumer
		wsWGMMAArgs{f: &wsWGMMA, bm: 128, bn: 256, stages: 4, kb: 1, fp8: true},                                          // no registers to promote
		wsWGMMAArgs{f: &wsWGMMAPP, bm: 128, bn: 128, stages: 6, kb: 1, fp8: true},                                        // ping-pong cannot promote
		wsWGMMAArgs{f: &wsWGMMASwapB128, bm: 16, bn: 128, stages: 4, kb: 2, fp8: true},                                   // two k-blocks per k-tile
		wsWGMMAArgs{f: testFamily(wsWith(wsWGMMAPPTS, wsRel, "gr::ws_release_now")), bm: 128, bn: 128, stages: 4, kb: 1}, // release-now in ping-pong
		wsWGMMAArgs{f: testFamily(wsTMAStore(wsWGMMARP, true)), bm: 128, bn: 128, stages: 4, kb: 1},                      // TMA store of a repack kernel (not yet)
		wsWGMMAArgs{f: &wsWGMMATS, bm: 128, bn: 16, stages: 4, kb: 1},                                                    // BN not whole 32-column boxes
		wsWGMMAArgs{f: &wsWGMMASwapWFTS, bm: 128, bn: 128, stages: 4, kb: 1},                                             // a wave-fitted family's tile of 128 tokens
	} {
		assert.Error(t, a.check(), "%s %+v", a.family().name, a)
	}
}

// Every family is used, its header is in kernels/src and defines its
// template; the tiled families' raster group is the header's RASTER_GROUP.
func TestFamilies(t *testing.T) {
	list, err := instances()
	require.NoError(t, err)
	used := map[*family]bool{}
	for _, in := range list {
		used[in.family()] = true
	}
	names := map[string]bool{}
	for _, f := range families {
		assert.True(t, used[f], "%s has no instance", f.name)
		assert.False(t, names[f.name], "%s named twice", f.name)
		names[f.name] = true
		b, err := os.ReadFile("../../src/" + f.header)
		require.NoError(t, err, f.name)
		assert.Contains(t, string(b), "__device__ void "+strings.TrimPrefix(f.template, "gr::")+"(", "%s: %s defines %s", f.name, f.header, f.template)
		assert.Greater(t, f.maxSplitK, 0, f.name)
	}
	b, err := os.ReadFile("../../src/" + splitkReduce.header)
	require.NoError(t, err)
	assert.Contains(t, string(b), "__device__ void "+strings.TrimPrefix(splitkReduce.template, "gr::")+"(")
	b, err = os.ReadFile("../../src/" + repackKernel.header)
	require.NoError(t, err)
	assert.Contains(t, string(b), "__device__ inline void "+strings.TrimPrefix(repackKernel.template, "gr::")+"(")
	cu, err := instancesCU()
	require.NoError(t, err)
	assert.Contains(t, string(cu), "#if defined(GR_HOPPER)\nextern \"C\" __global__ void __launch_bounds__(256) GR_NAME(GR_ARCH, repack_b16)",
		"the repack kernel, in the sm_90a image (its kernels')")

	raster, err := os.ReadFile("../../src/" + rasterHeader)
	require.NoError(t, err)
	m := regexp.MustCompile(`constexpr int RASTER_GROUP = (\d+);`).FindSubmatch(raster)
	require.NotNil(t, m, "%s defines RASTER_GROUP", rasterHeader)
	assert.Equal(t, string(m[1]), strconv.Itoa(rasterGroup))
}

// Every ws_wgmma instance's manifest entry says what ws_wgmma.cuh's header
// promises (TMA boxes, shared memory, threads, alignment, k-tile), and its
// wrapper takes the parameters as a __grid_constant__ under a one-block
// register cap.
func TestWSInstances(t *testing.T) {
	list, err := instances()
	require.NoError(t, err)
	cu, err := instancesCU()
	require.NoError(t, err)
	seen, seen8 := map[bool]int{}, map[bool]int{}
	for _, in := range list {
		a, ok := in.args.(wsWGMMAArgs)
		if !ok {
			continue
		}
		seen[a.swap()]++
		name := in.suffix()
		k := in.spec(images[1])
		box := [2]int{a.bm, a.bn}
		switch {
		case a.mc2(): // each block of the cluster loads half of B's box for both
			box[1] /= 2
		case a.mc2n(): // clusters along N: half of A's box
			box[0] /= 2
		}
		require.Equal(t, box, k.TMABox, name)
		require.Equal(t, a.mc2() || a.mc2n(), k.Persistent && k.Cluster == 2, name)
		require.Equal(t, a.mc2n(), k.ClusterAlongN, name)
		staging := 0
		if a.ts() { // D's staging buffer: 64 x COLS 16-bit elements per consumer after the ring
			staging = a.consumers() * 64 * a.cols() * 2
			cols, rows := 64, 64 // a consumer's rows of D; with SWAP the tile's tokens
			if a.swap() {
				rows = a.bm
			} else if a.bn%64 != 0 {
				cols = 32 // 96-wide tiles: three boxes of 32 columns
			}
			require.Equal(t, [2]int{cols, rows}, k.TMAStoreBox, name)
			require.Equal(t, [2]int{16, 16}, [2]int{k.DPtrAlign, k.DLDAlign}, name)
			require.True(t, (k.Persistent || a.swap()) && k.Experimental, name)
			require.Contains(t, string(cu), "gr::ws_epi_tma>(p); }", name)
			require.Contains(t, string(cu), fmt.Sprintf("GR_NAME(GR_ARCH, %s)(const __grid_constant__ gr_gemm_params p) { gr::ws_wgmma<", name))
		} else {
			require.Zero(t, k.TMAStoreBox, name)
			require.Zero(t, k.DPtrAlign+k.DLDAlign, name)
		}
		require.Equal(t, a.stages*a.kb*(a.bm+a.bn)*128+1024+staging, k.SmemBytes, name)
		require.LessOrEqual(t, k.SmemBytes, images[1].smemLimit, name)
		require.Equal(t, (a.consumers()+1)*128, k.Threads, name)
		elem := in.in.Size()
		require.Equal(t, 128/elem*a.kb, k.TileK, name)
		if a.rp() { // the repack copies at a 16-byte pitch: any alignment, any K
			require.Equal(t, [3]int{elem, elem, 1}, [3]int{k.PtrAlign, k.LDAlign, k.KMultiple}, name)
			require.Equal(t, "gemmroute_sm90_repack_b16", k.RepackKernel, name)
		} else {
			require.Equal(t, [3]int{16, 16, 16 / elem}, [3]int{k.PtrAlign, k.LDAlign, k.KMultiple}, name)
			require.Empty(t, k.RepackKernel, name)
		}
		if a.sk() { // stream-K: persistent, its own reduction, no split-K factor
			want := kernels.ReduceStreamK
			if a.tp() {
				want = kernels.ReduceStreamKParts
			}
			require.Equal(t, [3]any{want, 1, true}, [3]any{k.Reduction, k.MaxSplitK, k.Persistent}, name)
			require.Contains(t, string(cu), "gr::ws_stream_k>(p); }", name)
		} else if a.ks() { // fixed split: persistent, the plan's split-K summed in the kernel, no reduce launch
			require.Equal(t, [4]any{kernels.ReduceSplitFixed, 16, true, ""}, [4]any{k.Reduction, k.MaxSplitK, k.Persistent, k.ReduceKernel}, name)
			require.Contains(t, string(cu), "gr::ws_split_fixed, gr::ws_epi_tma>(p); }", name)
		} else {
			require.Equal(t, kernels.ReduceWorkspace, k.Reduction, name)
		}
		// interleaved split-K: the split-K kernels' launch (workspace, split
		// factor, dispatch grid), the family's descriptor says so, and the
		// wrapper names gr::ws_schedule_il
		require.Equal(t, a.il(), strings.HasPrefix(name, "ws_wgmma_il_"), name)
		if a.il() {
			require.Equal(t, [3]any{kernels.ReduceWorkspace, 16, false}, [3]any{k.Reduction, k.MaxSplitK, k.Persistent}, name)
			require.True(t, k.Experimental, name)
			require.Contains(t, string(cu), fmt.Sprintf("GR_NAME(GR_ARCH, %s)(const __grid_constant__ gr_gemm_params p) { gr::ws_wgmma<%s, %s, %d, %d, %d, 1, 1, 1, gr::ws_ab, gr::ws_cooperative, gr::ws_scales_after, gr::ws_schedule_il>(p); }",
				name, cuType[in.in], cuType[in.out], a.bm, a.bn, a.stages), name)
		}
		// lagged promotion: e4m3 only, the wrapper names gr::ws_promote_lagged
		// in REL's place, and the class is its twin's (the parts are added in
		// k-tile order)
		require.Equal(t, a.lp(), strings.Contains(name, "_lp_ts_"), name)
		if a.lp() {
			require.Equal(t, kernels.E4M3, in.in, name)
			require.True(t, k.Experimental, name)
			require.Contains(t, string(cu), fmt.Sprintf("GR_NAME(GR_ARCH, %s)(const __grid_constant__ gr_gemm_params p) { gr::ws_wgmma<%s, %s, %d, %d, %d, %d, 1, 1, %s, gr::ws_cooperative, gr::ws_scales_after, gr::ws_schedule, gr::ws_epi_tma, gr::ws_promote_lagged>(p); }",
				name, cuType[in.in], cuType[in.out], a.bm, a.bn, a.stages, a.nacc(), a.f.ws.policies[wsRole]), name)
			twin := a
			twin.f = &wsWGMMATS
			if a.swap() {
				twin.f = &wsWGMMASwapTS
			}
			require.Equal(t, twin.class(), a.class(), name)
		}
		require.Contains(t, string(cu), fmt.Sprintf("__launch_bounds__(%d, 1)%s GR_NAME(GR_ARCH, %s)(const __grid_constant__ gr_gemm_params p)", k.Threads, in.clusterDims(), name))
		require.Equal(t, 0, (4*a.kb)%a.nacc(), "%s: the wgmma steps spread evenly over the accumulator sets", name)
		if in.in == kernels.E4M3 {
			require.Equal(t, a.family().scalings, k.Scalings, name)
			require.NotEqual(t, a.b128(), slices.Contains(k.Scalings, kernels.ScalingRow), name)
		} else {
			require.Empty(t, k.Scalings, name)
		}
		seen8[a.fp8 && a.b128()]++
	}
	require.NotZero(t, seen8[true], "ws_wgmma b128 instances")
	// the TMA-store kernels are named by their family (_ts), and the name says the spec
	for _, in := range list {
		if a, ok := in.args.(wsWGMMAArgs); ok {
			require.Equal(t, a.ts(), strings.HasSuffix(a.family().name, "_ts"), in.suffix())
		}
	}
	il := 0
	for _, in := range list {
		if a, ok := in.args.(wsWGMMAArgs); ok && a.il() {
			il++
		}
	}
	require.Equal(t, 4, il, "ws_wgmma_il: 128x96 and 128x64, bf16 and f16")
	require.NotZero(t, seen[false], "ws_wgmma instances")
	require.NotZero(t, seen[true], "ws_wgmma_swap instances")
}

// tmaArgs is tiled_wgmma's arguments under a family that loads through
// tensor maps.
type tmaArgs struct {
	tiledWGMMAArgs
	f *family
}

func (a tmaArgs) family() *family { return a.f }

// A family with a tmaBox writes it into its kernels' manifest entries, which
// the catalog then reads as TMA kernels; the others write none.
func TestSpecTMABox(t *testing.T) {
	f := tiledWGMMA
	f.name = "tma_test"
	f.tmaBox = func(t tile) [2]int { return [2]int{t.bm, t.bn} }
	k := instance{in: kernels.BF16, out: kernels.BF16, args: tmaArgs{tiledWGMMAArgs{bm: 128, bn: 256, stages: 4}, &f}}.spec(images[1])
	assert.Equal(t, [2]int{128, 256}, k.TMABox)
	assert.True(t, k.TMA())
	k.Digest = kernels.DigestOf(nil) // not built
	img := kernels.Image{File: images[1].file, Targets: images[1].targets, SmemLimit: images[1].smemLimit}
	_, err := kernels.NewCatalog(kernels.Manifest{Schema: kernels.SchemaVersion, Images: []kernels.Image{img}, Kernels: []kernels.KernelSpec{k}})
	require.NoError(t, err)

	plain := instance{in: kernels.BF16, out: kernels.BF16, args: tiledWGMMAArgs{bm: 128, bn: 256, stages: 4}}.spec(images[1])
	assert.False(t, plain.TMA())
}

// gen -images prints one "FILE TAG FLAGS" line per image of the manifest,
// with the flags the manifest records, for build.sh.
func TestImageFlags(t *testing.T) {
	var b strings.Builder
	require.NoError(t, writeImageFlags(&b))
	var m kernels.Manifest
	data, err := os.ReadFile("../../manifest.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &m))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, len(m.Images))
	for i, im := range m.Images {
		file, rest, _ := strings.Cut(lines[i], " ")
		_, flags, _ := strings.Cut(rest, " ")
		assert.Equal(t, im.File, file)
		assert.Equal(t, im.Flags, strings.TrimSpace(flags), im.File)
	}
}

// Every instance but the stream-K ones states a reduction class; the
// classes follow the order each template sums K in (class.go): decode_fma
// by VEC and warps, decode_mma by LV and warps whatever its load policy,
// ws_wgmma by its chains, tiled_wgmma with ws_wgmma's single chain.
func TestReductionClasses(t *testing.T) {
	list, err := instances()
	require.NoError(t, err)
	for _, in := range list {
		a, sk := in.args.(wsWGMMAArgs)
		sk = sk && a.sk()
		assert.Equal(t, sk, in.args.class() == "", "%s: stream-K kernels and only they have no class", in.suffix())
		if c := in.args.class(); c != "" {
			assert.True(t, kernels.ValidClass(c), "%s: class %q", in.suffix(), c)
		}
	}
	for _, c := range []struct {
		args kernelArgs
		want string
	}{
		{decodeFMAArgs{bm: 1, bn: 2, vec: 8, warps: 8, u: 4}, "fma.v8.w8"},
		{decodeFMAArgs{bm: 4, bn: 2, vec: 8, warps: 8, u: 2}, "fma.v8.w8"},
		{decodeMMAArgs{bm: 16, bn: 32, warps: 4, u: 1, lv: 2}, "mma16.slice.lv2.w4"},
		{decodeMMAArgs{bm: 8, bn: 16, warps: 4, u: 2, lv: 2, ld: ldStream}, "mma16.slice.lv2.w4"},
		{tiledMMAArgs{bm: 128, bn: 128, bk: 32, wm: 2, wn: 4, stages: 4, aligned: true}, "mma16.seq"},
		{tiledWGMMAArgs{bm: 128, bn: 256, stages: 4}, "wgmma16.seq"},
		{wsWGMMAArgs{f: &wsWGMMA, bm: 128, bn: 256, stages: 4, kb: 1}, "wgmma16.seq"},
		{wsWGMMAArgs{f: &wsWGMMAPPMC2, bm: 128, bn: 128, stages: 6, kb: 1}, "wgmma16.seq"},
		{wsWGMMAArgs{f: &wsWGMMASwap, bm: 16, bn: 64, stages: 16, kb: 1}, "wgmma16.nacc4"},
		{wsWGMMAArgs{f: &wsWGMMASwap, bm: 64, bn: 128, stages: 4, kb: 2}, "wgmma16.nacc4"},
		{wsWGMMAArgs{f: &wsWGMMASwap, bm: 128, bn: 128, stages: 6, kb: 1}, "wgmma16.nacc2"},
		{wsWGMMAArgs{f: &wsWGMMASwapSqTS, bm: 16, bn: 128, stages: 12, kb: 1}, "wgmma16.seq"}, // one chain: ws_wgmma_ts's K order
		{wsWGMMAArgs{f: &wsWGMMASwap, bm: 32, bn: 128, stages: 8, kb: 1, fp8: true}, "wgmma32.p128.nacc4"},
		{wsWGMMAArgs{f: &wsWGMMASK, bm: 128, bn: 128, stages: 6, kb: 1}, ""},
	} {
		assert.Equal(t, c.want, c.args.class(), "%+v", c.args)
	}
}

// A ws_wgmma family's name is its variant: each word after "ws_wgmma"
// names one thing its descriptor fixes (wsSpec, the policies, clusters,
// stream-K, repack, block scales), and every word is one of them.
func TestWSFamilyNames(t *testing.T) {
	n := 0
	for _, f := range families {
		if f.header != "ws_wgmma.cuh" {
			continue
		}
		n++
		a := wsWGMMAArgs{f: f}
		words := strings.Split(strings.TrimPrefix(f.name, "ws_wgmma"), "_")[1:]
		variant := map[string]bool{"swap": a.swap(), "pp": a.pp(), "b128": a.b128(), "mc2": a.mc2(), "mc2n": a.mc2n(),
			"sk": a.sk(), "tp": a.tp(), "ks": a.ks(), "rp": a.rp(), "ts": a.ts(), "il": a.il(), "sh": a.sh(), "wf": a.wf(), "sq": a.sq(), "rn": a.rn(), "lp": a.lp(), "ex": a.ex()}
		for w, on := range variant {
			assert.Equal(t, on, slices.Contains(words, w), "%s: %s", f.name, w)
		}
		for _, w := range words {
			assert.Contains(t, variant, w, "%s: a word that names nothing", f.name)
		}
		assert.Equal(t, a.pp() || a.sk() || a.mc2() || a.mc2n() || a.ts() && !a.swap(), f.persistent, "%s: persistent", f.name)
		assert.Equal(t, slices.Contains(f.scalings, kernels.ScalingBlock), a.b128(), "%s: block scales and ws_scales_block128 go together", f.name)
	}
	require.NotZero(t, n, "ws_wgmma families")
}

// testFamily is a family descriptor no instance uses, for a check that
// must refuse it.
func testFamily(f family) *family { return &f }
