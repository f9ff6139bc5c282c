// ws_epilogue_tma.cuh — ws_wgmma's epilogue policies (its EPI argument) and
// the epilogue that stores D through the tensor memory accelerator.
//
// ws_epi_reg (the default): ws_epilogue.cuh's register epilogue, every
// thread storing its accumulator pairs to D (a warp store covers 16 bytes
// of each of 8 rows: half of every 32-byte sector it touches is another
// warp's, "50 % excessive sectors" in ncu).
//
// ws_epi_tma (no ping-pong, 16-bit D): with split_k == 1 a consumer
// warpgroup applies alpha, beta·C and bias in registers with ws_epilogue_mn's
// arithmetic (the same expressions, so the same bits; C and bias loads
// predicated at the tails, rows past M computed but not stored), converts to
// TOut and writes its 64 x COLS part of D into a shared-memory staging buffer
// of its own, laid out as COLS/64 boxes of 64 rows x 64 columns (128 bytes a
// row, 8 KB a box) in the 128-byte swizzle that tma_d's map names: 16-byte
// chunk j of row r at chunk j ^ (r % 8) (COLS = 96: three boxes of 32
// columns, 64-byte rows in the 64-byte swizzle). A warp's 4-byte stores of one column
// pair then cover 8 rows x 16 bytes with every bank once (no conflicts), and
// the box's rows go out as whole 128-byte lines. Then fence.proxy.async (the
// generic writes before the copy engine reads), a named barrier over the
// warpgroup, and one thread issues the COLS/64 tensor stores and commits them
// as one bulk group; TMA clips rows past M and columns past N, so the tails
// need no other path — in whole 16-byte pieces of a row: the H200 wrote
// columns N…N+5 of an N = 130 row, so the planner gives these kernels only an
// N whose rows end on a 16-byte boundary. The consumer goes on to its next
// tile's main loop while the stores run; before it writes the staging buffer
// again its thread 0 waits until the group has been read
// (cp.async.bulk.wait_group.read 0) and the warpgroup passes the named
// barrier; before the kernel exits thread 0 waits for the group to complete
// (wait_group 0; ws_epi_tma_early: until it has been read). With split_k >
// 1 the fp32 partials take the register path (ws_epilogue_mn). A consumer
// of two 64-row blocks (BM = 256) calls this once per block; the second
// waits for the first's reads. Staging: 64·COLS·2 bytes per consumer after
// the ring's stages (1024-aligned, as the swizzle needs), which the
// manifest's smem_bytes counts.
#pragma once
#include <type_traits>
#include "sm90_tma.cuh"
#include "wgmma_sm90.cuh"
#include "ws_epilogue.cuh"
#include "ws_streamk.cuh"

namespace gr {

// ws_epi_reg: the register epilogue (ws_epilogue_mn / ws_epilogue_nm).
struct ws_epi_reg {
  static constexpr bool tma_store = false;
  template <typename TOut, int COLS> static constexpr uint32_t staging_bytes = 0;  // per consumer
};

// ws_epi_tma: D staged through shared memory and stored by TMA (tma_d);
// before the kernel exits, each consumer's thread 0 waits for its last
// stores to complete (exit_wait).
struct ws_epi_tma {
  static constexpr bool tma_store = true;
  template <typename TOut, int COLS> static constexpr uint32_t staging_bytes = 64 * COLS * sizeof(TOut);
  __device__ static __forceinline__ void exit_wait() { tma_store_wait<0>(); }
};

// ws_epi_tma_early: ws_epi_tma whose consumers exit once their last stores
// have read the staging buffer (wait_group.read), as CUTLASS's TMA-store
// epilogues do: the writes still complete before the grid does, but a
// block no longer holds its SM for their round trip. Experimental (issue
// 17: at o, M = 64 our fixed cost per GEMM is 1.1 µs above cuBLAS's).
struct ws_epi_tma_early : ws_epi_tma {
  __device__ static __forceinline__ void exit_wait() { tma_store_wait_read<0>(); }
};

// ws_staging_acquire: consumer c's staging buffer is free to write once its
// thread 0 has seen the previous tile's stores read it and the warpgroup
// has passed named barrier 1 + c. ws_staging_publish: the warpgroup's
// writes are visible to the copy engine (fence.proxy.async, then the
// barrier) before thread 0 issues the stores.
__device__ __forceinline__ void ws_staging_acquire(int c, int tid) {
  if (tid == 0) tma_store_wait_read<0>();  // the previous tile's stores have read the buffer
  ws_bar_sync(c);
}
__device__ __forceinline__ void ws_staging_publish(int c) {
  fence_proxy_async();  // each thread's writes, before the copy engine reads them
  ws_bar_sync(c);
}

// ws_epilogue_tma stores a consumer warpgroup's 64 x COLS accumulator d
// (wgmma layout) to D[m0…m0+63][n0…n0+COLS−1] through the staging buffer at
// shared address stage (see above). lr is the thread's first accumulator row
// within the 64 (warp·16 + lane/4), q its column pair in each 8 (lane % 4), c
// the consumer (named barrier 1 + c), tid its thread in the warpgroup.
// split_k == 1 only.
template <typename TOut, int COLS>
__device__ __forceinline__ void ws_epilogue_tma(const gr_gemm_params &p, const float (&d)[COLS / 2], int64_t m0,
                                                int64_t n0, int lr, int q, uint32_t stage, int c, int tid) {
  static_assert(sizeof(TOut) == 2 && COLS % 32 == 0, "16-bit D in boxes of 64 (or 32) columns");
  // A box is 64 columns (128-byte rows, 128-byte swizzle: chunk j of row r at
  // j ^ (r % 8)) where COLS allows, else 32 (64-byte rows, 64-byte swizzle:
  // chunk j at j ^ ((r / 2) % 4)): tma_d's box and swizzle (the manifest's
  // tma_store_box; the swizzle spans a box row).
  constexpr int BOXC = COLS % 64 == 0 ? 64 : 32, RB = 2 * BOXC, CPR = RB / 16;  // columns, bytes, 16-byte chunks a row
  const int sw = BOXC == 64 ? lr % 8 : (lr >> 1) % 4;  // the row's swizzle (the same for rows lr and lr + 8)
  using P = typename pair_of<TOut>::type;
  ws_staging_acquire(c, tid);
  const int64_t nq = n0 + 2 * q;  // this thread's first column
  auto rows = [&](auto plain) {
    const float alpha = p.alpha, beta = p.beta;
    const bool vc = ((uintptr_t)p.c & 3) == 0 && (p.ldc & 1) == 0, vb = ((uintptr_t)p.bias & 3) == 0;
    const TOut *bias = reinterpret_cast<const TOut *>(p.bias) + nq;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = lr + 8 * h;  // row within the 64; r % 8 == lr % 8
      const int64_t m = m0 + r;
      const bool mok = m < p.m;
      const TOut *cr = reinterpret_cast<const TOut *>(p.c) + m * p.ldc + nq;
      const uint32_t row = stage + r * RB + 4 * q;
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i) {
        float v0 = alpha * d[4 * i + 2 * h], v1 = alpha * d[4 * i + 2 * h + 1];
        if (!decltype(plain)::value) {
          const int64_t n = nq + 8 * i;
          const bool pair = n + 1 < p.n, one = n < p.n;
          if (beta != 0.f) {
            float2 cv = make_float2(0.f, 0.f);  // rows past M, columns past N: not stored
            if (mok && pair && vc)
              cv = to_f32x2(*reinterpret_cast<const P *>(cr + 8 * i));
            else if (mok) {
              if (one) cv.x = to_f32(cr[8 * i]);
              if (pair) cv.y = to_f32(cr[8 * i + 1]);
            }
            v0 += beta * cv.x, v1 += beta * cv.y;
          }
          if (p.bias) {
            float2 b = make_float2(0.f, 0.f);
            if (pair && vb)
              b = to_f32x2(*reinterpret_cast<const P *>(bias + 8 * i));
            else {
              if (one) b.x = to_f32(bias[8 * i]);
              if (pair) b.y = to_f32(bias[8 * i + 1]);
            }
            v0 += b.x, v1 += b.y;
          }
        }
        const P v = pair_of<TOut>::from(v0, v1);
        // box i / CPR, chunk i % CPR of the row, swizzled
        const uint32_t at = row + (i / CPR) * (64 * RB) + (((i % CPR) ^ sw) * 16);
        asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(at), "r"(*reinterpret_cast<const uint32_t *>(&v)) : "memory");
      }
    }
  };
  if (p.beta == 0.f && !p.bias)
    rows(std::true_type{});
  else
    rows(std::false_type{});
  ws_staging_publish(c);
  if (tid == 0) {
    if (m0 < p.m)  // a multicast cluster's last M tile may lie past M
#pragma unroll
      for (int b = 0; b < COLS / BOXC; ++b)
        if (n0 + BOXC * b < p.n) tma_store_2d(&p.tma_d, stage + b * (64 * RB), (int32_t)(n0 + BOXC * b), (int32_t)m0);
    tma_store_commit();
  }
}

// ws_epilogue_tma_nm (ws_swap_ab) stores a consumer warpgroup's 64 x COLS
// accumulator d, whose rows are D's columns n0…n0+63 (the weights) and
// whose columns are D's rows m0…m0+COLS−1 (the tokens), through the staging
// buffer at stage: COLS rows of 128 bytes (the 64 columns of D), 128-byte
// swizzle, stored by one TMA store of tma_d's box {64, COLS} at (n0, m0).
// Element (n0 + lr + 8h, m0 + 2q + 8i + b) goes to row 2q + 8i + b, 16-byte
// chunk (lr + 8h) / 8 swizzled by the row's r % 8, at 2-byte slot lr % 8: a
// warp's 2-byte stores of one (i, b, h) cover 4 rows x 16 bytes, every bank
// once. The arithmetic is ws_epilogue_nm's, in its order (so the same bits):
// alpha·acc, + beta·C, + bias[n] (0 without bias), convert. C and bias
// loads are predicated at the tails; TMA clips rows past M and columns past
// N. split_k == 1 only.
template <typename TOut, int COLS>
__device__ __forceinline__ void ws_epilogue_tma_nm(const gr_gemm_params &p, const float (&d)[COLS / 2], int64_t n0,
                                                   int64_t m0, int lr, int q, uint32_t stage, int c, int tid) {
  static_assert(sizeof(TOut) == 2 && COLS % 8 == 0 && COLS <= 256, "16-bit D, a box of at most 256 rows");
  ws_staging_acquire(c, tid);
  const float alpha = p.alpha, beta = p.beta;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int nl = lr + 8 * h;  // column of D within the 64
    const int64_t n = n0 + nl;
    const bool nok = n < p.n;
    const float bn = p.bias && nok ? to_f32(reinterpret_cast<const TOut *>(p.bias)[n]) : 0.f;
    const TOut *cc = reinterpret_cast<const TOut *>(p.c) + n;
#pragma unroll
    for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
      for (int b = 0; b < 2; ++b) {
        const int r = 2 * q + 8 * i + b;  // row of D within the tile
        float v = alpha * d[4 * i + 2 * h + b];
        if (beta != 0.f && nok && m0 + r < p.m) v += beta * to_f32(cc[(m0 + r) * p.ldc]);
        const TOut o = from_f32<TOut>(v + bn);
        const uint32_t at = stage + r * 128 + (((nl / 8) ^ (r % 8)) * 16) + (nl % 8) * 2;
        asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(at), "h"(*reinterpret_cast<const unsigned short *>(&o)) : "memory");
      }
  }
  ws_staging_publish(c);
  if (tid == 0) {
    if (n0 < p.n && m0 < p.m) tma_store_2d(&p.tma_d, stage, (int32_t)n0, (int32_t)m0);
    tma_store_commit();
  }
}

// ws_epilogue_tile is a consumer warpgroup's epilogue of one tile (ws_wgmma's
// last step): its accumulators acc[w][0] (MW 64-row blocks, the sets already
// summed; wgmma's layout) for the tile at row_base, col_base of the
// accumulator's rows and columns (ROLE ws_swap_ab: D's columns and rows) go
// to D by the EPI policy, or as fp32 partials to the workspace slice z
// (split_k > 1, the register path). A consumer c of one block owns rows
// 64c…; BM = 256's rows 128c…; a ping-pong consumer (CONS ws_pingpong) the
// whole tile. staging is its shared
// buffer for EPI::tma_store, tid its thread in the warpgroup (warp tid / 32, lane
// tid % 32).
template <typename TOut, int COLS, class ROLE, class CONS, class EPI, int MW, int NA>
__device__ __forceinline__ void ws_epilogue_tile(const gr_gemm_params &p, int z, const float (&acc)[MW][NA][COLS / 2],
                                                 int64_t row_base, int64_t col_base, int c, int tid, int warp, int lane,
                                                 uint32_t staging) {
  const int r0 = c * 64 + warp * 16 + lane / 4, q0 = 2 * (lane % 4);  // the thread's first row and column pair
  const float(&d)[COLS / 2] = acc[0][0];
  if constexpr (ROLE::swap) {  // EPI::tma_store: the consumer's 64 weight rows, staged transposed, by TMA
    bool staged = false;
    if constexpr (EPI::tma_store)
      if (p.split_k == 1) {
        ws_epilogue_tma_nm<TOut, COLS>(p, d, row_base + c * 64, col_base, warp * 16 + lane / 4, lane % 4, staging, c, tid);
        staged = true;
      }
    if (!staged) ws_epilogue_nm<TOut, COLS>(p, z, d, row_base + r0, col_base + q0);
  } else if constexpr (CONS::pingpong && !EPI::tma_store) {  // this consumer's whole tile: two 64-row blocks
    // (apart from the MW == 2 loop below, which computes the same stores: folded into it, the
    // register ping-pong compiles to other code, and its table entries lose their digests)
    ws_epilogue_mn<TOut, COLS>(p, z, acc[0][0], row_base + warp * 16 + lane / 4, col_base + q0);
    ws_epilogue_mn<TOut, COLS>(p, z, acc[1][0], row_base + 64 + warp * 16 + lane / 4, col_base + q0);
  } else if constexpr (MW == 2) {  // two 64-row blocks: ping-pong (TMA store), the consumer's whole tile; BM = 256, its rows 128c…
#pragma unroll
    for (int w = 0; w < 2; ++w) {
      const int64_t m0 = row_base + (CONS::pingpong ? 0 : c * 128) + 64 * w;
      bool staged = false;  // the staging buffer takes the blocks in turn
      if constexpr (EPI::tma_store)
        if (p.split_k == 1) {
          ws_epilogue_tma<TOut, COLS>(p, acc[w][0], m0, col_base, warp * 16 + lane / 4, lane % 4, staging, c, tid);
          staged = true;
        }
      if (!staged) ws_epilogue_mn<TOut, COLS>(p, z, acc[w][0], m0 + warp * 16 + lane / 4, col_base + q0);
    }
  } else if constexpr (EPI::tma_store) {  // staged, stored by TMA; split-K partials from registers
    if (p.split_k > 1)
      ws_epilogue_mn<TOut, COLS>(p, z, d, row_base + r0, col_base + q0);
    else
      ws_epilogue_tma<TOut, COLS>(p, d, row_base + c * 64, col_base, warp * 16 + lane / 4, lane % 4, staging, c, tid);
  } else {
    ws_epilogue_mn<TOut, COLS>(p, z, d, row_base + r0, col_base + q0);
  }
}

}  // namespace gr
