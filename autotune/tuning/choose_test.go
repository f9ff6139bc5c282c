package tuning

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
)

var candA, candB = Candidate{Kernel: "a", SplitK: 1}, Candidate{Kernel: "b", SplitK: 1}

func TestChooseLeastWorstSlowdown(t *testing.T) {
	// a wins M=1 by a hair and loses M=2 badly; b is never more than 10 % off.
	c, ok := choose(map[point]map[Candidate]float64{
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
	c, ok := choose(map[point]map[Candidate]float64{
		{1, 8, 8}: {candA: 10, candB: 11},
		{2, 8, 8}: {candA: 11, candB: 10},
		{3, 8, 8}: {candA: 10, candB: 9.99},
	})
	require.True(t, ok)
	assert.Equal(t, candB, c.best, "same worst slowdown (1.1): the lower total wins")
}

func TestChooseNeedsEveryPoint(t *testing.T) {
	c, ok := choose(map[point]map[Candidate]float64{
		{1, 8, 8}: {candA: 5, candB: 10},
		{2, 8, 8}: {candB: 10}, // a was not measured (or was wrong) here
	})
	require.True(t, ok)
	assert.Equal(t, candB, c.best)
	_, ok = choose(map[point]map[Candidate]float64{{1, 8, 8}: {candA: 5}, {2, 8, 8}: {candB: 5}})
	assert.False(t, ok)
}

func TestInheritUnmeasured(t *testing.T) {
	bs := []Choice{
		{Bucket: dispatch.Bucket{MinM: 1, MaxM: 1, Kernel: "base"}},
		{Bucket: dispatch.Bucket{MinM: 2, MaxM: 2, Kernel: "m2", Digest: "sha256:m2", SplitK: 2}, Loss: 1},
		{Bucket: dispatch.Bucket{MinM: 3, MaxM: 4, Kernel: "base"}},
		{Bucket: dispatch.Bucket{MinM: 5, Kernel: "m5", SplitK: 1}, Loss: 1.02},
	}
	inheritUnmeasured(bs)
	assert.Equal(t, "m2", bs[0].Bucket.Kernel, "nothing below: the nearest above")
	assert.Equal(t, 2, bs[0].Bucket.SplitK)
	assert.Equal(t, "sha256:m2", bs[0].Bucket.Digest, "the digest goes with the kernel")
	assert.Equal(t, "m2", bs[2].Bucket.Kernel, "the nearest below first")
}

func TestSpans(t *testing.T) {
	sp := Spans(16)
	assert.Equal(t, []Span{{1, 1}, {2, 2}, {3, 4}, {5, 8}, {9, 16}}, sp)
	assert.Equal(t, []int{1}, Span{1, 1}.GateMs())
	assert.Equal(t, []int{3, 4}, Span{3, 4}.GateMs())
	assert.Equal(t, []int{9, 16, 15}, Span{9, 16}.GateMs())
	assert.Equal(t, 0, Span{3, 4}.ProbeM())
	assert.Equal(t, 6, Span{5, 8}.ProbeM())
	assert.Equal(t, []int{5, 8}, Span{5, 8}.SampleMs())
	assert.Equal(t, []int{5, 6, 8}, Span{5, 8}.TimedMs())
	assert.Equal(t, []int{129, 256}, Span{129, 256}.SampleMs(), "below middleFrom: the edges alone")
	assert.Equal(t, 182, Span{129, 256}.ProbeM())
	// from middleFrom the choice is made on the middle too, and the probe is the upper half's middle
	assert.Equal(t, []int{257, 363, 512}, Span{257, 512}.SampleMs())
	assert.Equal(t, 431, Span{257, 512}.ProbeM())
	assert.Equal(t, []int{513, 725, 861, 1024}, Span{513, 1024}.TimedMs())
	assert.Equal(t, []int{4097, 5793, 8192}, Span{4097, 8192}.SampleMs())
	assert.Equal(t, 6889, Span{4097, 8192}.ProbeM())
	assert.Len(t, Spans(8192), 14)
}

var qkv = Weight{"l3-8b.qkv", dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 6144, 4096}

func TestFillTimesDefaultContendersOnEveryAlignedWeight(t *testing.T) {
	a := &SpanResult{Weight: qkv, Span: Span{1, 1}, Passed: []Candidate{{Kernel: "x", SplitK: 1}, {Kernel: "y", SplitK: 1}}, Kept: []Candidate{{Kernel: "x", SplitK: 1}}}
	b := &SpanResult{Weight: Weight{"o", dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 4096, 4096}, Span: Span{1, 1}, Passed: []Candidate{{Kernel: "x", SplitK: 1}, {Kernel: "y", SplitK: 1}}, Kept: []Candidate{{Kernel: "y", SplitK: 1}}}
	odd := &SpanResult{Weight: Weight{"odd", dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, 769, 5125}, Span: Span{1, 1}, Passed: []Candidate{{Kernel: "z", SplitK: 1}}, Kept: []Candidate{{Kernel: "z", SplitK: 1}}}
	f := fillUnits([]*SpanResult{a, b, odd})
	assert.Equal(t, []Candidate{{Kernel: "y", SplitK: 1}}, f[a])
	assert.Equal(t, []Candidate{{Kernel: "x", SplitK: 1}}, f[b])
	assert.NotContains(t, f, odd, "unaligned weights neither shape nor join the default")
}

// idle is a Measurer that is never called: runUnits only hands it out.
type idle struct{ id int }

func (idle) Device() dispatch.DeviceInfo        { return dispatch.H200 }
func (idle) Check(Weight, int, Candidate) error { return errors.New("not called") }
func (idle) Time(Weight, int, Candidate, int) (Timing, error) {
	return Timing{}, errors.New("not called")
}
func (idle) Events(Weight, int, Candidate, int) (Timing, error) {
	return Timing{}, errors.New("not called")
}

func TestRunUnitsSpreadsWorkAndStopsAtFirstError(t *testing.T) {
	g0, g1 := &idle{0}, &idle{1}
	var mu sync.Mutex
	seen := map[int]int{}
	used := map[Measurer]bool{}
	err := runUnits([]Measurer{g0, g1}, 20, func() {}, func(m Measurer, i int) error {
		time.Sleep(time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		seen[i]++
		used[m] = true
		return nil
	})
	require.NoError(t, err)
	assert.Len(t, seen, 20)
	for i, n := range seen {
		assert.Equal(t, 1, n, "unit %d", i)
	}
	assert.Len(t, used, 2)

	calls := 0
	err = runUnits([]Measurer{g0}, 20, func() {}, func(m Measurer, i int) error {
		calls++
		if i == 3 {
			return errors.New("boom")
		}
		return nil
	})
	assert.EqualError(t, err, "boom")
	assert.Equal(t, 4, calls)
}
