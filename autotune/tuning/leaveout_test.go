package tuning

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
)

// A default bucket over three weights: a is the fastest on the two narrow
// ones and twice as slow on the wide one, b is 10 % off everywhere. With
// every weight in, the bucket takes b; without the wide weight it takes a,
// which costs the wide weight 2×; without a narrow one it keeps b.
func TestLeaveOneOut(t *testing.T) {
	bf16 := dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}
	span := Span{Lo: 3, Hi: 4}
	times := func(a, b float64) map[int]map[Candidate]Timing {
		out := map[int]map[Candidate]Timing{}
		for _, m := range []int{3, 4} {
			out[m] = map[Candidate]Timing{candA: {Median: a}, candB: {Median: b}}
		}
		return out
	}
	narrow1 := Weight{"narrow1", bf16, 1024, 8192}
	narrow2 := Weight{"narrow2", bf16, 2048, 8192}
	wide := Weight{"wide", bf16, 32768, 4096}
	odd := Weight{"odd", bf16, 769, 5125}
	r := &Result{Device: dispatch.H200, Spans: []*SpanResult{
		{Weight: narrow1, Span: span, Times: times(10, 11)},
		{Weight: narrow2, Span: span, Times: times(20, 22)},
		{Weight: wide, Span: span, Times: times(100, 55)},
		{Weight: odd, Span: span, Times: times(1, 100)}, // unaligned: never in a default
	}}
	got := r.LeaveOneOut()
	require.Len(t, got, 3)
	key := Weight{Types: bf16}.Key(dispatch.SM90)
	for i, want := range []LeftOut{
		{Key: key, Span: span, Weight: narrow1, Choice: candB, Loss: 1.1, InLoss: 1.1},
		{Key: key, Span: span, Weight: narrow2, Choice: candB, Loss: 1.1, InLoss: 1.1},
		{Key: key, Span: span, Weight: wide, Choice: candA, Loss: 100.0 / 55, InLoss: 1},
	} {
		assert.Equal(t, want.Key, got[i].Key)
		assert.Equal(t, want.Span, got[i].Span)
		assert.Equal(t, want.Weight, got[i].Weight)
		assert.Equal(t, want.Choice, got[i].Choice, want.Weight.Name)
		assert.InDelta(t, want.Loss, got[i].Loss, 1e-9, want.Weight.Name)
		assert.InDelta(t, want.InLoss, got[i].InLoss, 1e-9, want.Weight.Name)
	}
	// one aligned weight: nothing to leave out
	r.Spans = r.Spans[2:]
	assert.Empty(t, r.LeaveOneOut())
}
