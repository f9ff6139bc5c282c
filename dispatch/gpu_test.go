//go:build !nocuda

package dispatch_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
	"github.com/gemmroute/gemmroute/kernels"
)

func openEngine(t testing.TB, opts dispatch.Options) *dispatch.Engine {
	t.Helper()
	e, err := dispatch.Open(0, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

var dtypes = []dispatch.DType{dispatch.BF16, dispatch.F16}

// Every loaded kernel (the sm_80 image through its compute_80 PTX on a newer
// GPU) against the float64 reference on the awkward table, split-K 1 and 3;
// every e4m3 kernel in each scaling mode it takes (per-tensor both as
// scalars and as pointers), with its output dtype, on the awkward table and
// gemmtest.AwkwardE4M3 (K multiples of 16, some of 128). Where a kernel's constraints fail, Launch must
// refuse and write nothing (counted as skipped); every kernel must run on
// some case in each types subtest (gemmtest.AllTypes: bf16, f16, "e4m3→bf16/row", …: select
// the e4m3 ones with -test.run 'TestEveryKernelOnAwkwardShapes/e4m3').
func TestEveryKernelOnAwkwardShapes(t *testing.T) {
	e := openEngine(t, dispatch.Options{WorkspaceBytes: 64 << 20, JITImages: true})
	all := e.Planner().Catalog().Kernels()
	for i, ty := range gemmtest.AllTypes() {
		var ks []kernels.KernelSpec
		for _, k := range all {
			if k.Computes(ty.Types) {
				ks = append(ks, k)
			}
		}
		cases := gemmtest.Awkward()
		if ty.In == dispatch.E4M3 {
			cases = append(cases, gemmtest.AwkwardE4M3()...)
		}
		t.Run(ty.String(), func(t *testing.T) {
			if len(ks) == 0 {
				t.Skipf("no %s kernel in the catalog", ty)
			}
			rng := rand.New(rand.NewPCG(11, 12+uint64(i))) // whichever subtests run
			awkwardRuns(t, e, ty, ks, cases, rng)
		})
	}
}

// awkwardRuns runs every kernel of ks on every case (random inputs of types
// ty) at split-K 1 and 3, and requires each kernel to run on some case (and
// the sm_80 image to have run for 16-bit types). A kernel's first wrong
// result fails the test and ends that kernel's runs, so that one run of the
// test names every wrong kernel; the log gives each e4m3 kernel's worst
// |D − ref| / bound over its cases.
func awkwardRuns(t *testing.T, e *dispatch.Engine, ty gemmtest.Types, ks []kernels.KernelSpec, cases []gemmtest.Case, rng *rand.Rand) {
	ran, skipped, worst := map[string]int{}, map[string]int{}, map[string]float64{}
	wrong := map[string]bool{}
	var runs, skips, sm80, sm90 int
	for _, c := range cases {
		d := gemmtest.FillTypes(c, ty, rng, 0)
		p, out := operands(t, d)
		for _, k := range ks {
			for _, split := range []int{1, 3} {
				if wrong[k.Name] {
					continue
				}
				name := fmt.Sprintf("kernel %s, case %s, %s, split-K %d", k.Name, d.Name, ty, split)
				repoison(t, out)
				pl, err := e.Planner().PlanKernel(&p, k.Name, split)
				if why := e.Planner().CheckKernel(&k, &p, split); why != "" {
					require.ErrorIs(t, err, dispatch.ErrNoKernel, name)
					refuseMisaligned(t, e, k.Name, split, p, out)
					skipped[k.Name]++
					skips++
					continue
				}
				require.NoError(t, err, name)
				require.NoError(t, e.Launch(pl, &p, 0), name)
				waitStream(t, 0)
				got := out.download(t)
				worst[k.Name] = max(worst[k.Name], d.Worst(got))
				if err := d.Check(got); err != nil {
					t.Errorf("%s: %v (its other cases not run)", name, err)
					wrong[k.Name] = true
				}
				ran[k.Name]++
				runs++
				switch {
				case strings.HasPrefix(k.Name, "gemmroute_sm80_"):
					sm80++
				case strings.HasPrefix(k.Name, "gemmroute_sm90_"):
					sm90++
				}
			}
		}
	}
	for _, k := range ks {
		assert.Greater(t, ran[k.Name], 0, "kernel %s never ran in %s (%d (case, split-K) pairs skipped by its constraints)", k.Name, ty, skipped[k.Name])
		if ty.In == dispatch.E4M3 { // the tolerance's evidence (gemmtest's eps8)
			t.Logf("%s %s: %d runs, worst |D−ref|/bound %.3g, %d skipped by its constraints", k.Name, ty, ran[k.Name], worst[k.Name], skipped[k.Name])
		}
	}
	t.Logf("%s on %s: %d kernels (%d wrong), %d runs checked (%d of the sm_80 image, PTX JIT on this GPU; %d of the sm_90 image), %d (case, split-K) pairs skipped by their constraints",
		ty, e.Device().Name, len(ks), len(wrong), runs, sm80, sm90, skips)
	if ty.In != dispatch.E4M3 {
		require.Greater(t, sm80, 0, "the sm_80 image was not exercised")
	}
}

// repoison fills a 16-bit output with gemmtest.Poison again, so that what
// the previous run wrote cannot pass for the next one's.
func repoison(t testing.TB, out devBuf) {
	t.Helper()
	require.NoError(t, gpu.Fill(out.b.Base, uint32(gemmtest.Poison)<<16|uint32(gemmtest.Poison), int64(out.b.N+1)/2, 0))
}

// refuseMisaligned: when a kernel rejects p only for its pointers, a plan
// made for aligned pointers must still be refused at Launch with p's live
// pointers, and nothing may be written.
func refuseMisaligned(t *testing.T, e *dispatch.Engine, kernel string, split int, p dispatch.Problem, out devBuf) {
	t.Helper()
	aligned := p
	aligned.A, aligned.B = p.A&^255, p.B&^255
	pl, err := e.Planner().PlanKernel(&aligned, kernel, split)
	if err != nil {
		return // the kernel rejects more than the pointers
	}
	require.ErrorIs(t, e.Launch(pl, &p, 0), dispatch.ErrNoKernel, kernel)
	waitStream(t, 0)
	for _, v := range out.download(t) {
		require.Equal(t, gemmtest.Poison, v, "%s: refused launch wrote output", kernel)
	}
}

// The engine's own routing for Llama-3-8B's projections at M = 1…8192: the
// decode range, bucket edges ± 1 and the tiled range up to 8192 (checked at
// sampled elements).
func TestRoutingLlamaShapes(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	rng := rand.New(rand.NewPCG(21, 22))
	shapes := []struct {
		name string
		n, k int
	}{{"qkv", 6144, 4096}, {"o", 4096, 4096}, {"gate_up", 28672, 4096}, {"down", 4096, 14336}}
	for _, sh := range shapes {
		for _, m := range []int{1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 64, 100, 255, 257, 1000, 2048, 4095, 8192} {
			d := gemmtest.FillSampled(gemmtest.Case{Name: sh.name, M: m, N: sh.n, K: sh.k}, dispatch.BF16, rng, 300)
			p, out := operands(t, d)
			pl, err := e.Plan(&p)
			require.NoError(t, err)
			require.NoError(t, e.GEMM(&p, 0), "%s M=%d", sh.name, m)
			waitStream(t, 0)
			require.NoError(t, d.Check(out.download(t)), "%s M=%d via %s (%s)", sh.name, m, pl.KernelName(), pl.Level)
		}
	}
}

// A misaligned pointer routes to a kernel that accepts it, and the result is right.
func TestMisalignedPointerRoutesToUnalignedKernel(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	d := gemmtest.Fill(gemmtest.Case{Name: "misaligned", M: 2, N: 4096, K: 4096, OffA: 1}, dispatch.BF16, rand.New(rand.NewPCG(31, 32)))
	p, out := operands(t, d)
	pl, err := e.Plan(&p)
	require.NoError(t, err)
	require.NotNil(t, pl.Kernel, "a kernel of ours, not cuBLASLt:\n%s", pl.Explain())
	require.Equal(t, 0, int(uintptr(p.A))%pl.Kernel.PtrAlign)
	require.Less(t, pl.Kernel.PtrAlign, 16, "A is 2 bytes off 16-byte alignment")
	require.Contains(t, pl.Explain(), "not 16-byte aligned")
	require.NoError(t, e.GEMM(&p, 0))
	waitStream(t, 0)
	require.NoError(t, d.Check(out.download(t)))
}

// A problem spanning more than 2^31 elements runs correctly (64-bit offsets):
// bf16, and e4m3→bf16 with per-tensor scales, at an odd N; and bf16 at an N
// whose rows are whole 16-byte pieces, which the TMA-store kernels take.
func TestMoreThan2p31Elements(t *testing.T) {
	e := openEngine(t, dispatch.Options{JITImages: true})
	t.Run("bf16", func(t *testing.T) { moreThan2p31(t, e, gemmtest.Same(dispatch.BF16), 41, 524289) })
	t.Run("bf16 N·2 a multiple of 16", func(t *testing.T) { moreThan2p31(t, e, gemmtest.Same(dispatch.BF16), 47, 524296) })
	t.Run("e4m3", func(t *testing.T) {
		moreThan2p31(t, e, gemmtest.Types{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16, Scaling: dispatch.ScalingTensor}}, 43, 524289)
	})
}

// moreThan2p31 runs M = 1, N = n (above 2^19), K = 4096 in types ty: B is
// 4.3 GB of bf16 or 2.1 GB of e4m3, filled by repeating a random
// 2^24-element chunk. It runs the route and, forced, the tiled and ws
// kernels but the repack ones (16-bit; a TMA-store kernel only where N·2 is
// a multiple of 16, and elsewhere it must be refused for that), or, forced,
// every e4m3 kernel of ty whose constraints admit the problem, and checks
// six columns against the float64 reference and that every column was
// written.
func moreThan2p31(t *testing.T, e *dispatch.Engine, ty gemmtest.Types, seed uint64, n int) {
	const k, chunk = 4096, 1 << 24
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var ks []kernels.KernelSpec
	for _, kk := range e.Planner().Catalog().Kernels() {
		if kk.Computes(ty.Types) {
			ks = append(ks, kk)
		}
	}
	if len(ks) == 0 {
		t.Skipf("no %s kernel in the catalog", ty)
	}
	host := gemmtest.Random(ty.In, chunk, rng)
	a := make([]uint16, k)
	copy(a, host[12345:])
	src, err := gpu.UploadAs(ty.In, host)
	srcBuf := bufOf(t, src, err)
	size := int64(ty.In.Size())
	total := int64(n) * k
	bBase, err := gpu.Alloc(total * size)
	require.NoError(t, err)
	defer gpu.Free(bBase)
	for off := int64(0); off < total; off += chunk {
		require.NoError(t, gpu.CopyDevice(bBase+uintptr(off*size), srcBuf.b.Base, min(chunk, total-off)*size))
	}
	ab, err := gpu.UploadAs(ty.In, a)
	aBuf := bufOf(t, ab, err)
	out := poisoned(t, n)
	p := dispatch.Problem{M: 1, N: n, K: k, Types: dispatch.Types{In: ty.In, Out: ty.Out}, LDA: k, LDB: k, LDC: n,
		A: aBuf.ptr(0), B: dispatch.DevicePtr(bBase), D: out.ptr(0), Alpha: 1}
	scale := 1.0
	if ty.In == dispatch.E4M3 {
		p.Types.Scaling, p.ScaleA, p.ScaleB = ty.Scaling, 0.375, 1.25
		scale = 0.375 * 1.25
	}
	require.Greater(t, p.Elements(), int64(1)<<31)
	var plans []dispatch.Plan
	if ty.In != dispatch.E4M3 { // e4m3 kernels are experimental: only a table routes to them
		pl, err := e.Plan(&p)
		require.NoError(t, err, "%s", ty)
		require.NotNil(t, pl.Kernel, "%s: a kernel of ours, not cuBLASLt:\n%s", ty, pl.Explain())
		require.Equal(t, 64, pl.Kernel.IndexBits)
		plans = append(plans, pl)
	}
	// Other kernels too, forced: the route at M = 1 is a decode kernel.
	for _, kk := range ks {
		switch {
		case ty.In != dispatch.E4M3 && kk.Repack():
			// A repack kernel is refused where A and B suit TMA as they are
			// (they do here), and its copy of B (4.3 GB) would not fit a
			// workspace anyway.
			continue
		case ty.In != dispatch.E4M3 && kk.TMAStore() && n*2%16 != 0:
			why := e.Planner().CheckKernel(&kk, &p, 1)
			require.Contains(t, why, "not a multiple of 16", "%s at N = %d", kk.Name, n)
			continue
		case ty.In != dispatch.E4M3 && (strings.HasPrefix(kk.Family, "tiled") || strings.HasPrefix(kk.Family, "ws_")):
			fp, err := e.Planner().PlanKernel(&p, kk.Name, 1)
			require.NoError(t, err)
			plans = append(plans, fp)
		case ty.In == dispatch.E4M3:
			if why := e.Planner().CheckKernel(&kk, &p, 1); why != "" {
				t.Logf("%s: %s skipped: %s", ty, kk.Name, why)
				continue
			}
			fp, err := e.Planner().PlanKernel(&p, kk.Name, 1)
			require.NoError(t, err)
			plans = append(plans, fp)
		}
	}
	require.NotEmpty(t, plans, "%s: no kernel runs a problem above 2^31 elements", ty)
	for i, pl := range plans {
		q, o := p, out
		if i > 0 {
			o = poisoned(t, n)
			q.D = o.ptr(0)
		}
		require.NoError(t, e.Launch(pl, &q, 0))
		waitStream(t, 0)
		got := o.download(t)
		for _, col := range []int{0, 1, 77777, n / 2, n - 2, n - 1} {
			var ref, mag float64
			for kk := 0; kk < k; kk++ {
				x := float64(gemmtest.FromBits(ty.In, a[kk])) * float64(gemmtest.FromBits(ty.In, host[(int64(col)*k+int64(kk))%chunk]))
				ref, mag = ref+x, mag+abs(x)
			}
			ref, mag = ref*scale, mag*scale
			g := float64(gemmtest.FromBits(ty.Out, got[col]))
			tol := 0.02 * max(1, abs(ref))
			if ty.In == dispatch.E4M3 {
				tol = ty.Tolerance(k, ref, mag)
			}
			assert.InDelta(t, ref, g, tol, "kernel %s, %s: column %d: got %g, want %g ± %g", pl.KernelName(), ty, col, g, ref, tol)
		}
		unwritten, first := 0, -1
		for i, v := range got {
			if v == gemmtest.Poison {
				if unwritten == 0 {
					first = i
				}
				unwritten++
			}
		}
		assert.Zero(t, unwritten, "kernel %s, %s: %d columns not written, the first %d", pl.KernelName(), ty, unwritten, first)
	}
	t.Logf("%s: %d plans checked (a wrong one does not stop the others)", ty, len(plans))
}

func abs(x float64) float64 { return max(x, -x) }

// 8 goroutines × 8 streams × 200 GEMMs, all correct.
func TestConcurrentStreams(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	const workers, calls = 8, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- worker(t, e, w, calls)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func worker(t *testing.T, e *dispatch.Engine, w, calls int) error {
	s, err := gpu.NewStream()
	if err != nil {
		return err
	}
	defer gpu.DestroyStream(s)
	if err := e.Reserve(dispatch.Stream(s), 16<<20); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	d := gemmtest.Fill(gemmtest.Case{Name: fmt.Sprintf("w%d", w), M: 1 + w, N: 320, K: 1024 + 64*w, Bias: true}, dispatch.BF16, rng)
	p, _ := operands(t, d)
	outs := poisoned(t, calls*p.M*p.LDC)
	for i := range calls {
		q := p
		q.D = outs.ptr(i * p.M * p.LDC)
		if err := e.GEMM(&q, dispatch.Stream(s)); err != nil {
			return err
		}
	}
	if err := gpu.Sync(s); err != nil {
		return err
	}
	all := outs.download(t)
	for i := range calls {
		if err := d.Check(all[i*p.M*p.LDC : (i+1)*p.M*p.LDC]); err != nil {
			return fmt.Errorf("worker %d call %d: %w", w, i, err)
		}
	}
	return nil
}

// Split-K is deterministic: the same inputs give the same bits every run,
// for the bf16 kernels with 16-byte loads (split-K 8) and for every e4m3
// kernel that splits K (split-K 8 or its most), per-row and 128-block scaled
// (subtests "bf16", "e4m3→bf16/row", "e4m3→bf16/block128").
func TestSplitKDeterministic(t *testing.T) {
	e := openEngine(t, dispatch.Options{JITImages: true})
	c := gemmtest.Case{Name: "det", M: 4, N: 1000, K: 8192}
	t.Run("bf16", func(t *testing.T) {
		d := gemmtest.Fill(c, dispatch.BF16, rand.New(rand.NewPCG(51, 52)))
		p, out := operands(t, d)
		for _, k := range e.Planner().Catalog().Kernels() {
			if k.In != dispatch.BF16 || k.PtrAlign != 16 || k.MaxSplitK < 8 { // stream-K: TestStreamKDeterministicAndReplayable
				continue
			}
			splitKRepeats(t, e, d, p, out, k.Name, 8)
		}
	})
	for i, ty := range []gemmtest.Types{
		{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16, Scaling: dispatch.ScalingRow}},
		{Types: dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16, Scaling: dispatch.ScalingBlock}},
	} {
		t.Run(ty.String(), func(t *testing.T) {
			d := gemmtest.FillTypes(c, ty, rand.New(rand.NewPCG(53, 54+uint64(i))), 0)
			p, out := operands(t, d)
			var ran, skipped int
			for _, k := range e.Planner().Catalog().Kernels() {
				if !k.Computes(ty.Types) || k.MaxSplitK < 2 {
					continue
				}
				if why := e.Planner().CheckKernel(&k, &p, min(8, k.MaxSplitK)); why != "" {
					t.Logf("%s: %s skipped: %s", ty, k.Name, why)
					skipped++
					continue
				}
				splitKRepeats(t, e, d, p, out, k.Name, min(8, k.MaxSplitK))
				ran++
			}
			if ran+skipped == 0 {
				t.Skipf("no %s kernel that splits K in the catalog", ty)
			}
			t.Logf("%s: %d split-K kernels bit-identical over 3 runs, %d skipped by their constraints", ty, ran, skipped)
			require.Positive(t, ran, "%s: no split-K kernel ran", ty)
		})
	}
}

// splitKRepeats runs kernel at split-K split on d's operands (p, out) three
// times, each into a poisoned output: the first must pass the check, the
// others give its bits (a failure does not stop the other kernels).
func splitKRepeats(t *testing.T, e *dispatch.Engine, d *gemmtest.Data, p dispatch.Problem, out devBuf, kernel string, split int) {
	t.Helper()
	pl, err := e.Planner().PlanKernel(&p, kernel, split)
	require.NoError(t, err, "kernel %s, %s, split-K %d", kernel, d.Types, split)
	var first []uint16
	for run := 0; run < 3; run++ {
		repoison(t, out)
		require.NoError(t, e.Launch(pl, &p, 0))
		waitStream(t, 0)
		got := out.download(t)
		if run == 0 {
			first = got
			assert.NoError(t, d.Check(got), "kernel %s, %s, split-K %d", kernel, d.Types, split)
		} else {
			var differ int
			for i := range got {
				if got[i] != first[i] {
					differ++
				}
			}
			assert.Zero(t, differ, "kernel %s, %s, split-K %d: run %d differs from run 0 at %d of %d elements", kernel, d.Types, split, run, differ, len(got))
		}
	}
}

// A split-K plan on a stream whose reservation is too small is refused.
func TestWorkspaceTooSmallIsRefused(t *testing.T) {
	d := gemmtest.Fill(gemmtest.Case{Name: "ws", M: 4, N: 1000, K: 4096}, dispatch.BF16, rand.New(rand.NewPCG(61, 62)))
	p, out := operands(t, d)
	small := openEngine(t, dispatch.Options{WorkspaceBytes: 1024})
	name := ""
	for _, k := range small.Planner().Catalog().Kernels() {
		if k.In == dispatch.BF16 && k.MaxSplitK >= 4 {
			name = k.Name
			break
		}
	}
	// The planner knows the engine's reservation (Options.WorkspaceBytes):
	// a split-K that needs more is no plan.
	_, err := small.Planner().PlanKernel(&p, name, 4)
	require.ErrorIs(t, err, dispatch.ErrNoKernel)
	require.Contains(t, err.Error(), "needs 64000 B of workspace, 1024 B reserved per stream")
	require.NoError(t, small.Close())
	// A stream reserved below the plan's need refuses the launch and
	// writes nothing.
	e := openEngine(t, dispatch.Options{})
	pl, err := e.Planner().PlanKernel(&p, name, 4)
	require.NoError(t, err)
	require.NoError(t, e.Reserve(0, 1024))
	err = e.Launch(pl, &p, 0)
	require.ErrorIs(t, err, dispatch.ErrWorkspace)
	require.Contains(t, err.Error(), "Reserve")
	waitStream(t, 0)
	for _, v := range out.download(t) {
		require.Equal(t, gemmtest.Poison, v)
	}
}

// Bad input gets a typed error naming the field, and nothing is launched.
func TestBadInputLaunchesNothing(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	d := gemmtest.Fill(gemmtest.Case{Name: "bad", M: 2, N: 64, K: 128}, dispatch.BF16, rand.New(rand.NewPCG(71, 72)))
	p, out := operands(t, d)
	for _, mut := range []struct {
		field string
		f     func(*dispatch.Problem)
	}{
		{"LDA", func(q *dispatch.Problem) { q.LDA = 100 }},
		{"B", func(q *dispatch.Problem) { q.B = 0 }},
		{"M", func(q *dispatch.Problem) { q.M = -1 }},
		{"Types.Out", func(q *dispatch.Problem) { q.Types.Out = dispatch.F16 }},
		{"C", func(q *dispatch.Problem) { q.Beta, q.C = 1, 0 }},
	} {
		q := p
		mut.f(&q)
		err := e.GEMM(&q, 0)
		var ae *dispatch.ArgError
		require.True(t, errors.As(err, &ae), "%s: %v", mut.field, err)
		require.Equal(t, mut.field, ae.Field)
	}
	waitStream(t, 0)
	for _, v := range out.download(t) {
		require.Equal(t, gemmtest.Poison, v)
	}
}

// 100 GEMMs captured into a CUDA graph and replayed give the bits direct
// launches give: GEMM neither allocates, synchronises nor copies.
func TestGraphCaptureMatchesDirect(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	s := reservedStream(t, e, 32<<20)
	rng := rand.New(rand.NewPCG(81, 82))
	var ps []dispatch.Problem
	var datas []*gemmtest.Data
	for i := range 100 {
		d := gemmtest.Fill(gemmtest.Case{Name: "g", M: 1 + i%16, N: 256 + 8*(i%5), K: 512 + 8*(i%7), Bias: i%2 == 0}, dispatch.BF16, rng)
		p, _ := operands(t, d)
		ps, datas = append(ps, p), append(datas, d)
	}
	direct := make([][]uint16, len(ps))
	for i := range ps {
		require.NoError(t, e.GEMM(&ps[i], dispatch.Stream(s)))
	}
	require.NoError(t, gpu.Sync(s))
	for i, p := range ps {
		direct[i] = download(t, p)
		require.NoError(t, datas[i].Check(direct[i]))
		require.NoError(t, gpu.Fill(uintptr(p.D), uint32(gemmtest.Poison)<<16|uint32(gemmtest.Poison), int64(p.M*p.LDC/2), s))
	}
	g, err := gpu.Capture(s, func() error {
		for i := range ps {
			if err := e.GEMM(&ps[i], dispatch.Stream(s)); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	defer gpu.DestroyGraph(g)
	require.NoError(t, gpu.Replay(g, s))
	require.NoError(t, gpu.Sync(s))
	for i, p := range ps {
		require.Equal(t, direct[i], download(t, p), "graph replay of GEMM %d differs", i)
	}
}

func download(t testing.TB, p dispatch.Problem) []uint16 {
	host := make([]uint16, p.M*p.LDC)
	require.NoError(t, gpu.CopyOut(unsafe.Pointer(&host[0]), uintptr(p.D), int64(len(host))*2))
	return host
}

// Close frees everything the engine took, and is idempotent.
func TestCloseReturnsMemory(t *testing.T) {
	free0, _, err := gpu.MemInfo()
	require.NoError(t, err)
	e, err := dispatch.Open(0, dispatch.Options{WorkspaceBytes: 256 << 20})
	require.NoError(t, err)
	require.NoError(t, e.Reserve(dispatch.Stream(cuda.Stream(0)), 128<<20))
	free1, _, err := gpu.MemInfo()
	require.NoError(t, err)
	require.Less(t, free1, free0-100<<20, "workspace was not reserved")
	require.NoError(t, e.Close())
	require.NoError(t, e.Close())
	require.ErrorIs(t, e.GEMM(&dispatch.Problem{}, 0), dispatch.ErrClosed)
	free2, _, err := gpu.MemInfo()
	require.NoError(t, err)
	require.InDelta(t, float64(free0), float64(free2), 4<<20, "device memory not back after Close: %d → %d", free0, free2)
}

// The hot path allocates nothing once a route is cached.
func TestGEMMAllocatesNothing(t *testing.T) {
	e := openEngine(t, dispatch.Options{})
	d := gemmtest.Fill(gemmtest.Case{Name: "alloc", M: 4, N: 512, K: 1024}, dispatch.BF16, rand.New(rand.NewPCG(91, 92)))
	p, _ := operands(t, d)
	require.NoError(t, e.GEMM(&p, 0))
	allocs := testing.AllocsPerRun(100, func() { _ = e.GEMM(&p, 0) })
	waitStream(t, 0)
	require.Zero(t, allocs)
}
