//go:build !nocuda

package dispatch_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// invariantWeights are Llama-3-8B's four weights and three the table was
// not tuned for (Qwen2-7B's gate_up and down, Gemma-2B's o), N × K.
var invariantWeights = [][2]int{{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}, {37888, 3584}, {3584, 18944}, {2048, 2048}}

// invariantBatches are issue 21's batch sizes; the largest is the pool of
// rows the batches are cut from.
var invariantBatches = []int{1, 2, 7, 16, 33, 100, 257, 1024, 4096}

// invariantTypes are the types the mode is tested in.
var invariantTypes = []gemmtest.Types{
	gemmtest.Same(dispatch.BF16), gemmtest.Same(dispatch.F16),
	{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16}},
	{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16, Scaling: dispatch.ScalingRow}},
}

// rows is q cut to the m rows of its pool from row s on: A, D and a
// row-scaled A's scales move with them.
func rows(q dispatch.Problem, s, m int) dispatch.Problem {
	q.M = m
	q.A += dispatch.DevicePtr(s * q.LDA * q.Types.In.Size())
	q.D += dispatch.DevicePtr(s * q.LDC * q.Types.Out.Size())
	if q.Types.Scaling == dispatch.ScalingRow {
		q.ScaleAPtr += dispatch.DevicePtr(4 * s)
	}
	return q
}

// In the batch-invariant mode each row of D is bit-identical to the row
// computed alone (M = 1), wherever the row sits in a batch of any size,
// eager, on another stream, and replayed from a graph.
func TestBatchInvariantRows(t *testing.T) {
	e := openEngine(t, dispatch.Options{BatchInvariant: true})
	pool := invariantBatches[len(invariantBatches)-1]
	for i, ty := range invariantTypes {
		for j, w := range invariantWeights {
			t.Run(ty.String()+"/"+shapeName(w), func(t *testing.T) {
				d := gemmtest.FillTypes(gemmtest.Case{Name: "inv", M: pool, N: w[0], K: w[1]}, ty, rand.New(rand.NewPCG(uint64(91+i), uint64(j))), 64)
				p, _ := operands(t, d)
				for r := range pool { // every row alone, into its row of D
					q := rows(p, r, 1)
					require.NoError(t, e.GEMM(&q, 0))
				}
				waitStream(t, 0)
				alone := download(t, p)
				require.NoError(t, d.Check(alone), "the rows computed alone")
				one := rows(p, 0, 1)
				plan1, err := e.Plan(&one)
				require.NoError(t, err)
				for _, m := range invariantBatches {
					for _, s := range []int{0, (pool - m) / 2, pool - m} { // the rows at other positions
						q := rows(p, s, m)
						plan, err := e.Plan(&q)
						require.NoError(t, err)
						require.Equal(t, plan1.Kernel.ReductionClass, plan.Kernel.ReductionClass, "M=%d: %s", m, plan.Explain())
						repoisonRows(t, q)
						require.NoError(t, e.GEMM(&q, 0))
						waitStream(t, 0)
						sameRows(t, alone[s*p.LDC:(s+m)*p.LDC], download(t, q), "M=%d from row %d, %s", m, s, plan.KernelName())
					}
				}
				if j == 1 { // o: another stream, and graph replays
					otherStreamAndGraph(t, e, p, alone)
				}
			})
		}
	}
}

// shapeName is "NxK".
func shapeName(w [2]int) string { return fmt.Sprintf("%dx%d", w[0], w[1]) }

// repoisonRows poisons q's rows of D.
func repoisonRows(t *testing.T, q dispatch.Problem) {
	t.Helper()
	require.NoError(t, gpu.Fill(uintptr(q.D), uint32(gemmtest.Poison)<<16|uint32(gemmtest.Poison), int64(q.M*q.LDC/2), 0))
	waitStream(t, 0)
}

// sameRows asserts got's bits are want's, counting the elements that differ.
func sameRows(t *testing.T, want, got []uint16, msg string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want))
	differ := 0
	for i := range want {
		if want[i] != got[i] {
			differ++
		}
	}
	assert.Zero(t, differ, append([]any{msg + ": %d of %d elements differ from the rows computed alone"}, append(args, differ, len(want))...)...)
}

// otherStreamAndGraph runs a batch of 100 of p's rows on a second stream,
// then captured and replayed three times: the same bits as alone.
func otherStreamAndGraph(t *testing.T, e *dispatch.Engine, p dispatch.Problem, alone []uint16) {
	s, err := gpu.NewStream()
	require.NoError(t, err)
	defer gpu.DestroyStream(s)
	q := rows(p, 17, 100)
	want := alone[17*p.LDC : 117*p.LDC]
	repoisonRows(t, q)
	require.NoError(t, e.GEMM(&q, dispatch.Stream(s)))
	require.NoError(t, gpu.Sync(s))
	sameRows(t, want, download(t, q), "another stream")
	g, err := e.Capture(dispatch.Stream(s), func() error { return e.GEMM(&q, dispatch.Stream(s)) })
	require.NoError(t, err)
	defer g.Close()
	for replay := range 3 {
		repoisonRows(t, q)
		require.NoError(t, g.Launch(dispatch.Stream(s)))
		require.NoError(t, gpu.Sync(s))
		sameRows(t, want, download(t, q), "graph replay %d", replay)
	}
}

// Every two kernels of one reduction class write the same bits for the
// same problem (the generator's class.go states it; this checks it), at
// split-K 1 and, where they split K at the same offsets (K per split, from
// K, the split and the kernel's TileK), at 2 and 4 — a workspace split-K
// with its reduce against a kernel that sums its parts itself
// (KernelSpec.SplitFixed) among them: a pair that differs fails, and names
// both.
func TestReductionClassesAgree(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	pl := e.Planner()
	dev := e.Device()
	for i, ty := range invariantTypes {
		for _, c := range []gemmtest.Case{{Name: "one", M: 1, N: 4096, K: 4096}, {Name: "odd", M: 33, N: 2048, K: 14336}, {Name: "mid", M: 257, N: 6144, K: 4096}} {
			t.Run(ty.String()+"/"+c.Name, func(t *testing.T) {
				d := gemmtest.FillTypes(c, ty, rand.New(rand.NewPCG(97, uint64(i))), 64)
				p, out := operands(t, d)
				for _, class := range pl.Catalog().Classes(ty.Types, dev.Arch) {
					for _, split := range []int{1, 2, 4} {
						first, firstName := map[int][]uint16{}, map[int]string{}
						ran, fixed := 0, 0
						for _, k := range pl.Catalog().Kernels() {
							if k.ReductionClass != class || !k.Computes(ty.Types) || pl.CheckKernel(&k, &p, split) != "" {
								continue
							}
							plan, err := pl.PlanKernel(&p, k.Name, split)
							require.NoError(t, err)
							kps := (c.K + split - 1) / split
							kps = (kps + k.TileK - 1) / k.TileK * k.TileK
							repoison(t, out)
							require.NoError(t, e.Launch(plan, &p, 0))
							waitStream(t, 0)
							got := out.download(t)
							ran++
							if k.SplitFixed() {
								fixed++
							}
							if first[kps] == nil {
								first[kps], firstName[kps] = got, k.Name
								assert.NoError(t, d.Check(got), k.Name)
								continue
							}
							sameRows(t, first[kps], got, "class %s, split-K %d: %s against %s", class, split, k.Name, firstName[kps])
						}
						t.Logf("class %s, split-K %d: %d kernels ran (%d summing their parts themselves)", class, split, ran, fixed)
					}
				}
			})
		}
	}
}

// At a measured split (an entry's invariant split_k: 2 here, on o and
// down) each row of D is bit-identical to the row computed alone at every
// batch size, eager, on another stream and in graph replays: the workspace
// split-K with its reduce where the M·N·2 partials fit, past them a kernel
// that sums its parts itself (KernelSpec.SplitFixed) in the reduce's
// order — which some batch must route to.
func TestBatchInvariantRowsAtSplit(t *testing.T) {
	const split = 2
	tab, err := dispatch.DefaultTable()
	require.NoError(t, err)
	arch := openEngine(t, dispatch.Options{}).Device().Arch
	ty := gemmtest.Same(dispatch.BF16)
	weights := [][2]int{{4096, 4096}, {4096, 14336}}
	for _, w := range weights {
		exact, _ := tab.Find(arch, ty.Types, w[0], w[1])
		require.NotNil(t, exact, shapeName(w))
		exact.Invariant = &dispatch.Invariant{Class: "wgmma16.seq", Source: dispatch.SourceMeasured, Device: "this test", Date: "2026-12-07", WorstSlowdown: 1, SplitK: split}
	}
	e := openEngine(t, dispatch.Options{Table: tab, BatchInvariant: true})
	pool := invariantBatches[len(invariantBatches)-1]
	fixed := 0
	for j, w := range weights {
		t.Run(shapeName(w), func(t *testing.T) {
			d := gemmtest.FillTypes(gemmtest.Case{Name: "inv-split", M: pool, N: w[0], K: w[1]}, ty, rand.New(rand.NewPCG(131, uint64(j))), 64)
			p, _ := operands(t, d)
			for r := range pool {
				q := rows(p, r, 1)
				require.NoError(t, e.GEMM(&q, 0))
			}
			waitStream(t, 0)
			alone := download(t, p)
			require.NoError(t, d.Check(alone), "the rows computed alone")
			for _, m := range invariantBatches {
				for _, s := range []int{0, (pool - m) / 2, pool - m} {
					q := rows(p, s, m)
					plan, err := e.Plan(&q)
					require.NoError(t, err, "M=%d", m)
					require.Equal(t, [2]any{"wgmma16.seq", split}, [2]any{plan.Kernel.ReductionClass, plan.SplitK}, "M=%d: %s", m, plan.Explain())
					if plan.Kernel.SplitFixed() {
						fixed++
					}
					repoisonRows(t, q)
					require.NoError(t, e.GEMM(&q, 0))
					waitStream(t, 0)
					sameRows(t, alone[s*p.LDC:(s+m)*p.LDC], download(t, q), "M=%d from row %d, %s", m, s, plan.KernelName())
				}
			}
			otherStreamAndGraph(t, e, p, alone)
		})
	}
	require.Positive(t, fixed, "no batch ran a kernel that sums its parts itself")
}
