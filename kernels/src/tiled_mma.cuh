// tiled_mma.cuh — tiled tensor-core GEMM family (mid and large M).
//
// A block computes a BM x BN tile of D, walking its split's K range in
// k-tiles of BK. Its WM x WN warps each own a (BM/WM) x (BN/WN) warp tile of
// mma.sync m16n8k16 (fp32 accumulators in registers); fragments come from
// shared memory through ldmatrix.x4 (A and B are both K-contiguous, so no
// .trans). Shared memory holds STAGES k-tiles of A [BM][BK] and B [BN][BK];
// within a row, each 16-byte chunk (8 K elements) is XOR-swizzled (swizzle.cuh)
// so that the 8 row addresses of an ldmatrix phase fall in distinct banks.
// Global → shared (tile_loader.cuh), per k-tile, thread t owns chunk column
// t % (BK/8) of rows t / (BK/8) + i * THREADS / (BK/8):
//   ALIGNED:  cp.async.cg, 16 bytes per chunk; rows past M (A) or N (B) and
//             chunks past the split's K end are zero-filled (src-size 0).
//             STAGES-1 k-tiles are in flight while one is multiplied.
//   !ALIGNED: the chunk's 8 elements are loaded one by one, each checked
//             against M/N and K, into registers before the k-tile's mma and
//             stored to shared memory after it (STAGES 2 is enough).
// Blocks are rasterized in groups of RASTER_GROUP M tiles (block_tile.cuh).
// Rows past M or N compute zeros and are not stored; the epilogue goes
// through store_fragments (split_k > 1: fp32 partials to the workspace).
// Grid: (ceil(N/BN), ceil(M/BM), split_k); block: WM*WN*32 threads;
// dynamic shared memory: STAGES * (BM + BN) * BK * sizeof(T) bytes.
//
// Constraints (written into the manifest by the generator):
//   ALIGNED:  A and B 16-byte aligned, lda and ldb multiples of 8 elements,
//             K a multiple of 8.                  (ptr_align 16, ld_align 16, k_multiple 8)
//   !ALIGNED: none beyond element alignment.      (ptr_align 2, ld_align 2, k_multiple 1)
//   sm_80+; 64-bit offsets; split-K: any factor, workspace reduction,
//   k_per_split a multiple of BK.
#pragma once
#include <stdint.h>
#include "block_tile.cuh"
#include "fragments.cuh"
#include "mma_sm80.cuh"
#include "swizzle.cuh"
#include "tile_loader.cuh"

namespace gr {

// warp_mma multiplies one shared k-tile into a warp's MI x NI accumulators:
// BK/16 steps, the next step's fragments loaded while the current one
// computes. a_row/b_row are the lane's ldmatrix rows (tile rows of its
// warp's first m16/n16 block), a_chunk/b_chunk its chunk within a k16 step.
template <typename T, int BK, int MI, int NI>
__device__ __forceinline__ void warp_mma(float (&acc)[MI][NI][4], uint32_t ta, uint32_t tb, int a_row, int a_chunk,
                                         int b_row, int b_chunk) {
  using S = swizzle<BK>;
  uint32_t a[2][MI][4], b[2][NI][2];
  auto load = [&](int buf, int kk) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) ldmatrix_x4(a[buf][mi], ta + S::bytes(a_row + mi * 16, kk * 2 + a_chunk));
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) {
      uint32_t r[4];  // n8 blocks 2nj and 2nj+1, k 0-7 and 8-15 each
      ldmatrix_x4(r, tb + S::bytes(b_row + nj * 16, kk * 2 + b_chunk));
      b[buf][2 * nj][0] = r[0], b[buf][2 * nj][1] = r[1];
      b[buf][2 * nj + 1][0] = r[2], b[buf][2 * nj + 1][1] = r[3];
    }
  };
  load(0, 0);
#pragma unroll
  for (int kk = 0; kk < BK / 16; ++kk) {
    const int cur = kk & 1;
    if (kk + 1 < BK / 16) load(cur ^ 1, kk + 1);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
        mma_op<T>::run(acc[mi][ni], a[cur][mi][0], a[cur][mi][1], a[cur][mi][2], a[cur][mi][3], b[cur][ni][0], b[cur][ni][1]);
  }
}

template <typename T, typename TOut, int BM, int BN, int BK, int WM, int WN, int STAGES, bool ALIGNED>
__device__ void tiled_mma(const gr_gemm_params &p) {
  // Warp tile: WTM x WTN, as MI x NI m16n8 fragments.
  constexpr int THREADS = WM * WN * 32, WTM = BM / WM, WTN = BN / WN, MI = WTM / 16, NI = WTN / 8;
  static_assert(WTM % 16 == 0 && WTN % 16 == 0, "warp tiles are multiples of 16x16");
  static_assert(STAGES >= 2, "at least double buffering");
  static_assert(sizeof(T) == 2, "16-bit elements (swizzle, ldmatrix and the element loads assume it)");
  constexpr uint32_t A_STAGE = BM * BK * 2, B_STAGE = BN * BK * 2;  // bytes
  extern __shared__ uint4 gr_smem[];
  const uint32_t sa = smem_addr(gr_smem), sb = sa + STAGES * A_STAGE;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp / WN, wn = warp % WN;
  const block_tile<BM, BN, BK> bt(p);
  tile_loader<T, BM, BK, THREADS, ALIGNED> la(reinterpret_cast<const T *>(p.a), p.lda, bt.m0, p.m);
  tile_loader<T, BN, BK, THREADS, ALIGNED> lb(reinterpret_cast<const T *>(p.b), p.ldb, bt.n0, p.n);
  // issue starts loading k-tile kt into stage s; land completes it and
  // commits one cp.async group. Past the last k-tile both do nothing but the
  // commit (an empty group), so the wait count below stays uniform.
  auto issue = [&](int64_t kt, int s) {
    if (kt < bt.tiles) {
      la.issue(sa + s * A_STAGE, bt.kb + kt * BK, bt.ke);
      lb.issue(sb + s * B_STAGE, bt.kb + kt * BK, bt.ke);
    }
  };
  auto land = [&](int64_t kt, int s) {
    if (kt < bt.tiles) {
      la.land(sa + s * A_STAGE);
      lb.land(sb + s * B_STAGE);
    }
    cp_async_commit();
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    issue(s, s);
    land(s, s);
  }
  float acc[MI][NI][4] = {};
  const int a_row = wm * WTM + (lane & 15), a_chunk = lane >> 4;
  const int b_row = wn * WTN + (lane & 7) + (lane >> 4) * 8, b_chunk = (lane >> 3) & 1;
  int rd = 0, wr = STAGES - 1;  // stage multiplied, stage loaded
  for (int64_t kt = 0; kt < bt.tiles; ++kt) {
    // k-tile kt has landed, and every warp is done with the stage wr
    // (multiplied in the previous round).
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    issue(kt + STAGES - 1, wr);
    warp_mma<T, BK, MI, NI>(acc, sa + rd * A_STAGE, sb + rd * B_STAGE, a_row, a_chunk, b_row, b_chunk);
    land(kt + STAGES - 1, wr);
    rd = rd + 1 == STAGES ? 0 : rd + 1;
    wr = wr + 1 == STAGES ? 0 : wr + 1;
  }
  store_fragments<TOut>(p, bt.z, acc, bt.m0 + wm * WTM + (lane >> 2), bt.n0 + wn * WTN + (lane & 3) * 2);
}

}  // namespace gr
