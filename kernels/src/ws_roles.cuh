// ws_roles.cuh — two of ws_wgmma's variant policies, as types: which
// operand sits on wgmma's 64-row side (ROLE: ws_ab, ws_swap_ab) and how the
// consumer warpgroups share the block's tiles (CONS: ws_cooperative,
// ws_pingpong). The kernel and its pieces (producer, accumulate policy,
// epilogue) read their members at compile time; a family's descriptor
// (kernels/internal/gen) names the types.
#pragma once

namespace gr {

// ws_ab (large M): A's rows, the tokens, on wgmma's 64-row side (BM of
// them, one consumer per 64, or two of 128 for BM = 256) and the BN weight
// rows on its N.
struct ws_ab {
  static constexpr bool swap = false;
  __host__ __device__ static constexpr int rows(int bm, int) { return bm; }  // the tile's extent on wgmma's 64-row side
  __host__ __device__ static constexpr int cols(int, int bn) { return bn; }  // on its N
};

// ws_swap_ab (skinny M, weight streaming): the BN weight rows on wgmma's
// 64-row side and the BM tokens on its N (16…256), so no tensor-core row is
// spent on absent tokens; the weight loads evict first (read once) and the
// epilogue transposes.
struct ws_swap_ab {
  static constexpr bool swap = true;
  __host__ __device__ static constexpr int rows(int, int bn) { return bn; }
  __host__ __device__ static constexpr int cols(int bm, int) { return bm; }
};

// ws_cooperative: the consumers share each tile, consumer c its 64 rows
// 64c… (BM = 256: its 128 rows 128c…); a stage is empty once every consumer
// has released it.
struct ws_cooperative {
  static constexpr bool pingpong = false;
  __host__ __device__ static constexpr int arrivals(int consumers) { return consumers; }  // on a stage's empty barrier, per block
};

// ws_pingpong (two consumers, BM = 128, no swap; persistent grids): each
// consumer takes whole tiles, alternately, so one's epilogue overlaps the
// other's main loop; a stage is empty once the consumer whose tile it holds
// has released it, and a turn barrier per consumer keeps the two within one
// round of the ring (ws_wgmma's tile loop).
struct ws_pingpong {
  static constexpr bool pingpong = true;
  __host__ __device__ static constexpr int arrivals(int) { return 1; }
};

}  // namespace gr
