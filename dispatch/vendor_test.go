package dispatch

import (
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// testAlgo is a cublasLtMatmulAlgo_t's worth of bytes (0, 1, …, 63) in base64.
var testAlgo = func() string {
	b := make([]byte, VendorAlgoBytes)
	for i := range b {
		b[i] = byte(i)
	}
	return base64.StdEncoding.EncodeToString(b)
}()

// kernelBucket is baseTableText's first bucket's kernel, digest and split-K.
const kernelBucket = "        kernel: k90_bf16\n        digest: D90\n        split_k: 1\n      -"

// vendorTable is baseTable with its first bucket ([1, 16], lines 9-14)
// routed to cuBLASLt 12.8.4: line 11 split_k, 12 vendor, 13 algo, 14
// version.
func vendorTable(t *testing.T) string {
	return edit(t, kernelBucket, "        split_k: 1\n        vendor:\n          algo: "+testAlgo+"\n          version: 120804\n      -")
}

// exactVendorTable is baseTable with an exact entry for N = K = 4096 before
// it whose bucket [1, 16] routes to cuBLASLt 12.8.4 (vendorTable's), and a
// problem of that entry at M = 8.
func exactVendorTable(t *testing.T) (*Table, Problem) {
	t.Helper()
	exact := strings.Replace(vendorTable(t), "    layout: tn\n", "    layout: tn\n    n: 4096\n    k: 4096\n", 1)
	text := exact + baseTable[strings.Index(baseTable, "  - arch"):]
	tab, err := LoadTable("vendor.yaml", []byte(text), tableTestCatalog(t))
	require.NoError(t, err)
	return tab, Problem{M: 8, N: 4096, K: 4096, Types: Types{In: BF16, Out: BF16}, LDA: 4096, LDB: 4096, LDC: 4096,
		A: 1 << 20, B: 1 << 30, D: 1 << 40, Alpha: 1}
}

// offLibrary is the VendorLibrary of an engine opened with NoVendor.
func offLibrary(t *testing.T) VendorLibrary {
	t.Helper()
	lib, off := (&Options{NoVendor: true}).vendorOff()
	require.True(t, off)
	_, off = (&Options{}).vendorOff()
	require.False(t, off, "on by default")
	return lib
}

// A bucket routed to cuBLASLt loads with its algorithm and version, and
// writes back the same (no kernel, no digest).
func TestLoadVendorBucket(t *testing.T) {
	cat := tableTestCatalog(t)
	tab, err := LoadTable("vendor.yaml", []byte(vendorTable(t)), cat)
	require.NoError(t, err)
	b := tab.Entries[0].Buckets[0]
	require.NotNil(t, b.Vendor)
	assert.Equal(t, Vendor{Algo: testAlgo, Version: 120804}, *b.Vendor)
	assert.Empty(t, b.Kernel)
	assert.Empty(t, b.Digest)
	assert.Nil(t, tab.Entries[0].Buckets[1].Vendor, "a kernel's bucket has none")

	out, err := tab.Marshal()
	require.NoError(t, err)
	assert.Contains(t, string(out), "        vendor:\n          algo: "+testAlgo+"\n          version: 120804\n")
	assert.Equal(t, 1, strings.Count(string(out), "kernel:"), "only the kernel's bucket names a kernel:\n%s", out)
	back, err := LoadTable("saved.yaml", out, cat)
	require.NoError(t, err)
	assert.Equal(t, tab, back)

	c := tab.Clone()
	c.Entries[0].Buckets[0].Vendor.Version = 130105
	assert.Equal(t, 120804, tab.Entries[0].Buckets[0].Vendor.Version, "a clone has its own vendor route")
}

func TestLoadVendorBucketErrors(t *testing.T) {
	cat := tableTestCatalog(t)
	vt := vendorTable(t)
	short := base64.StdEncoding.EncodeToString(make([]byte, 8))
	with := func(old, new string) string {
		require.Contains(t, vt, old)
		return strings.Replace(vt, old, new, 1)
	}
	cases := []struct {
		name, yaml string
		line       int
		phrase     string
	}{
		{"not base64", with(testAlgo, "not*base64"), 13, "vendor algo is not standard base64"},
		{"short algo", with(testAlgo, short), 13, "vendor algo decodes to 8 bytes; a cublasLtMatmulAlgo_t is 64"},
		{"no algo", with("          algo: "+testAlgo+"\n", ""), 13, "vendor algo is missing"},
		{"old version", with("version: 120804", "version: 110802"), 14, "vendor version 110802: record cublasLtGetVersion of the library that chose the algorithm"},
		{"no version", with("          version: 120804\n", ""), 13, "vendor version 0"},
		{"fractional version", with("version: 120804", "version: 120804.5"), 14, `version: "120804.5" is not a whole number`},
		{"kernel without digest", with("        split_k: 1\n        vendor:", "        kernel: k90_bf16\n        split_k: 1\n        vendor:"), 9, "digest is missing"},
		{"digest without kernel", with("        split_k: 1\n        vendor:", "        digest: "+withDigests("D90")+"\n        split_k: 1\n        vendor:"), 9, "kernel is missing"},
		{"split_k", with("        split_k: 1\n        vendor:", "        split_k: 2\n        vendor:"), 11, "split_k is 2: a bucket routed to cuBLASLt alone has split_k: 1"},
		{"kernel times alone", with("        split_k: 1\n        vendor:", "        split_k: 1\n        kernel_times_us:\n          1: 5\n        vendor:"), 12, "kernel_times_us are our kernel's times in a bucket routed to cuBLASLt first"},
		{"unknown field", with("          version: 120804\n", "          version: 120804\n          colour: red\n"), 15, `unknown field "colour" in vendor: remove it or use one of algo, version`},
		{"not a mapping", with("        vendor:\n          algo: "+testAlgo+"\n          version: 120804\n", "        vendor: 5\n"), 12, "vendor must be a mapping of fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadTable("bad.yaml", []byte(c.yaml), cat)
			require.ErrorIs(t, err, ErrTable, c.yaml)
			var errs TableErrors
			require.ErrorAs(t, err, &errs)
			assert.True(t, slices.ContainsFunc(errs, func(e *TableError) bool {
				return e.Line == c.line && strings.Contains(e.Msg, c.phrase)
			}), "want line %d %q…, got:\n%v", c.line, c.phrase, err)
		})
	}
}

// A planner without an engine's launcher passes over a bucket routed to
// cuBLASLt — absent, off, of another version, or the loaded version —
// saying why in Explain, counting it, and falling to the next level: here
// from the exact entry to the default entry.
func TestPlanVendorBucket(t *testing.T) {
	cat := tableTestCatalog(t)
	tab, p := exactVendorTable(t)

	matches := map[string]KernelMatch{"no library given": {Matched: 3, Changed: 1}, "absent": {Matched: 3, Changed: 1},
		"other version": {Matched: 3, Changed: 1}, "off": {Matched: 3, Changed: 1}, "loaded version": {Matched: 3, Vendor: 1}}
	for _, c := range vendorStates(t, cat, tab) {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, matches[c.name], c.pl.KernelMatch())
			plan, err := c.pl.Plan(&p)
			require.NoError(t, err)
			assert.Equal(t, LevelDefault, plan.Level, "falls to the next level")
			assert.Equal(t, "k90_bf16", plan.Kernel.Name)
			assert.Contains(t, plan.Explain(), "passed over: exact (N,K) entry: bucket [1, 16] routes to cuBLASLt: "+c.why)
			q := p
			q.M = 17
			plan, err = c.pl.Plan(&q)
			require.NoError(t, err)
			assert.Equal(t, LevelExact, plan.Level, "the exact entry's kernel bucket still routes")
		})
	}
	assert.Equal(t, tab.MatchKernels(cat), NewPlanner(cat, tab, H200, Limits{}).KernelMatch())
	assert.Equal(t, "matched 3, changed 0, missing 0, cuBLASLt 1", KernelMatch{Matched: 3, Vendor: 1}.String())
	assert.Nil(t, (*Planner)(nil).WithVendor(VendorLibrary{Version: 120804}))
	_, err := NewPlanner(nil, tab, H200, Limits{}).WithVendor(VendorLibrary{}).Plan(&p)
	assert.ErrorIs(t, err, ErrInvalidArgument, "keeps NewPlanner's argument errors")
}

// A bucket that names both a cuBLASLt algorithm and a kernel of ours runs
// the kernel wherever the vendor route cannot — absent, off, another
// version — at its own level (not the next one), Explain saying so, and
// counts as matched; where the library takes it, it counts as cuBLASLt.
// Its kernel_times_us load with it.
func TestPlanVendorBucketWithKernel(t *testing.T) {
	cat := tableTestCatalog(t)
	both := strings.Replace(vendorTable(t), "        split_k: 1\n        vendor:", "        kernel: k90_bf16\n        digest: "+withDigests("D90")+"\n        split_k: 1\n        kernel_times_us:\n          8: 5.5\n          16: 6.25\n        vendor:", 1)
	exact := strings.Replace(both, "    layout: tn\n", "    layout: tn\n    n: 4096\n    k: 4096\n", 1)
	tab, err := LoadTable("both.yaml", []byte(exact+baseTable[strings.Index(baseTable, "  - arch"):]), cat)
	require.NoError(t, err)
	b := tab.Entries[0].Bucket(8)
	require.NotNil(t, b.Vendor)
	assert.Equal(t, map[int]float64{8: 5.5, 16: 6.25}, b.KernelTimesUS)
	_, p := exactVendorTable(t)
	matches := map[string]KernelMatch{"no library given": {Matched: 4}, "absent": {Matched: 4}, "off": {Matched: 4},
		"other version": {Matched: 4}, "loaded version": {Matched: 3, Vendor: 1}}
	for _, c := range vendorStates(t, cat, tab) {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, matches[c.name], c.pl.KernelMatch())
			plan, err := c.pl.Plan(&p)
			require.NoError(t, err)
			assert.Equal(t, LevelExact, plan.Level, "the bucket's own kernel, not the next level")
			assert.Nil(t, plan.Vendor)
			assert.Equal(t, "k90_bf16", plan.Kernel.Name)
			assert.Contains(t, plan.Explain(), "exact (N,K) entry: bucket [1, 16] routes to cuBLASLt: "+c.why+"; the bucket's kernel of ours instead")
		})
	}
	// routed to cuBLASLt (an engine's launcher), Explain names what runs without it
	fake := &fakeLauncher{fit: aligned16}
	plan, err := NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804, launcher: fake}).Plan(&p)
	require.NoError(t, err)
	require.NotNil(t, plan.Vendor)
	assert.Contains(t, plan.Explain(), "without cuBLASLt (Options.NoVendor, no library): the bucket's kernel of ours, k90_bf16 split-K 1\n")
}

// vendorState is a planner of a table without an engine's launcher, in one
// state of cuBLASLt, and why it passes a bucket routed to cuBLASLt over.
type vendorState struct {
	name string
	pl   *Planner
	why  string
}

// vendorStates are tab's planners with no library given, the library
// absent, another version, off (Options.NoVendor) and the version the
// table's algorithm was recorded with.
func vendorStates(t *testing.T, cat *kernels.Catalog, tab *Table) []vendorState {
	absent := "cuBLASLt absent: libcublasLt.so.13: cannot open shared object file; libcublasLt.so.12: cannot open shared object file"
	return []vendorState{
		{name: "no library given", pl: NewPlanner(cat, tab, H200, Limits{}),
			why: "cuBLASLt absent: the planner was given no loaded library (Planner.WithVendor)"},
		{name: "absent", pl: NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Absent: absent}), why: absent},
		{name: "other version", pl: NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Version: 130105}),
			why: "recorded for cuBLASLt 12.8.4, loaded 13.1.5: retune the table with the loaded library"},
		{name: "off", pl: NewPlanner(cat, tab, H200, Limits{}).WithVendor(offLibrary(t)), why: "cuBLASLt off: Options.NoVendor is set"},
		{name: "loaded version", pl: NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804}),
			why: "cuBLASLt 12.8.4's algorithm, which only an Engine's planner routes (a Planner of its own launches nothing)"},
	}
}

// fakeLauncher stands for an engine's cuBLASLt: every algorithm fits with
// fit, except at the Ms of reject, where AlgoCheck fails with err; workspace
// gives the workspace by M where set. It records the algorithm and the
// problems it was asked about.
type fakeLauncher struct {
	fit       vendorFit
	reject    map[int]bool
	workspace map[int]int64
	err       error
	asked     []Problem
	algo      [VendorAlgoBytes]byte
	// proposed are the heuristic's algorithms, best first; heurWS the
	// workspace bound it was last given.
	proposed [][VendorAlgoBytes]byte
	heurWS   int64
}

func (f *fakeLauncher) vendorHeuristic(p *Problem, maxWorkspace int64, n int) ([][VendorAlgoBytes]byte, error) {
	f.asked, f.heurWS = append(f.asked, *p), maxWorkspace
	return f.proposed[:min(n, len(f.proposed))], nil
}

func (f *fakeLauncher) vendorFit(p *Problem, algo *[VendorAlgoBytes]byte) (vendorFit, error) {
	f.asked, f.algo = append(f.asked, *p), *algo
	if f.reject[p.M] {
		return vendorFit{}, f.err
	}
	fit := f.fit
	if ws, ok := f.workspace[p.M]; ok {
		fit.workspace = ws
	}
	return fit, nil
}

// aligned16 is an algorithm's needs: every operand 16-byte aligned, D may
// be another buffer than C, 4 KiB of workspace.
var aligned16 = vendorFit{workspace: 4096, alignA: 16, alignB: 16, alignC: 16, alignD: 16, outOfPlace: true}

// An Engine's planner (one with a launcher) whose cuBLASLt is the version a
// bucket records routes the bucket's problems to cuBLASLt: the plan names
// the algorithm (no kernel), needs the algorithm's workspace (the larger of
// its M class's ends), Explain says "cuBLASLt 12.8.4 algorithm", and a
// repeated shape plans from the cache without allocating or asking
// cuBLASLt again.
func TestPlanVendorRoutes(t *testing.T) {
	cat := tableTestCatalog(t)
	tab, p := exactVendorTable(t)
	fake := &fakeLauncher{fit: aligned16, workspace: map[int]int64{8: 8192}}
	pl := NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804, launcher: fake})
	assert.Equal(t, KernelMatch{Matched: 3, Vendor: 1}, pl.KernelMatch())
	require.Len(t, fake.asked, 2, "the exact entry's bucket is checked at its ends, M = 1 and 16")
	assert.Equal(t, []int{1, 16}, []int{fake.asked[0].M, fake.asked[1].M})
	assert.Equal(t, Problem{M: 1, N: 4096, K: 4096, Types: p.Types, LDA: 4096, LDB: 4096, LDC: 4096, Alpha: 1}, fake.asked[0])
	raw, err := base64.StdEncoding.DecodeString(testAlgo)
	require.NoError(t, err)
	assert.Equal(t, raw, fake.algo[:], "the recorded bytes")

	fake.asked = nil
	plan, err := pl.Plan(&p)
	require.NoError(t, err)
	require.NotNil(t, plan.Vendor)
	assert.Equal(t, Vendor{Algo: testAlgo, Version: 120804}, *plan.Vendor)
	assert.Nil(t, plan.Kernel)
	assert.Equal(t, LevelExact, plan.Level)
	assert.Equal(t, "[1, 16]", plan.Bucket())
	assert.Equal(t, 1, plan.SplitK)
	assert.Equal(t, int64(8192), plan.WorkspaceBytes, "M = 8's workspace, the larger of M = 5's and 8's")
	var ms []int
	for _, q := range fake.asked {
		ms = append(ms, q.M)
	}
	assert.Equal(t, []int{5, 8, 5, 8}, ms, "both ends of M's class (5, 8], for each end's route")
	ex := plan.Explain()
	assert.Contains(t, ex, "level: exact (N,K) entry\nbucket: [1, 16]\n")
	assert.Contains(t, ex, "kernel: cuBLASLt 12.8.4 algorithm fdeab9ac (the table's cublasLtMatmulAlgo_t)")
	assert.Equal(t, "cuBLASLt 12.8.4 algorithm fdeab9ac", plan.KernelName(), "Explain's name; the digest is sha256(0, 1, …, 63)'s start")
	assert.Equal(t, "cublaslt:12.8.4:fdeab9ac", plan.Vendor.Tag())
	assert.Contains(t, ex, "workspace 8192 B")
	assert.Contains(t, ex, "launch 1 of 1: cublasLtMatmul")
	assert.NotContains(t, ex, "passed over: exact")
	assert.NotContains(t, ex, "without cuBLASLt", "the bucket names no kernel of ours")
	assert.Equal(t, "cuBLASLt's algorithm", plan.decomposition())

	fake.asked = nil
	q := p
	q.M = 7
	plan, err = pl.Plan(&q)
	require.NoError(t, err)
	assert.NotNil(t, plan.Vendor)
	assert.Empty(t, fake.asked, "M = 7 plans from the cached route")
	allocs := testing.AllocsPerRun(50, func() { _, _ = pl.Plan(&q) })
	assert.Zero(t, allocs)

	q.M = 17
	plan, err = pl.Plan(&q)
	require.NoError(t, err)
	assert.Equal(t, "k90_bf16", plan.Kernel.Name, "M = 17 is the entry's kernel bucket")
	assert.Equal(t, "k90_bf16", plan.KernelName())
	assert.Nil(t, plan.Vendor)
	q.M = 0
	plan, err = pl.Plan(&q)
	require.NoError(t, err)
	assert.Empty(t, plan.KernelName(), "a no-op runs nothing")
	assert.Empty(t, Plan{}.KernelName())
}

// A bucket routed to cuBLASLt is passed over, Explain saying why, for the
// problems the engine does not hand cuBLASLt and those the algorithm cannot
// run: a bias, misaligned operands, C ≠ D for an in-place algorithm, more
// workspace than the limits allow, none allowed (a capturing stream
// without a workspace), and an algorithm the library rejects — at load for
// an exact entry (counted as changed), or at the problem's M. (Types and K
// = 0: TestVendorTakes.)
func TestPlanVendorPassedOver(t *testing.T) {
	cat := tableTestCatalog(t)
	tab, p := exactVendorTable(t)
	planner := func(f *fakeLauncher, lim Limits) *Planner {
		return NewPlanner(cat, tab, H200, lim).WithVendor(VendorLibrary{Version: 120804, launcher: f})
	}
	inPlace := aligned16
	inPlace.outOfPlace = false
	aligned32 := vendorFit{workspace: 4096, alignA: 32, alignB: 32, alignC: 32, alignD: 32, outOfPlace: true} // more than the kernels need
	for _, c := range []struct {
		name string
		fit  vendorFit
		lim  Limits
		edit func(*Problem)
		why  string
	}{
		{"bias", aligned16, Limits{}, func(p *Problem) { p.Bias = 1 << 44 }, "the engine launches cuBLASLt without a bias, and the problem has one"},
		{"A misaligned", aligned32, Limits{}, func(p *Problem) { p.A += 16 }, "the algorithm needs A's pointer and row pitch 32-byte aligned, they are 0x100010 and 8192 B"},
		{"B pitch", aligned32, Limits{}, func(p *Problem) { p.LDB = 4104 }, "the algorithm needs B's pointer and row pitch 32-byte aligned, they are 0x40000000 and 8208 B"},
		{"D misaligned", aligned32, Limits{}, func(p *Problem) { p.D += 16 }, "the algorithm needs D's pointer and row pitch 32-byte aligned, they are 0x10000000010 and 8192 B"},
		{"C misaligned", aligned16, Limits{}, func(p *Problem) { p.Beta, p.C = 1, 1<<42+2 }, "the algorithm needs C's pointer and row pitch 16-byte aligned, they are 0x40000000002 and 8192 B"},
		{"out of place", inPlace, Limits{}, func(p *Problem) { p.Beta, p.C = 1, 1<<42 }, "the algorithm writes D over C only (in place), and C is another buffer"},
		{"workspace", aligned16, Limits{WorkspaceBytes: 1024}, func(*Problem) {}, "the algorithm needs 4096 B of workspace, 1024 B reserved per stream"},
		{"no workspace", aligned16, Limits{NoSplitK: true}, func(*Problem) {}, "the algorithm needs 4096 B of workspace, and this plan may have none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := p
			c.edit(&q)
			plan, err := planner(&fakeLauncher{fit: c.fit}, c.lim).Plan(&q)
			require.NoError(t, err)
			assert.Nil(t, plan.Vendor)
			assert.Equal(t, LevelDefault, plan.Level)
			assert.Contains(t, plan.Explain(), "passed over: exact (N,K) entry: bucket [1, 16] routes to cuBLASLt: "+c.why)
		})
	}
	t.Run("in place", func(t *testing.T) {
		q := p
		q.Beta, q.C = 1, q.D
		plan, err := planner(&fakeLauncher{fit: inPlace}, Limits{}).Plan(&q)
		require.NoError(t, err)
		assert.NotNil(t, plan.Vendor, "C = D suits an in-place algorithm")
	})
	t.Run("rejected at load", func(t *testing.T) {
		f := &fakeLauncher{fit: aligned16, reject: map[int]bool{16: true}, err: errors.New("cublasLtMatmulAlgoCheck: CUBLAS_STATUS_NOT_SUPPORTED (15)")}
		pl := planner(f, Limits{})
		assert.Equal(t, KernelMatch{Matched: 3, Changed: 1}, pl.KernelMatch(), "counted as changed")
		plan, err := pl.Plan(&p)
		require.NoError(t, err)
		assert.Equal(t, LevelDefault, plan.Level)
		assert.Contains(t, plan.Explain(), "routes to cuBLASLt: cuBLASLt 12.8.4 rejects the recorded algorithm at M=16 N=4096 K=4096: cublasLtMatmulAlgoCheck: CUBLAS_STATUS_NOT_SUPPORTED (15)")
	})
	t.Run("rejected at M", func(t *testing.T) {
		f := &fakeLauncher{fit: aligned16, reject: map[int]bool{5: true}, err: errors.New("CUBLAS_STATUS_INVALID_VALUE")}
		pl := planner(f, Limits{})
		assert.Equal(t, KernelMatch{Matched: 3, Vendor: 1}, pl.KernelMatch())
		plan, err := pl.Plan(&p)
		require.NoError(t, err)
		assert.Equal(t, LevelDefault, plan.Level)
		assert.Contains(t, plan.Explain(), "routes to cuBLASLt: cuBLASLt 12.8.4 rejects the algorithm at M=5: CUBLAS_STATUS_INVALID_VALUE")
	})
}

// What the engine hands cuBLASLt (VendorTypes, vendorTakes): bf16 and f16
// in and out, e4m3 with per-tensor scales (scalars or pointers) into bf16
// or f16; not e4m3 with row or 128-block scales (the reason says they stay
// ours and why), a bias or K = 0.
func TestVendorTakes(t *testing.T) {
	const ours = " scaling stays on our kernels: the engine hands cuBLASLt e4m3 with per-tensor scales only (it sets cuBLASLt's A and B scale pointers, not its per-row or block scale modes)"
	for _, c := range []struct {
		name  string
		edit  func(*Problem)
		types bool // VendorTypes
		why   string
	}{
		{"bf16", func(*Problem) {}, true, ""},
		{"f16", func(p *Problem) { p.Types = Types{In: F16, Out: F16} }, true, ""},
		{"e4m3→bf16 scalars", func(p *Problem) { e4m3(p, ScalingTensor) }, true, ""},
		{"e4m3→f16 scale pointers", func(p *Problem) { e4m3(p, ScalingTensor); devScales(p); p.Types.Out = F16 }, true, ""},
		{"e4m3 row", func(p *Problem) { e4m3(p, ScalingRow) }, false, "row" + ours},
		{"e4m3→f16 block128", func(p *Problem) { e4m3(p, ScalingBlock); p.Types.Out = F16 }, false, "block128" + ours},
		{"bias", func(p *Problem) { e4m3(p, ScalingTensor); p.Bias = 1 << 44 }, true, "the engine launches cuBLASLt without a bias, and the problem has one"},
		{"K = 0", func(p *Problem) { p.K, p.LDA, p.LDB = 0, 0, 0 }, true, "K = 0: cuBLASLt's layouts need K ≥ 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := testProblem(16, 4096, 4096)
			c.edit(&p)
			assert.Equal(t, c.types, VendorTypes(p.Types), "VendorTypes(%s)", p.Types)
			assert.Equal(t, c.why, vendorTakes(&p))
		})
	}
	q := testProblem(16, 4096, 4096)
	q.Types.Out = F16 // not valid: 16-bit inputs produce their own type
	assert.False(t, VendorTypes(q.Types))
	assert.Contains(t, vendorTakes(&q), "the engine launches cuBLASLt for bf16, f16 and e4m3 with per-tensor scales only, the problem is bf16→f16")
}

// A plan routed to cuBLASLt is checked again against the problem it runs
// (Engine.Launch): its pointers and strides, types and bias.
func TestVendorRecheck(t *testing.T) {
	cat := tableTestCatalog(t)
	tab, p := exactVendorTable(t)
	pl := NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804, launcher: &fakeLauncher{fit: aligned16}})
	plan, err := pl.Plan(&p)
	require.NoError(t, err)
	require.NotNil(t, plan.Vendor)
	assert.Empty(t, plan.vendorRecheck(&p, pl.lim))
	q := p
	q.B += 2
	assert.Contains(t, plan.vendorRecheck(&q, pl.lim), "needs B's pointer and row pitch 16-byte aligned")
	q = p
	q.Bias = 1 << 44
	assert.Contains(t, plan.vendorRecheck(&q, pl.lim), "without a bias")
}

// Open refuses contradictory or empty cuBLASLt options before touching a
// GPU (in either build).
func TestVendorOptions(t *testing.T) {
	for _, o := range []Options{{NoVendor: true, VendorLibraries: []string{"libcublasLt.so.12"}}, {VendorLibraries: []string{"libcublasLt.so.13", ""}}} {
		_, err := Open(0, o)
		var ae *ArgError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, "Options.VendorLibraries", ae.Field)
		require.ErrorIs(t, err, ErrInvalidArgument)
	}
}

// An Engine's planner lists cuBLASLt's heuristic algorithms for a problem
// as Vendors of the loaded version, within its workspace limit (none for
// NoSplitK), at most n; a planner that cannot launch cuBLASLt, or a
// problem the engine does not hand it, is refused with the reason.
func TestVendorAlgorithms(t *testing.T) {
	cat := tableTestCatalog(t)
	_, p := exactVendorTable(t)
	var a0, a1 [VendorAlgoBytes]byte
	a1[0] = 1
	fake := &fakeLauncher{fit: aligned16, proposed: [][VendorAlgoBytes]byte{a0, a1}}
	pl := NewPlanner(cat, nil, H200, Limits{WorkspaceBytes: 1 << 20}).WithVendor(VendorLibrary{Version: 120804, launcher: fake})
	assert.Equal(t, 120804, pl.VendorLibrary().Version)
	vs, err := pl.VendorAlgorithms(&p, 8)
	require.NoError(t, err)
	require.Len(t, vs, 2)
	assert.Equal(t, Vendor{Algo: base64.StdEncoding.EncodeToString(a1[:]), Version: 120804}, vs[1])
	assert.Equal(t, int64(1<<20), fake.heurWS)
	vs, err = pl.VendorAlgorithms(&p, 1)
	require.NoError(t, err)
	assert.Len(t, vs, 1)
	_, err = NewPlanner(cat, nil, H200, Limits{NoSplitK: true}).WithVendor(VendorLibrary{Version: 120804, launcher: fake}).VendorAlgorithms(&p, 8)
	require.NoError(t, err)
	assert.Zero(t, fake.heurWS, "no workspace without split-K")

	for _, c := range []struct {
		name string
		pl   *Planner
		edit func(*Problem)
		why  string
	}{
		{"absent", NewPlanner(cat, nil, H200, Limits{}).WithVendor(VendorLibrary{Absent: "cuBLASLt absent: libcublasLt.so.13: not found"}), func(*Problem) {}, "cuBLASLt absent: libcublasLt.so.13: not found"},
		{"own planner", NewPlanner(cat, nil, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804}), func(*Problem) {}, "only an Engine's planner routes"},
		{"bias", pl, func(p *Problem) { p.Bias = 1 << 44 }, "without a bias"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := p
			c.edit(&q)
			_, err := c.pl.VendorAlgorithms(&q, 8)
			require.ErrorIs(t, err, ErrNoKernel)
			assert.ErrorContains(t, err, c.why)
		})
	}
	_, err = pl.VendorAlgorithms(&p, 0)
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "n", ae.Field)
	assert.Equal(t, VendorLibrary{}, (*Planner)(nil).VendorLibrary())
}

// PlanVendor plans a problem on a given algorithm, bypassing the table (as
// the tuner times a candidate): checked by the library at the problem's M
// and against its operands and the limits; refused with the reason where
// it cannot run.
func TestPlanVendor(t *testing.T) {
	cat := tableTestCatalog(t)
	_, p := exactVendorTable(t)
	v := Vendor{Algo: testAlgo, Version: 120804}
	fake := &fakeLauncher{fit: aligned16, workspace: map[int]int64{8: 8192}}
	pl := NewPlanner(cat, nil, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804, launcher: fake})
	plan, err := pl.PlanVendor(&p, v)
	require.NoError(t, err)
	assert.Equal(t, &v, plan.Vendor)
	assert.Nil(t, plan.Kernel)
	assert.Equal(t, LevelForced, plan.Level)
	assert.Equal(t, "forced", plan.Bucket())
	assert.Equal(t, int64(8192), plan.WorkspaceBytes)
	assert.Equal(t, []int{8}, []int{fake.asked[len(fake.asked)-1].M})
	assert.Contains(t, plan.Explain(), "kernel: cuBLASLt 12.8.4 algorithm fdeab9ac")
	assert.Empty(t, plan.vendorRecheck(&p, pl.lim), "Engine.Launch takes it for the problem it was made for")
	q := p
	q.M = 0
	plan, err = pl.PlanVendor(&q, v)
	require.NoError(t, err)
	assert.Equal(t, LevelNoop, plan.Level)

	reject := &fakeLauncher{fit: aligned16, reject: map[int]bool{8: true}, err: errors.New("CUBLAS_STATUS_NOT_SUPPORTED")}
	for _, c := range []struct {
		name string
		pl   *Planner
		v    Vendor
		edit func(*Problem)
		why  string
	}{
		{"other version", pl, Vendor{Algo: testAlgo, Version: 130105}, func(*Problem) {}, "recorded for cuBLASLt 13.1.5, loaded 12.8.4"},
		{"absent", NewPlanner(cat, nil, H200, Limits{}), v, func(*Problem) {}, "cuBLASLt absent"},
		{"e4m3 row", pl, v, func(p *Problem) { p.Types.Out = BF16; e4m3(p, ScalingRow) }, "row scaling stays on our kernels"},
		{"rejected", NewPlanner(cat, nil, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804, launcher: reject}), v, func(*Problem) {}, "cuBLASLt rejects the algorithm: CUBLAS_STATUS_NOT_SUPPORTED"},
		{"workspace", NewPlanner(cat, nil, H200, Limits{WorkspaceBytes: 1024}).WithVendor(VendorLibrary{Version: 120804, launcher: fake}), v, func(*Problem) {}, "needs 8192 B of workspace, 1024 B reserved"},
		{"misaligned", pl, v, func(p *Problem) { p.A += 2 }, "needs A's pointer and row pitch 16-byte aligned"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := p
			c.edit(&q)
			_, err := c.pl.PlanVendor(&q, c.v)
			require.ErrorIs(t, err, ErrNoKernel)
			assert.ErrorContains(t, err, c.why)
		})
	}
	_, err = pl.PlanVendor(&p, Vendor{Algo: "short", Version: 120804})
	var ae *ArgError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "Vendor.algo", ae.Field)
}

// exactE4M3VendorTable is a table of e4m3→bf16 (per-tensor) entries: an
// exact one for N = K = 4096 whose bucket [1, 16] routes to cuBLASLt
// 12.8.4 and [17, ∞) to k90_e4m3, and a default one of k90_e4m3; and a
// problem of the exact entry at M = 8 with the scalar scales 0.5 and 4.
func exactE4M3VendorTable(t *testing.T) (*Table, Problem) {
	t.Helper()
	text := withDigests(`schema: 3
provenance:
  source: measured
entries:
  - arch: sm_90
    types: e4m3→bf16
    layout: tn
    n: 4096
    k: 4096
    buckets:
      - min_m: 1
        max_m: 16
        split_k: 1
        vendor:
          algo: ` + testAlgo + `
          version: 120804
      - min_m: 17
        kernel: k90_e4m3
        digest: DE4
        split_k: 1
  - arch: sm_90
    types: e4m3→bf16
    layout: tn
    buckets:
      - min_m: 1
        kernel: k90_e4m3
        digest: DE4
        split_k: 1
`)
	tab, err := LoadTable("e4m3.yaml", []byte(text), tableTestCatalog(t))
	require.NoError(t, err)
	p := testProblem(8, 4096, 4096)
	e4m3(&p, ScalingTensor)
	p.ScaleA, p.ScaleB = 0.5, 4
	return tab, p
}

// An Engine's planner routes e4m3 per-tensor problems to a bucket's
// cuBLASLt algorithm as it does 16-bit ones — with the scalar scales and
// with scale pointers, one cached route for both, planned again without
// allocating — checked at load in the entry's types, and Explain says how
// the scales reach cuBLASLt. The tuner's calls take them too
// (VendorAlgorithms, PlanVendor); row scaling does not.
func TestPlanVendorE4M3(t *testing.T) {
	cat := tableTestCatalog(t)
	tab, p := exactE4M3VendorTable(t)
	fake := &fakeLauncher{fit: aligned16, proposed: [][VendorAlgoBytes]byte{{1}}}
	pl := NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804, launcher: fake})
	assert.Equal(t, KernelMatch{Matched: 2, Vendor: 1}, pl.KernelMatch())
	require.NotEmpty(t, fake.asked)
	assert.Equal(t, Types{In: E4M3, Out: BF16}, fake.asked[0].Types, "checked at load in the entry's types")

	const folded = "e4m3: cuBLASLt's FP8 matmul, fast accumulation off; ScaleA·ScaleB folded into alpha, no scale pointers"
	const pointers = "e4m3: cuBLASLt's FP8 matmul, fast accumulation off; ScaleBPtr and ScaleAPtr as its A and B scale pointers, set at each call"
	for _, c := range []struct {
		name    string
		edit    func(*Problem)
		explain string
	}{
		{"scalars", func(*Problem) {}, folded},
		{"scale pointers", devScales, pointers},
		{"scale pointers, beta and C", func(q *Problem) { devScales(q); q.Beta, q.C = 0.5, 1<<42 }, pointers},
		{"scalars at M = 5", func(q *Problem) { q.M = 5 }, folded},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := p
			c.edit(&q)
			require.NoError(t, q.Validate())
			plan, err := pl.Plan(&q)
			require.NoError(t, err)
			require.NotNil(t, plan.Vendor, "not routed to cuBLASLt:\n%s", plan.Explain())
			assert.Equal(t, LevelExact, plan.Level)
			ex := plan.Explain()
			assert.Contains(t, ex, "kernel: cuBLASLt 12.8.4 algorithm fdeab9ac")
			assert.Contains(t, ex, c.explain)
			assert.Empty(t, plan.vendorRecheck(&q, pl.lim))
			fake.asked = nil
			allocs := testing.AllocsPerRun(50, func() { _, _ = pl.Plan(&q) })
			assert.Zero(t, allocs)
			assert.Empty(t, fake.asked, "planned from the cached route")
		})
	}

	q := p
	q.M = 17
	plan, err := pl.Plan(&q)
	require.NoError(t, err)
	assert.Equal(t, "k90_e4m3", plan.KernelName(), "M = 17 is the entry's kernel bucket")

	vs, err := pl.VendorAlgorithms(&p, 8)
	require.NoError(t, err, "the tuner's candidates for an e4m3 per-tensor bucket")
	assert.Len(t, vs, 1)
	forced, err := pl.PlanVendor(&p, vs[0])
	require.NoError(t, err)
	assert.Contains(t, forced.Explain(), folded)

	row := testProblem(8, 4096, 4096)
	e4m3(&row, ScalingRow)
	_, err = pl.VendorAlgorithms(&row, 8)
	require.ErrorIs(t, err, ErrNoKernel)
	assert.ErrorContains(t, err, "row scaling stays on our kernels")
	_, err = pl.PlanVendor(&row, vs[0])
	require.ErrorIs(t, err, ErrNoKernel)
	assert.ErrorContains(t, err, "row scaling stays on our kernels")
}

// cuBLASLt's FP8 matmul needs every operand's pointer and row pitch
// 16-byte aligned whatever the algorithm says it needs; 16-bit problems
// need only what the algorithm says.
func TestVendorFP8Alignment(t *testing.T) {
	loose := vendorFit{alignA: 2, alignB: 2, alignC: 2, alignD: 2, outOfPlace: true} // what a 16-bit algorithm may need
	for _, c := range []struct {
		name string
		edit func(*Problem)
		why  string
	}{
		{"aligned", func(*Problem) {}, ""},
		{"A + 8", func(p *Problem) { p.A += 8 }, "the algorithm needs A's pointer and row pitch 16-byte aligned, they are 0x100000008 and 4096 B"},
		{"B pitch 4104", func(p *Problem) { p.LDB = 4104 }, "the algorithm needs B's pointer and row pitch 16-byte aligned, they are 0x200000000 and 4104 B"},
		{"D + 4", func(p *Problem) { p.D += 4 }, "the algorithm needs D's pointer and row pitch 16-byte aligned"},
		{"C + 2, read", func(p *Problem) { p.Beta, p.C = 1, ptrC+2 }, "the algorithm needs C's pointer and row pitch 16-byte aligned"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := testProblem(8, 4096, 4096)
			e4m3(&p, ScalingTensor)
			c.edit(&p)
			if c.why == "" {
				assert.Empty(t, loose.reject(&p, Limits{}.withDefaults()))
			} else {
				assert.Contains(t, loose.reject(&p, Limits{}.withDefaults()), c.why)
			}
			p.Types, p.ScaleA, p.ScaleB = Types{In: BF16, Out: BF16}, 0, 0
			assert.Empty(t, loose.reject(&p, Limits{}.withDefaults()), "bf16: the algorithm's 2 bytes")
		})
	}
}
