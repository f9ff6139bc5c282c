// ws_streamk.cuh — the stream-K tile scheduler of the persistent ws_wgmma
// kernels (the manifest's reduction "stream_k"): a grid of G blocks (at most
// one per SM) shares the tiles' k-tiles evenly, so no block idles through a
// last partial wave, and a problem of fewer tiles than SMs still streams its
// weights with every SM.
//
// T = ceil(M/BM)·ceil(N/BN) tiles in grouped order (ws_tile), KT = ceil(K/BK)
// k-tiles each. When G divides T every block takes whole tiles b, b + G, …
// Otherwise the first DP = (⌊T/G⌋ − 1)·G tiles (none when T < 2G) go so, and
// the k-tiles ("units") of the last S = T − DP tiles are cut into G
// contiguous ranges, block b's [⌊b·S·KT/G⌋, ⌊(b+1)·S·KT/G⌋); the host makes G
// ≤ S·KT, so no range is empty. A block walks its range upwards in segments,
// one per tile it touches:
//   the whole tile: D by the epilogue (WS_WHOLE);
//   from k-tile k0 > 0 (only a range's first segment starts there): a
//     partial — its fp32 accumulator goes to the block's slot of the
//     workspace, then the block's flag is set (WS_PART);
//   from k-tile 0 to before KT (only a range's last segment ends there): the
//     block finishes the tile — it waits for the flags of blocks b + 1, b + 2,
//     … whose ranges start inside the tile, adds their slots in that order
//     (the same order every run: the same bits), clears the flags and runs
//     the epilogue (WS_FIX).
// A finisher waits only on later blocks' first segments, which they compute
// first: with blocks started in index order it never waits on work queued
// behind a waiter.
// Workspace: slot b is the block's CONSUMERS × 64 × COLS fp32 accumulator,
// each thread's registers at a 128-thread stride of float4, so that a
// warpgroup's stores and loads are 2 KiB contiguous. p.flags (zero between
// launches: each finisher clears what it consumed) holds one word per block
// and consumer warpgroup, GR_STREAMK_FLAGS in all.
#pragma once
#include <stdint.h>
#include "gemm_params.h"
#include "ws_schedule.cuh"

namespace gr {

// ws_bar_sync is a barrier among the 128 threads of consumer warpgroup c
// (named barrier 1 + c; 0 is __syncthreads').
__device__ __forceinline__ void ws_bar_sync(int c) { asm volatile("bar.sync %0, 128;\n" ::"r"(1 + c) : "memory"); }

__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_gpu(uint32_t *p, uint32_t v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

template <int BM, int BN, int BK, int MC> struct ws_stream_k {
  static_assert(MC == 1, "stream-K blocks walk alone (no clusters)");
  int64_t mt, nt, kt;   // M tiles, N tiles, k-tiles per tile
  int64_t dp;           // tiles taken whole, b, b + G, … (all of them when G divides T)
  int64_t su;           // units (k-tiles) of the other tiles
  int64_t u0, u_end;    // this block's range of units
  int64_t first;        // this block's first cursor (see valid)
  int blocks, b;        // G and this block
  __device__ __forceinline__ explicit ws_stream_k(const gr_gemm_params &p) {
    mt = (p.m + BM - 1) / BM, nt = (p.n + BN - 1) / BN, kt = (p.k + BK - 1) / BK;
    blocks = (int)gridDim.x, b = (int)blockIdx.x;
    const int64_t tiles = mt * nt;
    dp = tiles % blocks == 0 ? tiles : tiles >= 2 * blocks ? (tiles / blocks - 1) * blocks : 0;
    su = (tiles - dp) * kt;
    u0 = start(b), u_end = start(b + 1);
    first = b < dp ? b : dp + u0;
  }
  // start is the first unit of block x's range (S·KT < 2G·2^25: no overflow).
  __device__ __forceinline__ int64_t start(int x) const { return (int64_t)x * su / blocks; }
  // A block walks cursors t = first, step(t), … while valid(t): a whole
  // tile's id below dp, else dp + the unit that starts a segment; item
  // gives the segment's tile, K offset, k-tiles and role.
  __device__ __forceinline__ bool valid(int64_t t) const { return t < dp || t - dp < u_end; }
  __device__ __forceinline__ int64_t step(int64_t t, const ws_item &w) const {
    if (t >= dp) return t + w.nk;
    return t + blocks < dp ? t + blocks : dp + u0;
  }
  __device__ __forceinline__ void item(const gr_gemm_params &, int64_t t, ws_item &w) const {
    if (t < dp) {
      ws_tile((uint32_t)t, (uint32_t)mt, (uint32_t)nt, w.tm, w.tn, w.z);
      w.kb = 0, w.nk = (int)kt, w.role = WS_WHOLE, w.tile = t;
      return;
    }
    const int64_t u = t - dp, s = u / kt, k0 = u - s * kt, k1 = min(kt, k0 + (u_end - u));
    ws_tile((uint32_t)(dp + s), (uint32_t)mt, (uint32_t)nt, w.tm, w.tn, w.z);
    w.kb = k0 * BK, w.nk = (int)(k1 - k0), w.tile = s;
    w.role = k0 > 0 ? WS_PART : k1 < kt ? WS_FIX : WS_WHOLE;
  }
  // fixup is consumer warpgroup c's part of segment w's reduction, thread tid
  // of it holding d (its COLS/2 accumulator registers): WS_PART stores d to
  // the block's slot and sets the flag (false: no epilogue); WS_FIX adds the
  // later blocks' partials to d (true: run the epilogue); WS_WHOLE nothing.
  template <int COLS, int CONSUMERS>
  __device__ __forceinline__ bool fixup(const gr_gemm_params &p, const ws_item &w, float (&d)[COLS / 2], int c,
                                        int tid) const {
    static_assert(COLS % 8 == 0, "whole float4s of registers");
    constexpr int V = COLS / 8;  // float4s per thread
    if (w.role == WS_WHOLE) return true;
    float4 *ws = reinterpret_cast<float4 *>(p.workspace);
    if (w.role == WS_PART) {
      float4 *slot = ws + ((int64_t)b * CONSUMERS + c) * V * 128 + tid;
#pragma unroll
      for (int i = 0; i < V; ++i) __stcg(slot + i * 128, make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
      __threadfence();
      ws_bar_sync(c);
      if (tid == 0) st_release_gpu(p.flags + b * CONSUMERS + c, 1u);
      return false;
    }
    const int64_t end = (w.tile + 1) * kt;  // the tile's units end here
    for (int x = b + 1; x < blocks && start(x) < end; ++x) {
      if (tid == 0) {
        uint32_t *f = p.flags + x * CONSUMERS + c;
        while (ld_acquire_gpu(f) == 0) __nanosleep(32);
        *f = 0;  // for the next launch
        __threadfence();
      }
      ws_bar_sync(c);
      const float4 *slot = ws + ((int64_t)x * CONSUMERS + c) * V * 128 + tid;
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const float4 v = __ldcg(slot + i * 128);
        d[4 * i] += v.x, d[4 * i + 1] += v.y, d[4 * i + 2] += v.z, d[4 * i + 3] += v.w;
      }
    }
    return true;
  }
};

}  // namespace gr
