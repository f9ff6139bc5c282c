package report

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
)

// The committed results the README's performance figures come from, relative
// to the repository root. Each run's ceilings are the ones measured in that
// run (by peer_cublas.py), never the DevicePreset's.
const (
	// bf16: the engine with the committed table beside cuBLAS, the ceilings
	// of that call (peer.csv's roofline floors) and its card (nvidia-smi's
	// name, driver and clock). readmeBF16Table says which table that was.
	readmeBF16Bench = "docs/perf/2026-12-08-h100/callB/bench-shapes-committed.csv"
	readmeBF16Peer  = "docs/perf/2026-12-08-h100/callB/peer-bench-shapes.csv"
	readmeBF16Card  = "docs/perf/2026-12-08-h100/callB/card.txt"
	readmeBF16Table = "the table as call I of 2026-12-07 left it (the stream-K shift fix's buckets\n" +
		"re-measured; five buckets spliced on 2026-12-08 after this run, Llama-3-8B o\n" +
		"and down at M = 129…256, gate_up and down at 1025…2048 and gemma2-9b o at\n" +
		"129…256, are not in these figures: their own bench is in the same directory)"
	// The previous table (before call I's splice) in the same call, for the
	// before/after sentence.
	readmeBF16Before = "docs/perf/2026-12-08-h100/callB/bench-shapes-before.csv"
	// The same two tables in the same call at Ms between powers of two
	// (scripts/shapes-between.csv), where no bucket's choice was made.
	readmeBF16Between       = "docs/perf/2026-12-08-h100/callB/shapes-between-committed.csv"
	readmeBF16BetweenBefore = "docs/perf/2026-12-08-h100/callB/shapes-between-before.csv"
	// e4m3 beside torch._scaled_mm with the same scales (every scaling, and
	// e4m3 → f16), and that run's peer CSV (its ceilings, from the floors).
	readmeFP8Bench = "docs/perf/2026-12-04-h200-c/c1/bench-e4m3-E.csv"
	readmeFP8Peer  = "docs/perf/2026-12-04-h200-c/c1/peer-e4m3.csv"
	// The focused bench of the TMA kernels on N = 769, K = 5120 (aligned).
	readmePaddedLog = "docs/perf/2026-12-01-h200-tma/v5-odd-769x5120.log"
)

// ReadmeCommand regenerates the README's generated blocks.
const ReadmeCommand = "go run -tags nocuda ./autotune report -readme README.md"

// Readme returns readme with every generated block rewritten from the
// committed CSVs and logs under root (the repository). A block is the text
// between a line "<!-- generated: NAME (ReadmeCommand) -->" and the next line
// "<!-- end generated: NAME -->"; NAME is one of bf16, bf16-notes, fp8,
// fp8-notes, padded. Every name must appear exactly once.
func Readme(root string, readme []byte) ([]byte, error) {
	blocks, err := readmeBlocks(root)
	if err != nil {
		return nil, err
	}
	out := readme
	for _, name := range slices.Sorted(maps.Keys(blocks)) {
		begin := []byte(fmt.Sprintf("<!-- generated: %s (%s) -->\n", name, ReadmeCommand))
		end := []byte(fmt.Sprintf("<!-- end generated: %s -->\n", name))
		i := bytes.Index(out, begin)
		if i < 0 || bytes.Count(out, begin) != 1 {
			return nil, fmt.Errorf("readme: want exactly one line %q", bytes.TrimSpace(begin))
		}
		j := bytes.Index(out[i:], end)
		if j < 0 {
			return nil, fmt.Errorf("readme: block %s has no line %q", name, bytes.TrimSpace(end))
		}
		j += i
		var b bytes.Buffer
		b.Write(out[:i+len(begin)])
		b.WriteString(wrapProse(blocks[name]))
		b.Write(out[j:])
		out = b.Bytes()
	}
	return out, nil
}

// measured are a run's ceilings, as its peer stated them (rounded as the
// peer prints them: what the README states and computes with).
type measured struct {
	readTBs, peakTF float64 // pure-read bandwidth TB/s, dense rate of the dtype TFLOP/s
}

func (c measured) floorUS(m, n, k int, t dispatch.Types) float64 {
	flops, bytes := Work(m, n, k, t)
	return max(flops/(c.peakTF*1e12), bytes/(c.readTBs*1e12)) * 1e6
}

func (c measured) readShare(r BenchRow) float64 {
	_, bytes := Work(r.M, r.N, r.K, r.Types)
	return 100 * bytes / (c.readTBs * 1e12) * 1e6 / r.GraphUS
}

// peerCeilings recovers the ceilings a peer_cublas.py run measured from its
// CSV: every row's floor_us is max(flops / peak, bytes / read) with that
// run's ceilings, rounded to 0.01 µs. The bandwidth-bound row (M ≤ 16) with
// the longest floor and the row with the most flops give them to four
// digits; they are rounded as the script's header prints them (read
// bandwidth to 0.01 TB/s, the dense rate to 1 TFLOP/s).
func peerCeilings(path string, dt dispatch.DType) (measured, error) {
	f, err := fileio.ReadCSV(path, "name", "M", "N", "K", "floor_us")
	if err != nil {
		return measured{}, err
	}
	var bestBW, bestFlops, bw, peak float64
	for r := range f.Rows() {
		s := tuning.ShapeOf(r)
		fl := r.Float("floor_us")
		if err := r.Err(); err != nil {
			return measured{}, err
		}
		if s.Types.In != dt || fl <= 0 {
			continue
		}
		flops, bytes := Work(s.M, s.N, s.K, s.Types)
		if s.M <= 16 && fl > bestBW {
			bestBW, bw = fl, bytes/fl/1e6
		}
		if flops > bestFlops {
			bestFlops, peak = flops, flops/fl/1e6
		}
	}
	if bw == 0 || peak == 0 {
		return measured{}, fmt.Errorf("%s: no %s rows to recover the ceilings from", path, dt)
	}
	return measured{readTBs: math.Round(bw*100) / 100, peakTF: math.Round(peak)}, nil
}

// readCard names the card of a run from its card.txt (nvidia-smi's
// "name, driver_version, clocks.max.sm" line): "NAME (driver DRIVER)".
func readCard(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("readme: the run's card: %w", err)
	}
	f := strings.Split(strings.TrimSpace(string(data)), ", ")
	if len(f) < 2 || f[0] == "" || f[1] == "" {
		return "", fmt.Errorf("readme: %s: want nvidia-smi's \"name, driver_version, …\" line, have %q", path, data)
	}
	return fmt.Sprintf("%s (driver %s)", f[0], f[1]), nil
}

// mRange is an inclusive range of M for geometric means.
type mRange struct {
	lo, hi int
	label  string
}

var (
	small = mRange{1, 16, "M ≤ 16"}
	mid   = mRange{17, 256, "M = 17…256"}
	upper = mRange{257, 1023, "M = 257…1023"}
	large = mRange{1024, math.MaxInt, "M ≥ 1024"}
)

func (r mRange) has(m int) bool { return m >= r.lo && m <= r.hi }

// ratios are the rows' cuBLAS-over-ours ratios (rows without a peer left out).
func ratios(rows []BenchRow, keep func(BenchRow) bool) []float64 {
	var out []float64
	for _, r := range rows {
		if r.PeerUS > 0 && keep(r) {
			out = append(out, r.Ratio())
		}
	}
	return out
}

func geomean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

// llama are the four Llama-3-8B weights of the bench files, in table order.
var llama = []struct{ name, label string }{
	{"l3-8b.qkv", "qkv"}, {"l3-8b.o", "o"}, {"l3-8b.gateup", "gate_up"}, {"l3-8b.down", "down"},
}

const oddName = "odd.n769k5125"

func isLlama(r BenchRow) bool {
	return slices.ContainsFunc(llama, func(w struct{ name, label string }) bool { return w.name == r.Name })
}

func isHeldOut(r BenchRow) bool { return !isLlama(r) && r.Name != oddName }

// weights counts the distinct weights (row names) of rows in set.
func weights(rows []BenchRow, set func(BenchRow) bool) int {
	seen := map[string]bool{}
	for _, r := range rows {
		if set(r) {
			seen[r.Name] = true
		}
	}
	return len(seen)
}

func readmeBlocks(root string) (map[string]string, error) {
	path := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	bf16, err := ReadBench(path(readmeBF16Bench))
	if err != nil {
		return nil, err
	}
	before, err := ReadBench(path(readmeBF16Before))
	if err != nil {
		return nil, err
	}
	between, err := ReadBench(path(readmeBF16Between))
	if err != nil {
		return nil, err
	}
	betweenBefore, err := ReadBench(path(readmeBF16BetweenBefore))
	if err != nil {
		return nil, err
	}
	ceil, err := peerCeilings(path(readmeBF16Peer), dispatch.BF16)
	if err != nil {
		return nil, err
	}
	card, err := readCard(path(readmeBF16Card))
	if err != nil {
		return nil, err
	}
	fp8, err := ReadBench(path(readmeFP8Bench))
	if err != nil {
		return nil, err
	}
	ceil8, err := peerCeilings(path(readmeFP8Peer), dispatch.E4M3)
	if err != nil {
		return nil, err
	}
	padded, err := readKbenchSummary(path(readmePaddedLog))
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"bf16":       bf16Table(bf16, ceil, card),
		"bf16-notes": bf16Notes(bf16, before) + betweenNote(between, betweenBefore),
		"fp8":        fp8Table(fp8, ceil8),
		"fp8-notes":  fp8Notes(fp8, bf16, ceil8, ceil),
		"padded":     paddedNote(padded),
	}, nil
}

// x formats a ratio as the README writes it.
func x(v float64) string { return fmt.Sprintf("×%.2f", v) }

func us(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

// bf16Table is the headline table: our time and cuBLAS's ratio per weight at
// the table's Ms, the roofline share at M = 1, bold where we are ≥ 5 %
// faster.
func bf16Table(rows []BenchRow, c measured, card string) string {
	ms := []int{1, 16, 64, 256, 1024, 4096, 8192}
	var b strings.Builder
	dir := path.Dir(path.Dir(readmeBF16Bench))
	fmt.Fprintf(&b, "One %s, bf16, per-call time by CUDA-graph replay over rotating weights\n"+
		"(≥ 3× L2), median of 20 replays; cuBLAS through torch timed in the same run\n"+
		"by the same method; %s. %% roofline = max(flops / %.0f TFLOP/s, bytes / %.2f TB/s)\n"+
		"over our time, the ceilings measured in the run. Full data:\n[`%s`](%s/README.md).\n\n",
		card, readmeBF16Table, c.peakTF, c.readTBs, dir, dir)
	b.WriteString("| weight (N×K) | M = 1 | 16 | 64 | 256 | 1024 | 4096 | 8192 |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, wt := range append(slices.Clone(llama), struct{ name, label string }{oddName, "odd"}) {
		var cells []string
		var n, k int
		for _, m := range ms {
			i := slices.IndexFunc(rows, func(r BenchRow) bool { return r.Name == wt.name && r.M == m })
			if i < 0 {
				cells = append(cells, "—")
				continue
			}
			r := rows[i]
			n, k = r.N, r.K
			cell := us(r.GraphUS)
			if m == 1 {
				cell += " µs"
			}
			if r.PeerUS > 0 {
				ratio := x(r.Ratio())
				if r.Ratio() >= 1.05 {
					ratio = "**" + ratio + "**"
				}
				cell += " " + ratio
			}
			if m == 1 {
				cell += fmt.Sprintf(" (%.0f %%)", 100*c.floorUS(r.M, r.N, r.K, r.Types)/r.GraphUS)
			}
			cells = append(cells, cell)
		}
		fmt.Fprintf(&b, "| %s %d×%d | %s |\n", wt.label, n, k, strings.Join(cells, " | "))
	}
	b.WriteString("\n(× = cuBLAS time / ours: above 1 we are faster, bold ≥ 1.05; at M = 1\n" +
		"the share of the roofline in parentheses.)\n")
	return b.String()
}

// spread is "a–b" of the values, 2 decimals ("a" when they round alike).
func spread(v []float64) string {
	lo, hi := slices.Min(v), slices.Max(v)
	a, b := fmt.Sprintf("%.2f", lo), fmt.Sprintf("%.2f", hi)
	if a == b {
		return a
	}
	return a + "–" + b
}

// msWhere lists the Ms (in order) of name's rows whose ratio passes keep.
func msWhere(rows []BenchRow, name string, keep func(float64) bool) []int {
	var out []int
	for _, r := range rows {
		if r.Name == name && r.PeerUS > 0 && keep(r.Ratio()) {
			out = append(out, r.M)
		}
	}
	return out
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, m := range v {
		s[i] = strconv.Itoa(m)
	}
	return strings.Join(s, ", ")
}

func geo(rows []BenchRow, set func(BenchRow) bool, r mRange) float64 {
	return geomean(ratios(rows, func(x BenchRow) bool { return set(x) && r.has(x.M) }))
}

// bf16Notes are the sentences under the table: geometric means by regime,
// against the earlier run, and where each side wins.
func bf16Notes(rows, before []BenchRow) string {
	var b strings.Builder
	now := func(r mRange) string { return x(geo(rows, isLlama, r)) }
	was := func(r mRange) string { return x(geo(before, isLlama, r)) }
	fmt.Fprintf(&b, "Geometric means over the four Llama-3-8B weights (%d Ms each, 1…%d):\n"+
		"%s %s, %s %s, %s %s, %s %s\n"+
		"(the previous table, `%s`: %s, %s, %s, %s).\n",
		len(msWhere(rows, llama[0].name, func(float64) bool { return true })), slices.Max(msWhere(rows, llama[0].name, func(float64) bool { return true })),
		small.label, now(small), mid.label, now(mid), upper.label, now(upper), large.label, now(large),
		readmeBF16Before, was(small), was(mid), was(upper), was(large))
	b.WriteString("Faster than cuBLAS (× above 1) at M =")
	for i, w := range llama {
		sep := ";"
		if i == len(llama)-1 {
			sep = "."
		}
		fmt.Fprintf(&b, " %s: %s%s", w.label, joinInts(msWhere(rows, w.name, func(v float64) bool { return v >= 1 })), sep)
	}
	var oddSmall, oddAbove []float64
	for _, r := range rows {
		if r.Name == oddName && r.PeerUS > 0 {
			if r.M >= 2 && r.M <= 8 {
				oddSmall = append(oddSmall, r.Ratio())
			} else if r.M > 16 {
				oddAbove = append(oddAbove, r.Ratio())
			}
		}
	}
	var smallW []float64
	for _, r := range rows {
		if (r.Name == "l3-8b.qkv" || r.Name == "l3-8b.o") && r.M >= 32 && r.M <= 512 && r.PeerUS > 0 {
			smallW = append(smallW, r.Ratio())
		}
	}
	fmt.Fprintf(&b, " The odd shape N = 769, K = 5125: ×%s at M = 2…8, ×%s above M = 16\n"+
		"%s. The small weights (qkv, o) at M = 32…512:\n"+
		"×%s. On %d weights that the table was not tuned for (other models' and the\n"+
		"floor probes; default entries): %s %s, %s %s, %s %s.\n",
		spread(oddSmall), spread(oddAbove), oddRoute(rows), spread(smallW), weights(rows, isHeldOut),
		small.label, x(geo(rows, isHeldOut, small)), mid.label, x(geo(rows, isHeldOut, mid)), large.label, x(geo(rows, isHeldOut, large)))
	b.WriteString(routerNote(rows))
	return b.String()
}

// betweenNote: the bench at Ms between powers of two, where the table made
// no choice (a bucket's one kernel serves its whole octave), against the
// previous table in the same call.
func betweenNote(now, before []BenchRow) string {
	all := func(BenchRow) bool { return true }
	v := ratios(now, all)
	ms := map[int]bool{}
	for _, r := range now {
		ms[r.M] = true
	}
	return fmt.Sprintf("Between powers of two (M = %s; Llama-3-8B and %d weights it was not tuned for, %d shapes, `%s`): ×%.3f, lowest ×%.2f (the previous table ×%.3f).\n",
		joinInts(slices.Sorted(maps.Keys(ms))), weights(now, isHeldOut), len(v), readmeBF16Between, geomean(v), slices.Min(v), geomean(ratios(before, all)))
}

// routerNote says whose figures these are: the router's, which are our
// kernels' alone where the table routed no shape to cuBLASLt; else on how
// many shapes it took cuBLASLt's algorithm, and our kernels' alone there
// (the bench's kernels-only columns), against cuBLAS.
func routerNote(rows []BenchRow) string {
	var vendor, alone []float64
	for _, r := range rows {
		if !strings.HasPrefix(r.Kernel, "cublaslt:") || r.PeerUS <= 0 {
			continue
		}
		vendor = append(vendor, r.Ratio())
		if r.KernelsOnly.GraphUS > 0 {
			alone = append(alone, r.PeerUS/r.KernelsOnly.GraphUS)
		}
	}
	if len(vendor) == 0 {
		return "Every figure is our kernels' alone: the table routed no shape to cuBLASLt.\n"
	}
	out := fmt.Sprintf("The table routed %d of these shapes to cuBLASLt (×%s there)", len(vendor), spread(vendor))
	if len(alone) > 0 {
		out += fmt.Sprintf("; our kernels alone there: ×%s", spread(alone))
	}
	return out + ".\n"
}

// oddRoute says how the odd shape's calls above M = 16 ran: TMA cannot read
// operands whose K is not a multiple of 8, so the repack kernels (`_rp_` in
// the name) copy them to the workspace at an aligned pitch first (rows of A
// in chunks where its copy would not fit), up to the largest M the table
// routes them at; the rest run on the element-load kernels.
func oddRoute(rows []BenchRow) string {
	rp, top := 0, 0
	for _, r := range rows {
		if r.Name == oddName && r.M > 16 {
			top = max(top, r.M)
			if strings.Contains(r.Kernel, "_rp_") {
				rp = max(rp, r.M)
			}
		}
	}
	const copies = "(K is not a multiple of 8, which TMA cannot read: %s the plan first copies\n" +
		"both operands to the workspace at an aligned pitch, A in chunks of rows\n" +
		"where its copy would not fit the engine's default 32 MiB workspace, and runs\n" +
		"the TMA kernels on the copies%s)"
	switch {
	case rp == 0:
		return "(K is not a multiple of 8: those calls cannot use TMA and run on the\n`cp.async`/element-load kernels)"
	case rp == top:
		return fmt.Sprintf(copies, "at each of these Ms", "")
	}
	return fmt.Sprintf(copies, fmt.Sprintf("up to M = %d", rp), "; above that the table routes the element-load kernels")
}

// fp8Table is the e4m3 table: per types value of the run (scaling mode and
// output type), the geometric mean and the worst of `_scaled_mm`'s time
// over ours on Llama-3-8B, at M ≤ 16, at M ≥ 1024 and over all its shapes.
func fp8Table(rows []BenchRow, c measured) string {
	var b strings.Builder
	dir := path.Dir(path.Dir(readmeFP8Bench))
	fmt.Fprintf(&b, "One NVIDIA H200, the e4m3 entries of the table of 2026-12-04 (every one measured on\n"+
		"Llama-3-8B's four weights) beside `torch._scaled_mm` with the same scales\n"+
		"and fast accumulation off, in the same run, both by CUDA-graph replay.\n"+
		"Ceilings measured there: read %.2f TB/s, e4m3 dense %.0f TFLOP/s (fast\n"+
		"accumulation on, the roofline's rate). Full data:\n[`%s`](%s/README.md), call %s.\n\n",
		c.readTBs, c.peakTF, dir, dir, strings.TrimPrefix(path.Base(path.Dir(readmeFP8Bench)), "c"))
	b.WriteString("| types | M ≤ 16 | M ≥ 1024 | all |\n| --- | --- | --- | --- |\n")
	cell := func(keep func(BenchRow) bool) string {
		v := ratios(rows, func(r BenchRow) bool { return isLlama(r) && keep(r) })
		if len(v) == 0 {
			return "–"
		}
		return fmt.Sprintf("%s, worst %.2f", x(geomean(v)), slices.Min(v))
	}
	for _, t := range typesIn(rows, isLlama) {
		of := func(r BenchRow) bool { return r.Types == t }
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t, cell(func(r BenchRow) bool { return of(r) && small.has(r.M) }),
			cell(func(r BenchRow) bool { return of(r) && large.has(r.M) }), cell(of))
	}
	b.WriteString("\n(× = `_scaled_mm` time / ours, geometric mean and worst, over M = 1, 4,\n16, 1024 and 4096.")
	if n := weights(rows, isHeldOut); n == 0 {
		b.WriteString(" Weights the table was not tuned for were not in this run.)\n")
	} else {
		held := func(r mRange) string {
			v := ratios(rows, func(x BenchRow) bool { return isHeldOut(x) && r.has(x.M) })
			return fmt.Sprintf("%s, worst %.2f", x(geomean(v)), slices.Min(v))
		}
		fmt.Fprintf(&b, " On %d weights the table was not tuned for (other models'; %s, default\n"+
			"entries): %s %s, %s %s.)\n", n, typesOf(rows, isHeldOut), small.label, held(small), large.label, held(large))
	}
	return b.String()
}

// typesIn are the types values of the rows in set, as the run lists them.
func typesIn(rows []BenchRow, set func(BenchRow) bool) []dispatch.Types {
	var types []dispatch.Types
	for _, r := range rows {
		if set(r) && !slices.Contains(types, r.Types) {
			types = append(types, r.Types)
		}
	}
	return types
}

// typesOf names the types values of the rows in set, joined by "and".
func typesOf(rows []BenchRow, set func(BenchRow) bool) string {
	var names []string
	for _, t := range typesIn(rows, set) {
		names = append(names, t.String())
	}
	return strings.Join(names, " and ")
}

// fp8Notes: where the e4m3 kernels are behind, in rates and read shares.
func fp8Notes(fp8, bf16 []BenchRow, c8, c16 measured) string {
	var tf []float64
	for _, r := range fp8 {
		if isLlama(r) && r.Types.Scaling == dispatch.ScalingTensor && r.M >= 1024 {
			flops, _ := Work(r.M, r.N, r.K, r.Types)
			tf = append(tf, flops/r.GraphUS/1e6)
		}
	}
	share := func(rows []BenchRow, c measured, keep func(BenchRow) bool) []float64 {
		var v []float64
		for _, r := range rows {
			if (r.Name == "l3-8b.gateup" || r.Name == "l3-8b.down") && r.M == 1 && keep(r) {
				v = append(v, c.readShare(r))
			}
		}
		return v
	}
	s8 := share(fp8, c8, func(r BenchRow) bool { return r.Types.Scaling == dispatch.ScalingTensor })
	s16 := share(bf16, c16, func(BenchRow) bool { return true })
	pct := func(v []float64) string {
		a, b := fmt.Sprintf("%.0f", slices.Min(v)), fmt.Sprintf("%.0f", slices.Max(v))
		if a == b {
			return a + " %"
		}
		return a + "–" + b + " %"
	}
	return fmt.Sprintf("Where we are behind: at M ≥ 1024 our e4m3 kernels reach %.0f–%.0f TFLOP/s\n"+
		"(per-tensor, Llama-3-8B) after the fp32 promotion (without it they were\n"+
		"faster, but their error grows with K: `docs/perf/2026-12-01-h200-fp8`,\n"+
		"call 6); at M = 1\n"+
		"the decode kernels stream the one-byte weights of gate_up and down at\n"+
		"%s of the read bandwidth (the bf16 ones %s, with that run's ceilings).\n",
		slices.Min(tf), slices.Max(tf), pct(s8), pct(s16))
}

// kbenchRow is one summary line of the focused kernel bench: "NxK M ours_us
// cublas_us ratio roof% best ...".
type kbenchRow struct {
	n, k, m     int
	ours, peer  float64
	ratio, roof float64
}

var kbenchLine = regexp.MustCompile(`^\s+(\d+)x(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)%`)

// readKbenchSummary reads the summary lines of a kbench log (each shape's
// best candidate beside cuBLAS), once each.
func readKbenchSummary(path string) ([]kbenchRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []kbenchRow
	seen := map[[3]int]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := kbenchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		atoi := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		atof := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
		r := kbenchRow{n: atoi(1), k: atoi(2), m: atoi(3), ours: atof(4), peer: atof(5), ratio: atof(6), roof: atof(7)}
		if key := [3]int{r.n, r.k, r.m}; !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no summary lines (NxK M ours cublas ratio roof%%)", path)
	}
	return out, nil
}

// paddedNote is the padded-pitch advice, with the TMA kernels' figure
// against cuBLAS on the aligned N = 769, K = 5120.
func paddedNote(rows []kbenchRow) string {
	var v []float64
	for _, r := range rows {
		if r.n == 769 && r.k == 5120 && r.m >= 16 {
			v = append(v, r.ratio)
		}
	}
	return fmt.Sprintf("**Pad K to a multiple of 8.** The TMA kernels (`ws_wgmma`, the fastest\n"+
		"from M = 16 up) need K and the leading dimensions to be multiples of 8\n"+
		"elements, so a weight with K = 5125 reaches them only through a copy of\n"+
		"both operands per call (above, where the workspace holds it). Padding K\n"+
		"with zeros once (K = 5125 → 5128, lda = ldb = 5128) leaves the product\n"+
		"unchanged and lets them read the operands as they are: on N = 769, K = 5120\n"+
		"they measured ×%.1f–%.1f cuBLAS at M ≥ 16 (the focused bench, `%s`).\n",
		slices.Min(v), slices.Max(v), readmePaddedLog)
}

// wrapProse refills every paragraph of text that is not a table (a
// paragraph whose first line starts with "|") to lines of at most 76
// characters, so that generated sentences read like the rest of the README.
func wrapProse(text string) string {
	paras := strings.Split(strings.TrimSuffix(text, "\n"), "\n\n")
	for i, p := range paras {
		if strings.HasPrefix(p, "|") {
			continue
		}
		var b strings.Builder
		n := 0
		for _, w := range strings.Fields(p) {
			l := utf8.RuneCountInString(w)
			switch {
			case n == 0:
			case n+1+l > 76:
				b.WriteByte('\n')
				n = 0
			default:
				b.WriteByte(' ')
				n++
			}
			b.WriteString(w)
			n += l
		}
		paras[i] = b.String()
	}
	return strings.Join(paras, "\n\n") + "\n"
}
