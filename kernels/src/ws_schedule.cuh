// ws_schedule.cuh — the warp-specialized kernels' tile scheduler: which
// tiles a block (or a cluster of MC blocks) computes and, for each, its M
// tile, N tile, split and k-tiles. Tiles are numbered in grouped order
// (ws_tile); block b of a grid of G blocks walks tiles b, b + G, …, so the
// dispatch grid (one block a tile) and a persistent grid (one block per SM
// at most) run the same code.
#pragma once
#include <stdint.h>
#include "block_tile.cuh"
#include "gemm_params.h"

namespace gr {

// ws_tile maps tile id t to its (M tile, N tile, split) as raster does for
// block ids: consecutive ids sweep RASTER_GROUP M tiles per N tile, so the
// blocks resident at one time share each weight tile across RASTER_GROUP M
// tiles (L2 reuse). A bijection of [0, mt·nt·splits); the last group may
// hold fewer M tiles.
__device__ __forceinline__ void ws_tile(uint32_t t, uint32_t mt, uint32_t nt, int64_t &tm, int64_t &tn, int &z) {
  z = (int)(t / (mt * nt));
  t -= (uint32_t)z * mt * nt;
  const uint32_t first = t / (RASTER_GROUP * nt) * RASTER_GROUP, within = t % (RASTER_GROUP * nt);
  const uint32_t rows = min((uint32_t)RASTER_GROUP, mt - first);
  tm = first + within % rows;
  tn = within / rows;
}

// ws_k_tiles is split z's K range [kb, kb + BK·tiles) of `splits` splits of
// kps elements each (kps a multiple of BK), clipped to K (the clipped part
// of the last k-tile arrives zero-filled).
template <int BK>
__device__ __forceinline__ int ws_k_tiles(int64_t k, int splits, int64_t kps, int z, int64_t &kb) {
  if (splits <= 1) {
    kb = 0;
    return (int)((k + BK - 1) / BK);
  }
  kb = (int64_t)z * kps;
  const int64_t ke = min(k, kb + kps);
  return ke > kb ? (int)((ke - kb + BK - 1) / BK) : 0;
}

// ws_schedule_axis is a block's walk over the tiles of BM x BN (x split)
// for k-tiles of BK. With MC > 1 the MC blocks of a cluster (consecutive
// along x) take MC consecutive tiles together, and a tile id names such a
// group: along M (ALONG_N false: MC M tiles of one N tile, which share B)
// or along N (ALONG_N true: MC N tiles of one M tile, which share A;
// share_a tells the producer which operand it multicasts). The last group's
// tiles may lie past M or N (loaded as zeros, never stored).
template <int BM, int BN, int BK, int MC, bool ALONG_N> struct ws_schedule_axis {
  static constexpr bool share_a = ALONG_N && MC > 1;
  int64_t mt, nt, mtc;   // M tiles, N tiles, groups of MC tiles along the cluster's axis
  int64_t tiles;         // tile ids: groups × the other axis's tiles × splits
  int64_t blocks, first; // this grid's walkers (blocks or clusters) and this one's first tile id
  int64_t kps;           // K per split
  int splits, crank;     // split-K factor; this block's tile in its cluster's group
  __device__ __forceinline__ explicit ws_schedule_axis(const gr_gemm_params &p) {
    splits = max(p.split_k, 1);
    kps = p.k_per_split;
    mt = (p.m + BM - 1) / BM, nt = (p.n + BN - 1) / BN, mtc = ((ALONG_N ? nt : mt) + MC - 1) / MC;
    tiles = mtc * (ALONG_N ? mt : nt) * splits;
    blocks = (int64_t)gridDim.x * gridDim.y * gridDim.z / MC;
    first = (blockIdx.x + (int64_t)gridDim.x * (blockIdx.y + (int64_t)gridDim.y * blockIdx.z)) / MC;
    crank = MC > 1 ? (int)(blockIdx.x % MC) : 0;
  }
  // work returns the k-tiles of tile t, from K offset kb, and its M tile,
  // N tile and split: what the producer loads and the consumers multiply.
  __device__ __forceinline__ int work(const gr_gemm_params &p, int64_t t, int64_t &tm, int64_t &tn, int &z, int64_t &kb) const {
    if constexpr (ALONG_N) {
      ws_tile((uint32_t)t, (uint32_t)mt, (uint32_t)mtc, tm, tn, z);
      tn = tn * MC + crank;
    } else {
      ws_tile((uint32_t)t, (uint32_t)mtc, (uint32_t)nt, tm, tn, z);
      tm = tm * MC + crank;
    }
    return ws_k_tiles<BK>(p.k, splits, kps, z, kb);
  }
  // token0 is the first token row of M tile tm: tm·BM (the last tile's rows
  // past M arrive as zeros and are never stored).
  __device__ __forceinline__ static int64_t token0(const gr_gemm_params &, int64_t tm) { return tm * BM; }
  // kstep is the K distance between consecutive k-tiles: k-tile kt of a
  // work item starts at kb + kt·BK (a compile-time constant).
  __device__ __forceinline__ static constexpr int kstep() { return BK; }
  // fixup: every tile is whole (split-K partials go out by the epilogue).
  template <int COLS, int CONSUMERS>
  __device__ __forceinline__ bool fixup(const gr_gemm_params &, int64_t, float (&)[COLS / 2], int, int) const {
    return true;
  }
  template <int COLS, int CONSUMERS, int MW, int NA>
  __device__ __forceinline__ bool fixup_blocks(const gr_gemm_params &, int64_t, float (&)[MW][NA][COLS / 2], int, int) const {
    return true;
  }
};

// ws_schedule_il is ws_schedule (no clusters) with interleaved split-K:
// the same tiles, grids and workspace partials, but split z of S takes
// k-tiles z, z + S, z + 2S, … of the tile's T = ceil(K/BK) k-tiles,
// ceil((T − z)/S) of them (none if z ≥ T), from kb = z·BK in steps of
// kstep() = S·BK; the last one's K tail arrives zero-filled. So the S blocks
// of one tile read adjacent 128-byte pieces of the same weight rows at about
// the same time, not S distant K ranges. k_per_split is not read (the
// planner's value, a multiple of BK, stays valid and unused); with S = 1
// the walk is ws_schedule's.
template <int BM, int BN, int BK, int MC> struct ws_schedule_il : ws_schedule_axis<BM, BN, BK, MC, false> {
  static_assert(MC == 1, "interleaved split-K: no clusters");
  using base = ws_schedule_axis<BM, BN, BK, MC, false>;
  __device__ __forceinline__ explicit ws_schedule_il(const gr_gemm_params &p) : base(p) {}
  __device__ __forceinline__ int kstep() const { return this->splits * BK; }
  __device__ __forceinline__ int work(const gr_gemm_params &p, int64_t t, int64_t &tm, int64_t &tn, int &z, int64_t &kb) const {
    ws_tile((uint32_t)t, (uint32_t)this->mt, (uint32_t)this->nt, tm, tn, z);
    const int64_t kt = (p.k + BK - 1) / BK;
    kb = (int64_t)z * BK;
    return z < kt ? (int)((kt - z + this->splits - 1) / this->splits) : 0;
  }
};

// ws_schedule_shift is ws_schedule (no clusters) whose last M tile, where
// it would reach past M (and M ≥ BM), starts at M − BM instead: it loads no
// row past M and recomputes rows of the tile before it, storing the same
// values there again (the same rows, weights and K order). Why: the tiles
// whose last token tile lies partly past M run slower the more rows lie past
// it, on the same grid — ts 64x96 at o (4096 × 4096): 13.5 µs at M = 64,
// 18.1 at 65 (63 rows past M), 14.3 at 91 (37); 21.7 at 129 against 13.6 at
// 182 (docs/perf/2026-12-04-h200-c, call 0) — and loading those rows in
// 16-row boxes instead (the eighth session's ws_schedule_mtail) was slower
// everywhere (24.5 µs at M = 64…182).
// (ws_stream_k_shift, ws_streamk.cuh, is the stream-K walk with the same
// shift.)
template <int BM> __device__ __forceinline__ int64_t shifted_token0(const gr_gemm_params &p, int64_t tm) {
  const int64_t r = tm * BM;
  return r + BM > p.m && p.m >= BM ? p.m - BM : r;
}
template <int BM, int BN, int BK, int MC> struct ws_schedule_shift : ws_schedule_axis<BM, BN, BK, MC, false> {
  static_assert(MC == 1, "no clusters");
  __device__ __forceinline__ explicit ws_schedule_shift(const gr_gemm_params &p) : ws_schedule_axis<BM, BN, BK, MC, false>(p) {}
  __device__ __forceinline__ static int64_t token0(const gr_gemm_params &p, int64_t tm) { return shifted_token0<BM>(p, tm); }
};

// ws_schedule: clusters (if any) along M, sharing B; ws_schedule_n: along
// N, sharing A (the tokens, at mid M: cuBLAS's 1×2 clusters).
template <int BM, int BN, int BK, int MC> using ws_schedule = ws_schedule_axis<BM, BN, BK, MC, false>;
template <int BM, int BN, int BK, int MC> using ws_schedule_n = ws_schedule_axis<BM, BN, BK, MC, true>;

}  // namespace gr
