// ws_splitfixed.cuh — the persistent ws_wgmma kernels' fixed split-K
// scheduler (the manifest's reduction "split_fixed"): every tile is split
// along K into the plan's S = p.tail_parts parts of kps = ⌈⌈K/S⌉/BK⌉·BK
// elements — the K ranges of the workspace split-K S (dispatch's geometry,
// ws_k_tiles), from K and S alone, whatever M is; p.split_k stays 1, so
// the epilogue writes D — and the parts are summed in the
// kernel in splitk_reduce's order, 0 + part 0 + part 1 + … + part S − 1.
// So a row of D comes out with the same bits as the workspace split-K's
// (kernel plus reduce launch) at any M, with workspace bounded by the grid,
// not by M·N·S: the batch-invariant mode's split at any batch size
// (dispatch: a reduction class at a fixed split). S = 1 is ws_schedule's
// walk of whole tiles.
//
// Walk: the grid of G blocks (at most one per SM, all resident at once)
// takes the T tiles in waves of W = ⌊G/S⌋ tiles; block b < W·S takes part
// j = ⌊b/W⌋ of tile w·W + b mod W in wave w = 0, 1, …; blocks W·S … G − 1
// idle. Parts 0…S−2 leave their fp32 accumulator in the block's slot of the
// workspace and set its flag; part S − 1 (the finisher) waits for the S − 1
// flags of its tile, sums the slots and its own accumulator in part order,
// then clears the flags. A block writes its slot again one wave later only
// once its flag is clear (the finisher of the wave before has read it), so
// the workspace is W·S slots at any M; and since a finisher waits only for
// its own wave's parts, which wait only for the wave before's finishers,
// no block waits in a cycle — provided all G blocks are resident at once.
// Slot b: CONSUMERS × MW × 64 × COLS fp32, laid out as ws_stream_k's; flag
// b·CONSUMERS + c (zero between launches).
// HAZARD (found before the first GPU run; not to be routed until fixed): a
// part waits for a finisher of a higher block index, which may not have
// started — two such kernels on two streams, each resident in part, can
// wait on each other for ever, and so can one on fewer SMs than G (MPS).
// ws_stream_k avoids it (a finisher waits only for lower indices, started
// no later). The fix, docs/perf/NEXT.md: the last of a tile's parts to
// arrive (an arrival counter) sums them in part order, its own from
// registers, so a reducer never waits and a part waits only for a reducer
// already running.
#pragma once
#include <stdint.h>
#include "gemm_params.h"
#include "ws_schedule.cuh"
#include "ws_streamk.cuh"

namespace gr {

template <int BM, int BN, int BK, int MC> struct ws_split_fixed {
  static_assert(MC == 1, "fixed-split blocks walk alone (no clusters)");
  static constexpr bool share_a = false;
  int64_t mt, nt, kps;          // M tiles, N tiles, K per part
  int64_t wt, i;                // W, tiles a wave; this block's tile of each wave
  int64_t tiles, blocks, first; // this block's segments, walked 0, 1, …
  int g, b, parts, j, crank;    // G, this block, S, this block's part; no clusters
  __device__ __forceinline__ explicit ws_split_fixed(const gr_gemm_params &p) {
    mt = (p.m + BM - 1) / BM, nt = (p.n + BN - 1) / BN;
    g = (int)gridDim.x, b = (int)blockIdx.x, crank = 0;
    parts = max(p.tail_parts, 1);
    kps = max((int64_t)BK, ((p.k + parts - 1) / parts + BK - 1) / BK * BK);
    parts = (int)((p.k + kps - 1) / kps);  // none empty, as dispatch rounds the split
    wt = max(g / parts, 1);
    i = b % wt, j = b / wt;
    const int64_t all = mt * nt;
    tiles = j < parts && i < all ? (all - i + wt - 1) / wt : 0;
    blocks = 1, first = 0;
  }
  // role is what segment t's part does with its accumulator.
  __device__ __forceinline__ int role() const { return parts == 1 ? WS_WHOLE : j < parts - 1 ? WS_PART : WS_FIX; }
  __device__ __forceinline__ int work(const gr_gemm_params &p, int64_t t, int64_t &tm, int64_t &tn, int &z, int64_t &kb) const {
    ws_tile((uint32_t)(t * wt + i), (uint32_t)mt, (uint32_t)nt, tm, tn, z);
    return ws_k_tiles<BK>(p.k, parts, kps, j, kb);
  }
  __device__ __forceinline__ static constexpr int kstep() { return BK; }
  __device__ __forceinline__ static int64_t token0(const gr_gemm_params &, int64_t tm) { return tm * BM; }
  template <int COLS, int CONSUMERS>
  __device__ __forceinline__ bool fixup(const gr_gemm_params &p, int64_t t, float (&d)[COLS / 2], int c, int tid) const {
    return fixup_blocks<COLS, CONSUMERS>(p, t, reinterpret_cast<float(&)[1][1][COLS / 2]>(d), c, tid);
  }
  // fixup_blocks: a part stores its MW 64-row blocks (acc[w][0]) to its
  // slot once the slot is free; the finisher adds the slots of the blocks
  // j·W + i (j = 0…S−2) and then its own accumulator, float4 by float4.
  template <int COLS, int CONSUMERS, int MW, int NA>
  __device__ __forceinline__ bool fixup_blocks(const gr_gemm_params &p, int64_t, float (&acc)[MW][NA][COLS / 2], int c,
                                               int tid) const {
    static_assert(COLS % 8 == 0, "whole float4s of registers");
    constexpr int V = COLS / 8;
    const int r = role();
    if (r == WS_WHOLE) return true;
    float4 *ws = reinterpret_cast<float4 *>(p.workspace);
    if (r == WS_PART) {
      uint32_t *f = p.flags + b * CONSUMERS + c;
      if (tid == 0)
        while (ld_acquire_gpu(f) != 0) __nanosleep(32);  // the wave before's finisher has read the slot
      ws_bar_sync(c);
      float4 *slot = ws + ((int64_t)b * CONSUMERS + c) * MW * V * 128 + tid;
#pragma unroll
      for (int w = 0; w < MW; ++w)
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const float *d = acc[w][0];
          __stcg(slot + (w * V + v) * 128, make_float4(d[4 * v], d[4 * v + 1], d[4 * v + 2], d[4 * v + 3]));
        }
      __threadfence();
      ws_bar_sync(c);
      if (tid == 0) st_release_gpu(f, 1u);
      return false;
    }
    if (tid == 0)
      for (int x = 0; x < parts - 1; ++x)
        while (ld_acquire_gpu(p.flags + (x * wt + i) * CONSUMERS + c) == 0) __nanosleep(32);
    ws_bar_sync(c);
#pragma unroll
    for (int w = 0; w < MW; ++w)
#pragma unroll
      for (int v = 0; v < V; ++v) {
        float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int x = 0; x < parts - 1; ++x) {
          const float4 u = __ldcg(ws + ((x * wt + i) * CONSUMERS + c) * MW * V * 128 + (w * V + v) * 128 + tid);
          s.x += u.x, s.y += u.y, s.z += u.z, s.w += u.w;
        }
        float *d = acc[w][0];
        d[4 * v] = s.x + d[4 * v], d[4 * v + 1] = s.y + d[4 * v + 1], d[4 * v + 2] = s.z + d[4 * v + 2],
              d[4 * v + 3] = s.w + d[4 * v + 3];
      }
    ws_bar_sync(c);  // every thread has read the slots: they may be written again
    if (tid == 0)
      for (int x = 0; x < parts - 1; ++x) st_release_gpu(p.flags + (x * wt + i) * CONSUMERS + c, 0u);
    return true;
  }
};

}  // namespace gr
