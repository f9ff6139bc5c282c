package dispatch

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gemmroute/gemmroute/kernels"
)

// evenPiece is one segment of ws_stream_k_even's walk (kernels/src/
// ws_streamk.cuh): a tile id, its k-tiles [k0, k1) and its role.
type evenPiece struct {
	tile, k0, k1 int64
	role         string // "whole", "part", "fix"
}

// evenWalk is block b's walk under ws_stream_k_even for tiles tiles of kt
// k-tiles on a grid of g blocks, written as the kernel's constructor and
// segment() compute it.
func evenWalk(tiles, kt int64, g, b int) []evenPiece {
	full := tiles / int64(g) * int64(g)
	rest, ndp := tiles-full, full/int64(g)
	u := rest * kt
	q := (u + int64(g) - 1) / int64(g)
	lo := min(u, int64(b)*q)
	hi := min(u, lo+q)
	n, i0, i1, part := ndp, int64(0), int64(0), false
	if lo < hi {
		i0, i1, part = lo/kt, (hi-1)/kt, hi%kt != 0
		n += i1 - i0 + 1
	}
	var out []evenPiece
	for t := int64(0); t < n; t++ {
		i := i1
		if !part || t > 0 {
			s := t
			if part {
				s--
			}
			if s < ndp {
				out = append(out, evenPiece{int64(b) + s*int64(g), 0, kt, "whole"})
				continue
			}
			i = i0 + (s - ndp)
		}
		k0, k1 := max(lo, i*kt)-i*kt, min(hi, (i+1)*kt)-i*kt
		role := "whole"
		if k1 < kt {
			role = "part"
		} else if k0 > 0 {
			role = "fix"
		}
		out = append(out, evenPiece{full + i, k0, k1, role})
	}
	return out
}

// The even stream-K walk covers every k-tile of every tile once; a block
// has at most one partial and walks it first; a tile's finisher holds its
// last k-tiles and adds exactly the partials of blocks ⌊i·KT/Q⌋ … b − 1
// (lower blocks, whose first segment that partial is: no chain of waits);
// every partial's block index lies within the workspace the planner
// reserves; and no block's tail range is longer than ws_stream_k's part.
func TestStreamKEvenWalk(t *testing.T) {
	k := &kernels.KernelSpec{TileM: 128, TileN: 192, TileK: 64, Threads: 384, Reduction: kernels.ReduceStreamKEven}
	old := *k
	old.Reduction = kernels.ReduceStreamK
	for _, c := range [][3]int{{384, 5120, 4096}, {384, 3072, 8192}, {1024, 4096, 1024}, {1, 64, 64}, {257, 769, 5125},
		{725, 6144, 4096}, {4096, 14336, 4096}, {200, 192, 128}, {129, 4096, 192}, {1449, 5120, 13824}} {
		for _, sms := range []int{132, 114, 7, 1} {
			p := Problem{M: c[0], N: c[1], K: c[2]}
			name := fmt.Sprintf("M=%d N=%d K=%d on %d SMs", c[0], c[1], c[2], sms)
			g := streamKGrid(k, &p, sms)
			tiles, kt := tileCount(k, &p), int64(ceilDiv(p.K, k.TileK))
			full, _, _, _, q := streamKSplit(k, &p, g)
			slots := streamKWorkspace(k, &p, sms) / int64(k.TileM*k.TileN*4)
			covered := map[[2]int64]int{}
			partOf := map[int64][]int{} // tile → blocks holding a partial of it
			fixOf := map[int64]int{}
			for b := range g {
				walk := evenWalk(tiles, kt, g, b)
				parts := 0
				for i, s := range walk {
					require.Less(t, s.k0, s.k1, name)
					for kk := s.k0; kk < s.k1; kk++ {
						covered[[2]int64{s.tile, kk}]++
					}
					switch s.role {
					case "part":
						parts++
						require.Zero(t, i, "%s: block %d walks its partial first", name, b)
						require.Less(t, int64(b), slots, "%s: block %d's partial within the workspace", name, b)
						partOf[s.tile] = append(partOf[s.tile], b)
					case "fix":
						require.Equal(t, kt, s.k1, name)
						require.NotContains(t, fixOf, s.tile, name)
						fixOf[s.tile] = b
					}
					if s.tile >= full {
						require.LessOrEqual(t, s.k1-s.k0, q, name)
					}
				}
				require.LessOrEqual(t, parts, 1, "%s: block %d", name, b)
			}
			require.Len(t, covered, int(tiles*kt), name)
			for u, n := range covered {
				require.Equal(t, 1, n, "%s: tile %d k-tile %d", name, u[0], u[1])
			}
			for tile, bs := range partOf {
				b, ok := fixOf[tile]
				require.True(t, ok, "%s: tile %d has partials and a finisher", name, tile)
				x0 := int((tile - full) * kt / q)
				want := make([]int, 0, b-x0)
				for x := x0; x < b; x++ {
					want = append(want, x)
				}
				require.Equal(t, want, bs, "%s: tile %d's finisher %d adds blocks %d…%d", name, tile, b, x0, b-1)
			}
			require.Len(t, fixOf, len(partOf), name)
			_, _, _, _, qOld := streamKSplit(&old, &p, g)
			require.LessOrEqual(t, q, qOld, "%s: the longest tail range against ws_stream_k's part", name)
		}
	}
}
