//go:build !nocuda

package main

import (
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
	UsageLine: "-shapes FILE [-csv OUT] [-peer PEER.csv] [-table FILE] [flags]",
	Short:     "time the engine's chosen kernels by graph replay and per-call events",
	Long: `Bench routes every shape of a shapes CSV through the engine (with -table's
bucket table, else the embedded one), checks the result against the float64
reference, then times it: graph replay over rotating weights (≥ 3× L2),
per-call events after an L2 flush, and the host cost of GEMM beside a bare
Launch. With -peer (peer_cublas.py's output) cuBLAS's time stands beside
ours: torch.mm's for 16-bit shapes, torch._scaled_mm's of the same scaling
(the shapes CSV's scaling column, tensor when empty) for e4m3 shapes. It
needs a GPU (device 0).`,
	Flags: func(fs *flag.FlagSet) func(*stdio, []string) int {
		shapesPath := fs.String("shapes", "", "shapes CSV: name,M,N,K[,dtype]")
		outPath := fs.String("csv", "", "write results here")
		peerPath := fs.String("peer", "", "peer_cublas.py output to put beside ours")
		var roof rooflineFlags
		roof.register(fs, "the device preset's")
		reps := fs.Int("reps", 20, "graph replays per timing (after 3 warm-up replays)")
		tablePath := fs.String("table", "", "bucket table to route with (default: the embedded buckets.yaml)")
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
			opts := dispatch.Options{}
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
			dev := h.Engine.Device()
			c := roof.of(dev)
			fmt.Fprintf(std.out, "# %s (%s, %d SMs, L2 %d MiB); roofline from read %.2f TB/s, dense %.0f TFLOP/s (e4m3 %.0f)\n",
				dev.Name, dev.Arch, dev.SMs, dev.L2Bytes>>20, c.ReadBW/1e12, c.Peak/1e12, c.Rate(dispatch.E4M3)/1e12)
			var rows []report.BenchRow
			for _, s := range shapes {
				r, err := benchShape(h, s, *reps)
				if err != nil {
					return std.fail(fmt.Errorf("bench: %s M=%d N=%d K=%d: %w", s.Name, s.M, s.N, s.K, err))
				}
				r.FloorUS, r.PeerUS = c.RooflineUS(s), peer.US(s)
				rows = append(rows, r)
				fmt.Fprintln(std.out, r.Line())
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
// then times it by graph replay, per-call events, and on the host.
func benchShape(h *gpuharness.Harness, s tuning.Shape, reps int) (report.BenchRow, error) {
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
	r.HostLaunch, err = h.HostTime(func(i int) error { return h.Engine.Launch(pl, &probs[i%len(probs)], st) })
	return r, err
}
