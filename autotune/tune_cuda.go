//go:build !nocuda

package main

import (
	"fmt"

	"github.com/gemmroute/gemmroute/dispatch"
)

func init() { openMeasurers = openGPUs }

// gpuMeasurer gates and times candidates on one GPU through the engine. It
// keeps the buffers of the last (weight, M) it gated and timed, since the
// tuner asks for one M many times in a row.
type gpuMeasurer struct {
	b      *bencher
	chk    slot[*checker]  // fresh random operands and their reference
	ops    slot[*operands] // rotating timing buffers
	stream dispatch.Stream
}

// slot holds the device buffers of one shape until another is asked for.
type slot[T interface{ free() }] struct {
	at shape
	v  T
	ok bool
}

// get returns the buffers for at, freeing the held ones and opening new
// ones when at differs.
func (s *slot[T]) get(at shape, open func(shape) (T, error)) (T, error) {
	if s.ok && s.at == at {
		return s.v, nil
	}
	s.release()
	v, err := open(at)
	if err == nil {
		s.at, s.v, s.ok = at, v, true
	}
	return v, err
}

func (s *slot[T]) release() {
	if s.ok {
		s.v.free()
		s.ok = false
	}
}

func openGPUs(devices []int, workspace int64) ([]measurer, func(), error) {
	var gs []*gpuMeasurer
	closeAll := func() {
		for _, g := range gs {
			g.close()
		}
	}
	for _, d := range devices {
		b, err := newBencher(d, 0, dispatch.Options{WorkspaceBytes: workspace})
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("device %d: %w", d, err)
		}
		gs = append(gs, &gpuMeasurer{b: b, stream: dispatch.Stream(b.stream)})
	}
	ms := make([]measurer, len(gs))
	for i, g := range gs {
		ms[i] = g
	}
	return ms, closeAll, nil
}

func (g *gpuMeasurer) close() {
	g.chk.release()
	g.ops.release()
	g.b.close()
}

func (g *gpuMeasurer) device() dispatch.DeviceInfo { return g.b.eng.Device() }

// plan is the engine's plan of c for p; candidates were checked against the
// same constraints, so an error here is a bug, not a reject.
func (g *gpuMeasurer) plan(p *dispatch.Problem, c candidate) (dispatch.Plan, error) {
	pl, err := g.b.eng.Planner().PlanKernel(p, c.kernel, c.split)
	if err == nil && pl.SplitK != c.split {
		err = fmt.Errorf("%s: planned split-K %d, not %d", c.kernel, pl.SplitK, c.split)
	}
	return pl, err
}

func (g *gpuMeasurer) gate(w weight, m int, c candidate) error {
	chk, err := g.chk.get(shape{w.name, m, w.n, w.k, w.dtype}, g.b.newChecker)
	if err != nil {
		return err
	}
	pl, err := g.plan(&chk.p, c)
	if err != nil {
		return err
	}
	return chk.run(func(p *dispatch.Problem, st dispatch.Stream) error { return g.b.eng.Launch(pl, p, st) })
}

func (g *gpuMeasurer) time(w weight, m int, c candidate, reps int) (timing, error) {
	return g.timeWith(w, m, c, func(probs []dispatch.Problem, launch func(*dispatch.Problem) error) (float64, float64, error) {
		return g.b.graphTime(probs, reps, launch)
	})
}

func (g *gpuMeasurer) events(w weight, m int, c candidate, calls int) (timing, error) {
	return g.timeWith(w, m, c, func(probs []dispatch.Problem, launch func(*dispatch.Problem) error) (float64, float64, error) {
		return g.b.eventTime(probs, calls, launch)
	})
}

// timeWith plans c on the timing buffers of (w, m) and times its launches
// with method.
func (g *gpuMeasurer) timeWith(w weight, m int, c candidate,
	method func([]dispatch.Problem, func(*dispatch.Problem) error) (float64, float64, error)) (timing, error) {
	ops, err := g.ops.get(shape{w.name, m, w.n, w.k, w.dtype}, g.b.newOperands)
	if err != nil {
		return timing{}, err
	}
	pl, err := g.plan(&ops.probs[0], c)
	if err != nil {
		return timing{}, err
	}
	med, hi, err := method(ops.probs, func(p *dispatch.Problem) error { return g.b.eng.Launch(pl, p, g.stream) })
	return timing{med, hi}, err
}
