package dispatch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// The kernels that store D through TMA (the _ts families) and their
// register twins, in the shipped manifest.
const (
	tsKernel  = "gemmroute_sm90_ws_wgmma_ts_bf16_bf16_f32_tn_128x256x64_w12_s3_a16"
	regKernel = "gemmroute_sm90_ws_wgmma_bf16_bf16_f32_tn_128x256x64_w12_s4_a16"
)

// tsFamily reports whether a family stores D through TMA, by its name (the
// name is the spec: a _ts suffix).
func tsFamily(f string) bool { return strings.HasSuffix(f, "_ts") }

// storeBox is a TMA-store kernel's box of D: 64 columns (32 for a 96-wide
// tile) by a consumer's 64 rows, or by the tile's tokens for the swap tiles
// (whose consumers own 64 weight columns of D each).
func storeBox(k *kernels.KernelSpec) [2]int {
	switch {
	case strings.Contains(k.Family, "swap"):
		return [2]int{64, k.TileM}
	case k.TileN%64 != 0: // 96 wide: boxes of 32 columns
		return [2]int{32, 64}
	}
	return [2]int{64, 64}
}

// The manifest says which kernels store D through TMA, and only those need
// anything of D: a 16-byte aligned pointer and pitch, boxes of 64 columns
// (storeBox), room for the staging buffer within the 227 KiB.
func TestTMAStoreManifest(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	n := 0
	for _, k := range cat.Kernels() {
		if !tsFamily(k.Family) {
			assert.False(t, k.TMAStore(), k.Name)
			assert.Zero(t, k.DPtrAlign, k.Name)
			assert.Zero(t, k.DLDAlign, k.Name)
			continue
		}
		n++
		assert.True(t, k.TMAStore() && k.TMA(), k.Name)
		assert.Equal(t, storeBox(&k), k.TMAStoreBox, k.Name)
		assert.Equal(t, 16, k.DPtrAlign, k.Name)
		assert.Equal(t, 16, k.DLDAlign, k.Name)
		assert.Equal(t, 2, k.Out.Size(), k.Name)
		assert.True(t, k.Experimental, "%s: routed only by a measured table entry", k.Name)
		swap := strings.Contains(k.Family, "swap")
		assert.True(t, k.Persistent || swap, "%s: persistent, but the swap tiles keep their twins' dispatch grid", k.Name)
		assert.LessOrEqual(t, k.SmemBytes, 227<<10, k.Name)
		// the ring's stages, the 1024 bytes that align them and a staging
		// buffer per consumer: 64 x BN (two, but one at BM = 64), or with
		// swap BM x 64 (BN / 64 consumers)
		staging := min(k.TileM, 128) * k.TileN * 2
		if swap {
			staging = k.TileM * k.TileN * 2
		}
		assert.Equal(t, k.Stages*(k.TileM+k.TileN)*k.TileK*k.In.Size()+1024+staging, k.SmemBytes, k.Name)
	}
	assert.Equal(t, 178, n, "16-bit: ws_wgmma_ts 128x256, 128x224, 128x192, 256x128, 256x160, 128x128, 128x64, 64x96, 128x96; rn_ts 128x256, 128x224, 256x160; rn_mc2_ts 128x256, 128x224; rn_mc2n_ts 256x160, 128x256; rn_sk_ts 128x256; mc2_ts 128x256, 128x192, 128x128; pp_ts 128x128, pp_mc2_ts 128x128; mc2n_ts 128x256, 256x128, 256x160, 64x64; sk_ts 128x256, 128x192, 128x128; swap_ts 16x128, 32x128, 32x128 KB = 2, 64x128, swap_sq_ts 16x128, 32x128, 64x128, wave-fitted 104x128, 136x128, 152x128, 176x128, 208x128, 104x192, 136x192, 176x192; swap_sk_ts 16x128, 32x128, 64x128; swap_mc2_ts 16x64, 32x64, 64x64, 32x128, 64x128; sh_ts 64x96, 128x96, 128x128, 128x64, 128x256, 128x192; swap_sh_ts 32x128, 64x128; sk_sh_ts 128x256, 128x192, 128x128; sk_tp_sh_ts 128x256, 128x192, 128x128, 128x96, 256x128, 256x160; ks_ts 128x64, 128x128, 128x256; ex_ts 64x96, 128x96, 128x128; swap_ex_ts 16x128, 32x128, 32x128 KB = 2; e4m3: ts 128x128, 128x192, b128_ts 128x128, swap_ts 16x128, 32x128, 64x128, swap_b128_ts 16x128, 32x128, lp_ts 128x128, swap_lp_ts 16x128, 32x128; into bf16 and f16")
}

// The constraint filter rejects a TMA-store kernel for a D that TMA cannot
// store (a pointer, pitch or row not a multiple of 16 bytes, M or N of 2^31) and
// its register twin takes every such D.
func TestTMAStoreConstraints(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	ts, reg := cat.Kernel(tsKernel), cat.Kernel(regKernel)
	require.NotNil(t, ts)
	require.NotNil(t, reg)
	lim := Limits{}.withDefaults()
	for _, c := range []struct {
		name string
		edit func(p *Problem)
		rule rule // ts's; 0: accepted
	}{
		{"aligned", func(p *Problem) {}, 0},
		{"D 8-byte aligned", func(p *Problem) { p.D += 8 }, ruleAlignD},
		{"D 2-byte aligned", func(p *Problem) { p.D += 2 }, ruleAlignD},
		{"LDC·2 = 8200 B", func(p *Problem) { p.LDC = 4100 }, ruleAlignD},
		{"odd LDC", func(p *Problem) { p.LDC = 4097 }, ruleAlignD},
		{"LDC·2 = 8208 B", func(p *Problem) { p.LDC = 4104 }, 0},
		{"N = 4090: N·2 = 8180 B", func(p *Problem) { p.N = 4090 }, ruleAlignD},
		{"N = 4088: N·2 = 8176 B", func(p *Problem) { p.N = 4088 }, 0},
		{"C and bias 2-byte aligned", func(p *Problem) { p.C, p.Beta, p.Bias = ptrC+2, 0.5, ptrC+(1<<30)+6 }, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := testProblem(4096, 4096, 4096)
			c.edit(&p)
			require.NoError(t, p.Validate())
			rj := checkKernel(ts, &p, H200, lim, 1)
			assert.Equal(t, c.rule, rj.rule, "%s: %s", ts.Name, rj.detail)
			assert.True(t, checkKernel(reg, &p, H200, lim, 1).ok(), "the register epilogue stores any D")
		})
	}
	p := testProblem(1<<31, 64, 64)
	assert.Equal(t, ruleIndexWidth, checkKernel(ts, &p, H200, lim, 1).rule, "M = 2^31: past D's 32-bit coordinates")
	p = testProblem(64, 1<<31, 64)
	assert.Equal(t, ruleIndexWidth, checkKernel(ts, &p, H200, lim, 1).rule, "N = 2^31")
}

// A table entry that names a TMA-store kernel routes to it only while D
// suits TMA; otherwise the planner falls back and Explain says why. The
// route cache keeps the two apart (D's alignment class is in the key).
func TestTMAStoreTableFallsBack(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	ts := cat.Kernel(tsKernel)
	require.NotNil(t, ts)
	tab := &Table{Entries: []Entry{{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: kernels.LayoutTN,
		Buckets: []Bucket{{MinM: 1, Kernel: ts.Name, Digest: ts.Digest, SplitK: 1}}}}}
	pl := NewPlanner(cat, tab, H200, Limits{})
	p := testProblem(4096, 4096, 4096)
	plan, err := pl.Plan(&p)
	require.NoError(t, err)
	assert.Equal(t, ts.Name, plan.Kernel.Name)
	assert.Equal(t, LevelDefault, plan.Level)

	for _, edit := range []func(p *Problem){func(p *Problem) { p.D += 8 }, func(p *Problem) { p.LDC = 4100 }, func(p *Problem) { p.N = 4090 }} {
		q := testProblem(4096, 4096, 4096)
		edit(&q)
		plan, err := pl.Plan(&q)
		require.NoError(t, err)
		assert.NotEqual(t, ts.Name, plan.Kernel.Name)
		assert.False(t, plan.Kernel.TMAStore())
		assert.Contains(t, plan.Explain(), "need D (its pointer, LDC and N) more aligned")
	}
	plan, err = pl.Plan(&p) // the aligned problem again, from the cache
	require.NoError(t, err)
	assert.Equal(t, ts.Name, plan.Kernel.Name)
}

// The engine encodes tensor maps exactly for the TMA kernels, and a map of D
// (in the output type, with the manifest's box) exactly for those that store
// D through TMA.
func TestLaunchMapsEncodeDOnlyForTMAStore(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	stores := 0
	for _, spec := range cat.Kernels() {
		k := cat.Kernel(spec.Name)
		m, ok := launchMaps(k)
		require.Equal(t, k.TMA(), ok, k.Name)
		if !ok {
			continue
		}
		assert.Equal(t, k.In, m.in, k.Name)
		assert.Equal(t, k.TMABox, [2]int{m.boxA, m.boxB}, k.Name)
		if tsFamily(k.Family) {
			stores++
			assert.Equal(t, storeBox(k), m.boxD, k.Name)
			assert.Equal(t, k.Out, m.out, k.Name)
		} else {
			assert.Zero(t, m.boxD, "%s: no map of D (the kernel ignores tma_d)", k.Name)
		}
	}
	assert.Equal(t, 178, stores)
}
