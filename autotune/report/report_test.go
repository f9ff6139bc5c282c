package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/autotune/tuning/tuningtest"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
	"github.com/gemmroute/gemmroute/kernels"
)

const benchHeader = "name,M,N,K,dtype,kernel,split_k,level,graph_us,graph_p90_us,events_us,events_p90_us,tflops,gbps,floor_us,roofline_pct,host_gemm_us,host_launch_us,cublas_graph_us,speedup_vs_cublas\n"

// write writes text to path.
func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

const sweepHeader = "name,M,N,K,dtype,kernel,split_k,graph_us,graph_p90_us,check\n"

func TestBenchReport(t *testing.T) {
	dir := t.TempDir()
	bench := filepath.Join(dir, "bench.csv")
	write(t, bench, benchHeader+
		"x,1,4096,4096,bf16,test_simt_bf16,1,exact,10,11,15,16,3.4,3400,7.4,74,4,4,12,1.2\n"+
		"x,2,4096,4096,bf16,test_mma_bf16,2,exact,12,12,16,17,5.6,2800,7.4,62,4,4,10,0.833\n"+
		"y z/1,1,64,64,bf16,test_simt_bf16,1,heuristic,3,3,6,7,0.003,5,0.1,3,4,4,0,\n")
	sweep := filepath.Join(dir, "sweep.csv")
	write(t, sweep, sweepHeader+
		"x,1,4096,4096,bf16,test_simt_bf16,1,10,11,ok\n"+
		"x,1,4096,4096,bf16,test_mma_bf16,2,9,9,ok\n"+
		"x,1,4096,4096,bf16,test_mma_bf16,1,1,1,\"wrong: D[0,0] = 3, want 1\"\n"+
		"x,2,4096,4096,bf16,test_mma_bf16,2,12,12,ok\n")
	rows, err := ReadBench(bench)
	require.NoError(t, err)
	out := filepath.Join(dir, "report")
	plots, err := (&Bench{Title: "Test GPU", Rows: rows, Sweep: sweep, Ceilings: Ceilings{ReadBW: 4.54e12, Peak: 750e12}}).Write(out)
	require.NoError(t, err)
	assert.Equal(t, 2, plots)
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	text := string(md)
	assert.Contains(t, text, "# Test GPU")
	assert.Contains(t, text, "Against cuBLAS on 2 shapes: geometric mean ×1.000, lowest ×0.83")
	assert.Contains(t, text, "| x | 1 | 10.00 | 9.00 | 11.1 % | `test_mma_bf16 split-K 2` |", "the wrong 1 µs candidate is not the fastest")
	assert.Contains(t, text, "mean 5.56 %, worst 11.1 %")
	for _, png := range []string{"roofline-x.png", "roofline-y_z_1.png"} {
		b, err := os.ReadFile(filepath.Join(out, png))
		require.NoError(t, err, png)
		assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")), "%s is not a PNG", png)
		assert.Contains(t, text, "("+png+")")
	}
	write(t, bench, benchHeader+"x,1,4096,4096,bf16,k,1,exact,0,11,15,16,3.4,3400,7.4,74,4,4,12,1.2\n")
	_, err = ReadBench(bench)
	assert.ErrorContains(t, err, "bench.csv:2: graph_us must be positive")
}

func TestReadPeerAndWriteBench(t *testing.T) {
	dir := t.TempDir()
	peerPath := filepath.Join(dir, "peer.csv")
	write(t, peerPath, "name,M,N,K,dtype,graph_us,events_us\nqkv,1,6144,4096,bf16,17.09,22.1\nqkv,1,6144,4096,fp16,16.5,22.0\n")
	peer, err := ReadPeer(peerPath)
	require.NoError(t, err)
	assert.Equal(t, 17.09, peer.US(tuning.Shape{Name: "qkv", M: 1, N: 6144, K: 4096, Types: tuningtest.Types("bf16")}))
	assert.Equal(t, 16.5, peer.US(tuning.Shape{Name: "qkv", M: 1, N: 6144, K: 4096, Types: tuningtest.Types("f16")}), "peer_cublas.py spells f16 fp16")
	write(t, peerPath, "name,M,N,K,dtype,graph_us\nqkv,1,6144,4096,fp8x,1\n")
	_, err = ReadPeer(peerPath)
	assert.ErrorContains(t, err, "peer.csv:2")

	out := filepath.Join(dir, "bench.csv")
	r := BenchRow{Shape: tuning.Shape{Name: "qkv", M: 1, N: 6144, K: 4096, Types: tuningtest.Types("bf16")}, Kernel: "k", SplitK: 1, Level: "exact",
		GraphUS: 13.86, GraphP90: 13.99, EventsUS: 20, EventsP90: 21, FloorUS: 11.09, PeerUS: 17.09}
	require.NoError(t, WriteBench(out, []BenchRow{r}))
	f, err := fileio.ReadCSV(out, "speedup_vs_cublas", "roofline_pct", "gbps")
	require.NoError(t, err)
	n := 0
	for row := range f.Rows() {
		n++
		assert.Equal(t, "1.233", row.Str("speedup_vs_cublas"))
		assert.Equal(t, "80.014", row.Str("roofline_pct"))
		assert.Equal(t, "3632.910", row.Str("gbps")) // 2·(4096+6144·4096+6144) B / 13.86 µs
	}
	assert.Equal(t, 1, n)
	back, err := ReadBench(out)
	require.NoError(t, err)
	assert.Equal(t, []BenchRow{{Shape: r.Shape, Kernel: "k", SplitK: 1, Level: "exact", GraphUS: 13.86, GraphP90: 13.99, EventsUS: 20, FloorUS: 11.09, PeerUS: 17.09}}, back)
	// An e4m3 row keeps its scaling and its output type through the CSV.
	r8, r8f := r, r
	r8.Types, r8f.Types = tuningtest.Types("e4m3→bf16/row"), tuningtest.Types("e4m3→f16")
	require.NoError(t, WriteBench(out, []BenchRow{r, r8, r8f}))
	back, err = ReadBench(out)
	require.NoError(t, err)
	require.Len(t, back, 3)
	assert.Equal(t, []tuning.Shape{r.Shape, r8.Shape, r8f.Shape}, []tuning.Shape{back[0].Shape, back[1].Shape, back[2].Shape})
	// The roofline: M = 1 is bound by reading the weight.
	h200 := Ceilings{ReadBW: 4.54e12, Peak: 750e12}
	assert.InDelta(t, 2*(4096+6144*4096+6144)/4.54e12*1e6, h200.RooflineUS(tuning.Shape{M: 1, N: 6144, K: 4096, Types: tuningtest.Types("bf16")}), 1e-9)
	assert.InDelta(t, 2*8192.0*6144*4096/750e12*1e6, h200.RooflineUS(tuning.Shape{M: 8192, N: 6144, K: 4096, Types: tuningtest.Types("bf16")}), 1e-9)
}

func TestPoints(t *testing.T) {
	ws, err := tuning.ModelWeights("llama3-8b", []dispatch.Types{tuningtest.Types("bf16")})
	require.NoError(t, err)
	data := string(Points(ws, 8))
	assert.True(t, strings.HasPrefix(data, "name,M,N,K,dtype,scaling,out\nl3-8b.qkv,1,6144,4096,bf16,,bf16\nl3-8b.qkv,2,6144,4096,bf16,,bf16\n"))
	assert.Contains(t, data, "l3-8b.down,6,4096,14336,bf16,,bf16\n", "probe Ms too")
	ws, err = tuning.ModelWeights("llama3-8b", []dispatch.Types{tuningtest.Types("f16"), tuningtest.Types("e4m3→bf16/row"), tuningtest.Types("e4m3→f16")})
	require.NoError(t, err)
	data = string(Points(ws, 1))
	assert.Contains(t, data, "l3-8b.qkv,1,6144,4096,fp16,,fp16\n", "in peer_cublas.py's spelling")
	assert.Contains(t, data, "l3-8b.qkv,1,6144,4096,e4m3,row,bf16\n", "e4m3 with its scaling")
	assert.Contains(t, data, "l3-8b.qkv,1,6144,4096,e4m3,tensor,fp16\n", "and its output type")
	// what points writes, the peer's CSV carries back: e4m3 → f16 joins its own shape
	path := filepath.Join(t.TempDir(), "peer.csv")
	require.NoError(t, os.WriteFile(path, []byte("name,M,N,K,dtype,scaling,out,graph_us,status\nq,1,8,8,e4m3,tensor,fp16,3.5,ok\nq,1,8,8,e4m3,tensor,bf16,4.5,ok\n"), 0o644))
	peer, err := ReadPeer(path)
	require.NoError(t, err)
	assert.Equal(t, 3.5, peer.US(tuning.Shape{Name: "q", M: 1, N: 8, K: 8, Types: tuningtest.Types("e4m3→f16")}))
	assert.Equal(t, 4.5, peer.US(tuning.Shape{Name: "q", M: 1, N: 8, K: 8, Types: tuningtest.Types("e4m3→bf16")}))
}

// qkvConfig is the default configuration over the test catalog for
// Llama-3-8B's qkv, up to maxM, without the model's pruning.
func qkvConfig(t *testing.T, maxM int) (tuning.Config, tuning.Weight) {
	t.Helper()
	cat, err := tuningtest.Catalog()
	require.NoError(t, err)
	qkv := tuning.Weight{Name: "l3-8b.qkv", Types: tuningtest.Types("bf16"), N: 6144, K: 4096}
	cfg := tuning.DefaultConfig(cat, []tuning.Weight{qkv})
	cfg.MaxM, cfg.Prune = maxM, 0
	return cfg, qkv
}

// A candidate noisy every time stays flagged in the report.
func TestNotesFlagNoisyTimings(t *testing.T) {
	cfg, _ := qkvConfig(t, 16)
	gpu := tuningtest.NewGPU()
	gpu.Noisy = map[tuning.Candidate]int{{Kernel: "t90_mma", SplitK: 4}: 1000}
	res, err := tuning.Tune(&cfg, []tuning.Measurer{gpu}, &dispatch.Table{})
	require.NoError(t, err)
	var md strings.Builder
	(&Tune{Result: res}).Notes(&md)
	assert.Contains(t, md.String(), "t90_mma split-K 4`: median")
	assert.Contains(t, md.String(), "- `t90_wrong split-K 1`, at ")
}

// A run its time limit cut says so at the top of tune.md, and its choices'
// events column shows no figure where none was taken.
func TestTuneReportOfACutRun(t *testing.T) {
	cfg, qkv := qkvConfig(t, 512)
	base := &dispatch.Table{Provenance: dispatch.Provenance{Source: "base"}}
	for _, n := range []int{0, qkv.N} {
		e := dispatch.Entry{Arch: dispatch.SM90, Types: qkv.Types, Layout: "tn", N: n, K: n / 6144 * 4096}
		for _, b := range dispatch.GeometricBuckets(8192) {
			b.Kernel, b.SplitK = "t90_any", 1
			e.Buckets = append(e.Buckets, b)
		}
		base.Entries = append(base.Entries, e)
	}
	cfg.Deadline = time.Now().Add(50 * time.Millisecond)
	res, err := tuning.Tune(&cfg, []tuning.Measurer{&slowFirstTime{Measurer: tuningtest.NewGPU(), wait: 100 * time.Millisecond}}, base)
	require.NoError(t, err)
	require.NotEmpty(t, res.Unmeasured)
	require.True(t, res.NoEvents)
	dir := t.TempDir()
	require.NoError(t, (&Tune{Result: res, Ceilings: Ceilings{ReadBW: 4e12, Peak: 700e12}}).Write(dir))
	md, err := os.ReadFile(filepath.Join(dir, "tune.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), fmt.Sprintf("The run's time limit cut it: %d (weight, bucket) units not tuned (their buckets keep the base table's choices; the table's tuned buckets start at M = 257); the per-call events column was left out.", len(res.Unmeasured)))
	assert.Regexp(t, `\| l3-8b\.qkv bf16 \| 257 \| [0-9.]+ \([0-9.]+\) \| – \|`, string(md))
}

// slowFirstTime is a Measurer whose first timing takes wait.
type slowFirstTime struct {
	tuning.Measurer
	wait time.Duration
	once sync.Once
}

func (s *slowFirstTime) Time(w tuning.Weight, m int, c tuning.Candidate, reps int) (tuning.Timing, error) {
	s.once.Do(func() { time.Sleep(s.wait) })
	return s.Measurer.Time(w, m, c, reps)
}

// A report's rates must be positive and finite (a negative peak panicked in
// the plotting library, a tiny bandwidth drew ticks until out of memory);
// the tickers themselves end on any range.
func TestReportRefusesBadRates(t *testing.T) {
	rows := []BenchRow{{Shape: tuning.Shape{Name: "x", M: 1, N: 64, K: 64, Types: tuningtest.Types("bf16")}, Kernel: "k", SplitK: 1, GraphUS: 3}}
	for _, rates := range [][2]float64{{4e12, -1}, {1e-300, 1e15}, {math.NaN(), 1e15}, {4e12, math.Inf(1)}, {0, 1e15}} {
		_, err := (&Bench{Title: "t", Rows: rows, Ceilings: Ceilings{ReadBW: rates[0], Peak: rates[1]}}).Write(t.TempDir())
		assert.ErrorContains(t, err, "want a rate", "%v", rates)
		assert.ErrorContains(t, (&Tune{Result: &tuning.Result{}, Ceilings: Ceilings{ReadBW: rates[0], Peak: rates[1]}}).Write(t.TempDir()), "want a rate", "%v", rates)
	}
	for _, r := range [][2]float64{{0, 1}, {-1, 1}, {1, math.Inf(1)}, {math.NaN(), 1}, {1, math.NaN()}, {2, 1}} {
		assert.Empty(t, powersOfTwo{}.Ticks(r[0], r[1]), "%v", r)
		assert.Empty(t, oneTwoFive{}.Ticks(r[0], r[1]), "%v", r)
	}
	assert.NotEmpty(t, oneTwoFive{}.Ticks(1e-300, 1e300), "a huge but finite range ticks")
}

// peer_cublas.py's CSV with e4m3 rows: each joins the bench shape of its
// scaling (an empty scaling is per-tensor), a row torch refused is left out,
// and a 16-bit row keeps its dtype-only key.
func TestReadPeerE4M3Scalings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "peer.csv")
	const header = "name,M,N,K,dtype,scaling,fast_accum,graph_us,graph_p90_us,events_us,tflops,gbps,floor_us,roofline_pct,fast_graph_us,status,note\n"
	write(t, path, header+
		"down,16,4096,14336,bf16,,,32.3,33,40,58,1800,27,84,,ok,\n"+
		"down,16,4096,14336,e4m3,tensor,false,18.5,19,25,101,3200,13.6,73,17.9,ok,\n"+
		"down,16,4096,14336,e4m3,row,false,19.25,20,26,97,3100,13.6,70,,ok,use_fast_accum=True refused: x\n"+
		"down,16,4096,14336,e4m3,block128,,,,,,,,,,unsupported,\"RuntimeError: Invalid scaling configuration, more\"\n"+
		"down,1,4096,14336,e4m3,,false,17.5,18,24,7,3300,13,74,,,\n")
	peer, err := ReadPeer(path)
	require.NoError(t, err)
	down := tuning.Shape{Name: "down", M: 16, N: 4096, K: 14336, Types: tuningtest.Types("e4m3→bf16")}
	assert.Equal(t, 18.5, peer.US(down), "per-tensor: graph_us (use_fast_accum=false), not fast_graph_us")
	down.Types = tuningtest.Types("e4m3→bf16/row")
	assert.Equal(t, 19.25, peer.US(down))
	down.Types = tuningtest.Types("e4m3→bf16/block128")
	assert.Zero(t, peer.US(down), "an unsupported row gives no time")
	down.Types = tuningtest.Types("bf16")
	assert.Equal(t, 32.3, peer.US(down), "bf16 is not e4m3")
	down.M, down.Types = 1, tuningtest.Types("e4m3→bf16")
	assert.Equal(t, 17.5, peer.US(down), "an empty scaling and status: per-tensor, ok")
	assert.Len(t, peer, 4)

	for _, tc := range []struct{ row, want string }{
		{"down,16,4096,14336,e4m3,row,false,19,20,26,97,3100,13.6,70,,maybe,", `peer.csv:2: status "maybe": want ok, unsupported or empty`},
		{"down,16,4096,14336,e4m3,col,false,19,20,26,97,3100,13.6,70,,ok,", `peer.csv:2: gemmroute: invalid argument: unknown scaling "col"`},
		{"down,16,4096,14336,bf16,row,,19,20,26,97,3100,13.6,70,,ok,", "peer.csv:2: gemmroute: types: row: bf16 inputs take no scales"},
		{"down,16,4096,14336,e4m3,row,false,,,,,,,,,ok,", `peer.csv:2: graph_us "" is not a finite number`},
		{"down,0,4096,14336,e4m3,block128,,,,,,,,,,unsupported,x", "peer.csv:2: M 0: want 1 to"},
	} {
		write(t, path, header+tc.row+"\n")
		_, err := ReadPeer(path)
		assert.ErrorContains(t, err, tc.want, tc.row)
	}
}

// e4m3's roofline: one-byte operands, a bf16 output, the e4m3 rate (twice
// the 16-bit one unless measured).
func TestRooflineE4M3(t *testing.T) {
	flops, bytes := Work(16, 4096, 14336, tuningtest.Types("e4m3→bf16"))
	assert.Equal(t, 2*16.0*4096*14336, flops)
	assert.Equal(t, 16.0*14336+4096*14336+2*16*4096, bytes, "A and B one byte each, D bf16")
	_, bytes16 := Work(16, 4096, 14336, tuningtest.Types("bf16"))
	assert.Equal(t, 2*(16.0*14336+4096*14336+16*4096), bytes16)

	c := Ceilings{ReadBW: 4.45e12, Peak: 715e12}
	assert.Equal(t, 715e12, c.Rate(dispatch.BF16))
	assert.Equal(t, 715e12, c.Rate(dispatch.F16))
	assert.Equal(t, 1430e12, c.Rate(dispatch.E4M3), "no measured e4m3 rate: twice the 16-bit one")
	c.PeakFP8 = 1285e12
	assert.Equal(t, 1285e12, c.Rate(dispatch.E4M3))
	assert.Equal(t, 715e12, c.Rate(dispatch.BF16), "PeakFP8 is for e4m3 only")

	small := tuning.Shape{M: 1, N: 4096, K: 14336, Types: tuningtest.Types("e4m3→bf16")}
	assert.InDelta(t, (14336.0+4096*14336+2*4096)/4.45e12*1e6, c.RooflineUS(small), 1e-9, "M = 1 reads the one-byte weight")
	big := tuning.Shape{M: 8192, N: 4096, K: 14336, Types: tuningtest.Types("e4m3→bf16")}
	assert.InDelta(t, 2*8192.0*4096*14336/1285e12*1e6, c.RooflineUS(big), 1e-9, "large M at the e4m3 rate")

	rows := []BenchRow{{Shape: big, Kernel: "k", SplitK: 1, GraphUS: 1000}}
	_, err := (&Bench{Title: "t", Rows: rows, Ceilings: Ceilings{ReadBW: 4e12, Peak: 7e14, PeakFP8: -1}}).Write(t.TempDir())
	assert.ErrorContains(t, err, "e4m3 peak rate -1: want a rate")
}

// Rows of one weight in several dtypes or scalings are told apart in logs,
// tables and plots; bf16 rows keep their bare name.
func TestLabel(t *testing.T) {
	s := tuning.Shape{Name: "down", M: 1, N: 4096, K: 14336, Types: tuningtest.Types("bf16")}
	assert.Equal(t, "down", label(s))
	s.Types = tuningtest.Types("f16")
	assert.Equal(t, "down f16", label(s))
	s.Types = tuningtest.Types("e4m3→bf16")
	assert.Equal(t, "down e4m3→bf16", label(s))
	s.Types = tuningtest.Types("e4m3→f16/block128")
	assert.Equal(t, "down e4m3→f16/block128", label(s))
	assert.Contains(t, BenchRow{Shape: s, GraphUS: 20, Kernel: "k", SplitK: 1}.Line(), "down e4m3→f16/block128 M=    1")
}

// bench records a plan routed to cuBLASLt (no Kernel) by the algorithm's
// one-word tag, which the CSV and the printed line carry whole; a plan of
// ours by its kernel's name.
func TestBenchRowSetPlan(t *testing.T) {
	v := &dispatch.Vendor{Algo: base64.StdEncoding.EncodeToString(make([]byte, dispatch.VendorAlgoBytes)), Version: 120804}
	r := BenchRow{Shape: tuning.Shape{Name: "o", M: 64, N: 4096, K: 4096, Types: tuningtest.Types("bf16")}, GraphUS: 12, FloorUS: 10}
	r.SetPlan(dispatch.Plan{Vendor: v, SplitK: 1, Level: dispatch.LevelExact})
	assert.Equal(t, "cublaslt:12.8.4:f5a5fd42", r.Kernel)
	assert.Equal(t, 1, r.SplitK)
	assert.Equal(t, "exact (N,K) entry", r.Level)
	assert.Contains(t, r.Line(), "  cublaslt:12.8.4:f5a5fd42 split=1 (exact (N,K) entry)")
	out := filepath.Join(t.TempDir(), "bench.csv")
	require.NoError(t, WriteBench(out, []BenchRow{r}))
	back, err := ReadBench(out)
	require.NoError(t, err)
	require.Len(t, back, 1)
	assert.Equal(t, "cublaslt:12.8.4:f5a5fd42", back[0].Kernel)

	r.SetPlan(dispatch.Plan{Kernel: &kernels.KernelSpec{Name: "k"}, SplitK: 2, Level: dispatch.LevelDefault})
	assert.Equal(t, []any{"k", 2, "default entry"}, []any{r.Kernel, r.SplitK, r.Level})
}

// A bucket that cuBLASLt won names, in the Choices table, the algorithm and
// the kernel of ours that runs without cuBLASLt, with its time against the
// algorithm's at the bucket's largest sample M.
func TestChoiceRowVendorWithKernel(t *testing.T) {
	v := dispatch.Vendor{Algo: "AAAA", Version: 130100}
	b := dispatch.Bucket{MinM: 33, MaxM: 64, Kernel: "gemmroute_sm90_k", SplitK: 2, Vendor: &v,
		TimesUS: map[int]float64{33: 10, 64: 20}, KernelTimesUS: map[int]float64{33: 11, 64: 25}}
	row := choiceRow(tuning.Choice{Key: dispatch.EntryKey{Arch: dispatch.SM90}, Bucket: b, Loss: 1})
	assert.Contains(t, row, tuning.BucketCandidate(&b).String()+"; without cuBLASLt gemmroute_sm90_k split-K 2 (×1.25 the time at M = 64)")
	b.Kernel, b.KernelTimesUS = "", nil
	assert.NotContains(t, choiceRow(tuning.Choice{Bucket: b, Loss: 1}), "without cuBLASLt")
}
