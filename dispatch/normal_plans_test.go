package dispatch

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNormalPlansUnchanged plans both ends of every bucket of the committed
// table (a default entry at N = K = 4096) on its arch's device and compares
// kernel, split-K and level with testdata/normal_plans.txt, written by this
// test before the batch-invariant mode existed: the normal mode's plans do
// not move. Never rewrite it wholesale from the test's output; a retuned
// entry replaces its own lines only (2026-12-02: N = 769, K = 5125; Llama-3-8B
// qkv and o at M = 17…128, whose o lines the default entry's N = K = 4096 plans
// reach too; 2026-12-02, third session: every sm_90 bf16 entry's buckets
// 17…512, tuned over the corpus with the mid-M tiles; and the new e4m3→bf16/row
// entries' lines, added; fourth session: the corpus's sm_90 bf16 buckets
// 65…256 and 513…4096 with the TMA-store and interleaved split-K kernels
// admitted, and N = 769, K = 5125 again; 2026-12-04: the corpus's sm_90 bf16
// buckets 129…1024 with the TMA-store mid-M and stream-K tiles admitted, and
// the new e4m3→bf16/block128 entries' lines, added; 2026-12-04, seventh
// session: the corpus's sm_90 bf16 buckets 17…256 with the swap TMA-store
// tiles admitted, and the new e4m3→f16 entries' lines, added; eighth
// session: the e4m3→bf16 per-tensor entries' buckets 513…8192 with the e4m3
// TMA-store kernels admitted, and the corpus's sm_90 bf16 buckets 1025…2048;
// then the corpus's sm_90 bf16 buckets 33…256 with the shifted-tail tiles
// admitted, the default entry's 33…64 kept; 2026-12-07: every measured
// sm_90 entry, re-measured on an H100 after the N-tail epilogue fix, route
// or runner-up kept by that card's timing, and the bf16 entries' new
// [4097, 8192] and [8193, ∞) buckets; then, tuned on an H100, N = 769's
// buckets 513…2048 and the corpus's sm_90 bf16 buckets 2049…4096, then
// 257…2048; then the sm_90 f16 entries' buckets 1…16, measured on the H200
// on 2026-12-05; twenty-seventh session: the buckets routing to or recording
// ws_wgmma_sk_sh_ts re-measured after its walk's fix, docs/perf/2026-12-07-h200-i;
// twenty-eighth session: Llama-3-8B gate_up's and down's sm_90 bf16 buckets
// 1025…2048, and the bf16 buckets 129…256 of N = K = 4096 (the default's
// N = K = 4096 plans reach them too), 4096x14336 and 3584x4096,
// docs/perf/2026-12-08-h100; thirtieth session: the sm_90 f16 entries'
// buckets 257…∞, the model's choices again among the kernels its
// heuristic may pick, docs/perf/2026-12-08-c).
func TestNormalPlansUnchanged(t *testing.T) {
	cat, err := DefaultCatalog()
	require.NoError(t, err)
	table, err := DefaultTable()
	require.NoError(t, err)
	devs := map[Arch]DeviceInfo{SM80: A100, SM90: H200}
	var b strings.Builder
	for _, e := range table.Entries {
		pl := NewPlanner(cat, table, devs[e.Arch], Limits{})
		n, k := e.N, e.K
		if n == 0 {
			n, k = 4096, 4096
		}
		for _, bk := range e.Buckets {
			for _, m := range []int{bk.MinM, max(bk.MaxM, 2*bk.MinM)} {
				p := PlaceholderProblem(m, n, k, e.Types)
				plan, err := pl.Plan(&p)
				require.NoError(t, err, "%s M=%d", e.Key(), m)
				fmt.Fprintf(&b, "%s M=%d: %s split-K %d, %s\n", e.Key(), m, plan.KernelName(), plan.SplitK, plan.Level)
			}
		}
	}
	want, err := os.ReadFile("testdata/normal_plans.txt")
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}
