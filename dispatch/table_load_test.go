package dispatch

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// tableTestCatalog holds five kernels: k90_bf16 (sm_90+, bf16→bf16, split-K ≤ 4),
// k80_bf16 (sm_80+, bf16→bf16), k80_f16 (sm_80 to sm_89, f16→f16),
// k90_e4m3 (sm_90+, e4m3→bf16) and k90_exp (k90_bf16's spec, experimental).
func tableTestCatalog(t testing.TB) *kernels.Catalog {
	t.Helper()
	spec := func(name, image string, lo, hi Arch, in, out DType, splitK int) kernels.KernelSpec {
		k := kernels.KernelSpec{Name: name, Image: image, Family: "test", MinArch: lo, MaxArch: hi, In: in, Out: out,
			Layout: kernels.LayoutTN, TileM: 16, TileN: 64, TileK: 64, Stages: 2, Threads: 128,
			PtrAlign: 16, LDAlign: 16, KMultiple: 8, MaxSplitK: splitK, Reduction: kernels.ReduceNone, IndexBits: 32,
			Model:  kernels.Model{Kind: kernels.ModelDecode, RateShare: 0.5, StreamShare: 1, RasterGroup: 1},
			Digest: kernels.DigestOf([]byte(name))}
		if splitK > 1 {
			k.Reduction, k.ReduceKernel = kernels.ReduceWorkspace, "reduce_f32"
		}
		if in == E4M3 {
			k.Scalings = []kernels.Scaling{ScalingTensor}
		}
		return k
	}
	exp := spec("k90_exp", "sm90.fatbin", SM90, 0, BF16, BF16, 4)
	exp.Experimental = true
	cat, err := kernels.NewCatalog(kernels.Manifest{
		Schema: kernels.SchemaVersion,
		Images: []kernels.Image{{File: "sm90.fatbin", SmemLimit: 227 << 10}, {File: "sm80.fatbin", SmemLimit: 227 << 10}},
		Kernels: []kernels.KernelSpec{
			spec("k90_bf16", "sm90.fatbin", SM90, 0, BF16, BF16, 4),
			spec("k80_bf16", "sm80.fatbin", SM80, 0, BF16, BF16, 1),
			spec("k80_f16", "sm80.fatbin", SM80, SM89, F16, F16, 1),
			spec("k90_e4m3", "sm90.fatbin", SM90, 0, E4M3, BF16, 1),
			exp,
		},
	})
	require.NoError(t, err)
	return cat
}

// baseTable is a valid table; the bad tables below are edits of it. Its
// lines are numbered in the comments of TestLoadTableErrors.
var baseTable = withDigests(baseTableText)

// baseTableText is baseTable with D90 for k90_bf16's digest.
const baseTableText = `schema: 4
provenance:
  source: measured
entries:
  - arch: sm_90
    types: bf16
    layout: tn
    buckets:
      - min_m: 1
        max_m: 16
        kernel: k90_bf16
        digest: D90
        split_k: 1
      - min_m: 17
        kernel: k90_bf16
        digest: D90
        split_k: 1
`

// withDigests replaces D90, DE4 and DEX in text by the digests of k90_bf16,
// k90_e4m3 and k90_exp in tableTestCatalog.
func withDigests(text string) string {
	return strings.NewReplacer("D90", kernels.DigestOf([]byte("k90_bf16")), "DE4", kernels.DigestOf([]byte("k90_e4m3")),
		"DEX", kernels.DigestOf([]byte("k90_exp"))).Replace(text)
}

// edit returns baseTable with each old of the old, new pairs replaced by its
// new in turn (each old must occur; both may say D90 for k90_bf16's digest).
func edit(t *testing.T, oldNew ...string) string {
	t.Helper()
	text := baseTableText
	for i := 0; i+1 < len(oldNew); i += 2 {
		require.Contains(t, text, oldNew[i])
		text = strings.Replace(text, oldNew[i], oldNew[i+1], 1)
	}
	return withDigests(text)
}

func TestLoadTableErrors(t *testing.T) {
	cat := tableTestCatalog(t)
	// Lines of baseTable: 1 schema, 2 provenance, 3 source, 4 entries, 5
	// arch, 6 in, 7 out, 8 layout, 9 buckets, 10-14 bucket [1,16], 15-18
	// bucket [17,∞).
	header := baseTable[:strings.Index(baseTable, "entries:")]
	entry := baseTable[strings.Index(baseTable, "  - arch"):] // lines 4-15
	noBuckets := baseTable[:strings.Index(baseTable, "    buckets:")]
	exact := strings.Replace(entry, "    layout: tn\n", "    layout: tn\n    n: 8\n    k: 8\n", 1)
	cases := []struct {
		name, yaml string
		line       int
		phrase     string
	}{
		{"syntax", edit(t, "layout: tn", "layout: tn: x"), 7, "YAML syntax error: mapping values are not allowed"},
		{"unknown entry field", edit(t, "    layout: tn\n", "    layout: tn\n    colour: red\n"), 8, `unknown field "colour" in entry`},
		{"unknown bucket field", edit(t, "        split_k: 1\n", "        split_k: 1\n        kernal: x\n"), 14, `unknown field "kernal" in bucket`},
		{"unknown top field", baseTable + "entrys: []\n", 18, `unknown field "entrys" in table`},
		{"repeated field", edit(t, "    types: bf16\n", "    types: bf16\n    types: f16\n"), 7, `field "types" repeats line 6`},
		{"missing arch", edit(t, "  - arch: sm_90\n    types: bf16\n", "  - types: bf16\n"), 5, "arch is missing"},
		{"invalid arch", edit(t, "arch: sm_90", "arch: sm_xx"), 5, `unknown arch "sm_xx"`},
		{"invalid input", edit(t, "types: bf16", "types: f64"), 6, `types: gemmroute: types "f64": input "f64" is not an input type`},
		{"f32 input", edit(t, "types: bf16", "types: f32"), 6, `input "f32" is not an input type`},
		{"e4m3 without its output", edit(t, "types: bf16", "types: e4m3"), 6, "e4m3 inputs name their output: e4m3→bf16 or e4m3→f16"},
		{"e4m3 output", edit(t, "types: bf16", "types: bf16→e4m3"), 6, "e4m3: bf16 inputs produce bf16"},
		{"scaled 16-bit", edit(t, "types: bf16", "types: bf16/row"), 6, "row: bf16 inputs take no scales"},
		{"missing types", edit(t, "    types: bf16\n", ""), 5, "types is missing: add types: bf16"},
		{"missing layout", edit(t, "    layout: tn\n", ""), 5, "layout is missing"},
		{"bad layout", edit(t, "layout: tn", "layout: nn"), 7, `layout "nn" is not served`},
		{"only n", edit(t, "    layout: tn\n", "    layout: tn\n    n: 4096\n"), 8, "only n is set"},
		{"only k", edit(t, "    layout: tn\n", "    layout: tn\n    k: 4096\n"), 8, "only k is set"},
		{"negative n", edit(t, "    layout: tn\n", "    layout: tn\n    n: -1\n    k: 64\n"), 8, "n is -1: it must be positive"},
		{"empty buckets", noBuckets + "    buckets: []\n", 8, "buckets is empty"},
		{"no buckets", noBuckets, 5, "buckets is missing"},
		{"first min_m", edit(t, "min_m: 1\n", "min_m: 2\n"), 9, "first bucket starts at min_m 2"},
		{"gap", edit(t, "min_m: 17", "min_m: 20"), 14, "gap: M in [17, 19] has no bucket"},
		{"overlap", edit(t, "min_m: 17", "min_m: 16"), 14, "overlap: min_m 16 is inside the previous bucket"},
		{"max_m not power of two", edit(t, "max_m: 16\n", "max_m: 24\n"), 10, "max_m 24 is not a power of two"},
		{"max_m below min_m", edit(t, "        split_k: 1\n", "        split_k: 1\n      - min_m: 17\n        max_m: 8\n        kernel: k90_bf16\n        split_k: 1\n"), 15, "max_m 8 is below min_m 17"},
		{"bounded last", edit(t, "      - min_m: 17\n", "      - min_m: 17\n        max_m: 64\n"), 15, "last bucket ends at max_m 64"},
		{"open-ended not last", edit(t, "        max_m: 16\n", ""), 9, "open-ended bucket (no max_m) is not the last"},
		{"split_k zero", edit(t, "split_k: 1\n      - min_m: 17", "split_k: 0\n      - min_m: 17"), 13, "split_k is 0: it must be in [1, 1024]"},
		{"split_k 2^62", edit(t, "split_k: 1\n      - min_m: 17", "split_k: 4611686018427387904\n      - min_m: 17"), 13, "split_k is 4611686018427387904: it must be in [1, 1024]"}, // overflowed the workspace check
		{"split_k missing", edit(t, "        digest: D90\n        split_k: 1\n", "        digest: D90\n"), 9, "split_k is 0"},
		{"no digest", edit(t, "        digest: D90\n        split_k: 1\n      -", "        split_k: 1\n      -"), 9, "digest is missing: record the digest of the kernel's code"},
		{"empty digest", edit(t, "digest: D90\n        split_k: 1\n      -", "digest: ''\n        split_k: 1\n      -"), 12, "digest is empty"},
		{"bad digest", edit(t, "digest: D90\n        split_k: 1\n      -", "digest: sha256:D90\n        split_k: 1\n      -"), 12, `a digest is "sha256:" and 64 lowercase hex digits`},
		{"no schema", edit(t, "schema: 4\n", ""), 1, "schema is missing: this build reads table schema 4"},
		{"old schema", edit(t, "schema: 4\n", "schema: 1\n"), 1, "schema 1: this build reads table schema 4"},
		{"fractional schema", edit(t, "schema: 4\n", "schema: 4.0\n"), 1, "schema 4.0: this build reads table schema 4"},
		{"schema 2", edit(t, "schema: 4\n", "schema: 2\n"), 1, "schema 2: this build reads table schema 4, which writes an entry's in and out as one types field: replace each entry's in: X, out: X by types: X"},
		{"schema 5", edit(t, "schema: 4\n", "schema: 5\n"), 1, "schema 5: this build reads table schema 4"},
		{"bucket provenance in schema 3", edit(t, "schema: 4\n", "schema: 3\n", "        split_k: 1\n      - min_m: 17", "        split_k: 1\n        device: NVIDIA H200\n      - min_m: 17"), 9,
			"a bucket's own source, device or date needs schema: 4"},
		{"bucket source", edit(t, "        split_k: 1\n      - min_m: 17", "        split_k: 1\n        source: guessed\n      - min_m: 17"), 14, `source "guessed": use measured or model (or leave it out: the entry's)`},
		{"timed model bucket", edit(t, "        split_k: 1\n      - min_m: 17", "        split_k: 1\n        times_us: {1: 3}\n        source: model\n      - min_m: 17"), 15,
			"source: model, but the bucket has times: a model bucket holds no measurements"},
		{"timed bucket of a model entry", edit(t, "    layout: tn\n", "    layout: tn\n    source: model\n", "        split_k: 1\n      - min_m: 17", "        split_k: 1\n        times_us: {1: 3}\n      - min_m: 17"), 8,
			"source: model, but a bucket has times_us"},
		{"empty kernel", edit(t, "kernel: k90_bf16\n        digest: D90\n        split_k: 1\n      -", "kernel: \"\"\n        digest: D90\n        split_k: 1\n      -"), 11, "kernel is empty"},
		{"newline kernel", edit(t, "kernel: k90_bf16\n        digest: D90\n        split_k: 1\n      -", "kernel: \"\\n\"\n        digest: D90\n        split_k: 1\n      -"), 11, "is not a kernel name"},
		{"not a number", edit(t, "max_m: 16", "max_m: sixteen"), 10, `max_m: "sixteen" is not a whole number`},
		{"not a mapping", edit(t, "  - arch: sm_90\n", "  - 5\n  - arch: sm_90\n"), 5, "entry must be a mapping"},
		{"fraction", edit(t, "min_m: 17", "min_m: 17.5"), 14, `min_m: "17.5" is not a whole number`},
		{"not a list", header + "entries: 5\n", 4, "entries must be a list"},
		{"alias", edit(t, "  source: measured\n", "  source: &s measured\n  device: *s\n"), 4, "aliases (*s) are not supported"},
		{"merge key", edit(t, "  - arch: sm_90\n", "  - <<: {layout: tn}\n    arch: sm_90\n"), 5, "merge keys (<<) are not supported"},
		{"fractional sms", edit(t, "  source: measured\n", "  source: measured\n  sms: 1.5\n"), 4, `sms: "1.5" is not a whole number`},
		{"n above 2^31", edit(t, "    layout: tn\n", "    layout: tn\n    n: 1099511627776\n    k: 8\n"), 8, "n is 1099511627776: above 2^31"},
		{"k above 2^31", edit(t, "    layout: tn\n", "    layout: tn\n    n: 8\n    k: 4294967296\n"), 9, "k is 4294967296: above 2^31"},
		{"negative margin", edit(t, "        max_m: 16\n", "        max_m: 16\n        margin_pct: -50\n"), 11, "margin_pct is -50: write a finite percentage, not negative"},
		{"fractional n", edit(t, "    layout: tn\n", "    layout: tn\n    n: 8.5\n    k: 8\n"), 8, `n: "8.5" is not a whole number`},
		{"fractional sample M", edit(t, "        split_k: 1\n", "        split_k: 1\n        times_us: {1.5: 2}\n"), 14, `times_us: "1.5" is not a whole number`},
		{"same sample M twice", edit(t, "        split_k: 1\n", "        split_k: 1\n        times_us: {1: 2, 0x1: 3}\n"), 14, "two keys name the same M"},
		{"bad time value", edit(t, "        split_k: 1\n", "        split_k: 1\n        times_us: {1: fast}\n"), 14, `"fast" is not a number`},
		{"times not a mapping", edit(t, "        split_k: 1\n", "        split_k: 1\n        times_us: 5\n"), 14, "times_us must be a mapping"},
		{"bad time", edit(t, "        split_k: 1\n", "        split_k: 1\n        times_us: {4: -2}\n"), 14, "times_us[4] = -2"},
		{"duplicate entry", baseTable + entry, 18, "duplicate default entry for sm_90 bf16 tn: line 5 has the same key"},
		{"duplicate exact entry", header + "entries:\n" + exact + exact, 20, "duplicate entry n=8 k=8 for sm_90 bf16 tn: line 5 has the same key"},
		{"missing source", edit(t, "  source: measured\n", "  device: H200\n"), 3, "source is missing"},
		{"no provenance", "schema: 3\nentries:\n" + entry, 1, "source is missing"},
		{"empty source", edit(t, "source: measured", `source: ""`), 3, "source is empty"},
		{"second document", baseTable + "---\nprovenance: {source: x}\n", 18, "a second YAML document"},
		{"arch mismatch", edit(t, "arch: sm_90", "arch: sm_80"), 11, `kernel "k90_bf16" does not run on sm_80`},
		{"dtype mismatch", edit(t, "kernel: k90_bf16\n        digest: D90\n        split_k: 1\n      -", "kernel: k90_e4m3\n        digest: DE4\n        split_k: 1\n      -"), 11,
			`kernel "k90_e4m3" does not compute in the entry's types bf16 (it computes e4m3→bf16, scalings [tensor]): pick a kernel that does`},
		{"scaling mismatch", strings.Replace(edit(t, "kernel: k90_bf16\n        digest: D90\n        split_k: 1\n      -", "kernel: k90_e4m3\n        digest: DE4\n        split_k: 1\n      -"), "types: bf16", "types: e4m3→bf16/block128", 1), 11,
			`kernel "k90_e4m3" does not compute in the entry's types e4m3→bf16/block128`},
		{"split_k above max", edit(t, "split_k: 1\n      - min_m: 17", "split_k: 8\n      - min_m: 17"), 13, `split_k 8 exceeds kernel "k90_bf16"'s max_split_k 4`},
		{"experimental in a model bucket", edit(t, "kernel: k90_bf16\n        digest: D90\n        split_k: 1\n      -", "kernel: k90_exp\n        digest: DEX\n        split_k: 1\n      -"), 11,
			`kernel "k90_exp" is experimental and the bucket is the model's choice: only a measured bucket (a tune that gated the kernel) routes an experimental kernel`},
		{"experimental in a model bucket of a measured entry", edit(t, "    layout: tn\n", "    layout: tn\n    source: measured\n", "kernel: k90_bf16\n        digest: D90\n        split_k: 1\n      -", "kernel: k90_exp\n        digest: DEX\n        split_k: 1\n        source: model\n      -"), 12,
			`kernel "k90_exp" is experimental and the bucket is the model's choice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab, err := LoadTable("bad.yaml", []byte(c.yaml), cat)
			require.Error(t, err, c.yaml)
			assert.Nil(t, tab)
			assert.ErrorIs(t, err, ErrTable)
			var errs TableErrors
			require.ErrorAs(t, err, &errs)
			want := fmt.Sprintf("bad.yaml:%d: ", c.line)
			assert.Contains(t, err.Error(), want)
			assert.True(t, slices.ContainsFunc(errs, func(e *TableError) bool {
				return e.File == "bad.yaml" && e.Line == c.line && strings.Contains(e.Msg, c.phrase)
			}), "want %q%s…, got:\n%v", want, c.phrase, err)
		})
	}
}

func TestLoadTableReportsEveryError(t *testing.T) {
	bad := edit(t, "layout: tn", "layout: nn")
	bad = strings.Replace(bad, "min_m: 17", "min_m: 20", 1)
	bad = strings.Replace(bad, "  source: measured\n", "  source: measured\n  colour: red\n", 1)
	_, err := LoadTable("bad.yaml", []byte(bad), nil)
	var errs TableErrors
	require.True(t, errors.As(err, &errs), "%v", err)
	require.Len(t, errs, 3, "%v", err)
	assert.Equal(t, []int{4, 8, 15}, []int{errs[0].Line, errs[1].Line, errs[2].Line}, "in line order")
	for _, e := range errs {
		assert.ErrorIs(t, e, ErrTable)
	}
}

func TestLoadTableValid(t *testing.T) {
	data, err := os.ReadFile("testdata/tables/valid.yaml")
	require.NoError(t, err)
	tab, err := LoadTable("valid.yaml", data, tableTestCatalog(t))
	require.NoError(t, err)

	assert.Equal(t, "measured", tab.Provenance.Source)
	assert.Equal(t, 132, tab.Provenance.SMs)
	require.Len(t, tab.Entries, 3)
	exact, def := tab.Find(SM90, Types{In: BF16, Out: BF16}, 4096, 14336)
	require.NotNil(t, exact)
	require.NotNil(t, def)
	assert.Equal(t, 2, exact.Bucket(1<<20).SplitK)
	b := def.Bucket(16)
	assert.Equal(t, Bucket{MinM: 1, MaxM: 16, Kernel: "k90_bf16", Digest: kernels.DigestOf([]byte("k90_bf16")), SplitK: 4,
		TimesUS: map[int]float64{1: 7.5, 16: 8.25}, RunnerUp: "k80_bf16", MarginPct: 12.5}, *b)
	assert.Equal(t, "k80_bf16", def.Bucket(17).Kernel)
	src, dev, date := def.Bucket(17).From(def)
	assert.Equal(t, [3]string{SourceModel, "NVIDIA H100 80GB HBM3", "2026-12-07"}, [3]string{src, dev, date}, "a bucket's own provenance")
	assert.Equal(t, "k90_bf16", def.Bucket(257).Kernel)
	assert.Nil(t, def.Bucket(0))

	// The file is canonical: saving it gives the same bytes.
	out, err := tab.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(out))
}

// An experimental kernel loads where a measurement routes it: in an entry
// measured as a whole, or in a bucket of a model entry that says it was
// measured (kept from a tune).
func TestLoadTableExperimentalMeasured(t *testing.T) {
	cat := tableTestCatalog(t)
	exp := func(oldNew ...string) string {
		return edit(t, append([]string{"kernel: k90_bf16\n        digest: D90\n        split_k: 1\n      -", "kernel: k90_exp\n        digest: DEX\n        split_k: 1\n" + oldNew[0] + "      -"}, oldNew[1:]...)...)
	}
	for name, text := range map[string]string{
		"measured entry":            exp("", "    layout: tn\n", "    layout: tn\n    source: measured\n"),
		"timed bucket":              exp("        times_us: {1: 3}\n"),
		"measured bucket of models": exp("        source: measured\n", "    layout: tn\n", "    layout: tn\n    source: model\n"),
	} {
		tab, err := LoadTable("exp.yaml", []byte(text), cat)
		require.NoError(t, err, name)
		assert.Equal(t, "k90_exp", tab.Entries[0].Bucket(1).Kernel, name)
	}
}

// A schema 3 table (no bucket provenance) loads as the same table of
// schema 4, and saves as schema 4.
func TestLoadTableSchema3(t *testing.T) {
	tab, err := LoadTable("three.yaml", []byte(edit(t, "schema: 4\n", "schema: 3\n")), tableTestCatalog(t))
	require.NoError(t, err)
	four, err := LoadTable("four.yaml", []byte(baseTable), tableTestCatalog(t))
	require.NoError(t, err)
	assert.Equal(t, four, tab)
	out, err := tab.Marshal()
	require.NoError(t, err)
	assert.Equal(t, baseTable, string(out))
}

// requireRoundTrip checks that tab saves and loads back equal (of schema
// TableSchema), and that saving again gives the same bytes.
func requireRoundTrip(t testing.TB, tab *Table, cat *kernels.Catalog) {
	t.Helper()
	out, err := tab.Marshal()
	require.NoError(t, err)
	back, err := LoadTable("saved.yaml", out, cat)
	require.NoError(t, err, "%s", out)
	want := *tab
	want.Schema = TableSchema
	require.Equal(t, &want, back, "%s", out)
	again, err := back.Marshal()
	require.NoError(t, err)
	require.Equal(t, string(out), string(again))
}

func TestTableRoundTrip(t *testing.T) {
	cat := tableTestCatalog(t)
	data, err := os.ReadFile("testdata/tables/valid.yaml")
	require.NoError(t, err)
	tab, err := LoadTable("valid.yaml", data, cat)
	require.NoError(t, err)
	requireRoundTrip(t, tab, cat)

	// A table written by hand in another style loads to the same table.
	loose := strings.NewReplacer(`"n": 4096`, "n: 4096", "in: f16", "in: fp16", "arch: sm_80", "arch: sm80",
		"          1: 7.5\n          16: 8.25\n", "          {16: 8.25, 1: 7.50}\n").Replace(string(data))
	require.NotEqual(t, string(data), loose)
	tab2, err := LoadTable("loose.yaml", []byte("# hand-edited\n"+loose), cat)
	require.NoError(t, err)
	assert.Equal(t, tab, tab2)

	requireRoundTrip(t, &Table{Provenance: Provenance{Source: "heuristic, not measured"}}, nil)
	for _, s := range []string{"null", "~", "true", "n", "0x10", "1e3", "2026-11-30", " padded ", "#x", "- x", "a: b",
		"'q'", `"q"`, "two\nlines\n", "tab\there", "\u2028\u0085é", "*alias", "&anchor", "!tag", "%", "@", "`", ""} {
		tab.Provenance.Device, tab.Provenance.Method, tab.Entries[0].Buckets[0].RunnerUp = s, s+s, s+"x"
		requireRoundTrip(t, tab, cat)
	}
}

// randomEntry returns a valid entry whose buckets end at random powers of two.
func randomEntry(r *rand.Rand) Entry {
	e := Entry{Arch: SM90, Types: Types{In: BF16, Out: BF16}, Layout: kernels.LayoutTN}
	minM := 1
	for p := r.IntN(3); p <= 20; p += 1 + r.IntN(4) {
		e.Buckets = append(e.Buckets, Bucket{MinM: minM, MaxM: 1 << p, Kernel: "k90_bf16", Digest: kernels.DigestOf([]byte("k90_bf16")), SplitK: 1 + r.IntN(4)})
		minM = 1<<p + 1
	}
	return Entry{Arch: e.Arch, Types: e.Types, Layout: e.Layout,
		Buckets: append(e.Buckets, Bucket{MinM: minM, Kernel: "k80_bf16", Digest: kernels.DigestOf([]byte("k80_bf16")), SplitK: 1})}
}

func TestTableBucketsCoverEveryM(t *testing.T) {
	cat := tableTestCatalog(t)
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		tab := &Table{Provenance: Provenance{Source: "test"}, Entries: []Entry{randomEntry(r)}}
		requireRoundTrip(t, tab, cat) // also validates the layout
		e := &tab.Entries[0]
		ms := []int{1, 2, 3, 100000}
		for _, b := range e.Buckets {
			ms = append(ms, b.MinM-1, b.MinM, b.MinM+1, b.MaxM, b.MaxM+1)
		}
		for range 500 {
			ms = append(ms, 1+r.IntN(100000))
		}
		for _, m := range ms {
			if m < 1 {
				continue
			}
			var in []int
			for i := range e.Buckets {
				if e.Buckets[i].Contains(m) {
					in = append(in, i)
				}
			}
			require.Len(t, in, 1, "M=%d in buckets %v of %+v", m, in, e.Buckets)
			require.Same(t, &e.Buckets[in[0]], e.Bucket(m), "M=%d", m)
		}
		assert.Nil(t, e.Bucket(0))
	}
}

// FuzzLoadTable feeds LoadTable arbitrary bytes: it must never panic, every
// error must wrap ErrTable, and every table it accepts must save and load back
// exactly.
func FuzzLoadTable(f *testing.F) {
	valid, err := os.ReadFile("testdata/tables/valid.yaml")
	require.NoError(f, err)
	for _, seed := range []string{
		string(valid),
		baseTable,
		"schema: 3\nprovenance: {source: x}\nentries: []\n",
		"schema: 3\nprovenance: {source: 'it''s # \"odd\"', device: \"\\u2028\\t\", date: 2026-11-30, sms: 0x84}\nentries:\n" +
			"  - {arch: '90', types: f16, layout: tn, buckets: [{min_m: 1, kernel: \"k\\n\", split_k: 1, times_us: {0x10: 1e3, 1: .5}, margin_pct: -0.0}]}\n",
		"schema: 3\nprovenance: {source: x}\nentries:\n  - {arch: sm_90, types: bf16, layout: tn, n: 8, k: 8, buckets: [{min_m: 1, kernel: k, split_k: 1, times_us: {1: 2.5}, margin_pct: 3}]}\n",
		"schema: 3\nprovenance: {source: x}\nentries:\n  - {arch: sm_80, types: f16, layout: tn, buckets: [{min_m: 2, max_m: 3, kernel: '', split_k: 0}, {min_m: 1}]}\n",
		"schema: 3\nprovenance: &p {source: x}\nentries: *p\n",
		"entries: [[], {}, ~, 5]\n",
		"schema: 3\nprovenance:\n  source: 00000000\nentries:\n  -",
		// Found by CI's fuzzing: yaml.v3 saves a kernel name of one newline
		// as an empty block scalar, so such names are refused on load.
		"schema: 3\nprovenance:\n  source: \"0\"\nentries:\n  - arch: sm_70\n    types: f16\n    layout: tn\n    buckets:\n      - min_m: 1\n        kernel: \"\\n\"\n        split_k: 1\n",
		"a: [\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	cat := tableTestCatalog(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := LoadTable("fuzz.yaml", data, cat); err != nil {
			require.ErrorIs(t, err, ErrTable)
		}
		tab, err := LoadTable("fuzz.yaml", data, nil)
		if err != nil {
			require.ErrorIs(t, err, ErrTable)
			return
		}
		requireRoundTrip(t, tab, nil)
	})
}

// TableErrors' text takes time linear in the errors (it was quadratic: 100 000
// bad entries took minutes), one a line in order.
func TestTableErrorsTextLinear(t *testing.T) {
	es := make(TableErrors, 100_000)
	for i := range es {
		es[i] = &TableError{File: "t.yaml", Line: i + 1, Msg: "unknown kernel \"nope\": list the catalog with autotune explain"}
	}
	start := time.Now()
	text := es.Error()
	assert.Less(t, time.Since(start), 5*time.Second, "quadratic error text")
	lines := strings.Split(text, "\n")
	require.Len(t, lines, len(es))
	assert.Equal(t, es[0].Error(), lines[0])
	assert.Equal(t, `t.yaml:100000: unknown kernel "nope": list the catalog with autotune explain`, lines[len(lines)-1])
	assert.Equal(t, "t.yaml: whole", TableErrors{{File: "t.yaml", Msg: "whole"}}.Error())
}

// A table above MaxTableBytes is refused before it is parsed.
func TestLoadTableSizeLimit(t *testing.T) {
	data := make([]byte, MaxTableBytes+1)
	for i := range data {
		data[i] = '\n'
	}
	_, err := LoadTable("big.yaml", data, nil)
	require.ErrorIs(t, err, ErrTable)
	assert.EqualError(t, err, "big.yaml: 67108865 bytes, more than the 64 MiB a table may have: is it a table?")
}

// loadBounded loads a hostile table and asserts a refusal within bounds:
// at most MaxTableErrors errors and one that says how many more, each
// TableError, in well under the time the input took before.
func loadBounded(t *testing.T, data []byte, want string) TableErrors {
	t.Helper()
	start := time.Now()
	_, err := LoadTable("hostile.yaml", data, nil)
	assert.Less(t, time.Since(start), 2*time.Second)
	var es TableErrors
	require.ErrorAs(t, err, &es)
	assert.LessOrEqual(t, len(es), MaxTableErrors+1)
	assert.ErrorContains(t, err, want)
	return es
}

// LoadTable answers in bounded time and memory, with few errors, whatever
// the table (within MaxTableBytes).
func TestLoadTableHostile(t *testing.T) {
	head := "provenance: {source: x}\nentries:\n  - arch: sm_90\n    types: bf16\n    layout: tn\n    buckets:\n      - min_m: 1\n        kernel: k\n        split_k: 1\n        times_us:\n"
	// A mapping of more than MaxMappingKeys keys is refused before yaml.v3
	// checks its keys pairwise (1 MiB of distinct sample Ms took 28–77 s).
	var b strings.Builder
	b.WriteString(head)
	for i := range MaxMappingKeys + 1 {
		fmt.Fprintf(&b, "          %d: 1\n", i+1)
	}
	es := loadBounded(t, []byte(b.String()), "hostile.yaml:11: a mapping of 65 keys: a table's mappings have at most 64")
	assert.Len(t, es, 1)
	// One key 2 000 times made 2·10^6 errors (each pair; 10^4 times, 5·10^7).
	es = loadBounded(t, []byte("provenance: {source: x}\n"+strings.Repeat("entries: []\n", 2_000)), "hostile.yaml:1: a mapping of 2001 keys")
	assert.Len(t, es, 1)
	es = loadBounded(t, []byte("provenance: {source: x}\n"+strings.Repeat("entries: []\n", 50)), `hostile.yaml:3: field "entries" repeats line 2: keep one`)
	assert.Len(t, es, 49, "each repeat once, not each pair")
	// 16 MiB of empty entries and 48 MiB of one long list exhausted 8 GiB.
	loadBounded(t, append([]byte("provenance: {source: x}\nentries:\n"), bytes.Repeat([]byte("- {}\n"), 16<<20/5)...),
		"hostile.yaml: 6710890 list items and mapping keys, more than the 1048576 a table may have")
	loadBounded(t, append([]byte("provenance: {source: x}\nentries: ["), bytes.Repeat([]byte("1,"), 24<<20)...),
		"list items and mapping keys, more than the 1048576 a table may have")
	// Below the bound, the errors are capped: 500 empty entries make 3 000
	// problems.
	es = loadBounded(t, append([]byte("schema: 3\nprovenance: {source: x}\nentries:\n"), bytes.Repeat([]byte("- {}\n"), 500)...), "arch is missing")
	require.Len(t, es, MaxTableErrors+1)
	// A list of numbers below the bound made an error each, decoded and
	// matched one by one (10 s at the bound); now it is not decoded.
	es = loadBounded(t, append(append([]byte("provenance: {source: x}\nentries: ["), bytes.Repeat([]byte("1,"), 2_000)...), "1]\n"...),
		"hostile.yaml:2: entry must be a mapping of fields (name: value)")
	require.Len(t, es, MaxTableErrors+1)
	assert.Regexp(t, `^hostile.yaml: … and \d+ more errors \(only the first 100 found are listed\)$`, es[MaxTableErrors].Error())
}

// Marshal → LoadTable round-trips any text, those of newlines and tabs
// included (yaml.v3's block style lost leading newlines, and a text of a
// tab and a newline made a table that did not load).
func TestTableRoundTripText(t *testing.T) {
	cat := tableTestCatalog(t)
	data, err := os.ReadFile("testdata/tables/valid.yaml")
	require.NoError(t, err)
	tab, err := LoadTable("valid.yaml", data, cat)
	require.NoError(t, err)
	texts := []string{"\n", "\n\n", "\n\n\n\n", "\t\n", "\na", "\n a", " \n ", "\r\n", "a\x00b", "\x85", "\n\u2028"}
	alphabet := []string{"\n", " ", "a", "\t", "\r", "#", ":", "\u0085"}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(5) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		tab.Provenance.Method, tab.Provenance.Driver, tab.Entries[0].Device, tab.Entries[0].Buckets[0].RunnerUp = s, s+s, s, s+"x"
		requireRoundTrip(t, tab, cat)
	}
}
