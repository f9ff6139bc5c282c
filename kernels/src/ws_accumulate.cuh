// ws_accumulate.cuh — ws_wgmma's accumulate policy: where a consumer
// warpgroup's wgmma of one k-tile accumulate, when the k-tile's stage goes
// back to the producer, and what the tile's accumulator holds at the end.
//
// 16-bit elements: the wgmma accumulate in fp32 themselves. NACC > 1 spreads
// a k-tile's 4·KB k16 steps over NACC accumulator sets acc[w][kk % NACC]
// (independent wgmma chains, which small-N (swap) tiles need to keep the
// tensor cores busy; NACC× the registers), summed in order at the end. REL
// says when the stage goes back (ws_ring.cuh): ws_release_late keeps the
// k-tile's wgmma in flight and gives back the stage before it.
// e4m3 (promotion): the tensor cores' fp8 accumulator keeps about 14 bits,
// so each k-tile's wgmma go to fresh accumulators part[kk % NACC] (a chain's
// first wgmma ignores their old values), which the consumer awaits, gives
// the stage back, and adds to the fp32 accumulator acc[0][0] — the promotion
// that keeps long-K sums at fp32 accuracy (without it the H200 missed a
// 2^-13·Σ|terms| bound from K ≈ 1000). With ws_scales_block128 each
// k-tile's part is added times the k-block's scales of A's row and B's
// 128-row block, loaded (load_scales) before the consumer waits for the
// stage; the tensor and row modes scale the sum once, before the epilogue
// (ws_scale).
// A consumer owns MW 64-row blocks w (two for BM = 256 and ping-pong) of
// COLS columns, in wgmma's accumulator layout: element 4i + 2h + b of a
// block is row r0 + 8h, column q0 + 8i + b.
#pragma once
#include <stdint.h>
#include <type_traits>
#include "gemm_params.h"
#include "scales.cuh"
#include "wgmma_sm90.cuh"
#include "ws_ring.cuh"

namespace gr {

// ws_promote_lagged (e4m3, in REL's place; experimental): a consumer keeps
// two sets of chains and uses them in turn, so it promotes k-tile kt − 1's
// while kt's wgmma run (wgmma_wait<1>), and gives kt − 1's stage back then,
// as ws_release_late does for 16-bit — the tensor cores need not idle for
// the promotion. The parts are added to acc in k-tile order, as without
// the lag: the same bits. Tensor and row scales only (ws_scales_after); twice the
// chains' registers.
struct ws_promote_lagged {
  static constexpr int in_flight = 1;
};

// The scale policy (SCALES): ws_scales_after — 16-bit has none; e4m3's
// tensor or row scales multiply the finished accumulator (ws_scale, before
// the epilogue) — or ws_scales_block128: e4m3's 128-block scales, each
// k-tile's promoted part times its k-block's scales (load_scales, retire).
struct ws_scales_after {
  static constexpr bool block = false;
};
struct ws_scales_block128 {
  static constexpr bool block = true;
};

template <typename T, int COLS, int MW, int NACC, class SCALES, class REL, int MC> struct ws_accumulator {
  static constexpr bool promote = sizeof(T) == 1;  // e4m3: fp32 promotion every k-tile
  static constexpr bool block128 = SCALES::block;
  static constexpr bool lagged = std::is_same<REL, ws_promote_lagged>::value;
  static constexpr int NA = promote ? 1 : NACC, NP = promote ? NACC : 1;
  static_assert(!block128 || promote, "128-block scales: e4m3");
  static_assert(!lagged || (promote && !block128), "lagged promotion: e4m3, tensor or row scales");
  struct none {};
  // The registers: acc[w][a] the fp32 accumulator of block w, set a; e4m3's
  // part[a] a k-tile's chains, declared first (in this order every kernel
  // compiles to the code it had when this was ws_wgmma's inline code).
  struct promoted {
    float part[NP][COLS / 2];
    float acc[MW][NA][COLS / 2];
  };
  struct direct {
    float acc[MW][NA][COLS / 2];
  };
  struct lag {  // ws_promote_lagged: chains part[odd] take this k-tile's wgmma, part[!odd] the one before's
    float part[2][NP][COLS / 2];
    float acc[MW][NA][COLS / 2];
    int odd;
  };
  typename std::conditional<lagged, lag, typename std::conditional<promote, promoted, direct>::type>::type r;
  // block128: a k-tile's scales, element 4i + 2h + b's being sr[h]·sq[2i + b]
  // (empty otherwise)
  struct block_scales {
    float sr[2], sq[COLS / 4];
  };
  using scales = typename std::conditional<block128, block_scales, none>::type;
  // how retire takes them: the block scales by reference, the empty ones by
  // value (a reference to them reorders the other modes' code, and their
  // table entries would lose their digests)
  using scales_in = typename std::conditional<block128, const block_scales &, none>::type;

  // start clears the accumulator for a tile.
  __device__ __forceinline__ void start() {
#pragma unroll
    for (int w = 0; w < MW; ++w)
#pragma unroll
      for (int a = 0; a < NA; ++a)
#pragma unroll
        for (int i = 0; i < COLS / 2; ++i) r.acc[w][a][i] = 0.f;
    if constexpr (lagged) r.odd = 0;
  }

  // load_scales reads into sc the 128-block scales of k-block kbi for the
  // accumulator's rows row_base + r0 + 8h and columns col_base + q0 + …; with
  // ROLE ws_swap_ab the rows are B's (one 128-row block per consumer:
  // row_base + 64c) and the columns A's.
  template <class ROLE>
  static __device__ __forceinline__ void load_scales(scales &sc, const gr_gemm_params &p, int64_t kbi, int64_t kblocks,
                                                     int64_t row_base, int64_t col_base, int c, int r0, int q0) {
    if constexpr (block128) {
#pragma unroll
      for (int h = 0; h < 2; ++h)
        sc.sr[h] = ROLE::swap ? block_scale_b(p, row_base + c * 64, kbi, kblocks) : block_scale_a(p, row_base + r0 + 8 * h, kbi);
#pragma unroll
      for (int j = 0; j < COLS / 4; ++j)
        sc.sq[j] = ROLE::swap ? block_scale_a(p, col_base + q0 + 8 * (j / 2) + j % 2, kbi) : block_scale_b(p, col_base, kbi, kblocks);
    }
  }

  // mma issues k16 step kk of the k-tile for block w (shared-memory
  // descriptors da of its rows, db of the columns).
  __device__ __forceinline__ void mma(int kk, int w, uint64_t da, uint64_t db) {
    if constexpr (lagged) {  // a uniform branch: the set is compile-time in each
      if (r.odd)
        chain(r.part[1], kk, da, db);
      else
        chain(r.part[0], kk, da, db);
    } else if constexpr (promote) {  // each chain starts afresh in every k-tile
      chain(r.part, kk, da, db);
    } else
      wgmma<T, COLS>::run(r.acc[w][kk % NA], da, db);
  }

  // retire follows the k-tile's wgmma_commit: it waits for what must retire,
  // gives a stage back (empty: the ring's empty barriers, s the k-tile's
  // stage, prev the stage whose wgmma may still be in flight, -1 none;
  // thread 0 arrives) and promotes (block128: times the k-tile's scales sc). It
  // returns the stage now in flight.
  __device__ __forceinline__ int retire(uint32_t empty, int s, int prev, int tid, scales_in sc) {
    if constexpr (lagged) {  // k-tile kt − 1's chains retired: its stage is free, promote them
      pin_parts();
      wgmma_wait<1>();
      pin_parts();
      if (prev >= 0) {
        if (tid == 0) ws_release<MC>(empty + 8 * prev);
        promote_other();
      }
      r.odd ^= 1;
      return s;
    } else if constexpr (promote) {  // promote: acc += part (· block scales), then the stage is free
#pragma unroll
      for (int a = 0; a < NP; ++a) pin_registers(r.part[a]);
      wgmma_wait<0>();
#pragma unroll
      for (int a = 0; a < NP; ++a) pin_registers(r.part[a]);
      if (tid == 0) ws_release<MC>(empty + 8 * s);
      if constexpr (block128)
#pragma unroll
        for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            float v = r.part[0][4 * i + e];
#pragma unroll
            for (int a = 1; a < NP; ++a) v += r.part[a][4 * i + e];
            r.acc[0][0][4 * i + e] = fmaf(v, sc.sr[e >> 1] * sc.sq[2 * i + (e & 1)], r.acc[0][0][4 * i + e]);
          }
      else
        add_parts(r.part);
      return prev;
    } else {
      pin();
      wgmma_wait<REL::in_flight>();
      pin();
      if constexpr (REL::in_flight == 0) {  // this k-tile's wgmma have retired: its stage is free
        if (tid == 0) ws_release<MC>(empty + 8 * s);
        return prev;
      } else {
        if (prev >= 0 && tid == 0) ws_release<MC>(empty + 8 * prev);
        return s;
      }
    }
  }

  // drain ends the tile's main loop: every wgmma retired, the last stage
  // given back, the sets summed into acc[w][0].
  __device__ __forceinline__ void drain(uint32_t empty, int prev, int tid) {
    wgmma_wait<0>();
    pin();
    if constexpr (lagged) {
      pin_parts();
      if (prev >= 0) promote_other();  // the last k-tile's chains (retire turned odd after them)
    }
    if (prev >= 0 && tid == 0) ws_release<MC>(empty + 8 * prev);
#pragma unroll
    for (int w = 0; w < MW; ++w)
#pragma unroll
      for (int a = 1; a < NA; ++a)
#pragma unroll
        for (int i = 0; i < COLS / 2; ++i) r.acc[w][0][i] += r.acc[w][a][i];
  }

 private:
  // chain issues k16 step kk into the chains pt (a chain's first step ignores their old values).
  template <class P> __device__ __forceinline__ void chain(P &pt, int kk, uint64_t da, uint64_t db) {
    if (kk < NP)
      wgmma<T, COLS>::run_first(pt[kk % NP], da, db);
    else
      wgmma<T, COLS>::run(pt[kk % NP], da, db);
  }
  // promote_other adds the chains of the set not in use (part[!odd]) to acc.
  __device__ __forceinline__ void promote_other() {
    if constexpr (lagged) {
      if (r.odd)
        add_parts(r.part[0]);
      else
        add_parts(r.part[1]);
    }
  }
  // add_parts adds the sum of chains pt (in chain order) to acc: the promotion.
  template <class P> __device__ __forceinline__ void add_parts(const P &pt) {
#pragma unroll
    for (int i = 0; i < COLS / 2; ++i) {
      float v = pt[0][i];
#pragma unroll
      for (int a = 1; a < NP; ++a) v += pt[a][i];
      r.acc[0][0][i] += v;
    }
  }
  __device__ __forceinline__ void pin_parts() {
    if constexpr (lagged)
#pragma unroll
      for (int b = 0; b < 2; ++b)
#pragma unroll
        for (int a = 0; a < NP; ++a) pin_registers(r.part[b][a]);
  }
  __device__ __forceinline__ void pin() {
#pragma unroll
    for (int w = 0; w < MW; ++w)
#pragma unroll
      for (int a = 0; a < NA; ++a) pin_registers(r.acc[w][a]);
  }
};

}  // namespace gr
