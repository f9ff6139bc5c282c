package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
)

var candA, candB = candidate{"a", 1}, candidate{"b", 1}

func TestChooseLeastWorstSlowdown(t *testing.T) {
	// a wins M=1 by a hair and loses M=2 badly; b is never more than 10 % off.
	c, ok := choose(map[point]map[candidate]float64{
		{1, 64, 64}: {candA: 10, candB: 11},
		{2, 64, 64}: {candA: 30, candB: 20},
	})
	require.True(t, ok)
	assert.Equal(t, candB, c.best)
	assert.Equal(t, candA, c.runnerUp)
	assert.InDelta(t, 1.1, c.worst, 1e-9)
	assert.InDelta(t, 40, c.margin, 1e-9) // a's worst is 1.5
	assert.InDelta(t, 1.1, c.loss[point{1, 64, 64}], 1e-9)
	assert.InDelta(t, 1.0, c.loss[point{2, 64, 64}], 1e-9)
}

func TestChooseTieGoesToLowerTotalTime(t *testing.T) {
	// Both are 10 % off their best somewhere: the worst case ties, the lower
	// total wins.
	c, ok := choose(map[point]map[candidate]float64{
		{1, 8, 8}: {candA: 10, candB: 11},
		{2, 8, 8}: {candA: 11, candB: 10},
		{3, 8, 8}: {candA: 10, candB: 9.99},
	})
	require.True(t, ok)
	assert.Equal(t, candB, c.best, "same worst slowdown (1.1): the lower total wins")
}

func TestChooseNeedsEveryPoint(t *testing.T) {
	c, ok := choose(map[point]map[candidate]float64{
		{1, 8, 8}: {candA: 5, candB: 10},
		{2, 8, 8}: {candB: 10}, // a was not measured (or was wrong) here
	})
	require.True(t, ok)
	assert.Equal(t, candB, c.best)
	_, ok = choose(map[point]map[candidate]float64{{1, 8, 8}: {candA: 5}, {2, 8, 8}: {candB: 5}})
	assert.False(t, ok)
}

func TestInheritUnmeasured(t *testing.T) {
	bs := []measuredBucket{
		{Bucket: dispatch.Bucket{MinM: 1, MaxM: 1, Kernel: "base"}},
		{Bucket: dispatch.Bucket{MinM: 2, MaxM: 2, Kernel: "m2", SplitK: 2}, loss: 1},
		{Bucket: dispatch.Bucket{MinM: 3, MaxM: 4, Kernel: "base"}},
		{Bucket: dispatch.Bucket{MinM: 5, Kernel: "m5", SplitK: 1}, loss: 1.02},
	}
	inheritUnmeasured(bs)
	assert.Equal(t, "m2", bs[0].Kernel, "nothing below: the nearest above")
	assert.Equal(t, 2, bs[0].SplitK)
	assert.Equal(t, "m2", bs[2].Kernel, "the nearest below first")
}

func TestMergeKeepsOtherEntries(t *testing.T) {
	base := []dispatch.Entry{
		{Arch: dispatch.SM80, In: dispatch.BF16, Out: dispatch.BF16, Layout: "tn", Buckets: []dispatch.Bucket{{MinM: 1, Kernel: "old80"}}},
		{Arch: dispatch.SM90, In: dispatch.BF16, Out: dispatch.BF16, Layout: "tn", Buckets: []dispatch.Bucket{{MinM: 1, Kernel: "old90"}}},
	}
	fresh := []dispatch.Entry{{Arch: dispatch.SM90, In: dispatch.BF16, Out: dispatch.BF16, Layout: "tn", Buckets: []dispatch.Bucket{{MinM: 1, Kernel: "new90"}}}}
	got := mergeEntries(base, fresh)
	require.Len(t, got, 2)
	assert.Equal(t, "old80", got[0].Buckets[0].Kernel)
	assert.Equal(t, "new90", got[1].Buckets[0].Kernel)
}

const sweepHeader = "name,M,N,K,dtype,kernel,split_k,graph_us,graph_p90_us,check\n"

// End to end: a fast but wrong candidate is reported and never chosen; the
// table written loads, keeps the base's other entries and records times.
func TestTableCommand(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep.csv")
	rows := sweepHeader +
		"x,1,4096,4096,bf16,test_simt_bf16,1,10,11,ok\n" +
		"x,1,4096,4096,bf16,test_mma_bf16,1,1,1,\"wrong: D[0,0] = 3, want 1\"\n" +
		"x,1,4096,4096,bf16,test_mma_bf16,2,12,12,ok\n" +
		"x,2,4096,4096,bf16,test_simt_bf16,1,14,15,ok\n" +
		"x,2,4096,4096,bf16,test_mma_bf16,2,12,12,ok\n" +
		"x,16,4096,4096,bf16,test_mma_bf16,2,20,21,ok\n" +
		"x,16,4096,4096,bf16,test_simt_bf16,1,40,41,ok\n"
	require.NoError(t, os.WriteFile(sweep, []byte(rows), 0o644))
	out := filepath.Join(dir, "buckets.yaml")
	code, stdout, stderr := runCLI("table", "-sweep", sweep, "-out", out, "-manifest", testManifest, "-base", "testdata/good.yaml", "-device", "Test GPU", "-sms", "7", "-driver", "1.0")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "rejected test_mma_bf16 split-K 1 at M=1")
	assert.Contains(t, stdout, "bucket loss")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	cat, err := loadCatalog(testManifest)
	require.NoError(t, err)
	tab, err := dispatch.LoadTable(out, data, cat)
	require.NoError(t, err)
	assert.Equal(t, "Test GPU", tab.Provenance.Device)
	exact, def := tab.Find(dispatch.SM80, dispatch.BF16, dispatch.BF16, 4096, 4096)
	require.NotNil(t, exact)
	require.NotNil(t, def, "a default is derived from the tuned shapes")
	b := exact.Bucket(1)
	assert.Equal(t, "test_simt_bf16", b.Kernel, "the wrong 1 µs candidate must not win")
	assert.Equal(t, 10.0, b.TimesUS[1])
	assert.Equal(t, "test_mma_bf16", exact.Bucket(2).Kernel)
	assert.Equal(t, 2, exact.Bucket(2).SplitK)
	assert.Equal(t, "test_mma_bf16", exact.Bucket(12).Kernel)
	_, sm90 := tab.Find(dispatch.SM90, dispatch.BF16, dispatch.BF16, 1, 1)
	assert.NotNil(t, sm90, "entries of other archs are kept")
	assert.False(t, strings.Contains(string(data), "wrong"))
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "buckets.yaml")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, writeAtomic(path, []byte("new")))
	got, _ := os.ReadFile(path)
	assert.Equal(t, "new", string(got))
	// A rename that fails (the target is a non-empty directory) leaves no
	// temporary file behind.
	target := filepath.Join(dir, "busy")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "x"), 0o755))
	require.Error(t, writeAtomic(target, []byte("new")))
	matches, _ := filepath.Glob(filepath.Join(dir, ".buckets-*"))
	assert.Empty(t, matches)
}
