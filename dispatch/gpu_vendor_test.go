//go:build !nocuda

package dispatch_test

import (
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cublaslt"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// vendorAlgo asks the machine's cuBLASLt for its best algorithm for
// bf16 D[M,N] = A[M,K]·B[N,K]ᵀ within 32 MiB of workspace, in the engine's
// TN mapping (cuBLASLt's A is our B, K×N, transposed; its B our A, K×M;
// C/D N×M), and returns it with the library's version; it skips the test
// where cuBLASLt is absent.
func vendorAlgo(t *testing.T, m, n, k int) (cublaslt.Algo, cublaslt.Version) {
	t.Helper()
	lib, err := cublaslt.Open(cublaslt.DefaultNames)
	if err != nil {
		t.Skipf("no cuBLASLt on this machine, nothing to route to: %v", err)
	}
	var algo cublaslt.Algo
	require.NoError(t, gpu.Do(func() error {
		h, err := lib.NewHandle()
		if err != nil {
			return err
		}
		defer h.Close()
		desc, err := lib.NewMatmulDesc(cublaslt.Compute32F, cublaslt.R32F, cublaslt.OpT, cublaslt.OpN)
		if err != nil {
			return err
		}
		defer desc.Close()
		var ls cublaslt.Layouts
		for _, l := range []struct {
			dst *(*cublaslt.Layout)
			m   cublaslt.Matrix
		}{
			{&ls.A, cublaslt.Matrix{Type: cublaslt.R16BF, Rows: uint64(k), Cols: uint64(n), LD: int64(k)}},
			{&ls.B, cublaslt.Matrix{Type: cublaslt.R16BF, Rows: uint64(k), Cols: uint64(m), LD: int64(k)}},
			{&ls.CD, cublaslt.Matrix{Type: cublaslt.R16BF, Rows: uint64(n), Cols: uint64(m), LD: int64(n)}},
		} {
			y, err := lib.NewLayout(l.m)
			if err != nil {
				return err
			}
			defer y.Close()
			*l.dst = y
		}
		hs, err := h.Heuristic(desc, ls, 32<<20, 8)
		if err != nil {
			return err
		}
		require.NotEmpty(t, hs, "cuBLASLt %s proposes no algorithm for M=%d N=%d K=%d", lib.Version(), m, n, k)
		algo = hs[0].Algo
		t.Logf("cuBLASLt %s (%s): %d algorithms proposed, the first needs %d B of workspace", lib.Version(), lib.Path(), len(hs), hs[0].Workspace)
		return nil
	}))
	return algo, lib.Version()
}

// vendorTable is a table with one exact entry of types ty for (n, k) on
// arch whose every bucket routes to cuBLASLt's algorithm v.
func vendorTable(arch dispatch.Arch, ty dispatch.Types, n, k int, v dispatch.Vendor) *dispatch.Table {
	buckets := dispatch.GeometricBuckets(4096)
	for i := range buckets {
		buckets[i].SplitK = 1
		buckets[i].Vendor = &v
	}
	return &dispatch.Table{Schema: dispatch.TableSchema, Provenance: dispatch.Provenance{Source: "measured", Arch: arch.String()},
		Entries: []dispatch.Entry{{Arch: arch, Types: ty, Layout: "tn", N: n, K: k,
			Source: dispatch.SourceMeasured, Buckets: buckets}}}
}

// A bucket routed to cuBLASLt, with an algorithm cuBLASLt's heuristic
// proposes at test time, runs through cublasLtMatmul: its plans name the
// algorithm, the results match the float64 reference (beta and C too),
// directly, under stream capture and in replays, with no allocation once
// planned; a bias passes it over to our kernels, as Options.NoVendor does.
func TestVendorRouteMatchesReference(t *testing.T) {
	const n, k = 768, 1024
	base := openEngine(t, dispatch.Options{NoVendor: true})
	algo, version := vendorAlgo(t, 64, n, k)
	tab := vendorTable(base.Device().Arch, dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, n, k,
		dispatch.Vendor{Algo: base64.StdEncoding.EncodeToString(algo[:]), Version: int(version)})
	e := openEngine(t, dispatch.Options{Table: tab})
	t.Logf("the engine's table: %s", e.Planner().KernelMatch())
	rng := rand.New(rand.NewPCG(221, 222))
	for _, c := range []gemmtest.Case{
		{Name: "m33", M: 33, N: n, K: k},
		{Name: "m48", M: 48, N: n, K: k},
		{Name: "m64", M: 64, N: n, K: k},
		{Name: "m40-beta", M: 40, N: n, K: k, Beta: 0.5},
	} {
		t.Run(c.Name, func(t *testing.T) {
			d := gemmtest.Fill(c, dispatch.BF16, rng)
			p, out := operands(t, d)
			plan, err := e.Plan(&p)
			require.NoError(t, err)
			require.NotNil(t, plan.Vendor, "not routed to cuBLASLt:\n%s", plan.Explain())
			assert.Contains(t, plan.Explain(), "kernel: cuBLASLt "+version.String()+" algorithm")
			require.NoError(t, e.GEMM(&p, 0))
			waitStream(t, 0)
			require.NoError(t, d.Check(out.download(t)), "direct call")

			repoison(t, out)
			s := reservedStream(t, e, 32<<20)
			g, err := e.Capture(dispatch.Stream(s), func() error { return e.GEMM(&p, dispatch.Stream(s)) })
			require.NoError(t, err)
			defer g.Close()
			for range 2 {
				require.NoError(t, g.Launch(dispatch.Stream(s)))
			}
			require.NoError(t, gpu.Sync(s))
			require.NoError(t, d.Check(out.download(t)), "graph replay")

			allocs := testing.AllocsPerRun(20, func() { _ = e.GEMM(&p, 0) })
			waitStream(t, 0)
			assert.Zero(t, allocs, "a planned cuBLASLt call allocates")
		})
	}
	t.Run("bias", func(t *testing.T) {
		d := gemmtest.Fill(gemmtest.Case{Name: "bias", M: 48, N: n, K: k, Bias: true}, dispatch.BF16, rng)
		p, out := operands(t, d)
		plan, err := e.Plan(&p)
		require.NoError(t, err)
		assert.Nil(t, plan.Vendor)
		assert.Contains(t, plan.Explain(), "without a bias")
		require.NoError(t, e.GEMM(&p, 0))
		waitStream(t, 0)
		require.NoError(t, d.Check(out.download(t)))
	})
	t.Run("off", func(t *testing.T) {
		off := openEngine(t, dispatch.Options{Table: tab, NoVendor: true})
		d := gemmtest.Fill(gemmtest.Case{Name: "off", M: 48, N: n, K: k}, dispatch.BF16, rng)
		p, _ := operands(t, d)
		plan, err := off.Plan(&p)
		require.NoError(t, err)
		assert.Nil(t, plan.Vendor)
		assert.Contains(t, plan.Explain(), "cuBLASLt off: Options.NoVendor is set")
	})
}

// A bucket of e4m3 per-tensor weights (into bf16 and f16) routed to the
// algorithm cuBLASLt's heuristic proposes at test time (through the
// engine's FP8 descriptor: Planner.VendorAlgorithms) runs cuBLASLt's FP8
// matmul: its plans name the algorithm, and the results match the float64
// reference within the e4m3 tolerance with the scalar scales (folded into
// alpha) and with scale pointers (beta and C too), directly, in graph
// replays, with no allocation once planned; the algorithm is refused for
// row scaling, which stays on our kernels.
func TestVendorE4M3RouteMatchesReference(t *testing.T) {
	const n, k = 768, 1024
	rng := rand.New(rand.NewPCG(223, 224))
	for _, out := range []dispatch.DType{dispatch.BF16, dispatch.F16} {
		ty := dispatch.Types{In: dispatch.E4M3, Out: out, Scaling: dispatch.ScalingTensor}
		t.Run(ty.String(), func(t *testing.T) {
			e, v := e4m3VendorEngine(t, ty, n, k)
			for _, c := range []struct {
				gemmtest.Case
				ptrs bool
			}{
				{gemmtest.Case{Name: "m33", M: 33, N: n, K: k}, false},
				{gemmtest.Case{Name: "m48-ptrs", M: 48, N: n, K: k}, true},
				{gemmtest.Case{Name: "m64", M: 64, N: n, K: k}, false},
				{gemmtest.Case{Name: "m64-ptrs", M: 64, N: n, K: k}, true},
				{gemmtest.Case{Name: "m40-beta", M: 40, N: n, K: k, Beta: 0.5}, false},
				{gemmtest.Case{Name: "m40-beta-ptrs", M: 40, N: n, K: k, Beta: 0.5}, true},
			} {
				t.Run(c.Name, func(t *testing.T) {
					d := gemmtest.FillTypes(c.Case, gemmtest.Types{Types: ty, ScalePtrs: c.ptrs}, rng, 0)
					p, outBuf := operands(t, d)
					require.Equal(t, c.ptrs, p.ScaleAPtr != 0)
					plan, err := e.Plan(&p)
					require.NoError(t, err)
					require.NotNil(t, plan.Vendor, "not routed to cuBLASLt:\n%s", plan.Explain())
					assert.Equal(t, v, *plan.Vendor)
					assert.Contains(t, plan.Explain(), "e4m3: cuBLASLt's FP8 matmul, fast accumulation off")
					require.NoError(t, e.GEMM(&p, 0))
					waitStream(t, 0)
					require.NoError(t, d.Check(outBuf.download(t)), "direct call")

					s := reservedStream(t, e, 32<<20)
					g, err := e.Capture(dispatch.Stream(s), func() error { return e.GEMM(&p, dispatch.Stream(s)) })
					require.NoError(t, err)
					defer g.Close()
					got := runOn(t, outBuf, s, "graph replay", func() error { return g.Launch(dispatch.Stream(s)) })
					require.NoError(t, d.Check(got), "graph replay")

					allocs := testing.AllocsPerRun(20, func() { _ = e.GEMM(&p, 0) })
					waitStream(t, 0)
					assert.Zero(t, allocs, "a planned cuBLASLt FP8 call allocates")
				})
			}
			t.Run("row scaling", func(t *testing.T) {
				row := ty
				row.Scaling = dispatch.ScalingRow
				p := dispatch.PlaceholderProblem(48, n, k, row)
				_, err := e.Planner().PlanVendor(&p, v)
				require.ErrorIs(t, err, dispatch.ErrNoKernel)
				assert.ErrorContains(t, err, "row scaling stays on our kernels")
			})
		})
	}
}

// A graph captured with an e4m3 problem routed to cuBLASLt reads its
// per-tensor scales through the pointers at each replay: after new values
// are copied into the scale buffers, the next replay (not captured again)
// matches the reference of the new scales (1.5 times the old product), and
// the one before it the old.
func TestVendorE4M3GraphReadsNewScales(t *testing.T) {
	const n, k = 768, 1024
	ty := dispatch.Types{In: dispatch.E4M3, Out: dispatch.BF16, Scaling: dispatch.ScalingTensor}
	e, _ := e4m3VendorEngine(t, ty, n, k)
	rng := rand.New(rand.NewPCG(225, 226))
	d := gemmtest.FillTypes(gemmtest.Case{Name: "m48", M: 48, N: n, K: k}, gemmtest.Types{Types: ty, ScalePtrs: true}, rng, 0)
	p, out := operands(t, d)
	plan, err := e.Plan(&p)
	require.NoError(t, err)
	require.NotNil(t, plan.Vendor, "not routed to cuBLASLt:\n%s", plan.Explain())

	s := reservedStream(t, e, 32<<20)
	g, err := e.Capture(dispatch.Stream(s), func() error { return e.GEMM(&p, dispatch.Stream(s)) })
	require.NoError(t, err)
	defer g.Close()
	replay := func() error { return g.Launch(dispatch.Stream(s)) }
	require.NoError(t, d.Check(runOn(t, out, s, "replay, the drawn scales", replay)))

	sa, sb := 3*d.ScaleA[0], 0.5*d.ScaleB[0]
	nd := rescaled(t, d, sa, sb)
	for _, c := range []struct {
		dst dispatch.DevicePtr
		v   float32
	}{{p.ScaleAPtr, sa}, {p.ScaleBPtr, sb}} {
		b, err := gpu.UploadFloats([]float32{c.v})
		src := bufOf(t, b, err)
		require.NoError(t, gpu.CopyDevice(uintptr(c.dst), src.b.Base, 4))
	}
	got := runOn(t, out, s, "replay, the new scales", replay)
	require.NoError(t, nd.Check(got), "the replay after the scales changed")
	assert.Error(t, d.Check(got), "the old scales' reference must not match the new scales' output")
}

// e4m3VendorEngine opens an engine whose table routes every bucket of an
// exact entry of types ty for (n, k) to the first algorithm cuBLASLt's
// heuristic proposes for ty at M = 64 (asked through an engine's planner,
// with its FP8 descriptor), and returns it with the algorithm; it skips
// the test where cuBLASLt is absent or the GPU has no e4m3 (before sm_89).
func e4m3VendorEngine(t *testing.T, ty dispatch.Types, n, k int) (*dispatch.Engine, dispatch.Vendor) {
	t.Helper()
	base := openEngine(t, dispatch.Options{})
	if lib := base.Planner().VendorLibrary(); lib.Version == 0 {
		t.Skipf("no cuBLASLt on this machine, nothing to route to: %s", lib.Absent)
	}
	if base.Device().Arch < dispatch.SM89 {
		t.Skipf("%s has no e4m3", base.Device().Arch)
	}
	p := dispatch.PlaceholderProblem(64, n, k, ty)
	vs, err := base.Planner().VendorAlgorithms(&p, 8)
	require.NoError(t, err)
	require.NotEmpty(t, vs, "cuBLASLt proposes no algorithm for %s M=64 N=%d K=%d", ty, n, k)
	t.Logf("%s: %d algorithms proposed, the first %s", ty, len(vs), vs[0])
	e := openEngine(t, dispatch.Options{Table: vendorTable(base.Device().Arch, ty, n, k, vs[0])})
	t.Logf("the engine's table: %s", e.Planner().KernelMatch())
	return e, vs[0]
}

// rescaled is d (an e4m3 problem with scale pointers, beta 0, no bias)
// with the per-tensor scales sa and sb: its reference and magnitudes are
// linear in sa·sb.
func rescaled(t *testing.T, d *gemmtest.Data, sa, sb float32) *gemmtest.Data {
	t.Helper()
	require.True(t, d.P.Beta == 0 && d.Bias == nil && len(d.ScaleA) == 1 && len(d.ScaleB) == 1, "rescaled needs beta 0, no bias, per-tensor scale pointers")
	f := float64(sa) * float64(sb) / (float64(d.ScaleA[0]) * float64(d.ScaleB[0]))
	nd := *d
	nd.ScaleA, nd.ScaleB = []float32{sa}, []float32{sb}
	nd.Ref, nd.Mag = make([]float64, len(d.Ref)), make([]float64, len(d.Mag))
	for i := range d.Ref {
		nd.Ref[i], nd.Mag[i] = d.Ref[i]*f, d.Mag[i]*f
	}
	return &nd
}
