//go:build !nocuda

package gpuharness

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// Harness measures an engine on one GPU: a timing stream with the engine's
// split-K workspace reserved, an L2 flush buffer, and a pair of events.
type Harness struct {
	*Device
	Engine     *dispatch.Engine
	Stream     cuda.Stream
	flush      uintptr
	flushWords int64
	ev0, ev1   cuda.Event
	rng        *rand.Rand
}

// Open opens GPU ordinal with an engine built with opts and reserves the
// engine's split-K workspace (what its planner plans for) on the timing
// stream.
func Open(ordinal int, opts dispatch.Options) (*Harness, error) {
	dev, err := OpenDevice(ordinal)
	if err != nil {
		return nil, err
	}
	h := &Harness{Device: dev, rng: rand.New(rand.NewPCG(1, uint64(ordinal)))}
	if h.Engine, err = dispatch.Open(ordinal, opts); err != nil {
		_ = dev.Close()
		return nil, err
	}
	err = h.setUp(cmp.Or(opts.WorkspaceBytes, dispatch.DefaultWorkspaceBytes))
	if err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// setUp makes the timing stream with workspace bytes of split-K workspace
// (the engine's Options.WorkspaceBytes), the flush buffer and the events.
func (h *Harness) setUp(workspace int64) (err error) {
	if h.Stream, err = h.NewStream(); err != nil {
		return err
	}
	if err = h.Engine.Reserve(dispatch.Stream(h.Stream), workspace); err != nil {
		return err
	}
	h.flushWords = 2 * h.Engine.Device().L2Bytes / 4
	if h.flush, err = h.Alloc(h.flushWords * 4); err != nil {
		return err
	}
	if h.ev0, err = h.NewEvent(); err != nil {
		return err
	}
	h.ev1, err = h.NewEvent()
	return err
}

// Close releases the engine and everything the harness holds.
func (h *Harness) Close() {
	if h.flush != 0 {
		_ = h.Free(h.flush)
	}
	_ = h.Engine.Close()
	_ = h.Context.Close()
}

// typesOf is what shape s is checked and timed in: its types, with the
// scales of the problem the tuner plans (dispatch.PlaceholderProblem:
// per-tensor scalars, row and block128 scale vectors).
func typesOf(s tuning.Shape) gemmtest.Types {
	return gemmtest.TypesOf(dispatch.PlaceholderProblem(s.M, s.N, s.K, s.Types))
}

// Checked draws fresh random operands for s in typesOf(s) (the reference at
// 64 sampled elements; e4m3 scales random) and uploads them with a poisoned
// output.
func (h *Harness) Checked(s tuning.Shape) (*Operands, error) {
	return h.Operands(gemmtest.FillTypes(gemmtest.Case{Name: s.Name, M: s.M, N: s.N, K: s.K}, typesOf(s), h.rng, 64))
}

// Rotation is one shape's device buffers for timing, in typesOf(s): random
// activations (and e4m3 scales, as scalars or vectors), the weight copied
// until the copies span ≥ 3× L2 (tuning.WeightCopies, so that each call
// reads its weight from memory), the output, and one problem per weight
// copy.
type Rotation struct {
	Probs []dispatch.Problem
	dev   *Device
	bufs  []Buf
}

// Rotating allocates the timing buffers of s.
func (h *Harness) Rotating(s tuning.Shape) (*Rotation, error) {
	r := &Rotation{dev: h.Device}
	if err := r.alloc(h, s); err != nil {
		r.Free()
		return nil, err
	}
	return r, nil
}

func (r *Rotation) alloc(h *Harness, s tuning.Shape) error {
	keep := func(b Buf, err error) (Buf, error) {
		if err == nil {
			r.bufs = append(r.bufs, b)
		}
		return b, err
	}
	ty := typesOf(s)
	p := gemmtest.Case{Name: s.Name, M: s.M, N: s.N, K: s.K}.ProblemOf(ty)
	if sa, sb := gemmtest.RandomScales(&p, ty.ScalePtrs, h.rng); sa != nil {
		a, err := keep(h.UploadFloats(sa))
		if err != nil {
			return err
		}
		b, err := keep(h.UploadFloats(sb))
		if err != nil {
			return err
		}
		p.ScaleAPtr, p.ScaleBPtr = a.Ptr(0), b.Ptr(0)
	}
	a, err := keep(h.UploadAs(p.Types.In, gemmtest.Random(p.Types.In, s.M*s.K, h.rng)))
	if err != nil {
		return err
	}
	w0, err := keep(h.UploadAs(p.Types.In, gemmtest.Random(p.Types.In, s.N*s.K, h.rng)))
	if err != nil {
		return err
	}
	ws := []Buf{w0}
	for len(ws) < tuning.WeightCopies(s.N, s.K, p.Types.In, h.Engine.Device().L2Bytes) {
		w, err := keep(h.alloc(w0.N, w0.Size))
		if err == nil {
			err = h.CopyDevice(w.Base, w0.Base, w0.Bytes())
		}
		if err != nil {
			return err
		}
		ws = append(ws, w)
	}
	d, err := keep(h.alloc(s.M*s.N, p.Types.Out.Size()))
	if err != nil {
		return err
	}
	for _, w := range ws {
		q := p
		q.A, q.B, q.D = a.Ptr(0), w.Ptr(0), d.Ptr(0)
		r.Probs = append(r.Probs, q)
	}
	return nil
}

// Free releases the rotation's buffers.
func (r *Rotation) Free() {
	for _, b := range r.bufs {
		r.dev.Release(b)
	}
	r.bufs = nil
}

// timed returns the milliseconds between events around f on the stream.
func (h *Harness) timed(f func() error) (float64, error) {
	if err := h.Record(h.ev0, h.Stream); err != nil {
		return 0, err
	}
	if err := f(); err != nil {
		return 0, err
	}
	if err := h.Record(h.ev1, h.Stream); err != nil {
		return 0, err
	}
	return h.Elapsed(h.ev0, h.ev1)
}

// GraphTime captures calls over the rotating problems into one graph
// (tuning.GraphCalls of them, a multiple of the rotation) and returns the
// per-call median and p90 in microseconds over reps replays after three
// warm-up replays: the headline method.
func (h *Harness) GraphTime(probs []dispatch.Problem, reps int, call func(*dispatch.Problem) error) (tuning.Timing, error) {
	p := probs[0]
	calls := tuning.GraphCalls(p.M, p.N, p.K, len(probs))
	g, err := h.Capture(h.Stream, func() error {
		for i := range calls {
			if err := call(&probs[i%len(probs)]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return tuning.Timing{}, err
	}
	defer h.DestroyGraph(g)
	var ts []float64
	for i := range reps + 3 {
		ms, err := h.timed(func() error { return h.Replay(g, h.Stream) })
		if err != nil {
			return tuning.Timing{}, err
		}
		if i >= 3 {
			ts = append(ts, ms*1e3/float64(calls))
		}
	}
	return tuning.Timing{Median: Median(ts), P90: P90(ts)}, nil
}

// EventTime is the second column: calls timed one by one with events, each
// after an L2 flush (a write of 2× L2), over the rotating problems, after 10
// warm-up calls; the median and p90 in microseconds.
func (h *Harness) EventTime(probs []dispatch.Problem, calls int, call func(*dispatch.Problem) error) (tuning.Timing, error) {
	if calls < 1 {
		return tuning.Timing{}, errors.New("gpuharness: EventTime needs at least one call")
	}
	var ev []float64
	for i := range calls + 10 {
		if err := h.Fill(h.flush, uint32(i), h.flushWords, h.Stream); err != nil {
			return tuning.Timing{}, err
		}
		ms, err := h.timed(func() error { return call(&probs[i%len(probs)]) })
		if err != nil {
			return tuning.Timing{}, err
		}
		if i >= 10 {
			ev = append(ev, ms*1e3)
		}
	}
	return tuning.Timing{Median: Median(ev), P90: P90(ev)}, nil
}

// HostTime is the host microseconds per call of f over 200 calls, measured
// after the stream drained.
func (h *Harness) HostTime(f func(i int) error) (float64, error) {
	if err := h.Sync(h.Stream); err != nil {
		return 0, err
	}
	const n = 200
	t0 := time.Now()
	for i := range n {
		if err := f(i); err != nil {
			return 0, err
		}
	}
	us := float64(time.Since(t0).Microseconds()) / n
	return us, h.Sync(h.Stream)
}
