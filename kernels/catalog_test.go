package kernels

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewCatalogErrors edits one valid kernel per case and checks that the
// manifest is refused with ErrManifest and a message naming the rule.
func TestNewCatalogErrors(t *testing.T) {
	valid := func() KernelSpec {
		return KernelSpec{Name: "k90_bf16", Image: "sm90.fatbin", Family: "test", MinArch: SM90, In: BF16, Out: BF16,
			Layout: LayoutTN, TileM: 16, TileN: 64, TileK: 64, Stages: 2, Threads: 128,
			PtrAlign: 16, LDAlign: 16, KMultiple: 8, MaxSplitK: 4, Reduction: ReduceWorkspace,
			ReduceKernel: "reduce_f32", IndexBits: 32,
			Model:  Model{Kind: ModelTiled, RateShare: 0.5, StreamShare: 0.8, RasterGroup: 8},
			Digest: DigestOf([]byte("k90_bf16"))}
	}
	manifest := func(ks ...KernelSpec) Manifest {
		return Manifest{Schema: SchemaVersion, Images: []Image{{File: "sm90.fatbin", SmemLimit: 227 << 10}}, Kernels: ks}
	}
	_, err := NewCatalog(manifest(valid()))
	require.NoError(t, err)
	ts := valid()
	ts.TMABox, ts.TMAStoreBox, ts.DPtrAlign, ts.DLDAlign = [2]int{16, 64}, [2]int{64, 64}, 16, 16
	_, err = NewCatalog(manifest(ts))
	require.NoError(t, err, "a TMA-store kernel")
	for _, ss := range [][]Scaling{{ScalingTensor}, {ScalingRow, ScalingTensor}, {ScalingBlock}} {
		k := valid()
		k.In, k.Scalings = E4M3, ss
		_, err := NewCatalog(manifest(k))
		require.NoError(t, err, "e4m3 kernel taking %v", ss)
	}

	cases := []struct {
		name   string
		edit   func(k *KernelSpec)
		phrase string
	}{
		{"no name", func(k *KernelSpec) { k.Name = "" }, "has no name"},
		{"no digest", func(k *KernelSpec) { k.Digest = "" }, `digest "": a digest is "sha256:" and 64 lowercase hex digits`},
		{"short digest", func(k *KernelSpec) { k.Digest = k.Digest[:70] }, "a digest is"},
		{"upper-case digest", func(k *KernelSpec) { k.Digest = strings.ToUpper(k.Digest) }, "a digest is"},
		{"digest of another hash", func(k *KernelSpec) { k.Digest = "md5:" + k.Digest[7:] }, "a digest is"},
		{"newline in name", func(k *KernelSpec) { k.Name = "k\n" }, "a kernel name is ASCII letters"},
		{"space in name", func(k *KernelSpec) { k.Name = "k 90" }, "a kernel name is ASCII letters"},
		{"leading digit", func(k *KernelSpec) { k.Name = "90k" }, "a kernel name is ASCII letters"},
		{"unknown image", func(k *KernelSpec) { k.Image = "sm100.fatbin" }, `image "sm100.fatbin" is not among`},
		{"layout", func(k *KernelSpec) { k.Layout = "nn" }, "layout must be tn"},
		{"zero tile", func(k *KernelSpec) { k.TileK = 0 }, "tile sizes and threads must be positive"},
		{"too many threads", func(k *KernelSpec) { k.Threads = 2048 }, "threads ≤ 1024"},
		{"zero alignment", func(k *KernelSpec) { k.PtrAlign = 0 }, "ptr_align, ld_align and k_multiple must be positive"},
		{"zero split", func(k *KernelSpec) { k.MaxSplitK = 0 }, "max_split_k must be in [1, 1024]"},
		{"absurd split", func(k *KernelSpec) { k.MaxSplitK = 1 << 62 }, "max_split_k must be in [1, 1024]"}, // overflowed the workspace check
		{"split without reduce kernel", func(k *KernelSpec) { k.ReduceKernel = "" }, "split-K kernels need"},
		{"reduction without split", func(k *KernelSpec) { k.MaxSplitK = 1 }, `reduction "none"`},
		{"class with a capital", func(k *KernelSpec) { k.ReductionClass = "WGMMA16.seq" }, `reduction_class "WGMMA16.seq": a reduction class is`},
		{"class with a space", func(k *KernelSpec) { k.ReductionClass = "mma16 seq" }, "a reduction class is"},
		{"stream-K with a class", func(k *KernelSpec) {
			k.MaxSplitK, k.Reduction, k.ReduceKernel, k.Persistent, k.ReductionClass = 1, ReduceStreamK, "", true, "wgmma16.seq"
		}, "stream-K kernels have no reduction_class"},
		{"index bits", func(k *KernelSpec) { k.IndexBits = 16 }, "index_bits must be 32 or 64"},
		{"output dtype", func(k *KernelSpec) { k.Out = E4M3 }, "dtypes bf16→e4m3: e4m3: bf16 inputs produce bf16"},
		{"f32 input", func(k *KernelSpec) { k.In = F32 }, "dtypes f32→bf16: f32 is not an input type"}, // f32 is only split-K's partials
		{"tma box too tall", func(k *KernelSpec) { k.TMABox = [2]int{64, 512} }, "tma_box rows must be in [1, 256]"},
		{"cluster along N without a cluster", func(k *KernelSpec) { k.ClusterAlongN = true }, "cluster_along_n needs a cluster of 2"},
		{"tma box with a small alignment", func(k *KernelSpec) { k.TMABox, k.LDAlign = [2]int{64, 64}, 2 }, "TMA kernels need ptr_align and ld_align"},
		{"tma store without tma loads", func(k *KernelSpec) { k.TMAStoreBox, k.DPtrAlign, k.DLDAlign = [2]int{64, 64}, 16, 16 }, "TMA-store kernels load through TMA"},
		{"tma store without D alignment", func(k *KernelSpec) { k.TMABox, k.TMAStoreBox, k.DPtrAlign = [2]int{64, 64}, [2]int{64, 64}, 16 }, "need d_ptr_align and d_ld_align of at least 16"},
		{"tma store box wider than the swizzle", func(k *KernelSpec) {
			k.TMABox, k.TMAStoreBox, k.DPtrAlign, k.DLDAlign = [2]int{64, 64}, [2]int{128, 64}, 16, 16
		}, "at most 128 bytes of columns"},
		{"D alignment not a power of two", func(k *KernelSpec) { k.DLDAlign = 24 }, "d_ptr_align and d_ld_align must be 0 or powers of two"},
		{"no min_arch", func(k *KernelSpec) { k.MinArch = 0 }, "min_arch must be in [sm_80, sm_200]"},
		{"max_arch below min_arch", func(k *KernelSpec) { k.MaxArch = SM80 }, "max_arch must be 0"},
		{"absurd tile", func(k *KernelSpec) { k.TileK = 1 << 62 }, "at most 4096"},
		{"negative stages", func(k *KernelSpec) { k.Stages = -5 }, "stages must be in [1, 16]"},
		{"absurd registers", func(k *KernelSpec) { k.Registers = 1 << 56 }, "registers in [0, 255]"},
		{"alignment not a power of two", func(k *KernelSpec) { k.PtrAlign = 3 }, "powers of two"},
		{"negative shared memory", func(k *KernelSpec) { k.SmemBytes = -1 }, "smem_bytes -1 outside"},
		{"shared memory over the image's limit", func(k *KernelSpec) { k.SmemBytes = 228 << 10 }, "the image's smem_limit"},
		{"no model", func(k *KernelSpec) { k.Model = Model{} }, `model kind "" is not "decode" or "tiled"`},
		{"unknown model kind", func(k *KernelSpec) { k.Model.Kind = "tiled_mma" }, `model kind "tiled_mma" is not`},
		{"zero rate share", func(k *KernelSpec) { k.Model.RateShare = 0 }, "model rate_share 0 outside (0, 1]"},
		{"rate share over peak", func(k *KernelSpec) { k.Model.RateShare = 1.5 }, "model rate_share 1.5 outside (0, 1]"},
		{"NaN stream share", func(k *KernelSpec) { k.Model.StreamShare = math.NaN() }, "model stream_share NaN outside (0, 1]"},
		{"zero raster group", func(k *KernelSpec) { k.Model.RasterGroup = 0 }, "model raster_group 0 must be ≥ 1"},
		{"scalings on a 16-bit kernel", func(k *KernelSpec) { k.Scalings = []Scaling{ScalingTensor} }, "only e4m3 kernels take scales (a bf16 kernel lists none)"},
		{"e4m3 without scalings", func(k *KernelSpec) { k.In = E4M3 }, "an e4m3 kernel lists the scalings it applies"},
		{"e4m3 with an empty scaling list", func(k *KernelSpec) { k.In, k.Scalings = E4M3, []Scaling{} }, "an e4m3 kernel lists the scalings it applies"},
		{"unknown scaling", func(k *KernelSpec) { k.In, k.Scalings = E4M3, []Scaling{ScalingRow, 7} }, "scalings: scaling(7) is not a scaling mode"},
		{"scaling listed twice", func(k *KernelSpec) { k.In, k.Scalings = E4M3, []Scaling{ScalingRow, ScalingTensor, ScalingRow} }, "scalings: row listed twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := valid()
			c.edit(&k)
			_, err := NewCatalog(manifest(k))
			require.ErrorIs(t, err, ErrManifest)
			assert.Contains(t, err.Error(), c.phrase)
		})
	}
	t.Run("listed twice", func(t *testing.T) {
		_, err := NewCatalog(manifest(valid(), valid()))
		require.ErrorIs(t, err, ErrManifest)
		assert.Contains(t, err.Error(), "listed twice")
	})
	t.Run("schema version", func(t *testing.T) {
		m := manifest(valid())
		m.Schema = 1
		_, err := NewCatalog(m)
		require.ErrorIs(t, err, ErrManifest)
		assert.Contains(t, err.Error(), fmt.Sprintf("schema 1, this build reads schema %d", SchemaVersion))
	})
	t.Run("image without smem_limit", func(t *testing.T) {
		m := manifest(valid())
		m.Images[0].SmemLimit = 0
		_, err := NewCatalog(m)
		require.ErrorIs(t, err, ErrManifest)
		assert.Contains(t, err.Error(), "smem_limit must be in [1,")
	})
	for _, c := range []struct{ name, file, phrase string }{
		{"image in a parent directory", "../sm90.fatbin", "plain file name"},
		{"image with a directory", "x/sm90.fatbin", "plain file name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := valid()
			k.Image = c.file
			m := manifest(k)
			m.Images[0].File = c.file
			_, err := NewCatalog(m)
			require.ErrorIs(t, err, ErrManifest)
			assert.Contains(t, err.Error(), c.phrase)
		})
	}
	t.Run("no kernels", func(t *testing.T) {
		_, err := NewCatalog(manifest())
		require.ErrorIs(t, err, ErrManifest)
		assert.Contains(t, err.Error(), "at least one image and one kernel")
	})
}

// Native tells SASS that runs on an arch from code that needs JIT there.
func TestImageNative(t *testing.T) {
	sm80 := Image{Targets: []string{"sm_80", "compute_80"}}
	sm90 := Image{Targets: []string{"sm_90a"}}
	assert.True(t, sm80.Native(SM80))
	assert.True(t, sm80.Native(SM86), "sm_80 SASS runs on sm_86")
	assert.True(t, sm80.Native(SM89))
	assert.False(t, sm80.Native(SM90), "on sm_90 the sm80 image is PTX JIT")
	assert.True(t, sm90.Native(SM90))
	assert.False(t, sm90.Native(100), "sm_90a code runs on sm_90 only")
	assert.False(t, sm90.Native(SM80))
}

// ParseManifest reads exactly one JSON object.
func TestParseManifestIsStrict(t *testing.T) {
	one := string(ManifestJSON)
	for name, data := range map[string]string{
		"empty":            "",
		"null":             "null",
		"empty object":     "{}",
		"array":            "[]",
		"trailing garbage": one + "garbage",
		"two manifests":    one + one,
		"unknown field":    `{"schema":2,"color":"red"}`,
	} {
		_, err := ParseManifest([]byte(data))
		require.ErrorIs(t, err, ErrManifest, name)
	}
	_, err := ParseManifest(ManifestJSON)
	require.NoError(t, err)

	// An e4m3 kernel's scalings are a list of known names.
	fp8 := Manifest{Schema: SchemaVersion, Images: []Image{{File: "sm90.fatbin", Targets: []string{"sm_90a"}, SmemLimit: 227 << 10}},
		Kernels: []KernelSpec{{Name: "k90_e4m3", Image: "sm90.fatbin", Family: "test", MinArch: SM90, In: E4M3, Out: BF16,
			Layout: LayoutTN, TileM: 16, TileN: 64, TileK: 64, Stages: 2, Threads: 128,
			PtrAlign: 16, LDAlign: 16, KMultiple: 16, MaxSplitK: 1, Reduction: ReduceNone, IndexBits: 32,
			Scalings: []Scaling{ScalingTensor, ScalingRow}, Digest: DigestOf(nil),
			Model: Model{Kind: ModelTiled, RateShare: 0.5, StreamShare: 0.8, RasterGroup: 8}}}}
	data, err := json.Marshal(fp8)
	require.NoError(t, err)
	text := string(data)
	require.Contains(t, text, `"scalings":["tensor","row"]`)
	c, err := ParseManifest(data)
	require.NoError(t, err)
	assert.Equal(t, []Scaling{ScalingTensor, ScalingRow}, c.Kernel("k90_e4m3").Scalings)
	for name, c := range map[string]struct{ from, to, phrase string }{
		"unknown scaling name": {`["tensor","row"]`, `["tensor","row64"]`, `unknown scaling "row64"`},
		"scalings not a list":  {`["tensor","row"]`, `"row"`, "bad kernel manifest"},
		"a scaling by number":  {`["tensor","row"]`, `[1]`, "cannot unmarshal"},
		"duplicate scaling":    {`["tensor","row"]`, `["row","row"]`, "row listed twice"},
		"no scalings":          {`"scalings":["tensor","row"],`, ``, "lists the scalings it applies"},
	} {
		bad := strings.Replace(text, c.from, c.to, 1)
		require.NotEqual(t, text, bad, name)
		_, err := ParseManifest([]byte(bad))
		require.ErrorIs(t, err, ErrManifest, name)
		assert.Contains(t, err.Error(), c.phrase, name)
	}

	_, err = ParseManifest(make([]byte, MaxManifestBytes+1))
	require.ErrorIs(t, err, ErrManifest)
	assert.Contains(t, err.Error(), "more than")
}

// A kernel of an image that needs JIT for an arch another image serves
// natively is JIT-only there; where no image is native, none is.
func TestCatalogJITOnly(t *testing.T) {
	k80 := KernelSpec{Name: "k80", Image: "sm80.fatbin", Family: "test", MinArch: SM80, In: BF16, Out: BF16,
		Layout: LayoutTN, TileM: 16, TileN: 64, TileK: 64, Stages: 2, Threads: 128,
		PtrAlign: 16, LDAlign: 16, KMultiple: 8, MaxSplitK: 1, Reduction: ReduceNone, IndexBits: 64, Model: Model{Kind: ModelTiled, RateShare: 0.5, StreamShare: 0.8, RasterGroup: 8},
		Digest: DigestOf(nil)}
	k90 := k80
	k90.Name, k90.Image, k90.MinArch, k90.MaxArch = "k90", "sm90.fatbin", SM90, SM90
	c, err := NewCatalog(Manifest{Schema: SchemaVersion, Kernels: []KernelSpec{k80, k90}, Images: []Image{
		{File: "sm80.fatbin", Targets: []string{"sm_80", "compute_80"}, SmemLimit: 163 << 10},
		{File: "sm90.fatbin", Targets: []string{"sm_90a"}, SmemLimit: 227 << 10}}})
	require.NoError(t, err)
	assert.True(t, c.JITOnly(c.Kernel("k80"), SM90))
	assert.False(t, c.JITOnly(c.Kernel("k90"), SM90))
	assert.False(t, c.JITOnly(c.Kernel("k80"), SM80))
	assert.False(t, c.JITOnly(c.Kernel("k80"), 100), "no image is native on sm_100: PTX it is")
}

// Unknown names are typed errors, as every gemmroute error is.
func TestParseNamesTyped(t *testing.T) {
	_, err := ParseArch("sm_5x")
	require.ErrorIs(t, err, ErrInvalidArgument)
	assert.Contains(t, err.Error(), `unknown arch "sm_5x"`)
	_, err = ParseDType("fp64")
	require.ErrorIs(t, err, ErrInvalidArgument)
	assert.Contains(t, err.Error(), `unknown dtype "fp64"`)
}

// ParseManifest answers in bounded time and memory: 16 MiB of empty
// kernels (decoded, then copied, into 8 GiB) and an image of 200 000
// targets (one Plan over it took 53 s) are refused; a catalog at the
// bounds answers JITOnly without walking the targets. The time bound is
// what tells the bounded code from the unbounded one (≈ 0.3 s against
// 40–53 s), not a performance claim: 5 s, since a loaded CI machine (race
// tests beside it on two cores) took 1.16 s where an idle one takes 0.3.
const hostileBound = 5 * time.Second

func TestParseManifestHostile(t *testing.T) {
	head := `{"schema":4,"images":[{"file":"sm90.fatbin","targets":["sm_90a"],"smem_limit":1}],"kernels":[`
	start := time.Now()
	_, err := ParseManifest([]byte(head + strings.Repeat("{},", (16<<20-len(head))/3-1) + "{}]}"))
	require.ErrorIs(t, err, ErrManifest)
	assert.ErrorContains(t, err, "JSON values, more than the 262144 a manifest may have")
	assert.Less(t, time.Since(start), hostileBound)

	valid, err := NewCatalog(Manifest{Schema: SchemaVersion, Images: []Image{{File: "sm90.fatbin", Targets: []string{"sm_90a"}, SmemLimit: 227 << 10}},
		Kernels: []KernelSpec{{Name: "k90_bf16", Image: "sm90.fatbin", Family: "test", MinArch: SM90, In: BF16, Out: BF16,
			Layout: LayoutTN, TileM: 16, TileN: 64, TileK: 64, Stages: 2, Threads: 128,
			PtrAlign: 16, LDAlign: 16, KMultiple: 8, MaxSplitK: 1, Reduction: ReduceNone, IndexBits: 32,
			Model: Model{Kind: ModelTiled, RateShare: 0.5, StreamShare: 0.8, RasterGroup: 8}, Digest: DigestOf(nil)}}})
	require.NoError(t, err)
	m := valid.Manifest()
	m.Images[0].Targets = slices.Repeat([]string{"compute_90"}, 200_000)
	_, err = NewCatalog(m)
	require.ErrorIs(t, err, ErrManifest)
	assert.ErrorContains(t, err, `image "sm90.fatbin": 200000 targets, more than the 64 an image may have`)
	m.Images = slices.Repeat(valid.Manifest().Images, MaxImages+1)
	_, err = NewCatalog(m)
	assert.ErrorContains(t, err, "65 images, more than the 64 a manifest may list")

	// At the bounds: 64 images of 64 targets each.
	m = valid.Manifest()
	m.Images = nil
	for i := range MaxImages {
		targets := slices.Repeat([]string{"compute_90"}, MaxImageTargets-1)
		if i == 7 {
			targets = append(targets, "sm_90a")
		}
		m.Images = append(m.Images, Image{File: fmt.Sprintf("i%d.fatbin", i), Targets: targets, SmemLimit: 227 << 10})
	}
	m.Kernels[0].Image = "i3.fatbin"
	c, err := NewCatalog(m)
	require.NoError(t, err)
	k := c.Kernel("k90_bf16")
	assert.True(t, c.JITOnly(k, SM90), "i7 has SASS for sm_90, i3 only PTX")
	assert.False(t, c.JITOnly(k, SM80))
	assert.False(t, c.JITOnly(k, 255), "beyond maxArch")
	allocs := testing.AllocsPerRun(100, func() { c.JITOnly(k, SM90) })
	assert.Zero(t, allocs)
	start = time.Now()
	for range 100_000 {
		c.JITOnly(k, SM90)
	}
	assert.Less(t, time.Since(start), hostileBound, "100 000 JITOnly over 4096 targets (it parsed each target each time: ~40 s)")
}

// Classes lists each class of the kernels that compute the types on the
// arch once, sorted; kernels of other types or arch and kernels of no
// class do not count.
func TestCatalogClasses(t *testing.T) {
	k := func(name string, in DType, arch Arch, class string) KernelSpec {
		return KernelSpec{Name: name, Image: "sm90.fatbin", Family: "test", MinArch: arch, MaxArch: arch, In: in, Out: in,
			Layout: LayoutTN, TileM: 16, TileN: 64, TileK: 64, Stages: 2, Threads: 128,
			PtrAlign: 16, LDAlign: 16, KMultiple: 8, MaxSplitK: 1, Reduction: ReduceNone, IndexBits: 64,
			Model:          Model{Kind: ModelTiled, RateShare: 0.5, StreamShare: 0.8, RasterGroup: 8},
			Digest:         DigestOf([]byte(name)),
			ReductionClass: class}
	}
	c, err := NewCatalog(Manifest{Schema: SchemaVersion, Images: []Image{{File: "sm90.fatbin", SmemLimit: 227 << 10}}, Kernels: []KernelSpec{
		k("a", BF16, SM90, "wgmma16.seq"), k("b", BF16, SM90, "mma16.seq"), k("c", BF16, SM90, "wgmma16.seq"),
		k("d", F16, SM90, "fma.v8.w8"), k("e", BF16, SM80, "fma.v8.w4"), k("f", BF16, SM90, ""),
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"mma16.seq", "wgmma16.seq"}, c.Classes(Types{In: BF16, Out: BF16}, SM90))
	assert.Equal(t, []string{"fma.v8.w8"}, c.Classes(Types{In: F16, Out: F16}, SM90))
	assert.Empty(t, c.Classes(Types{In: F16, Out: F16}, SM80))
}
