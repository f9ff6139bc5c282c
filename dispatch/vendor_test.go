package dispatch

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"kernel too", with("        split_k: 1\n        vendor:", "        kernel: k90_bf16\n        split_k: 1\n        vendor:"), 13, "a bucket routed to cuBLASLt (vendor) names no kernel of ours: remove kernel and digest, or vendor"},
		{"split_k", with("        split_k: 1\n        vendor:", "        split_k: 2\n        vendor:"), 11, "split_k is 2: a bucket routed to cuBLASLt has split_k: 1"},
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

// Planning passes over a bucket routed to cuBLASLt — absent, of another
// version, or (until the engine launches it) the loaded version — saying
// why in Explain, counting it, and falling to the next level: here from the
// exact entry to the default entry.
func TestPlanVendorBucket(t *testing.T) {
	cat := tableTestCatalog(t)
	exact := strings.Replace(vendorTable(t), "    layout: tn\n", "    layout: tn\n    n: 4096\n    k: 4096\n", 1)
	text := exact + baseTable[strings.Index(baseTable, "  - arch"):]
	tab, err := LoadTable("vendor.yaml", []byte(text), cat)
	require.NoError(t, err)
	p := Problem{M: 8, N: 4096, K: 4096, Types: Types{In: BF16, Out: BF16}, LDA: 4096, LDB: 4096, LDC: 4096,
		A: 1 << 20, B: 1 << 30, D: 1 << 40, Alpha: 1}

	absent := "cuBLASLt absent: libcublasLt.so.13: cannot open shared object file; libcublasLt.so.12: cannot open shared object file"
	for _, c := range []struct {
		name  string
		pl    *Planner
		why   string
		match KernelMatch
	}{
		{"no library given", NewPlanner(cat, tab, H200, Limits{}),
			"cuBLASLt absent: the planner was given no loaded library (Planner.WithVendor)", KernelMatch{Matched: 3, Changed: 1}},
		{"absent", NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Absent: absent}), absent, KernelMatch{Matched: 3, Changed: 1}},
		{"other version", NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Version: 130105}),
			"recorded for cuBLASLt 12.8.4, loaded 13.1.5: retune the table with the loaded library", KernelMatch{Matched: 3, Changed: 1}},
		{"loaded version", NewPlanner(cat, tab, H200, Limits{}).WithVendor(VendorLibrary{Version: 120804}),
			"cuBLASLt 12.8.4's algorithm, which the engine does not launch yet", KernelMatch{Matched: 3, Vendor: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.match, c.pl.KernelMatch())
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
	_, err = NewPlanner(nil, tab, H200, Limits{}).WithVendor(VendorLibrary{}).Plan(&p)
	assert.ErrorIs(t, err, ErrInvalidArgument, "keeps NewPlanner's argument errors")
}
