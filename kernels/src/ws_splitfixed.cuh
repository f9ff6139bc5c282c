// ws_splitfixed.cuh — the persistent ws_wgmma kernels' fixed split-K
// scheduler (the manifest's reduction "split_fixed"): every tile is split
// along K into the plan's S = p.tail_parts parts of kps = ⌈⌈K/S⌉/BK⌉·BK
// elements — the K ranges of the workspace split-K S (dispatch's geometry,
// ws_k_tiles), from K and S alone, whatever M is; p.split_k stays 1, so
// the epilogue writes D — and the parts are summed in the kernel in
// splitk_reduce's order, 0 + part 0 + part 1 + … + part S − 1. So a row of
// D comes out with the same bits as the workspace split-K's (kernel plus
// reduce launch) at any M, with workspace bounded by the grid, not by
// M·N·S: the batch-invariant mode's split at any batch size (dispatch: a
// reduction class at a fixed split). S = 1 is ws_schedule's walk of whole
// tiles.
//
// Two walks, by whether the T tiles are fewer than the G blocks (the
// launch, dispatch's splitFixedGrid, makes G = min(SMs, T·S), or T where
// the first walk's slots would not fit the workspace):
//
// - across (T < G, and 3·T ≤ GR_STREAMK_FLAGS): the T·S parts are units
//   u = j·T + i (part j of tile i), block b taking u = b, b + G, …; a unit
//   stores its fp32 accumulator to slot u, then counts its arrival on tile
//   i's counter (flag word i·CONSUMERS + c); the unit that brings the
//   count to S sums the slots in part order (its own too: it re-reads what
//   it stored), resets the counter (zero between launches) and writes D. No block
//   waits for another, so any number of such kernels on any streams,
//   resident in part or not, finish. T·S slots.
// - along (T ≥ G): block b takes tiles b, b + G, … whole, walking each
//   tile's parts in order as segments; after part j < S − 1 it keeps the
//   running sum 0 + part 0 + … + part j in its own slot b (each thread its
//   own elements: no barrier, no flag), and part S − 1 adds it to its
//   accumulator and writes D. No block depends on another. G slots.
//
// A slot: CONSUMERS × MW × 64 × COLS fp32, laid out as ws_stream_k's
// (consumer c's thread tid at float4 (w·V + v)·128 + tid).
#pragma once
#include <stdint.h>
#include "gemm_params.h"
#include "ws_schedule.cuh"
#include "ws_streamk.cuh"

namespace gr {

// ws_bar_any is a barrier among consumer warpgroup c's 128 threads (named
// barrier 1 + c, as ws_bar_sync) that returns whether v held for any.
__device__ __forceinline__ bool ws_bar_any(int c, bool v) {
  uint32_t r;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, 128, p;\n selp.u32 %0, 1, 0, q;\n}\n"
      : "=r"(r)
      : "r"((uint32_t)v), "r"(1 + c)
      : "memory");
  return r != 0;
}

template <int BM, int BN, int BK, int MC> struct ws_split_fixed {
  static_assert(MC == 1, "fixed-split blocks walk alone (no clusters)");
  static constexpr bool share_a = false;
  int64_t mt, nt, all, kps;     // M tiles, N tiles, T, K per part
  int64_t tiles, blocks, first; // this block's segments, walked 0, 1, …
  int g, b, parts, crank;       // G, this block, S; no clusters
  bool across;
  __device__ __forceinline__ explicit ws_split_fixed(const gr_gemm_params &p) {
    mt = (p.m + BM - 1) / BM, nt = (p.n + BN - 1) / BN, all = mt * nt;
    g = (int)gridDim.x, b = (int)blockIdx.x, crank = 0;
    parts = max(p.tail_parts, 1);
    kps = max((int64_t)BK, ((p.k + parts - 1) / parts + BK - 1) / BK * BK);
    parts = (int)((p.k + kps - 1) / kps);  // none empty, as dispatch rounds the split
    across = all < g && all * 3 <= GR_STREAMK_FLAGS;  // counters: three consumers at most
    const int64_t units = across ? all * parts : all;
    tiles = b < units ? (units - b + g - 1) / g : 0;
    if (!across) tiles *= parts;
    blocks = 1, first = 0;
  }
  // unit is segment t's tile and part: across, u = b + t·G; along, tile
  // b + ⌊t/S⌋·G, part t mod S.
  __device__ __forceinline__ void unit(int64_t t, int64_t &tile, int &j) const {
    if (across) {
      const int64_t u = b + t * g;
      tile = u % all, j = (int)(u / all);
    } else {
      tile = t / parts * g + b, j = (int)(t % parts);
    }
  }
  __device__ __forceinline__ int work(const gr_gemm_params &p, int64_t t, int64_t &tm, int64_t &tn, int &z, int64_t &kb) const {
    int64_t tile;
    int j;
    unit(t, tile, j);
    ws_tile((uint32_t)tile, (uint32_t)mt, (uint32_t)nt, tm, tn, z);
    return ws_k_tiles<BK>(p.k, parts, kps, j, kb);
  }
  __device__ __forceinline__ static constexpr int kstep() { return BK; }
  __device__ __forceinline__ static int64_t token0(const gr_gemm_params &, int64_t tm) { return tm * BM; }
  template <int COLS, int CONSUMERS>
  __device__ __forceinline__ bool fixup(const gr_gemm_params &p, int64_t t, float (&d)[COLS / 2], int c, int tid) const {
    return fixup_blocks<COLS, CONSUMERS>(p, t, reinterpret_cast<float(&)[1][1][COLS / 2]>(d), c, tid);
  }
  // fixup_blocks: segment t's MW 64-row blocks (acc[w][0]) of consumer c,
  // thread tid; true where the tile is summed and D is to be written.
  template <int COLS, int CONSUMERS, int MW, int NA>
  __device__ __forceinline__ bool fixup_blocks(const gr_gemm_params &p, int64_t t, float (&acc)[MW][NA][COLS / 2], int c,
                                               int tid) const {
    static_assert(COLS % 8 == 0, "whole float4s of registers");
    constexpr int V = COLS / 8;
    if (parts == 1) return true;
    int64_t i;
    int q;
    unit(t, i, q);
    float4 *ws = reinterpret_cast<float4 *>(p.workspace);
    float4 *slot = ws + ((across ? q * all + i : b) * CONSUMERS + c) * MW * V * 128 + tid;
    if (!across) {  // the running sum in this block's slot, this thread's elements only
      if (q < parts - 1) {
#pragma unroll
        for (int w = 0; w < MW; ++w)
#pragma unroll
          for (int v = 0; v < V; ++v) {
            const float *d = acc[w][0];
            float4 s = q == 0 ? make_float4(0.f, 0.f, 0.f, 0.f) : __ldcg(slot + (w * V + v) * 128);
            s.x += d[4 * v], s.y += d[4 * v + 1], s.z += d[4 * v + 2], s.w += d[4 * v + 3];
            __stcg(slot + (w * V + v) * 128, s);
          }
        return false;
      }
      ws_slot_add<V>(acc, slot);  // the last part: its accumulator + the running sum
      return true;
    }
    ws_slot_store<V>(slot, acc);
    __threadfence();  // this thread's partial is visible before the arrival that counts it
    ws_bar_sync(c);
    uint32_t *count = p.flags + i * CONSUMERS + c;
    if (!ws_bar_any(c, tid == 0 && atomicAdd(count, 1u) == (uint32_t)parts - 1)) return false;
    __threadfence();  // the last arrival: every part's partial is visible (its own, this thread's, too)
    // D = 0 + part 0 + … + part S − 1 from the slots, the parts outermost so
    // that each part's loads issue together
    const float4 *part = ws + ((int64_t)i * CONSUMERS + c) * MW * V * 128 + tid;  // part 0's slot, unit i
    const int64_t step = all * CONSUMERS * MW * V * 128;                         // part x's: x·T units on
#pragma unroll
    for (int w = 0; w < MW; ++w)
#pragma unroll
      for (int v = 0; v < V; ++v) {
        float *d = acc[w][0];
        const float4 u = __ldcg(part + (w * V + v) * 128);
        d[4 * v] = 0.f + u.x, d[4 * v + 1] = 0.f + u.y, d[4 * v + 2] = 0.f + u.z, d[4 * v + 3] = 0.f + u.w;
      }
#pragma unroll 1
    for (int x = 1; x < parts; ++x) ws_slot_add<V>(acc, part + x * step);
    if (tid == 0) *count = 0u;  // every part has arrived: no other block touches it in this launch
    return true;
  }
};

}  // namespace gr
