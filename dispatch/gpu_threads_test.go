//go:build !nocuda

package dispatch_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gorgonia.org/cu"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
	"github.com/gemmroute/gemmroute/kernels"
)

// The engine promises (Engine's doc, README "Context and threads"): every
// method works on any OS thread, whatever is current there, and leaves the
// thread's current context as it found it. These tests call it from
// threads with no current context and with a foreign one (a context the
// test creates, not the device's primary context), on TMA shapes, and
// compare the bits with the same GEMMs from a thread where the engine's
// own (primary) context is current.

// threadKind is what a test thread has current when it calls the engine.
type threadKind struct {
	name string
	// enter sets up the calling (locked) thread and returns the context
	// that must be current there around every engine call (zero: none),
	// and what undoes the set-up.
	enter func(primary cu.CUContext) (want cu.CUContext, done func() error, err error)
}

var (
	ownThread = threadKind{"primary", func(primary cu.CUContext) (cu.CUContext, func() error, error) {
		return primary, func() error { return nil }, cu.SetCurrentContext(primary)
	}}
	noContext = threadKind{"none", func(cu.CUContext) (cu.CUContext, func() error, error) {
		return cu.CUContext{}, func() error { return nil }, cu.SetCurrentContext(cu.CUContext{})
	}}
	foreignContext = threadKind{"foreign", func(primary cu.CUContext) (cu.CUContext, func() error, error) {
		dev, err := cu.GetDevice(0)
		if err != nil {
			return cu.CUContext{}, nil, err
		}
		ctx, err := dev.MakeContext(cu.SchedAuto) // pushed current on this thread
		if err != nil {
			return cu.CUContext{}, nil, fmt.Errorf("creating a foreign context: %w", err)
		}
		if ctx == primary {
			return cu.CUContext{}, nil, errors.New("cuCtxCreate returned the primary context")
		}
		return ctx, ctx.Destroy, nil
	}}
)

// onThread runs fn on a new goroutine locked to its OS thread and returns
// its error. The goroutine ends still locked, so the runtime ends the
// thread with it: no other test runs on a thread fn changed.
func onThread(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked, on purpose
		defer func() {
			if r := recover(); r != nil {
				errc <- fmt.Errorf("panic: %v", r)
			}
		}()
		errc <- fn()
	}()
	return <-errc
}

// onKind runs fn on a fresh locked thread set up as kind says; fn gets the
// context that must be current around each engine call there.
func onKind(kind threadKind, primary cu.CUContext, fn func(want cu.CUContext) error) error {
	return onThread(func() error {
		want, done, err := kind.enter(primary)
		if err != nil {
			return fmt.Errorf("%s thread: %w", kind.name, err)
		}
		err = expectCurrent(want, "setting up the thread")
		if err == nil {
			err = fn(want)
		}
		return errors.Join(err, done())
	})
}

// expectCurrent reports whether want is the calling thread's current
// context (after what was just called).
func expectCurrent(want cu.CUContext, after string) error {
	got, err := cu.CurrentContext()
	if err != nil {
		return fmt.Errorf("after %s: cuCtxGetCurrent: %w", after, err)
	}
	if got != want {
		return fmt.Errorf("after %s: current context is %v, want %v (the thread's own; 0x0: none)", after, got, want)
	}
	return nil
}

// setCurrent makes want current on the calling thread again (and checks
// it), so that an engine call meets the thread's set-up whatever the
// harness's calls before it left.
func setCurrent(want cu.CUContext, before string) error {
	if err := cu.SetCurrentContext(want); err != nil {
		return fmt.Errorf("before %s: cuCtxSetCurrent: %w", before, err)
	}
	return expectCurrent(want, "cuCtxSetCurrent before "+before)
}

// primaryContext retains device 0's primary context (the engine's) for the
// test.
func primaryContext(t *testing.T) cu.CUContext {
	t.Helper()
	dev, err := cu.GetDevice(0)
	require.NoError(t, err)
	ctx, err := dev.RetainPrimaryCtx()
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.ReleasePrimaryCtx() })
	return ctx
}

// threadCall is one GEMM of the thread tests, on device operands.
type threadCall struct {
	d   *gemmtest.Data
	p   dispatch.Problem
	out devBuf
	pl  dispatch.Plan
}

// threadCalls are bf16 GEMMs at N = K = 4096, M = 16, 64, 256: on sm_90
// the table routes them to TMA (ws_wgmma) kernels, whose launch encodes
// tensor maps, which needs a current context. On sm_90 at least one must
// plan a TMA kernel, or the tests would not cover the encode.
func threadCalls(t *testing.T, e *dispatch.Engine, seed uint64) []threadCall {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var calls []threadCall
	tma := 0
	for _, m := range []int{16, 64, 256} {
		d := gemmtest.FillSampled(gemmtest.Case{Name: "thread", M: m, N: 4096, K: 4096}, dispatch.BF16, rng, 2000)
		p, out := operands(t, d)
		pl, err := e.Plan(&p)
		require.NoError(t, err)
		require.NotNil(t, pl.Kernel, "M=%d plans no kernel", m)
		if pl.Kernel.TMA() {
			tma++
		}
		t.Logf("M=%d N=4096 K=4096: %s split-K %d (TMA %v)", m, pl.KernelName(), pl.SplitK, pl.Kernel.TMA())
		calls = append(calls, threadCall{d, p, out, pl})
	}
	if e.Device().Arch == kernels.SM90 {
		require.Positive(t, tma, "no TMA kernel planned on %s: the test would not cover the tensor-map encode", e.Device().Name)
	}
	return calls
}

// poison fills c's output with NaN on stream s.
func (c *threadCall) poison(s cuda.Stream) error {
	return gpu.Fill(uintptr(c.p.D), uint32(gemmtest.Poison)<<16|uint32(gemmtest.Poison), int64(c.p.M*c.p.LDC/2), s)
}

// threadOuts are the outputs of a thread's calls: by GEMM, and by Launch
// of the plans made on the test's thread.
type threadOuts struct{ gemm, launch [][]uint16 }

// gemmsOnThread runs calls on a fresh stream from a thread of kind — Plan
// and GEMM, then Launch of each call's plan — checking before and after
// each engine call (Plan, GEMM, Launch, Reserve) what is current, and that
// a TMA GEMM there allocates nothing; it returns the outputs. The stream is
// new, so its first split-K GEMM reserves the workspace from that thread
// too.
func gemmsOnThread(e *dispatch.Engine, kind threadKind, primary cu.CUContext, calls []threadCall) (threadOuts, error) {
	var outs threadOuts
	err := onKind(kind, primary, func(want cu.CUContext) (err error) {
		s, err := gpu.NewStream()
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, gpu.DestroyStream(s)) }()
		if err := expectCurrent(want, "the harness's cuStreamCreate"); err != nil {
			return err
		}
		// call makes want current, runs one engine call and checks that
		// want is still current after it.
		call := func(what string, f func() error) error {
			if err := setCurrent(want, what); err != nil {
				return err
			}
			if err := f(); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			return expectCurrent(want, what)
		}
		// run poisons the outputs, launches each call by launch, waits and
		// returns the outputs.
		run := func(how string, launch func(c *threadCall) error) ([][]uint16, error) {
			for i := range calls {
				c := &calls[i]
				if err := c.poison(s); err != nil {
					return nil, err
				}
				if err := call(fmt.Sprintf("%s M=%d (%s split-K %d)", how, c.p.M, c.pl.KernelName(), c.pl.SplitK), func() error { return launch(c) }); err != nil {
					return nil, err
				}
			}
			if err := gpu.Sync(s); err != nil {
				return nil, err
			}
			outs := make([][]uint16, len(calls))
			for i := range calls {
				var err error
				if outs[i], err = gpu.Download(calls[i].out.b); err != nil {
					return nil, err
				}
			}
			return outs, expectCurrent(want, "the harness's cuMemsetD32Async, cuStreamSynchronize and cuMemcpyDtoH")
		}
		if outs.gemm, err = run("Plan and GEMM", func(c *threadCall) error {
			pl, err := e.Plan(&c.p)
			if err != nil {
				return fmt.Errorf("Plan: %w", err)
			}
			if pl.Kernel != c.pl.Kernel || pl.SplitK != c.pl.SplitK {
				return fmt.Errorf("Plan gives %s split-K %d here, %s split-K %d on the test's thread", pl.KernelName(), pl.SplitK, c.pl.KernelName(), c.pl.SplitK)
			}
			if err := expectCurrent(want, "Plan"); err != nil {
				return err
			}
			return e.GEMM(&c.p, dispatch.Stream(s))
		}); err != nil {
			return err
		}
		// The hot path from this thread allocates nothing (entering and
		// leaving the context included), on the TMA call if there is one.
		c := &calls[len(calls)-1]
		for i := range calls {
			if calls[i].pl.Kernel.TMA() {
				c = &calls[i]
				break
			}
		}
		var gerr error
		allocs := testing.AllocsPerRun(20, func() {
			if err := e.GEMM(&c.p, dispatch.Stream(s)); err != nil && gerr == nil {
				gerr = err
			}
		})
		if gerr != nil {
			return fmt.Errorf("repeated GEMM M=%d: %w", c.p.M, gerr)
		}
		if allocs != 0 {
			return fmt.Errorf("GEMM M=%d (%s) from a %s thread allocates %v times per call", c.p.M, c.pl.KernelName(), kind.name, allocs)
		}
		if err := expectCurrent(want, "repeated GEMM"); err != nil {
			return err
		}
		if outs.launch, err = run("Launch", func(c *threadCall) error {
			return e.Launch(c.pl, &c.p, dispatch.Stream(s))
		}); err != nil {
			return err
		}
		// Give the stream's workspace back.
		return call("Reserve(s, 0)", func() error { return e.Reserve(dispatch.Stream(s), 0) })
	})
	return outs, err
}

// ownThreadOutputs runs calls from a thread where the engine's (primary)
// context is current, checks them against the float64 reference (GEMM's
// and Launch's outputs the same bits) and returns GEMM's outputs.
func ownThreadOutputs(t *testing.T, e *dispatch.Engine, primary cu.CUContext, calls []threadCall) [][]uint16 {
	t.Helper()
	ref, err := gemmsOnThread(e, ownThread, primary, calls)
	require.NoError(t, err, "from a thread where the engine's context is current")
	for i, c := range calls {
		require.NoError(t, c.d.Check(ref.gemm[i]), "M=%d (%s) from the engine's own thread", c.p.M, c.pl.KernelName())
		require.True(t, slices.Equal(ref.gemm[i], ref.launch[i]), "M=%d (%s): Launch and GEMM differ on the engine's own thread", c.p.M, c.pl.KernelName())
	}
	return ref.gemm
}

// A GEMM on TMA kernels (M = 16, 64, 256, N = K = 4096 bf16) from a thread
// with no current context, and from one where a foreign context is
// current, runs (Plan, GEMM, Launch of a plan, Reserve), gives the bits the
// same GEMM gives from a thread where the engine's context is current,
// allocates nothing, and leaves the thread's own context (none, or the
// foreign one) current after every call.
func TestGEMMFromAnyThread(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	primary := primaryContext(t)
	calls := threadCalls(t, e, 191)
	ref := ownThreadOutputs(t, e, primary, calls)
	for _, kind := range []threadKind{noContext, foreignContext} {
		t.Run(kind.name, func(t *testing.T) {
			got, err := gemmsOnThread(e, kind, primary, calls)
			require.NoError(t, err)
			for i, c := range calls {
				require.True(t, slices.Equal(ref[i], got.gemm[i]), "M=%d (%s): GEMM's output from a %s thread differs from the engine's own thread's", c.p.M, c.pl.KernelName(), kind.name)
				require.True(t, slices.Equal(ref[i], got.launch[i]), "M=%d (%s): Launch's output from a %s thread differs from the engine's own thread's GEMM", c.p.M, c.pl.KernelName(), kind.name)
			}
		})
	}
}

// From a thread with no current context (and from one with a foreign
// context current), the whole life of an engine works and leaves the
// thread's context as it was after every call: Open, Reserve, Capture (the
// capture function running with the engine's context current), Graph.Launch
// of TMA GEMMs — bit-identical to the same GEMMs launched directly from the
// engine's own thread — Graph.Close and Close.
func TestEngineLifeFromAnyThread(t *testing.T) {
	primary := primaryContext(t)
	direct := openEngine(t, dispatch.Options{})
	calls := threadCalls(t, direct, 201)
	ref := ownThreadOutputs(t, direct, primary, calls)
	for _, kind := range []threadKind{noContext, foreignContext} {
		t.Run(kind.name, func(t *testing.T) {
			outs := make([][]uint16, len(calls))
			err := onKind(kind, primary, func(want cu.CUContext) (err error) {
				step := func(what string, err error) error {
					if err != nil {
						return fmt.Errorf("%s: %w", what, err)
					}
					return expectCurrent(want, what)
				}
				e, err := dispatch.Open(0, dispatch.Options{})
				if err := step("Open", err); err != nil {
					return err
				}
				defer func() {
					if e != nil {
						_ = e.Close()
					}
				}()
				s, err := gpu.NewStream()
				if err != nil {
					return err
				}
				defer func() { err = errors.Join(err, gpu.DestroyStream(s)) }()
				if err := setCurrent(want, "Reserve"); err != nil {
					return err
				}
				if err := step("Reserve", e.Reserve(dispatch.Stream(s), 32<<20)); err != nil {
					return err
				}
				var inside error
				g, err := e.Capture(dispatch.Stream(s), func() error {
					// fn runs with the engine's context current, and the
					// GEMMs in it leave it so.
					inside = expectCurrent(primary, "entering the capture function")
					for i := range calls {
						if err := e.GEMM(&calls[i].p, dispatch.Stream(s)); err != nil {
							return fmt.Errorf("captured GEMM M=%d: %w", calls[i].p.M, err)
						}
						if inside == nil {
							inside = expectCurrent(primary, "a captured GEMM, inside the capture function")
						}
					}
					return nil
				})
				if err := step("Capture", errors.Join(err, inside)); err != nil {
					return err
				}
				for i := range calls {
					if err := calls[i].poison(s); err != nil {
						return err
					}
				}
				if err := setCurrent(want, "Graph.Launch"); err != nil {
					return err
				}
				if err := step("Graph.Launch", g.Launch(dispatch.Stream(s))); err != nil {
					return err
				}
				if err := gpu.Sync(s); err != nil {
					return err
				}
				for i := range calls {
					if outs[i], err = gpu.Download(calls[i].out.b); err != nil {
						return err
					}
				}
				if err := setCurrent(want, "Graph.Close"); err != nil {
					return err
				}
				if err := step("Graph.Close", g.Close()); err != nil {
					return err
				}
				if err := setCurrent(want, "Close"); err != nil {
					return err
				}
				err = e.Close()
				e = nil
				return step("Close", err)
			})
			require.NoError(t, err)
			for i, c := range calls {
				require.True(t, slices.Equal(ref[i], outs[i]), "M=%d (%s): the graph replayed from a %s thread differs from the direct GEMM on the engine's own thread", c.p.M, c.pl.KernelName(), kind.name)
			}
		})
	}
}
