// ws_streamk.cuh — the stream-K tile scheduler of the persistent ws_wgmma
// kernels (the manifest's reduction "stream_k"), in its data-parallel +
// split-tail form: a grid of G blocks (at most one per SM) takes the
// T = ceil(M/BM)·ceil(N/BN) tiles (grouped order, ws_tile; KT = ceil(K/BK)
// k-tiles each) whole in ⌊T/G⌋ waves — block b tiles b, b + G, … below
// FULL = ⌊T/G⌋·G — and splits each of the R = T − FULL tiles of the partial
// last wave along K into S = min(⌊G/R⌋, KT) parts of KP = ⌈KT/S⌉ k-tiles
// (S = ⌈KT/KP⌉, none empty), one block a part: block b < R·S takes part
// j = ⌊b/R⌋ of tail tile i = b mod R. So no block idles through a partial
// wave, a problem of fewer tiles than SMs (FULL = 0) still streams its
// weights with S·R SMs, and the parts of the tail start together, at k
// offsets 0, KP, 2·KP, …: the blocks that share a weight tile read it in
// step, through L2. (An even split of all units over the blocks, each
// block's range starting at another k, read 6.3× the DRAM bytes at M = 1024,
// N = 5120, K = 13824 on the H200: docs/perf/2026-12-01-h200-sk, call 2.)
// Parts 0…S−2 are partials (WS_PART): a part's fp32 accumulator goes to its
// block's slot of the workspace, then the block's flag is set. The block of
// part S − 1 finishes the tile (WS_FIX): it waits for the flags of the blocks
// of parts 0…S−2 — lower block indices, started no later than it — adds their
// slots in part order (the same order every run: the same bits), clears the
// flags and runs the epilogue.
// Workspace: slot b is the block's CONSUMERS × 64 × COLS fp32 accumulator,
// each thread's registers at a 128-thread stride of float4, so that a
// warpgroup's stores and loads are 2 KiB contiguous; R·S slots. p.flags
// (zero between launches: each finisher clears what it consumed) holds one
// word per block and consumer warpgroup, GR_STREAMK_FLAGS in all.
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

// A workspace slot holds a consumer thread's MW 64-row blocks of V float4s
// of accumulator (acc[w][0]), float4 (w·V + v) at a 128-thread stride:
// ws_slot_store writes them there, ws_slot_add adds them into acc.
template <int V, int MW, int NA, int R>
__device__ __forceinline__ void ws_slot_store(float4 *slot, const float (&acc)[MW][NA][R]) {
#pragma unroll
  for (int w = 0; w < MW; ++w)
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const float *d = acc[w][0];
      __stcg(slot + (w * V + v) * 128, make_float4(d[4 * v], d[4 * v + 1], d[4 * v + 2], d[4 * v + 3]));
    }
}
template <int V, int MW, int NA, int R>
__device__ __forceinline__ void ws_slot_add(float (&acc)[MW][NA][R], const float4 *slot) {
#pragma unroll
  for (int w = 0; w < MW; ++w)
#pragma unroll
    for (int v = 0; v < V; ++v) {
      float *d = acc[w][0];
      const float4 u = __ldcg(slot + (w * V + v) * 128);
      d[4 * v] += u.x, d[4 * v + 1] += u.y, d[4 * v + 2] += u.z, d[4 * v + 3] += u.w;
    }
}

// ws_role says what a block does with a segment's accumulator.
enum ws_role : int { WS_WHOLE = 0, WS_PART = 1, WS_FIX = 2 };

// ws_stream_k is a block's walk as ws_schedule's (t = first, first +
// blocks, … below tiles; work(t)), over its segments: its whole tiles, then
// its tail part if it has one.
template <int BM, int BN, int BK, int MC> struct ws_stream_k {
  static_assert(MC == 1, "stream-K blocks walk alone (no clusters)");
  static constexpr bool share_a = false;
  int64_t mt, nt, kt;            // M tiles, N tiles, k-tiles per tile
  int64_t full, rest, kp;        // tiles taken whole; tail tiles; k-tiles per part
  int64_t ndp;                   // this block's whole tiles
  int64_t tiles, blocks, first;  // its segments, walked 0, 1, …
  int g, b, parts, crank;        // G, this block, S; no clusters
  __device__ __forceinline__ explicit ws_stream_k(const gr_gemm_params &p) {
    mt = (p.m + BM - 1) / BM, nt = (p.n + BN - 1) / BN, kt = (p.k + BK - 1) / BK;
    g = (int)gridDim.x, b = (int)blockIdx.x, crank = 0;
    const int64_t all = mt * nt;
    full = all / g * g, rest = all - full;
    parts = rest > 0 ? (int)max((int64_t)1, min((int64_t)g / rest, kt)) : 1;
    kp = (kt + parts - 1) / parts, parts = (int)((kt + kp - 1) / kp);
    ndp = full / g;
    tiles = ndp + (b < rest * parts ? 1 : 0);
    blocks = 1, first = 0;
  }
  // segment gives segment t's tile id and k-tiles [k0, k1); returns its role.
  __device__ __forceinline__ int segment(int64_t t, int64_t &tile, int64_t &k0, int64_t &k1) const {
    if (t < ndp) {
      tile = b + t * g, k0 = 0, k1 = kt;
      return WS_WHOLE;
    }
    const int64_t j = b / rest;  // this block's part of tail tile b mod R
    tile = full + b % rest, k0 = j * kp, k1 = min(kt, k0 + kp);
    return parts == 1 ? WS_WHOLE : j < parts - 1 ? WS_PART : WS_FIX;
  }
  // work returns segment t's k-tiles, from K offset kb, and its M tile, N
  // tile and split (0).
  __device__ __forceinline__ int work(const gr_gemm_params &, int64_t t, int64_t &tm, int64_t &tn, int &z, int64_t &kb) const {
    int64_t tile, k0, k1;
    segment(t, tile, k0, k1);
    ws_tile((uint32_t)tile, (uint32_t)mt, (uint32_t)nt, tm, tn, z);
    kb = k0 * BK;
    return (int)(k1 - k0);
  }
  // kstep: a segment's k-tiles are consecutive.
  __device__ __forceinline__ static constexpr int kstep() { return BK; }
  __device__ __forceinline__ static int64_t token0(const gr_gemm_params &, int64_t tm) { return tm * BM; }
  // fixup is consumer warpgroup c's part of segment t's reduction, thread tid
  // of it holding d (its COLS/2 accumulator registers): WS_PART stores d to
  // the block's slot and sets the flag (false: no epilogue); WS_FIX adds the
  // other parts' partials to d, in part order (true: run the epilogue);
  // WS_WHOLE nothing.
  template <int COLS, int CONSUMERS>
  __device__ __forceinline__ bool fixup(const gr_gemm_params &p, int64_t t, float (&d)[COLS / 2], int c, int tid) const {
    static_assert(COLS % 8 == 0, "whole float4s of registers");
    constexpr int V = COLS / 8;  // float4s per thread
    int64_t tile, k0, k1;
    const int role = segment(t, tile, k0, k1);
    if (role == WS_WHOLE) return true;
    float4 *ws = reinterpret_cast<float4 *>(p.workspace);
    auto &acc = reinterpret_cast<float(&)[1][1][COLS / 2]>(d);
    if (role == WS_PART) {
      ws_slot_store<V>(ws + ((int64_t)b * CONSUMERS + c) * V * 128 + tid, acc);
      __threadfence();
      ws_bar_sync(c);
      if (tid == 0) st_release_gpu(p.flags + b * CONSUMERS + c, 1u);
      return false;
    }
    for (int j = 0; j < parts - 1; ++j) {
      const int x = (int)(b % rest + j * rest);  // the block of part j
      if (tid == 0) {
        uint32_t *f = p.flags + x * CONSUMERS + c;
        while (ld_acquire_gpu(f) == 0) __nanosleep(32);
        *f = 0;  // for the next launch
        __threadfence();
      }
      ws_bar_sync(c);
      ws_slot_add<V>(acc, ws + ((int64_t)x * CONSUMERS + c) * V * 128 + tid);
    }
    return true;
  }
};

// ws_stream_k_shift is ws_stream_k whose last M tile starts at M − BM where
// it would reach past M (ws_schedule_shift, ws_schedule.cuh). That tile and
// the one before compute the rows they share, and must sum them alike: both
// whole, or both split at the same k offsets. (Walked as ws_stream_k, one
// could be whole and the other split: sk_sh_ts 128x192 at 4096 × 4096,
// M = 800, wrote 37 elements of the shared rows unlike sk_ts,
// docs/perf/2026-12-07-h200-h call E.) So, as ws_stream_k_planned's SHIFT,
// M tiles are walked from the last one (tm = mt − 1 − ws_tile's): both lie
// in the first raster group, at adjacent tile ids; where FULL would fall
// between them it is one less — both in the tail, block G − 1 one whole tile
// short, S = ⌊G/(R + 1)⌋ — as dispatch's streamKSlots allows for.
template <int BM, int BN, int BK, int MC> struct ws_stream_k_shift : ws_stream_k<BM, BN, BK, MC> {
  using base = ws_stream_k<BM, BN, BK, MC>;
  __device__ __forceinline__ explicit ws_stream_k_shift(const gr_gemm_params &p) : base(p) {
    const int64_t rows = min((int64_t)RASTER_GROUP, this->mt);  // the first raster group's M tiles
    if (this->parts > 1 && p.m >= BM && p.m % BM != 0 && rows >= 2 && this->full > 0 && this->full < rows * this->nt &&
        this->full % rows == 1) {
      --this->full, this->rest = this->mt * this->nt - this->full;
      const int64_t parts = max((int64_t)1, min((int64_t)this->g / this->rest, this->kt));
      this->kp = (this->kt + parts - 1) / parts, this->parts = (int)((this->kt + this->kp - 1) / this->kp);
      this->ndp = this->b < this->full ? (this->full - this->b + this->g - 1) / this->g : 0;
      this->tiles = this->ndp + (this->b < this->rest * this->parts ? 1 : 0);
    }
  }
  __device__ __forceinline__ int work(const gr_gemm_params &p, int64_t t, int64_t &tm, int64_t &tn, int &z, int64_t &kb) const {
    const int n = base::work(p, t, tm, tn, z, kb);
    tm = this->mt - 1 - tm;  // from the last M tile
    return n;
  }
  __device__ __forceinline__ static int64_t token0(const gr_gemm_params &p, int64_t tm) { return shifted_token0<BM>(p, tm); }
};

// ws_stream_k_parts is the stream-K walk whose tail split S comes from the
// plan (p.tail_parts, chosen by dispatch's cost model: more parts shorten the
// tail, each costs the finisher one partial tile read back), not from the
// grid: ws_stream_k's S = ⌊G/R⌋ (44, clipped by the k-tiles to 32 parts of
// 2) splits a tail of R = 3 tiles so that each finisher reads back 31
// partial tiles one after another (mistral-nemo o, 5120 × 4096 at M = 600,
// 128x192: 81.0 µs, 49.7 at the plan's S = 4; docs/perf/2026-12-07-h200-f,
// call K). Block b takes whole tiles b, b + G, … below
// FULL (a multiple of G, or one less, see below), then tail parts
// q = b, b + G, … below R·S, where part q is part j = ⌊q/R⌋ of tail tile
// i = q mod R: parts are numbered part-major, so the blocks that run at one
// time run parts of one k range, reading the weight panels together, and
// every part j < S − 1 of a tile is done before its finisher's (part S − 1)
// turn comes in its block's walk — a block walks its parts in increasing q,
// and a finisher waits only for smaller q. With R·S ≤ G it is ws_stream_k's
// tail with the plan's S. Part q < (S − 1)·R leaves its partial in slot q
// of the workspace (CONSUMERS × 64 × COLS fp32, laid out as ws_stream_k's)
// and sets flag q·CONSUMERS + c; where (S − 1)·(R + 1)·3 would exceed
// GR_STREAMK_FLAGS the walk takes every tile whole (dispatch never asks
// for such an S; kbench's check once did, and the flags written past the
// buffer corrupted the inputs of the kernels after it). The finisher adds
// slots j·R + i in order j = 0…S−2 (the same bits every run). S = 1: whole tiles only, the tail a partial wave.
// SHIFT (ws_stream_k_parts_shift): the last M tile starts at M − BM
// (shifted_token0), so it and the tile before compute the rows they share;
// they must sum them alike. M tiles are walked from the last one
// (tm = mt − 1 − ws_tile's), so both lie in the first raster group, at
// adjacent tile ids; where FULL would fall between them, FULL − 1 (both in
// the tail, split at the same k offsets).
template <int BM, int BN, int BK, int MC, bool SHIFT> struct ws_stream_k_planned {
  static_assert(MC == 1, "stream-K blocks walk alone (no clusters)");
  static constexpr bool share_a = false;
  int64_t mt, nt, kt;       // M tiles, N tiles, k-tiles per tile
  int64_t full, rest, kp;   // tiles taken whole; tail tiles; k-tiles per part
  int64_t ndp;              // this block's whole tiles
  int64_t tiles, blocks, first;
  int g, b, parts, crank;
  __device__ __forceinline__ explicit ws_stream_k_planned(const gr_gemm_params &p) {
    mt = (p.m + BM - 1) / BM, nt = (p.n + BN - 1) / BN, kt = (p.k + BK - 1) / BK;
    g = (int)gridDim.x, b = (int)blockIdx.x, crank = 0;
    const int64_t all = mt * nt;
    parts = (int)max((int64_t)1, min((int64_t)p.tail_parts, kt));
    kp = (kt + parts - 1) / parts, parts = (int)((kt + kp - 1) / kp);
    full = parts > 1 ? all / g * g : all;
    // the flag words bound the partials: (S − 1)·(R + 1)·3 (at most three
    // consumers) as dispatch's tailParts keeps to; past them, every tile whole
    if (parts > 1 && (parts - 1) * (all - full + (full > 0 ? 1 : 0)) * 3 > GR_STREAMK_FLAGS) parts = 1, full = all;
    const int64_t rows = min((int64_t)RASTER_GROUP, mt);  // the first raster group's M tiles
    if (SHIFT && parts > 1 && p.m >= BM && p.m % BM != 0 && rows >= 2 && full > 0 && full < rows * nt && full % rows == 1)
      --full;  // the last M tile (tm' = 0) whole, the one before (tm' = 1) split: split both
    rest = all - full;
    ndp = b < full ? (full - b + g - 1) / g : 0;
    const int64_t np = b < rest * parts ? (rest * parts - b + g - 1) / g : 0;
    tiles = ndp + np, blocks = 1, first = 0;
  }
  // segment gives segment t's tile id, k-tiles [k0, k1) and part number q
  // (−1 for a whole tile); returns its role.
  __device__ __forceinline__ int segment(int64_t t, int64_t &tile, int64_t &k0, int64_t &k1, int64_t &q) const {
    if (t < ndp) {
      tile = b + t * g, k0 = 0, k1 = kt, q = -1;
      return WS_WHOLE;
    }
    q = b + (t - ndp) * g;
    const int64_t j = q / rest;
    tile = full + q % rest, k0 = j * kp, k1 = min(kt, k0 + kp);
    return parts == 1 ? WS_WHOLE : j < parts - 1 ? WS_PART : WS_FIX;
  }
  __device__ __forceinline__ int work(const gr_gemm_params &, int64_t t, int64_t &tm, int64_t &tn, int &z, int64_t &kb) const {
    int64_t tile, k0, k1, q;
    segment(t, tile, k0, k1, q);
    ws_tile((uint32_t)tile, (uint32_t)mt, (uint32_t)nt, tm, tn, z);
    tm = mt - 1 - tm;  // from the last M tile: see SHIFT above
    kb = k0 * BK;
    return (int)(k1 - k0);
  }
  __device__ __forceinline__ static constexpr int kstep() { return BK; }
  __device__ __forceinline__ static int64_t token0(const gr_gemm_params &p, int64_t tm) {
    if constexpr (SHIFT) return shifted_token0<BM>(p, tm);
    return tm * BM;
  }
  // fixup: as ws_stream_k's, with slots and flags by part number.
  template <int COLS, int CONSUMERS>
  __device__ __forceinline__ bool fixup(const gr_gemm_params &p, int64_t t, float (&d)[COLS / 2], int c, int tid) const {
    return fixup_blocks<COLS, CONSUMERS>(p, t, reinterpret_cast<float(&)[1][1][COLS / 2]>(d), c, tid);
  }
  // fixup_blocks is fixup for a consumer of MW 64-row blocks (BM = 256: two),
  // acc[w][0] each; a slot holds a consumer's blocks one after another.
  template <int COLS, int CONSUMERS, int MW, int NA>
  __device__ __forceinline__ bool fixup_blocks(const gr_gemm_params &p, int64_t t, float (&acc)[MW][NA][COLS / 2], int c,
                                               int tid) const {
    static_assert(COLS % 8 == 0, "whole float4s of registers");
    constexpr int V = COLS / 8;
    int64_t tile, k0, k1, q;
    const int role = segment(t, tile, k0, k1, q);
    if (role == WS_WHOLE) return true;
    float4 *ws = reinterpret_cast<float4 *>(p.workspace);
    if (role == WS_PART) {
      ws_slot_store<V>(ws + (q * CONSUMERS + c) * MW * V * 128 + tid, acc);
      __threadfence();
      ws_bar_sync(c);
      if (tid == 0) st_release_gpu(p.flags + q * CONSUMERS + c, 1u);
      return false;
    }
    for (int j = 0; j < parts - 1; ++j) {
      const int64_t x = j * rest + q % rest;  // part j of this tile
      if (tid == 0) {
        uint32_t *f = p.flags + x * CONSUMERS + c;
        while (ld_acquire_gpu(f) == 0) __nanosleep(32);
        *f = 0;  // for the next launch
        __threadfence();
      }
      ws_bar_sync(c);
      ws_slot_add<V>(acc, ws + (x * CONSUMERS + c) * MW * V * 128 + tid);
    }
    return true;
  }
};
template <int BM, int BN, int BK, int MC> using ws_stream_k_parts = ws_stream_k_planned<BM, BN, BK, MC, false>;
template <int BM, int BN, int BK, int MC> using ws_stream_k_parts_shift = ws_stream_k_planned<BM, BN, BK, MC, true>;

}  // namespace gr
