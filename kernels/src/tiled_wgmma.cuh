// tiled_wgmma.cuh — Hopper tiled GEMM family (sm_90a): wgmma from shared memory.
//
// A block of BM/64 warpgroups computes a BM x BN tile of D; warpgroup g owns
// rows 64g…64g+63 and all BN columns, as BN/128 accumulators of wgmma
// m64n128k16 (fp32, BN/2 registers per thread). K is walked in k-tiles of
// 64 elements: one 128-byte row per operand row, stored in the hardware's
// 128-byte swizzle (swizzle<64>), which wgmma reads through smem_desc.
// Global → shared by cp.async.cg (tile_loader.cuh, as tiled_mma's aligned path:
// rows past M or N and chunks past the split's K end are zero-filled).
// Pipeline, per k-tile kt:
//   wait until k-tile kt landed; fence to the async proxy; barrier (every
//   warpgroup has also retired its wgmma of k-tile kt-2);
//   start loading k-tile kt+STAGES-2 into the stage k-tile kt-2 used;
//   issue the 4 k16 steps of wgmma on k-tile kt, commit, and wait until
//   only this group is in flight (k-tile kt-1's wgmma have retired).
// So STAGES-2 k-tiles load while one is multiplied and one may still be in
// the tensor cores. Blocks are rasterized as in tiled_mma (block_tile.cuh); the
// epilogue goes through store_fragments (split_k > 1: fp32 partials to the
// workspace).
// Grid: (ceil(N/BN), ceil(M/BM), split_k); block: BM/64 × 128 threads;
// dynamic shared memory: STAGES × (BM + BN) × 128 bytes + 1024 (the stages
// start at a 1024-byte boundary, as the swizzle atoms must).
//
// Constraints (written into the manifest by the generator):
//   A and B 16-byte aligned, lda and ldb multiples of 8 elements, K a
//   multiple of 8.                                    (ptr_align 16, ld_align 16, k_multiple 8)
//   sm_90a only (the sm90 image); 64-bit offsets; split-K: any factor,
//   workspace reduction, k_per_split a multiple of 64.
#pragma once
#include <stdint.h>
#include "block_tile.cuh"
#include "fragments.cuh"
#include "mma_sm80.cuh"
#include "tile_loader.cuh"
#include "wgmma_sm90.cuh"

namespace gr {

template <typename T, typename TOut, int BM, int BN, int STAGES>
__device__ void tiled_wgmma(const gr_gemm_params &p) {
  constexpr int BK = 64, THREADS = BM / 64 * 128, NB = BN / 128;
  static_assert(BM % 64 == 0 && BN % 128 == 0, "warpgroups of 64 rows, wgmma of 128 columns");
  static_assert(STAGES >= 3, "a stage loading, one multiplied, one in the tensor cores");
  static_assert(sizeof(T) == 2, "16-bit elements (the 128-byte rows hold 64 of them)");
  constexpr uint32_t A_STAGE = BM * BK * 2, B_STAGE = BN * BK * 2;  // bytes, multiples of 1024
  extern __shared__ __align__(1024) unsigned char gr_smem_wgmma[];
  const uint32_t sa = (smem_addr(gr_smem_wgmma) + 1023) & ~1023u, sb = sa + STAGES * A_STAGE;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, wg = warp >> 2;
  const block_tile<BM, BN, BK> bt(p);
  tile_loader<T, BM, BK, THREADS, true> la(reinterpret_cast<const T *>(p.a), p.lda, bt.m0, p.m);
  tile_loader<T, BN, BK, THREADS, true> lb(reinterpret_cast<const T *>(p.b), p.ldb, bt.n0, p.n);
  // load starts k-tile kt into stage s and commits one cp.async group (an
  // empty one past the last k-tile, so the wait count stays uniform).
  auto load = [&](int64_t kt, int s) {
    if (kt < bt.tiles) {
      la.issue(sa + s * A_STAGE, bt.kb + kt * BK, bt.ke);
      lb.issue(sb + s * B_STAGE, bt.kb + kt * BK, bt.ke);
    }
    cp_async_commit();
  };
#pragma unroll
  for (int s = 0; s < STAGES - 2; ++s) load(s, s);
  float acc[1][BN / 8][4] = {};
  float(&d)[NB][64] = *reinterpret_cast<float(*)[NB][64]>(&acc);
  int rd = 0, wr = STAGES - 2;  // stage multiplied, stage loaded
  for (int64_t kt = 0; kt < bt.tiles; ++kt) {
    cp_async_wait<STAGES - 3>();
    fence_proxy_async();
    __syncthreads();
    load(kt + STAGES - 2, wr);
    const uint32_t a = sa + rd * A_STAGE + wg * 64 * BK * 2, b = sb + rd * B_STAGE;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk)
#pragma unroll
      for (int j = 0; j < NB; ++j) wgmma_n128<T>::run(d[j], smem_desc(a + kk * 32), smem_desc(b + j * 128 * BK * 2 + kk * 32));
    wgmma_commit();
#pragma unroll
    for (int j = 0; j < NB; ++j) pin_registers(d[j]);
    wgmma_wait<1>();
#pragma unroll
    for (int j = 0; j < NB; ++j) pin_registers(d[j]);
    rd = rd + 1 == STAGES ? 0 : rd + 1;
    wr = wr + 1 == STAGES ? 0 : wr + 1;
  }
  wgmma_wait<0>();
#pragma unroll
  for (int j = 0; j < NB; ++j) pin_registers(d[j]);
  store_fragments<TOut>(p, bt.z, acc, bt.m0 + wg * 64 + (warp & 3) * 16 + (lane >> 2), bt.n0 + (lane & 3) * 2);
}

}  // namespace gr
