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

// vendorTable is a table with one exact bf16 entry for (n, k) on arch
// whose every bucket routes to cuBLASLt's algo of version v.
func vendorTable(arch dispatch.Arch, n, k int, algo cublaslt.Algo, v cublaslt.Version) *dispatch.Table {
	buckets := dispatch.GeometricBuckets(4096)
	for i := range buckets {
		buckets[i].SplitK = 1
		buckets[i].Vendor = &dispatch.Vendor{Algo: base64.StdEncoding.EncodeToString(algo[:]), Version: int(v)}
	}
	return &dispatch.Table{Schema: dispatch.TableSchema, Provenance: dispatch.Provenance{Source: "measured", Arch: arch.String()},
		Entries: []dispatch.Entry{{Arch: arch, Types: dispatch.Types{In: dispatch.BF16, Out: dispatch.BF16}, Layout: "tn", N: n, K: k,
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
	tab := vendorTable(base.Device().Arch, n, k, algo, version)
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
