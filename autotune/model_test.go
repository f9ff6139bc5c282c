package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

func TestModelMeasuresNothingAndWritesNothing(t *testing.T) {
	dir, manifest, base := tuneFiles(t)
	old := openMeasurers
	t.Cleanup(func() { openMeasurers = old })
	openMeasurers = func([]int, int64, bool) ([]tuning.Measurer, func(), error) {
		t.Fatal("a dry run opened a GPU")
		return nil, nil, nil
	}
	code, stdout, stderr := runCLI("model", "-model", "llama3-8b", "-base", base, "-manifest", manifest, "-devices", "2")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "dry run, nothing measured: 4 weights × 14 buckets (M = 1…8192) on 2× NVIDIA H200")
	assert.Regexp(t, `Predicted wall time .*: \d+\.\d min, \d+\.\d min of it gating \(a prediction, not a measurement\)`, stdout)
	written, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, written, 2, "model without -out writes no table")

	// The embedded catalog and table: every bucket of every Llama-3-8B
	// weight has a kernel.
	code, stdout, stderr = runCLI("model", "-model", "llama3-8b", "-types", "bf16,f16")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "8 weights × 14 buckets")
	code, _, stderr = runCLI("model", "-model", "llama3-8b", "-device", "v100")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "unknown device preset")
}

// modelOut runs autotune model with args and -out, and returns its
// stdout, the table it wrote (loaded against the default catalog), the
// embedded table it merged into, and that catalog.
func modelOut(t *testing.T, args ...string) (stdout string, got, embedded *dispatch.Table, cat *kernels.Catalog) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "buckets.yaml")
	code, stdout, stderr := runCLI(append(append([]string{"model"}, args...), "-out", out)...)
	require.Equal(t, 0, code, stderr)
	cat, err := dispatch.DefaultCatalog()
	require.NoError(t, err)
	got, err = dispatch.LoadTable(out, []byte(readFile(t, out)), cat)
	require.NoError(t, err)
	embedded, err = dispatch.DefaultTable()
	require.NoError(t, err)
	return stdout, got, embedded, cat
}

// model -out writes the model's choices for a device no GPU here can
// measure as heuristic entries (no times, runner-up or margin), merged into
// the base table: the embedded table's measured sm_90 entries stay as they
// were, and the sm_80 default sends M ≤ 16 to the decode families and
// larger M to a tiled kernel.
func TestModelOut(t *testing.T) {
	stdout, got, embedded, cat := modelOut(t, "-model", "llama3-8b", "-device", "a100")
	assert.Contains(t, stdout, "5 sm_80 entries chosen by the model (heuristic: no times_us)")
	assert.Equal(t, embedded.Provenance, got.Provenance)
	var sm80, sm90 int
	for _, e := range got.Entries {
		switch e.Arch {
		case dispatch.SM90:
			sm90++
			want := embedded.Entry(e.Key())
			require.NotNil(t, want)
			assert.Equal(t, want.Buckets, e.Buckets)
		case dispatch.SM80:
			if e.Types.In != dispatch.BF16 {
				continue
			}
			sm80++
			for _, b := range e.Buckets {
				assert.Empty(t, b.TimesUS)
				assert.Empty(t, b.RunnerUp)
				assert.Zero(t, b.MarginPct)
				k := cat.Kernel(b.Kernel)
				require.NotNil(t, k, b.Kernel)
				assert.True(t, k.RunsOn(dispatch.SM80), b.Kernel)
				want := "decode"
				if b.MinM > 16 {
					want = "tiled"
				}
				assert.True(t, strings.HasPrefix(k.Family, want), "%s N=%d K=%d %s: %s", e.Arch, e.N, e.K, b.String(), b.Kernel)
			}
		}
	}
	assert.Equal(t, 5, sm80, "a default and four exact bf16 entries")
	assert.Positive(t, sm90)
}

// model -out on the H200 preset, over the embedded table whose sm_90 bf16
// entries were measured on an H200: every measured entry stays as it was
// (the model's guesses do not replace measurements), and the command says
// which it kept; -force lets the model replace them.
func TestModelOutKeepsMeasuredEntries(t *testing.T) {
	stdout, got, embedded, _ := modelOut(t, "-model", "llama3-8b", "-device", "h200")
	assert.Contains(t, stdout, "kept the measured entry sm_90")
	measured := 0
	for _, want := range embedded.Entries {
		if !want.Measured() {
			continue
		}
		measured++
		e := got.Entry(want.Key())
		require.NotNil(t, e, want.Key().String())
		assert.Equal(t, want.Buckets, e.Buckets, "%s changed", want.Key())
	}
	assert.Positive(t, measured)
	stdout, got, _, _ = modelOut(t, "-model", "llama3-8b", "-device", "h200", "-force")
	assert.NotContains(t, stdout, "kept the measured entry")
	replaced := 0
	for _, e := range got.Entries {
		if e.Arch == dispatch.SM90 && e.Types.In == dispatch.BF16 && e.Source == dispatch.SourceModel {
			replaced++
		}
	}
	assert.Positive(t, replaced, "-force: the model's entries replace the measured ones")
}

// model -out -min-m over entries whose lower buckets were measured (the
// embedded sm_90 f16 entries: M = 1…256 measured, the rest the model's)
// rewrites only the buckets it chose, with kernels the heuristic may pick
// (no experimental kernel: none has passed a gate there), and keeps the
// measured buckets below with their kernels, times and provenance.
func TestModelOutMinMKeepsMeasuredBuckets(t *testing.T) {
	_, got, embedded, cat := modelOut(t, "-model", "llama3-8b", "-types", "f16", "-min-m", "257", "-device", "h100")
	f16 := dispatch.Types{In: dispatch.F16, Out: dispatch.F16}
	entries := 0
	for _, e := range got.Entries {
		if e.Arch != dispatch.SM90 || e.Types != f16 {
			continue
		}
		entries++
		was := embedded.Entry(e.Key())
		require.NotNil(t, was)
		for _, b := range e.Buckets {
			src, _, _ := b.From(&e)
			if b.MinM < 257 {
				old := was.Bucket(b.MinM)
				wantSrc, wantDev, wantDate := old.From(was)
				gotSrc, gotDev, gotDate := b.From(&e)
				assert.Equal(t, [3]string{wantSrc, wantDev, wantDate}, [3]string{gotSrc, gotDev, gotDate}, "%s %s", e.Key(), b.String())
				assert.Equal(t, [2]any{old.Kernel, old.TimesUS}, [2]any{b.Kernel, b.TimesUS}, "%s %s", e.Key(), b.String())
				continue
			}
			assert.Equal(t, dispatch.SourceModel, src, "%s %s", e.Key(), b.String())
			assert.Empty(t, b.TimesUS)
			assert.False(t, cat.Kernel(b.Kernel).Experimental, "%s %s: %s", e.Key(), b.String(), b.Kernel)
		}
	}
	assert.Equal(t, 5, entries, "the default and Llama-3-8B's four weights")
}

func TestPointsCommand(t *testing.T) {
	dir := t.TempDir()
	// points needs no GPU: the points peer_cublas.py should time.
	pts := filepath.Join(dir, "points.csv")
	code, _, stderr := runCLI("points", "-model", "llama3-8b", "-max-m", "8", "-out", pts)
	require.Equal(t, 0, code, stderr)
	data := readFile(t, pts)
	assert.True(t, strings.HasPrefix(data, "name,M,N,K,dtype,scaling,out\nl3-8b.qkv,1,6144,4096,bf16,,bf16\nl3-8b.qkv,2,6144,4096,bf16,,bf16\n"))
	assert.Contains(t, data, "l3-8b.down,6,4096,14336,bf16,,bf16\n", "probe Ms too")
	code, _, stderr = runCLI("points", "-model", "llama3-8b", "-types", "f16", "-max-m", "1", "-out", pts)
	require.Equal(t, 0, code, stderr)
	data = readFile(t, pts)
	assert.Contains(t, data, "l3-8b.qkv,1,6144,4096,fp16,,fp16\n", "in peer_cublas.py's spelling")
	code, _, stderr = runCLI("points", "-model", "llama3-8b")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-out is required")
}
