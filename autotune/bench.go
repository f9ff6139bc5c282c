//go:build !nocuda

package main

import (
	"cmp"
	"flag"
	"fmt"

	"github.com/gemmroute/gemmroute/autotune/report"
	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
	"github.com/gemmroute/gemmroute/internal/gpuharness"
)

// eventCalls is how many per-call event timings bench's second column takes.
const eventCalls = 50

var benchCmd = &command{
	Name:      "bench",
	UsageLine: "-shapes FILE [-csv OUT] [-peer PEER.csv] [-table FILE] [-invariant] [flags]",
	Short:     "time the engine's chosen kernels by graph replay and per-call events",
	Long: `Bench routes every shape of a shapes CSV through the engine (with -table's
bucket table, else the embedded one), checks the result against the float64
reference, then times it: graph replay over rotating weights (≥ 3× L2),
per-call events after an L2 flush, and the host cost of GEMM beside a bare
Launch. With -peer (peer_cublas.py's output) cuBLAS's time stands beside
ours: torch.mm's for 16-bit shapes, torch._scaled_mm's of the same scaling
(the shapes CSV's scaling column, tensor when empty) for e4m3 shapes. It
needs a GPU (device 0).

Two columns of ours: the router (the engine as opened by default, every
candidate the table names, cuBLASLt included where a bucket routes to it)
and our kernels alone (an engine opened with NoVendor: the same table, a
bucket routed to cuBLASLt passed over to the next level), checked and
timed by graph replay too; the CSV's kernels_only_* columns. Where the
router's plan is ours the two are one plan, timed once. A line shows our
kernels alone where they differ from the router; the last line sums up
both against cuBLAS. With -invariant both engines run in the batch-invariant
mode (Options.BatchInvariant): a bench of the same shapes without it, in the
same call, gives the mode's cost.`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		shapesPath := fs.String("shapes", "", "shapes CSV: name,M,N,K[,dtype]")
		outPath := fs.String("csv", "", "write results here")
		peerPath := fs.String("peer", "", "peer_cublas.py output to put beside ours")
		var roof rooflineFlags
		roof.register(fs, "the device preset's")
		reps := fs.Int("reps", 20, "graph replays per timing (after 3 warm-up replays)")
		tablePath := fs.String("table", "", "bucket table to route with (default: the embedded buckets.yaml)")
		invariant := fs.Bool("invariant", false, "run in the batch-invariant mode (Options.BatchInvariant)")
		return func(std *stdio, _ []string) int {
			if *shapesPath == "" {
				return std.usageErr("bench", "-shapes is required")
			}
			if *reps < 1 || *reps > 1_000_000 {
				return std.usageErr("bench", "-reps %d: want 1 to 1000000", *reps)
			}
			if err := roof.check(); err != nil {
				return std.exit("bench", err)
			}
			shapes, err := tuning.ReadShapes(*shapesPath)
			if err == nil && *outPath != "" {
				err = fileio.CheckNotInput(*outPath, *shapesPath, *peerPath, *tablePath)
			}
			if err != nil {
				return std.fail(err)
			}
			peer := report.Peer{}
			if *peerPath != "" {
				if peer, err = report.ReadPeer(*peerPath); err != nil {
					return std.fail(err)
				}
			}
			opts := dispatch.Options{BatchInvariant: *invariant}
			if *tablePath != "" {
				if _, opts.Table, err = loadCatalogAndTable("", *tablePath); err != nil {
					return std.fail(err)
				}
			}
			h, err := gpuharness.Open(0, opts)
			if err != nil {
				return std.fail(err)
			}
			defer h.Close()
			kernelsOnly := &kernelsOnlyEngine{opts: opts, h: h}
			defer kernelsOnly.Close()
			dev := h.Engine.Device()
			c := roof.of(dev)
			mode := ""
			if *invariant {
				mode = "; batch-invariant mode"
			}
			fmt.Fprintf(std.out, "# %s (%s, %d SMs, L2 %d MiB); roofline from read %.2f TB/s, dense %.0f TFLOP/s (e4m3 %.0f)%s\n",
				dev.Name, dev.Arch, dev.SMs, dev.L2Bytes>>20, c.ReadBW/1e12, c.Peak/1e12, c.Rate(dispatch.E4M3)/1e12, mode)
			var rows []report.BenchRow
			for _, s := range shapes {
				r, err := benchShape(h, kernelsOnly, s, *reps)
				if err != nil {
					return std.fail(fmt.Errorf("bench: %s M=%d N=%d K=%d: %w", s.Name, s.M, s.N, s.K, err))
				}
				r.FloorUS, r.PeerUS = c.RooflineUS(s), peer.US(s)
				rows = append(rows, r)
				fmt.Fprintln(std.out, r.Line())
			}
			if sum := report.BenchSummary(rows); sum != "" {
				fmt.Fprintln(std.out, sum)
			}
			if *outPath != "" {
				if err := report.WriteBench(*outPath, rows); err != nil {
					return std.fail(err)
				}
			}
			return 0
		}
	},
}

// benchShape checks the engine's route for s against the CPU reference,
// then times it by graph replay, per-call events, and on the host; and
// fills the kernels-only columns (setKernelsOnly): where the router's plan
// is cuBLASLt's, kernelsOnly's route is checked and timed by graph replay
// on the same buffers.
func benchShape(h *gpuharness.Harness, kernelsOnly *kernelsOnlyEngine, s tuning.Shape, reps int) (report.BenchRow, error) {
	r := report.BenchRow{Shape: s}
	chk, err := h.Checked(s)
	if err != nil {
		return r, err
	}
	defer chk.Free()
	if err := chk.Check(h.Stream, h.Engine.GEMM); err != nil {
		return r, err
	}
	rot, err := h.Rotating(s)
	if err != nil {
		return r, err
	}
	defer rot.Free()
	probs := rot.Probs
	pl, err := h.Engine.Plan(&probs[0])
	if err != nil {
		return r, err
	}
	r.SetPlan(pl)
	st := dispatch.Stream(h.Stream)
	gemm := func(p *dispatch.Problem) error { return h.Engine.GEMM(p, st) }
	g, err := h.GraphTime(probs, reps, gemm)
	if err != nil {
		return r, err
	}
	ev, err := h.EventTime(probs, eventCalls, gemm)
	if err != nil {
		return r, err
	}
	r.GraphUS, r.GraphP90, r.EventsUS, r.EventsP90 = g.Median, g.P90, ev.Median, ev.P90
	if r.HostGEMM, err = h.HostTime(func(i int) error { return gemm(&probs[i%len(probs)]) }); err != nil {
		return r, err
	}
	if r.HostLaunch, err = h.HostTime(func(i int) error { return h.Engine.Launch(pl, &probs[i%len(probs)], st) }); err != nil {
		return r, err
	}
	err = setKernelsOnly(&r, pl, func() (dispatch.Plan, tuning.Timing, error) {
		e, err := kernelsOnly.engine()
		if err != nil {
			return dispatch.Plan{}, tuning.Timing{}, err
		}
		if err := chk.Check(h.Stream, e.GEMM); err != nil {
			return dispatch.Plan{}, tuning.Timing{}, err
		}
		kpl, err := e.Plan(&probs[0])
		if err != nil {
			return dispatch.Plan{}, tuning.Timing{}, err
		}
		g, err := h.GraphTime(probs, reps, func(p *dispatch.Problem) error { return e.GEMM(p, st) })
		return kpl, g, err
	})
	return r, err
}

// kernelsOnlyEngine is the engine of our kernels alone: the bench's
// Options with NoVendor, on device 0, its split-K workspace reserved on the
// harness's timing stream. It is opened on the first shape the router
// sends to cuBLASLt, so a table that routes no bucket there opens none.
type kernelsOnlyEngine struct {
	opts dispatch.Options
	h    *gpuharness.Harness
	e    *dispatch.Engine
}

// engine returns the engine, opening it on the first call.
func (k *kernelsOnlyEngine) engine() (*dispatch.Engine, error) {
	if k.e != nil {
		return k.e, nil
	}
	opts := k.opts
	opts.NoVendor = true
	e, err := dispatch.Open(0, opts)
	if err != nil {
		return nil, fmt.Errorf("opening it: %w", err)
	}
	if err := e.Reserve(dispatch.Stream(k.h.Stream), cmp.Or(opts.WorkspaceBytes, dispatch.DefaultWorkspaceBytes)); err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("reserving its split-K workspace on the timing stream: %w", err)
	}
	k.e = e
	return e, nil
}

// Close closes the engine if it was opened.
func (k *kernelsOnlyEngine) Close() {
	if k.e != nil {
		_ = k.e.Close()
	}
}
