package dispatch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lastRule is the last rule checkKernel and filter test.
const lastRule = rule(len(ruleText) - 1)

// Every rule has its own text; an unknown rule still prints.
func TestRuleString(t *testing.T) {
	seen := map[string]rule{}
	for r := ruleArch; r <= lastRule; r++ {
		s := r.String()
		require.NotEmpty(t, s, "rule %d", r)
		require.NotContains(t, s, "rule(", "rule %d has no text", r)
		_, dup := seen[s]
		require.False(t, dup, "rules %d and %d share the text %q", seen[s], r, s)
		seen[s] = r
	}
	assert.Equal(t, "rule(200)", rule(200).String())
	assert.Equal(t, "rule(0)", rule(0).String())
}

// groupCounts reads writeRejections' text back: the total of its header and
// the count of each rule's line.
func groupCounts(t *testing.T, text string) (total int, counts map[string]int) {
	t.Helper()
	head := regexp.MustCompile(`(?m)^rejected (\d+) of \d+ kernels:$`).FindStringSubmatch(text)
	require.NotNil(t, head, "no header in\n%s", text)
	total, _ = strconv.Atoi(head[1])
	counts = map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^  (\d+) kernels?: (.*?)(, e\.g\. .*)?$`).FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		counts[m[2]] += n
	}
	return total, counts
}

func TestWriteRejectionsGroups(t *testing.T) {
	var rs []rejection
	add := func(r rule, n int, prefix string, other func(i int) bool) {
		for i := range n {
			rs = append(rs, rejection{kernel: fmt.Sprintf("%s%d", prefix, i), rule: r,
				detail: fmt.Sprintf("%s detail %d", prefix, i), otherTypes: other(i)})
		}
	}
	never := func(int) bool { return false }
	add(ruleArch, 62, "arch", func(i int) bool { return i < 5 }) // the first five compute other dtypes
	add(ruleDType, 40, "dt", func(int) bool { return true })
	add(ruleAlignB, 2, "b", never)
	add(ruleLDA, 5, "lda", never)
	add(ruleSmem, 1, "smem", never)
	var b strings.Builder
	writeRejections(&b, rs, 120)
	text := b.String()

	assert.Equal(t, `rejected 110 of 120 kernels:
  62 kernels: built for another arch, e.g. arch5: arch detail 5
  40 kernels: for another dtype pair
  1 kernel: need more shared memory than the device allows
    smem0: smem detail 0
  2 kernels: need the B pointer more aligned
    b0: b detail 0
    b1: b detail 1
  5 kernels: need LDA more aligned, e.g. lda0: lda detail 0
`, text, "groups in rule order; the example of another arch computes the problem's dtypes")

	total, counts := groupCounts(t, text)
	assert.Equal(t, 110, total)
	assert.Equal(t, map[string]int{ruleArch.String(): 62, ruleDType.String(): 40, ruleSmem.String(): 1,
		ruleAlignB.String(): 2, ruleLDA.String(): 5}, counts)

	b.Reset()
	writeRejections(&b, nil, 8)
	assert.Empty(t, b.String(), "nothing rejected, nothing written")
}

// However the rejections fall, the text stays within 26 lines (a header, a
// line per rule, maxDetails kernels) and counts every one of them.
func TestWriteRejectionsBounded(t *testing.T) {
	var rs []rejection
	for r := ruleArch; r <= lastRule; r++ {
		for i := range groupDetails { // every group small enough to list
			rs = append(rs, rejection{kernel: fmt.Sprintf("k%d_%d", r, i), rule: r, detail: "why"})
		}
	}
	var b strings.Builder
	writeRejections(&b, rs, len(rs))
	text := b.String()
	lines := strings.Count(text, "\n")
	assert.LessOrEqual(t, lines, 26, "%s", text)
	assert.Equal(t, maxDetails, strings.Count(text, "\n    "), "listed kernels stop at maxDetails:\n%s", text)
	total, counts := groupCounts(t, text)
	assert.Equal(t, len(rs), total)
	sum := 0
	for _, n := range counts {
		sum += n
	}
	assert.Equal(t, len(rs), sum, "every rejection counted under its rule")
	assert.Len(t, counts, int(lastRule))
}

// With the shipped catalog (over a hundred kernels), Explain and ErrNoKernel
// stay short and account for every kernel they leave out.
func TestExplainShortWithDefaultCatalog(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	tab, err := DefaultTable()
	require.NoError(t, err)
	n := len(cat.Kernels())
	require.Greater(t, n, 50)
	sm75 := H200
	sm75.Arch = 75
	for _, c := range []struct {
		name string
		dev  DeviceInfo
		edit func(p *Problem)
		rule rule // a rule the text must count, with the problem's kernels first
	}{
		{"llama down on H200, A misaligned", H200, func(p *Problem) { p.A += 2 }, ruleAlignA},
		{"llama qkv on A100", A100, func(p *Problem) { p.N, p.LDC = 6144, 6144 }, ruleArch},
		{"odd K on H200", H200, func(p *Problem) { p.K, p.LDA, p.LDB = 4097, 4097, 4097 }, ruleLDA},
		{"e4m3 on L4: no kernel", L4, func(p *Problem) { p.Types.In, p.ScaleA, p.ScaleB = E4M3, 1, 1 }, ruleArch},
		{"sm_75: no kernel", sm75, nil, ruleArch},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := testProblem(16, 4096, 14336)
			if c.edit != nil {
				c.edit(&p)
			}
			out, err := NewPlanner(cat, tab, c.dev, Limits{}).Plan(&p)
			text := out.Explain()
			if err != nil {
				require.ErrorIs(t, err, ErrNoKernel)
				text = err.Error()
			}
			assert.LessOrEqual(t, strings.Count(text, "\n")+1, 25, "%s", text)
			total, counts := groupCounts(t, text)
			sum := 0
			for _, k := range counts {
				sum += k
			}
			assert.Equal(t, total, sum, "%s", text)
			if err != nil {
				assert.Equal(t, n, total, "no kernel: every kernel rejected\n%s", text)
			}
			assert.Positive(t, counts[c.rule.String()], "%s", text)
		})
	}
}
