package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

const testManifest = "testdata/manifest.json"

// runCLI runs autotune in-process and returns its exit code and output.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestUsage(t *testing.T) {
	code, out, _ := runCLI("help")
	assert.Equal(t, 0, code)
	for _, s := range []string{"check", "explain", "tune", "model", "points", "bench", "compare", "report"} {
		assert.Contains(t, out, s)
	}
	assert.Less(t, strings.Index(out, "  tune "), strings.Index(out, "  model "), "the explicit order: tune first")
	assert.NotContains(t, out, "  table ", "the table command is gone: tune writes tables")
	code, _, errOut := runCLI()
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "usage: autotune")
	code, out, _ = runCLI("help", "explain")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "-align-b")
	assert.Contains(t, out, "usage: autotune explain ")
	assert.Contains(t, out, "Explain plans one problem", "the long help")
	for _, c := range commands {
		code, out, _ = runCLI("help", c.Name)
		assert.Equal(t, 0, code, c.Name)
		assert.Contains(t, out, "usage: autotune "+c.Name+" ", c.Name)
		assert.NotEmpty(t, c.Short, c.Name)
	}
	code, _, errOut = runCLI("help", "frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "unknown command")
	code, out, _ = runCLI("tune", "-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, out, "-h prints the flags to stderr")
	code, _, errOut = runCLI("frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown command "frobnicate"`)
	code, _, errOut = runCLI("bench", "-shapes", "x.csv")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "not in this build", "this test binary is built with -tags nocuda")
	// Flags without a command are tune's.
	code, _, errOut = runCLI("-max-m", "3")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "tune: give one of -model and -shapes")
}

func TestCheck(t *testing.T) {
	code, out, errOut := runCLI("check", "testdata/good.yaml", "-manifest", testManifest)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "ok: 2 entries, 5 buckets; kernels: matched 5, changed 0, missing 0\n", out)

	// A kernel set in which test_mma_bf16 was rebuilt to other code: its
	// three buckets no longer count, and a bucket naming a kernel the set
	// lacks is missing; the table still loads.
	dir := t.TempDir()
	manifest := strings.Replace(readFile(t, testManifest), kernels.DigestOf([]byte("test_mma_bf16")), kernels.DigestOf([]byte("rebuilt")), 1)
	require.NotEqual(t, readFile(t, testManifest), manifest)
	table := strings.Replace(readFile(t, "testdata/good.yaml"), "kernel: test_simt_bf16, digest", "kernel: retired_simt_bf16, digest", 1)
	code, out, errOut = runCLI("check", "-manifest", writeFile(t, dir, "manifest.json", manifest), writeFile(t, dir, "t.yaml", table))
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "ok: 2 entries, 5 buckets; kernels: matched 1, changed 3, missing 1\n", out)

	code, out, errOut = runCLI("check", "-manifest", testManifest, "testdata/bad.yaml")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	require.NotEmpty(t, lines)
	for _, l := range lines {
		assert.Regexp(t, regexp.MustCompile(`^testdata/bad\.yaml:\d+: `), l)
	}
	assert.Contains(t, errOut, "gap: M in [17, 32] has no bucket")
	assert.Contains(t, errOut, `digest "sha256:48ebb9": a digest is`)

	code, _, errOut = runCLI("check", "testdata/missing.yaml", "-manifest", testManifest)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "missing.yaml")
	code, _, _ = runCLI("check")
	assert.Equal(t, 2, code)
}

// The committed table must pass against the committed manifest.
func TestCheckDefaultTable(t *testing.T) {
	code, out, errOut := runCLI("check", "../buckets.yaml")
	assert.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^ok: \d+ entries, \d+ buckets; kernels: matched [1-9]\d*, changed \d+, missing 0\n$`, out)
}

func TestExplain(t *testing.T) {
	explain := func(args ...string) (int, string, string) {
		return runCLI(append([]string{"explain", "-manifest", testManifest, "-table", "none"}, args...)...)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"decode", []string{"-arch", "sm_90", "-types", "bf16", "-m", "1", "-n", "4096", "-k", "4096"}, 0,
			[]string{"device: NVIDIA H200 (sm_90", "problem: M=1 N=4096 K=4096", "kernel: "}},
		{"sm_80 picks the A100", []string{"-arch", "sm_80", "-m", "300"}, 0, []string{"A100", "kernel: "}},
		{"arch overrides the preset", []string{"-device", "h100", "-arch", "sm_89"}, 0, []string{"H100 80GB HBM3 (sm_89"}},
		{"sm_89 picks the L4, not an A100", []string{"-arch", "sm_89"}, 0, []string{"device: NVIDIA L4 (sm_89, 58 SMs)"}},
		{"sm_86 picks the A10", []string{"-arch", "sm_86"}, 0, []string{"device: NVIDIA A10 (sm_86, 72 SMs)"}},
		{"a described device", []string{"-device", "h100", "-name", "My H100", "-sms", "120"}, 0, []string{"device: My H100 (sm_90, 120 SMs)"}},
		{"an arch without a preset", []string{"-arch", "sm_75"}, 2, []string{"no preset for sm_75"}},
		{"a device of no SMs", []string{"-sms", "-3"}, 2, []string{"-sms -3: want a positive, finite number"}},
		{"misaligned B", []string{"-m", "8", "-align-b", "2"}, 0,
			[]string{"kernel: test_simt_bf16", "1 kernel: need the B pointer more aligned\n    test_mma_bf16: B pointer 0x20000000002 not 16-byte aligned"}},
		{"padded lda", []string{"-lda", "4097", "-bias"}, 0, []string{"1 kernel: need LDA more aligned\n    test_mma_bf16: LDA·2 = 8194 B"}},
		{"no-op", []string{"-m", "0"}, 0, []string{"no-op"}},
		{"e4m3", []string{"-types", "e4m3→bf16", "-m", "64"}, 0, []string{"kernel: test_fp8"}},
		{"negative M", []string{"-m", "-1"}, 1, []string{"invalid M = -1"}},
		{"small ldc", []string{"-ldc", "100"}, 1, []string{"invalid LDC = 100"}},
		{"dtype pair", []string{"-types", "e4m3→e4m3"}, 2, []string{`-types: gemmroute: types "e4m3→e4m3": e4m3: e4m3 inputs produce bf16 or f16`}},
		{"e4m3 row scales", []string{"-types", "e4m3->bf16/row", "-m", "64"}, 0,
			[]string{"problem: M=64 N=4096 K=4096 e4m3→bf16, row scaling (device vectors)", "kernel: test_fp8"}},
		{"e4m3 block scales", []string{"-types", "e4m3→bf16/block128", "-m", "64"}, 1,
			[]string{"block128 scaling (device vectors) on sm_90", "1 kernel: take another e4m3 scaling mode\n    test_fp8: takes [tensor row] scaling, problem has block128"}},
		{"scaling of bf16", []string{"-types", "bf16/row"}, 2, []string{"-types: gemmroute: types \"bf16/row\": row: bf16 inputs take no scales"}},
		{"unknown scaling", []string{"-types", "e4m3→bf16/row64"}, 2, []string{`-types: gemmroute: types "e4m3→bf16/row64": scaling "row64" is not a scaling mode`}},
		{"e4m3 without its output", []string{"-types", "e4m3"}, 2, []string{`e4m3 inputs name their output: e4m3→bf16 or e4m3→f16`}},
		{"e4m3 on sm_80", []string{"-types", "e4m3→bf16", "-arch", "sm_80"}, 1, []string{"invalid Types.In = e4m3→bf16: e4m3 needs sm_89 or newer; device is sm_80"}},
		{"e4m3 on sm_86", []string{"-types", "e4m3→bf16", "-arch", "sm_86"}, 1, []string{"invalid Types.In = e4m3→bf16: e4m3 needs sm_89 or newer; device is sm_86"}},
		{"bad dtype", []string{"-types", "f64"}, 2, []string{`-types: gemmroute: types "f64": input "f64" is not an input type`}},
		{"bad alignment", []string{"-align-a", "3"}, 2, []string{"-align-a 3"}},
		{"bad device", []string{"-device", "v100"}, 2, []string{"v100"}},
		{"stray argument", []string{"extra"}, 2, []string{"usage: autotune explain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := explain(tc.args...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			for _, s := range tc.want {
				assert.Contains(t, out+errOut, s)
			}
		})
	}
}

func TestExplainTableFile(t *testing.T) {
	code, out, errOut := runCLI("explain", "-manifest", testManifest, "-table", "testdata/good.yaml", "-m", "100")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "level: default entry")
	assert.Contains(t, out, "bucket: [17, 256]")
	assert.Contains(t, out, "split-K: 2")
}

// explain on an A100 with the embedded table says whose choices route it:
// the model's for the A100 (the entry's own device and date), not the H200
// that measured the table's sm_90 entries.
func TestExplainA100SaysItsEntriesSource(t *testing.T) {
	code, out, errOut := runCLI("explain", "-device", "a100")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "table: buckets.yaml (embedded)\n")
	assert.Contains(t, out, "source: the analytic model's choice for NVIDIA A100-SXM4-80GB (2026-11-30), not measured\n")
	assert.NotContains(t, out, "H200")
}
