package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
)

// requireOneLine asserts a refused run: the exit code, and one line on
// stderr that names what is wrong (never a Go trace, never a hang).
func requireOneLine(t *testing.T, wantCode int, wantText string, args ...string) {
	t.Helper()
	code, _, errOut := runCLI(args...)
	assert.Equal(t, wantCode, code, "%v: %s", args, errOut)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %q", args, errOut)
	assert.Contains(t, errOut, wantText, "%v", args)
	assert.NotContains(t, errOut, "goroutine", "%v", args)
}

const benchHeader = "name,M,N,K,kernel,split_k,graph_us,graph_p90_us,events_us,floor_us,cublas_graph_us\n"

// Every numeric flag and CSV number of report, bench, tune, model and
// points is refused unless finite, positive where it must be, and bounded.
func TestBadNumbersRefused(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.csv", benchHeader+"qkv,16,4096,4096,k1,1,10,11,12,5,0\n")
	out := dir + "/out"
	for _, tc := range []struct {
		flag, value, want string
	}{
		{"-read-bw", "1e-300", "-read-bw 1e-300: want a rate"}, // drew ticks until out of memory
		{"-read-bw", "NaN", "-read-bw NaN: want a rate"},
		{"-read-bw", "-1", "-read-bw -1: want a rate"},
		{"-read-bw", "+Inf", "-read-bw +Inf: want a rate"},
		{"-peak", "-1", "-peak -1: want a rate"}, // panicked in the plotting library
		{"-peak", "1e300", "-peak 1e+300: want a rate"},
		{"-peak-fp8", "-1", "-peak-fp8 -1: want a rate"},
		{"-peak-fp8", "NaN", "-peak-fp8 NaN: want a rate"},
	} {
		requireOneLine(t, 2, tc.want, "report", "-bench", good, "-out", out, tc.flag, tc.value)
	}
	for i, row := range []struct{ text, want string }{
		{"qkv,16,4096,4096,k1,1,+Inf,11,12,5,0", `graph_us "+Inf" is not a finite number`},
		{"qkv,16,4096,4096,k1,1,NaN,11,12,5,0", `graph_us "NaN" is not a finite number`},
		{"qkv,16,4096,4096,k1,1,1e-300,11,12,5,0", "graph_us must be positive"},
		{"qkv,16,4096,4096,k1,1,10,11,12,5,-3", "cublas_graph_us must be 0 (not measured) or a time"},
		{"qkv,16,4096,4096,k1,1,10,Inf,12,5,0", `graph_p90_us "Inf" is not a finite number`},
		{"qkv,4294967296,4096,4096,k1,1,10,11,12,5,0", "M 4294967296: want 1 to 2147483648"},
		{"qkv,16,4096,0,k1,1,10,11,12,5,0", "K 0: want 1 to"},
		{"qkv,16,4096,4096,k1,1000000,10,11,12,5,0", "split_k 1000000: want 1 to 1024"},
	} {
		bad := writeFile(t, dir, fmt.Sprintf("bad%d.csv", i), benchHeader+row.text+"\n")
		requireOneLine(t, 1, "bad"+fmt.Sprint(i)+".csv:2: "+row.want, "report", "-bench", bad, "-out", out)
	}
	for _, args := range [][]string{
		{"-max-m", "4611686018427387904"}, // 2^62: the bucket doubling overflowed and never ended
		{"-max-m", "4294967296"},
		{"-max-m", "-8"},
	} {
		for _, cmd := range []string{"model", "points"} {
			requireOneLine(t, 2, "-max-m "+args[1]+" is not a power of two up to 2^31", append([]string{cmd, "-model", "llama3-8b", "-out", dir + "/x"}, args...)...)
		}
	}
	requireOneLine(t, 2, "-max-m 4611686018427387904 is not a power of two up to 2^31", "tune", "-model", "llama3-8b", "-out", dir+"/t.yaml", "-max-m", "4611686018427387904")
	requireOneLine(t, 2, "-read-bw NaN", "tune", "-model", "llama3-8b", "-out", dir+"/t.yaml", "-read-bw", "NaN")
	for _, tc := range []struct{ flag, value, want string }{
		{"-prune", "NaN", "-prune NaN: want -prune ≥ 0 and ≤ 1e6"},
		{"-keep", "NaN", "-keep NaN: want -keep ≥ 1 and ≤ 1e6"},
		{"-keep", "+Inf", "-keep +Inf: want -keep ≥ 1"},
		{"-tie", "NaN", "-tie NaN: want -tie ≥ 0"},
		{"-noise", "-Inf", "-noise -Inf: want -noise ≥ 0"},
		{"-reps", "1000000000000", "-reps 1000000000000: want -reps ≥ 1 and ≤ 1000000"},
		{"-splits", "1,100000", "-splits [1 100000]: want -splits positive split-K factors up to 1024"},
		{"-devices", "1000000000", "-devices 1000000000: want 1 to 1024"},
	} {
		requireOneLine(t, 2, tc.want, "model", "-model", "llama3-8b", tc.flag, tc.value)
	}
}

// A shapes CSV's numbers are bounded as well (bench and tune -shapes read it).
func TestBadShapesRefused(t *testing.T) {
	dir := t.TempDir()
	for i, row := range []struct{ text, want string }{
		{"qkv,1,4096,99999999999,", "K 99999999999: want 1 to 2147483648"},
		{"qkv,1,-4096,4096,", "N -4096: want 1 to"},
		{"qkv,0,4096,4096,", "M 0: want 1 to"},
		{"qkv,1,4096,4096,f32", "gemmroute: types: f32 is not an input type: use bf16, f16 or e4m3"}, // was accepted, and did nothing
	} {
		path := writeFile(t, dir, fmt.Sprintf("s%d.csv", i), "name,M,N,K,dtype\n"+row.text+"\n")
		requireOneLine(t, 1, fmt.Sprintf("s%d.csv:2: %s", i, row.want), "model", "-shapes", path)
	}
	bench := writeFile(t, dir, "bench.csv", "name,M,N,K,dtype,kernel,split_k,graph_us,graph_p90_us,events_us,floor_us,cublas_graph_us\nqkv,16,4096,4096,f32,k1,1,10,11,12,5,0\n")
	requireOneLine(t, 1, "bench.csv:2: gemmroute: types: f32 is not an input type", "report", "-bench", bench, "-out", dir+"/r")
}

// A manifest with absurd numbers (a tile_k of 2^62 once divided by zero in
// the estimate) is refused by the loader: explain says so in one line.
func TestExplainAbsurdManifest(t *testing.T) {
	dir := t.TempDir()
	text := readFile(t, "testdata/manifest.json")
	for i, edit := range [][2]string{
		{`"tile_k": 32`, `"tile_k": 4611686018427387904`},
		{`"max_split_k": 8`, `"max_split_k": 72057594037927936, "registers": 72057594037927936`},
	} {
		bad := strings.Replace(text, edit[0], edit[1], 1)
		path := writeFile(t, dir, fmt.Sprintf("m%d.json", i), bad)
		code, _, errOut := runCLI("explain", "-manifest", path, "-table", "none", "-m", "16")
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, errOut, "manifest", errOut)
		assert.NotContains(t, errOut, "goroutine")
	}
}

// A manifest of many image targets (one Plan over a 9 MB one took 53 s) or
// of many empty kernels (16 MiB exhausted 8 GiB) is refused in one line,
// before the kernels are decoded.
func TestExplainHostileManifest(t *testing.T) {
	dir := t.TempDir()
	text := readFile(t, "testdata/manifest.json")
	targets := strings.Replace(text, `"targets": ["sm_80", "compute_80"]`, `"targets": [`+strings.Repeat(`"sm_80",`, 1000)+`"compute_80"]`, 1)
	kernels := strings.Replace(text, `"kernels": [`, `"kernels": [`+strings.Repeat("{},", 1<<17), 1)
	for name, tc := range map[string]struct{ text, want string }{
		"targets.json": {targets, `image "test.fatbin": 1001 targets, more than the 64 an image may have`},
		"kernels.json": {kernels, "JSON values, more than the 262144 a manifest may have"},
	} {
		path := writeFile(t, dir, name, tc.text)
		start := time.Now()
		requireOneLine(t, 1, tc.want, "explain", "-manifest", path, "-table", "none", "-m", "16")
		assert.Less(t, time.Since(start), 2*time.Second)
	}
}

// Files read from disk are bounded: a table above 64 MiB, a manifest above
// 16 MiB and a CSV above 64 MiB are refused in one line, without reading
// them whole.
func TestFileSizeLimits(t *testing.T) {
	dir := t.TempDir()
	big := func(name string, size int64) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(size)) // sparse: no disk used
		require.NoError(t, f.Close())
		return path
	}
	requireOneLine(t, 1, "big.yaml: more than the 64 MiB a table may have", "check", big("big.yaml", 64<<20+1))
	requireOneLine(t, 1, "big.json: more than the 16 MiB a manifest may have", "check", "-manifest", big("big.json", 16<<20+1), "testdata/good.yaml")
	requireOneLine(t, 1, "big.csv: more than the 64 MiB a CSV file may have", "report", "-bench", big("big.csv", 64<<20+1), "-out", dir)
}

// -out never replaces what is not a regular file (a FIFO, a symbolic
// link, a device), and never names one of the command's own inputs.
func TestOutRefusesNonRegularAndInputs(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "target.csv", "old")
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink(target, link))
	fifo := filepath.Join(dir, "fifo.csv")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	requireOneLine(t, 1, link+" is a symbolic link, not a regular file", "points", "-model", "llama3-8b", "-out", link)
	requireOneLine(t, 1, fifo+" is a FIFO, not a regular file", "points", "-model", "llama3-8b", "-out", fifo)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.Equal(t, os.ModeNamedPipe, fi.Mode().Type(), "the FIFO is still one")
	assert.Equal(t, "old", readFile(t, target))

	shapes := writeFile(t, dir, "shapes.csv", "name,M,N,K\nqkv,1,4096,4096\n")
	requireOneLine(t, 1, shapes+" is both an input and the output", "points", "-shapes", shapes, "-out", shapes)
	assert.Equal(t, "name,M,N,K\nqkv,1,4096,4096\n", readFile(t, shapes))
	_, manifest, base := tuneFiles(t)
	before := readFile(t, base)
	requireOneLine(t, 1, base+" is both an input and the output", "model", "-model", "llama3-8b", "-manifest", manifest, "-base", base, "-out", base)
	requireOneLine(t, 1, base+" is both an input and the output", "tune", "-model", "llama3-8b", "-manifest", manifest, "-base", base, "-out", base)
	peer := writeFile(t, dir, "peer.csv", "name,M,N,K,graph_us\n")
	requireOneLine(t, 1, peer+" is both an input and the output", "tune", "-model", "llama3-8b", "-manifest", manifest, "-base", base, "-peer", peer, "-out", peer)
	assert.Equal(t, before, readFile(t, base))

	// report -out DIR: report.md must not be the bench CSV it reads.
	bench := writeFile(t, dir, "report.md", benchHeader+"qkv,16,4096,4096,k1,1,10,11,12,5,0\n")
	requireOneLine(t, 1, bench+" is both an input and the output", "report", "-bench", bench, "-out", dir)
	assert.Contains(t, readFile(t, bench), benchHeader)
}

// -splits repeated tries each factor once (it measured each candidate once
// per repeat: 16 s for model with 10 000 repeats); -devices may not repeat.
func TestRepeatedSplitsAndDevices(t *testing.T) {
	c := configFlags{weightFlags: weightFlags{model: "llama3-8b", maxM: 8192}, splits: strings.Repeat("1,2,", 1000) + "4"}
	c.cfg = tuning.DefaultConfig(nil, nil)
	cfg, _, err := c.config()
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 4}, cfg.Splits)
	requireOneLine(t, 2, `-devices "0,1,0": want distinct GPU ordinals`, "tune", "-model", "llama3-8b", "-out", t.TempDir()+"/t.yaml", "-devices", "0,1,0")
}
