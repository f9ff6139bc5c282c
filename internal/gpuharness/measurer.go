//go:build !nocuda

package gpuharness

import (
	"fmt"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
)

// Measurer is the tuning.Measurer of one GPU: it checks and times
// candidates through the engine's planner and Launch, cuBLASLt's
// algorithms too where its engine loaded the library (a
// tuning.VendorMeasurer). It keeps the buffers
// of the last (weight, M) it checked and timed, since the tuner asks for
// one M many times in a row.
type Measurer struct {
	h   *Harness
	chk slot[*Operands] // fresh random operands and their reference
	ops slot[*Rotation] // rotating timing buffers
}

// slot holds the device buffers of one shape until another is asked for.
type slot[T interface{ Free() }] struct {
	at tuning.Shape
	v  T
	ok bool
}

// get returns the buffers for at, freeing the held ones and opening new
// ones when at differs.
func (s *slot[T]) get(at tuning.Shape, open func(tuning.Shape) (T, error)) (T, error) {
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
		s.v.Free()
		s.ok = false
	}
}

// OpenMeasurers opens one Measurer per GPU ordinal, each with an engine
// whose split-K workspace per stream is workspace bytes and which loads
// cuBLASLt when vendor is set (dispatch.Options.NoVendor otherwise), and
// returns them with the function that closes them all.
func OpenMeasurers(devices []int, workspace int64, vendor bool) ([]tuning.Measurer, func(), error) {
	var ms []*Measurer
	closeAll := func() {
		for _, m := range ms {
			m.Close()
		}
	}
	for _, d := range devices {
		h, err := Open(d, dispatch.Options{WorkspaceBytes: workspace, NoVendor: !vendor})
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("device %d: %w", d, err)
		}
		ms = append(ms, &Measurer{h: h})
	}
	out := make([]tuning.Measurer, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out, closeAll, nil
}

// Close releases the buffers held and the harness.
func (g *Measurer) Close() {
	g.chk.release()
	g.ops.release()
	g.h.Close()
}

// Device describes the GPU.
func (g *Measurer) Device() dispatch.DeviceInfo { return g.h.Engine.Device() }

// plan is the engine's plan of c for p; candidates were checked against the
// same constraints (cuBLASLt's by VendorFits), so an error here is a bug,
// not a reject.
func (g *Measurer) plan(p *dispatch.Problem, c tuning.Candidate) (dispatch.Plan, error) {
	if c.IsVendor() {
		return g.h.Engine.Planner().PlanVendor(p, c.Vendor)
	}
	pl, err := g.h.Engine.Planner().PlanKernel(p, c.Kernel, c.SplitK)
	if err == nil && pl.SplitK != c.SplitK {
		err = fmt.Errorf("%s: planned split-K %d, not %d", c.Kernel, pl.SplitK, c.SplitK)
	}
	return pl, err
}

// VendorLibrary is the engine's cuBLASLt: the loaded version, or why none
// is loaded.
func (g *Measurer) VendorLibrary() dispatch.VendorLibrary {
	return g.h.Engine.Planner().VendorLibrary()
}

// VendorAlgorithms returns up to n of cuBLASLt's heuristic algorithms for w
// at M = m, in the engine's layouts and within its workspace, as
// candidates.
func (g *Measurer) VendorAlgorithms(w tuning.Weight, m, n int) ([]tuning.Candidate, error) {
	p := dispatch.PlaceholderProblem(m, w.N, w.K, w.Types)
	vs, err := g.h.Engine.Planner().VendorAlgorithms(&p, n)
	if err != nil {
		return nil, err
	}
	out := make([]tuning.Candidate, len(vs))
	for i, v := range vs {
		out[i] = tuning.Candidate{SplitK: 1, Vendor: v}
	}
	return out, nil
}

// VendorFits returns nil when the engine plans w at M = m on cuBLASLt
// candidate c (dispatch.Planner.PlanVendor, on packed, 256-byte aligned
// operands as the harness allocates them), else why not.
func (g *Measurer) VendorFits(w tuning.Weight, m int, c tuning.Candidate) error {
	p := dispatch.PlaceholderProblem(m, w.N, w.K, w.Types)
	_, err := g.h.Engine.Planner().PlanVendor(&p, c.Vendor)
	return err
}

func shapeOf(w tuning.Weight, m int) tuning.Shape {
	return tuning.Shape{Name: w.Name, M: m, N: w.N, K: w.K, Types: w.Types}
}

// Check runs c on fresh random operands into a poisoned output and compares
// it with the float64 reference.
func (g *Measurer) Check(w tuning.Weight, m int, c tuning.Candidate) error {
	chk, err := g.chk.get(shapeOf(w, m), g.h.Checked)
	if err != nil {
		return err
	}
	pl, err := g.plan(&chk.P, c)
	if err != nil {
		return err
	}
	return chk.Check(g.h.Stream, func(p *dispatch.Problem, st dispatch.Stream) error { return g.h.Engine.Launch(pl, p, st) })
}

// Time is c's per-call time by graph replay over rotating weights.
func (g *Measurer) Time(w tuning.Weight, m int, c tuning.Candidate, reps int) (tuning.Timing, error) {
	return g.timeWith(w, m, c, func(probs []dispatch.Problem, launch func(*dispatch.Problem) error) (tuning.Timing, error) {
		return g.h.GraphTime(probs, reps, launch)
	})
}

// Events is c's per-call time by events, each call after an L2 flush.
func (g *Measurer) Events(w tuning.Weight, m int, c tuning.Candidate, calls int) (tuning.Timing, error) {
	return g.timeWith(w, m, c, func(probs []dispatch.Problem, launch func(*dispatch.Problem) error) (tuning.Timing, error) {
		return g.h.EventTime(probs, calls, launch)
	})
}

// timeWith plans c on the timing buffers of (w, m) and times its launches
// with method.
func (g *Measurer) timeWith(w tuning.Weight, m int, c tuning.Candidate,
	method func([]dispatch.Problem, func(*dispatch.Problem) error) (tuning.Timing, error)) (tuning.Timing, error) {
	ops, err := g.ops.get(shapeOf(w, m), g.h.Rotating)
	if err != nil {
		return tuning.Timing{}, err
	}
	pl, err := g.plan(&ops.Probs[0], c)
	if err != nil {
		return tuning.Timing{}, err
	}
	return method(ops.Probs, func(p *dispatch.Problem) error { return g.h.Engine.Launch(pl, p, dispatch.Stream(g.h.Stream)) })
}

// Measurer measures cuBLASLt's candidates too.
var _ tuning.VendorMeasurer = (*Measurer)(nil)
