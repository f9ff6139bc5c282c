package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
	"github.com/gemmroute/gemmroute/dispatch"
)

// tune -types e4m3→bf16 tunes e4m3→bf16 entries with per-tensor scales and says
// which tolerance gated them.
func TestTuneCommandE4M3(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	shapes := writeFile(t, dir, "shapes.csv", "name,M,N,K\no,1,4096,4096\n")
	out := filepath.Join(dir, "buckets.yaml")
	withGPUs(t, tuningtest.NewGPU())
	code, stdout, stderr := runCLI("-shapes", shapes, "-types", "e4m3→bf16", "-max-m", "64", "-out", out, "-base", base, "-manifest", manifest, "-prune", "0")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "gate: e4m3→bf16: |D−ref| ≤ 2^-8·|ref| + (1+2^-8)·(2^-9 + (⌈K/128⌉+8)·2^-24)·Σ|terms| + 1e-6")
	tab, _ := loadTuned(t, out)
	exact, def := tab.Find(dispatch.SM90, dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16}, 4096, 4096)
	require.NotNil(t, exact)
	require.NotNil(t, def)
	assert.Equal(t, "t90_fp8", exact.Bucket(1).Kernel)
	assert.Equal(t, "t90_fp8", def.Bucket(64).Kernel)
}

func TestTuneCommandWritesTableAndReport(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	shapes := writeFile(t, dir, "shapes.csv", "name,M,N,K\nqkv,1,6144,4096\no,1,4096,4096\nodd,1,769,5125\n")
	peer := writeFile(t, dir, "peer.csv", "name,M,N,K,graph_us\nqkv,1,6144,4096,20\nqkv,4096,6144,4096,900\n")
	out, rep := filepath.Join(dir, "buckets.yaml"), filepath.Join(dir, "report")
	withGPUs(t, tuningtest.NewGPU(), tuningtest.NewGPU())
	code, stdout, stderr := runCLI("-shapes", shapes, "-max-m", "4096", "-out", out, "-base", base, "-manifest", manifest,
		"-report", rep, "-peer", peer, "-devices", "0,1", "-driver", "580.1", "-prune", "0")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "wrote "+out)
	assert.Contains(t, stdout, "; kernels: matched 57, changed 1, missing 0\n", "the base's 1024×1024 bucket was measured with another t90_big")
	assert.Contains(t, stdout, "gate: bf16: |D−ref| ≤ 0.0078125·|ref| + 1e-5·Σ|terms| + 1e-6")
	assert.Regexp(t, `time in the measurer's calls: gate \d+ calls \d+ s, .*full \d+ calls \d+ s, .*events \d+ calls`, stdout)
	assert.Contains(t, stderr, "tune", "the progress bar goes to stderr")

	tab, _ := loadTuned(t, out)
	assert.Equal(t, "measured", tab.Provenance.Source)
	assert.Equal(t, "580.1", tab.Provenance.Driver)
	assert.Equal(t, "sm_90", tab.Provenance.Arch)
	exact, def := tab.Find(dispatch.SM90, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 6144, 4096)
	require.NotNil(t, exact)
	require.NotNil(t, def)
	// Merged: the base's other entries kept, its stale qkv entry replaced.
	_, sm80 := tab.Find(dispatch.SM80, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 6144, 4096)
	require.NotNil(t, sm80)
	assert.Equal(t, "t80_mma", sm80.Bucket(1).Kernel)
	kept, _ := tab.Find(dispatch.SM90, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 1024, 1024)
	require.NotNil(t, kept)
	assert.Equal(t, "t90_big", kept.Bucket(1).Kernel)
	assert.Len(t, tab.Entries, 6, "sm_80 default, 1024×1024, and the tuned qkv, o, odd and default")
	// Bucket assignment follows fakeSpeed: 1 token → t90_row, teens →
	// t90_mma split-K 4, large M → t90_big; beyond 4096 the last bucket.
	assert.Equal(t, "t90_row", exact.Bucket(1).Kernel)
	assert.Equal(t, "t90_mma", exact.Bucket(12).Kernel)
	assert.Equal(t, 4, exact.Bucket(12).SplitK)
	assert.Equal(t, "t90_big", exact.Bucket(4096).Kernel)
	assert.Equal(t, "t90_big", exact.Bucket(100000).Kernel)
	assert.NotEmpty(t, exact.Bucket(4096).TimesUS)
	assert.Equal(t, "t90_big", def.Bucket(4096).Kernel)
	odd, _ := tab.Find(dispatch.SM90, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 769, 5125)
	require.NotNil(t, odd)
	assert.Equal(t, "t90_any", odd.Bucket(64).Kernel)
	for _, b := range append(append(exact.Buckets, def.Buckets...), odd.Buckets...) {
		assert.NotEqual(t, "t90_wrong", b.Kernel)
	}

	md := readFile(t, filepath.Join(rep, "tune.md"))
	for _, s := range []string{"# Tuning on NVIDIA H200", "## Choices", "## Bucket loss, held out", "## The choices, timed",
		"| qkv bf16 | 1 | 12.00 (12.12) | 17.00 (18.12) |", "Against cuBLAS over 2 points", "- `t90_wrong split-K 1`, at 26 Ms (qkv bf16 M=1, ",
		"the first: wrong result: D[3,17]", "roofline-qkv-bf16.png", "Correctness gate", "- bf16: |D−ref| ≤",
		"The written table's buckets against the kernel set: matched 57, changed 1, missing 0",
		"## Where the time went", "| gate | ", "| full | ", "| events | ", "By bucket: [1, 1] ",
		"## Default entries, one weight left out", "(weight, bucket) pairs: left out, mean "} {
		assert.Contains(t, md, s)
	}
	csvData := readFile(t, filepath.Join(rep, "tune.csv"))
	assert.Contains(t, csvData, `t90_wrong,1,,,"wrong: wrong result: D[3,17]`)
	assert.Contains(t, csvData, "qkv,1,6144,4096,bf16,t90_row,1,17.000,18.120,ok,events")
	for _, png := range []string{"roofline-qkv-bf16.png", "roofline-o-bf16.png", "roofline-odd-bf16.png"} {
		assert.FileExists(t, filepath.Join(rep, png))
	}
	// autotune report reads the run's CSV for the bucket loss.
	bench := writeFile(t, dir, "bench.csv", "name,M,N,K,dtype,kernel,split_k,graph_us,graph_p90_us,events_us,floor_us,cublas_graph_us\n"+
		"qkv,1,6144,4096,bf16,t90_row,1,12,12.12,17,10,20\n")
	code, _, stderr = runCLI("report", "-bench", bench, "-sweep", filepath.Join(rep, "tune.csv"), "-out", filepath.Join(dir, "again"))
	require.Equal(t, 0, code, stderr)
	again := readFile(t, filepath.Join(dir, "again", "report.md"))
	assert.Contains(t, again, "| qkv | 1 | 12.00 | 12.00 | 0.0 % | `t90_row split-K 1` |")
}

// tune -base-routes -vendor=false measures a table's routes again after a
// kernel change: the base's 1024×1024 bucket, measured with an older
// t90_big, is timed with t90_big alone (its route; it records no
// runner-up) and written with the kernel set's digest: nothing changed is
// left.
func TestTuneCommandRetimesChangedRoutes(t *testing.T) {
	_, _, out, gpu, args := retimeRun(t)
	code, stdout, stderr := runCLI(args...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, ", changed 0, missing 0\n")
	require.NotEmpty(t, gpu.Gated)
	for _, c := range gpu.Gated {
		assert.Equal(t, tuning.Candidate{Kernel: "t90_big", SplitK: 1}, c)
	}
	tab, cat := loadTuned(t, out)
	e, _ := tab.Find(dispatch.SM90, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 1024, 1024)
	require.NotNil(t, e)
	b := e.Bucket(64)
	require.NotNil(t, b)
	big := cat.Kernel("t90_big")
	require.NotNil(t, big)
	assert.Equal(t, big.Digest, b.Digest)
	assert.NotEmpty(t, b.TimesUS)
	assert.Equal(t, tuning.MethodBaseRoutes, tab.Provenance.Method, "the table says its routes were not chosen by this run")
}

// tune -base-routes -changed-since MANIFEST times only the buckets whose
// kernels' digests differ from that manifest's: against the manifest the
// run has, nothing; against one whose t90_big is the base's older build,
// t90_big's bucket, as -base-routes alone.
func TestTuneCommandChangedSince(t *testing.T) {
	dir, base, _, gpu, args := retimeRun(t)
	code, _, stderr := runCLI(append(args, "-changed-since", filepath.Join(dir, "manifest.json"))...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, gpu.Gated, "no kernel changed since the manifest the run has")

	tab, _ := loadTuned(t, base)
	e, _ := tab.Find(dispatch.SM90, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 1024, 1024)
	require.NotNil(t, e)
	m := tuningtest.Manifest()
	for i := range m.Kernels {
		if m.Kernels[i].Name == "t90_big" {
			m.Kernels[i].Digest = e.Bucket(64).Digest // the build the base was measured with
		}
	}
	data, err := json.Marshal(m)
	require.NoError(t, err)
	older := writeFile(t, dir, "older.json", string(data))
	code, stdout, stderr := runCLI(append(args, "-changed-since", older)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, ", changed 0, missing 0\n")
	require.NotEmpty(t, gpu.Gated)
	for _, c := range gpu.Gated {
		assert.Equal(t, tuning.Candidate{Kernel: "t90_big", SplitK: 1}, c)
	}
}

// retimeRun is the -base-routes -vendor=false run of the tests above: the
// 1024×1024 shape at M ≤ 64 against tuneFiles' base table and manifest,
// on an injected GPU; it returns the files' folder, the base table, the
// table the run writes, the GPU and the command's arguments.
func retimeRun(t *testing.T) (dir, base, out string, gpu *tuningtest.GPU, args []string) {
	dir, manifest, base := tuneFiles(t)
	shapes := writeFile(t, dir, "shapes.csv", "name,M,N,K\nsq,1,1024,1024\n")
	out = filepath.Join(dir, "buckets.yaml")
	gpu = tuningtest.NewGPU()
	withGPUs(t, gpu)
	return dir, base, out, gpu, []string{"-shapes", shapes, "-max-m", "64", "-out", out, "-base", base, "-manifest", manifest, "-base-routes", "-vendor=false"}
}

func TestTuneInterruptedLeavesOldTable(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	old := "provenance:\n  source: old\nentries: []\n"
	out := writeFile(t, dir, "buckets.yaml", old)
	gpu := tuningtest.NewGPU()
	gpu.Fail = errors.New("CUDA_ERROR_LAUNCH_FAILED")
	withGPUs(t, gpu)
	code, _, stderr := runCLI("-model", "llama3-8b", "-max-m", "16", "-out", out, "-base", base, "-manifest", manifest)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "CUDA_ERROR_LAUNCH_FAILED")
	got := readFile(t, out)
	assert.Equal(t, old, got)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporary file left behind")
}

func TestTuneCommandUsageAndDevices(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	for _, c := range []struct {
		args   []string
		phrase string
	}{
		{[]string{"-out", "x"}, "give one of -model and -shapes"},
		{[]string{"-model", "llama3-8b"}, "-out is required"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-max-m", "1000"}, "not a power of two"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-devices", "0,a"}, "-devices"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-splits", "0"}, "-splits"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-keep", "0.5"}, "-keep ≥ 1"},
		{[]string{"-model", "llama3-8b", "-out", "x", "-changed-since", manifest}, "-changed-since needs -base-routes"},
	} {
		code, _, stderr := runCLI(append([]string{"tune"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, stderr, c.phrase)
	}
	// Two kinds of GPU in one run are refused.
	a, b := tuningtest.NewGPU(), tuningtest.NewGPU()
	b.Dev.Name = "NVIDIA A100-SXM4-80GB"
	withGPUs(t, a, b)
	code, _, stderr := runCLI("-model", "llama3-8b", "-out", filepath.Join(dir, "t.yaml"), "-base", base, "-manifest", manifest, "-devices", "0,1")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "one kind of GPU")

}

// tune takes cuBLASLt's algorithms as candidates by default where the
// measurers load it (saying so once), records a winner as the bucket's
// vendor algorithm, and with -vendor=false opens the measurers without
// it and writes the kernels-only table; where no library loads it says so
// and tunes our kernels.
func TestTuneCommandVendor(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	shapes := writeFile(t, dir, "shapes.csv", "name,M,N,K\no,1,4096,4096\n")
	fast := tuningtest.VendorAlgo(7)
	run := func(lib dispatch.VendorLibrary, args ...string) (vendorAsked bool, stdout string, tab *dispatch.Table) {
		gpu := tuningtest.NewVendorGPU(func(int) float64 { return 0.5 }, fast)
		gpu.Lib = lib
		old := openMeasurers
		t.Cleanup(func() { openMeasurers = old })
		openMeasurers = func(devices []int, workspace int64, vendor bool) ([]tuning.Measurer, func(), error) {
			vendorAsked = vendor
			if !vendor {
				gpu.Lib = dispatch.VendorLibrary{Absent: "cuBLASLt off: Options.NoVendor is set"}
			}
			return []tuning.Measurer{gpu}, func() {}, nil
		}
		out := filepath.Join(t.TempDir(), "buckets.yaml")
		code, stdout, stderr := runCLI(append([]string{"-shapes", shapes, "-max-m", "16", "-out", out, "-base", base, "-manifest", manifest, "-prune", "0"}, args...)...)
		require.Equal(t, 0, code, stderr)
		tab, _ = loadTuned(t, out)
		return vendorAsked, stdout, tab
	}
	vendorBuckets := func(tab *dispatch.Table) int {
		n := 0
		for _, e := range tab.Entries {
			for _, b := range e.Buckets {
				if b.Vendor != nil {
					n++
				}
			}
		}
		return n
	}

	asked, stdout, tab := run(dispatch.VendorLibrary{Version: 120804})
	assert.True(t, asked, "on by default")
	assert.Equal(t, 1, strings.Count(stdout, "cuBLASLt 12.8.4: its top 8 heuristic algorithms per bucket are candidates"), stdout)
	exact, _ := tab.Find(dispatch.SM90, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 4096, 4096)
	require.NotNil(t, exact)
	assert.Equal(t, fast.Vendor, *exact.Bucket(1).Vendor)
	assert.Regexp(t, `kernels: matched \d+, changed \d+, missing \d+, cuBLASLt [1-9]\d*\n`, stdout, "the written table's buckets routed to cuBLASLt are counted as such")

	asked, stdout, tab = run(dispatch.VendorLibrary{Version: 120804}, "-vendor=false")
	assert.False(t, asked)
	assert.Contains(t, stdout, "cuBLASLt: off; our kernels only are candidates")
	assert.Zero(t, vendorBuckets(tab), "the kernels-only table")

	_, stdout, tab = run(dispatch.VendorLibrary{Absent: "cuBLASLt absent: libcublasLt.so.13: cannot open shared object file"})
	assert.Equal(t, 1, strings.Count(stdout, "cuBLASLt absent: libcublasLt.so.13: cannot open shared object file; our kernels only are candidates"), stdout)
	assert.Zero(t, vendorBuckets(tab))
}
