// tiled_mma.cuh — tiled tensor-core GEMM family (mid and large M).
//
// A block computes a BM x BN tile of D, walking its split's K range in
// k-tiles of BK. Its WM x WN warps each own a (BM/WM) x (BN/WN) warp tile of
// mma.sync m16n8k16 (fp32 accumulators in registers); fragments come from
// shared memory through ldmatrix.x4 (A and B are both K-contiguous, so no
// .trans). Shared memory holds STAGES k-tiles of A [BM][BK] and B [BN][BK];
// within a row, each 16-byte chunk (8 K elements) is XOR-swizzled so that
// the 8 row addresses of an ldmatrix phase fall in distinct banks.
// Global → shared, per k-tile, thread t owns chunk column t % (BK/8) of rows
// t / (BK/8) + i * THREADS / (BK/8):
//   ALIGNED:  cp.async.cg, 16 bytes per chunk; rows past M (A) or N (B) and
//             chunks past the split's K end are zero-filled (src-size 0).
//             STAGES-1 k-tiles are in flight while one is multiplied.
//   !ALIGNED: the chunk's 8 elements are loaded one by one, each checked
//             against M/N and K, into registers before the k-tile's mma and
//             stored to shared memory after it (STAGES 2 is enough).
// Blocks are rasterized in groups of RASTER_GROUP M tiles (see raster).
// Rows past M or N compute zeros and are not stored; the epilogue goes
// through finish<TOut> (split_k > 1: fp32 partials to the workspace).
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
#include "epilogue.cuh"
#include "mma_sm80.cuh"

namespace gr {

// swizzle<BK> places chunk c (8 elements) of row r of a [rows][BK] tile at
// chunk c ^ f(r): any 8 consecutive rows (an ldmatrix phase at one logical
// chunk) then cover the 8 16-byte bank groups of a 128-byte line. f repeats
// every 8 rows (so every 16), so a fragment's lane pattern holds for every
// m16/n16 block.
template <int BK> struct swizzle {
  static constexpr int CPR = BK / 8;                   // chunks per row
  static constexpr int RPL = CPR >= 8 ? 1 : 8 / CPR;   // rows per 128-byte line
  static constexpr int MASK = (CPR >= 8 ? 8 : CPR) - 1;
  static_assert(BK >= 16 && (BK & (BK - 1)) == 0, "BK is a power of two ≥ 16");
  // bytes is the byte offset of chunk c of row r.
  static __device__ __forceinline__ uint32_t bytes(int r, int c) { return (r * BK + ((c ^ ((r / RPL) & MASK)) << 3)) * 2; }
};

// tile_loader moves one operand's k-tiles (ROWS rows of the operand from
// row0 on, BK columns) from global to shared memory: issue starts the loads
// of a k-tile, land finishes them into a stage.
template <typename T, int ROWS, int BK, int THREADS, bool ALIGNED>
struct tile_loader {
  using S = swizzle<BK>;
  static constexpr int STEP = THREADS / S::CPR;  // rows between a thread's chunks
  static constexpr int N = ROWS / STEP;          // chunks per thread and k-tile
  static_assert(THREADS % S::CPR == 0 && ROWS % STEP == 0, "the threads must tile the k-tile's chunks");
  static_assert(N <= 32, "row bits fit a word");
  const T *base;   // the operand (a valid address for zero-fill copies)
  const T *src;    // row row0 + r0, column col, at K = 0
  int64_t stride;  // STEP rows, in elements
  int r0, col;     // this thread's first row in the tile, its chunk's first column
  uint32_t rows;   // bit i: row r0 + i*STEP lies inside the operand
  uint4 reg[ALIGNED ? 1 : N];  // !ALIGNED: loaded chunks between issue and land

  __device__ __forceinline__ tile_loader(const T *op, int64_t ld, int64_t row0, int64_t nrows)
      : base(op), stride(STEP * ld), r0(threadIdx.x / S::CPR), col(threadIdx.x % S::CPR * 8), rows(0) {
    src = op + (row0 + r0) * ld + col;
#pragma unroll
    for (int i = 0; i < N; ++i) rows |= uint32_t(row0 + r0 + i * STEP < nrows) << i;
  }

  // issue starts loading the k-tile at K = k (ALIGNED: straight into the
  // shared tile at address tile; else into registers). ke is the split's K end.
  __device__ __forceinline__ void issue(uint32_t tile, int64_t k, int64_t ke) {
    const int64_t kc = k + col;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const bool rok = (rows >> i) & 1;
      const T *g = src + i * stride + k;
      if constexpr (ALIGNED) {
        const bool in = rok && kc < ke;  // K % 8 == 0: a chunk is wholly in or out
        cp_async16(tile + S::bytes(r0 + i * STEP, col / 8), in ? g : base, in);
      } else {
        const unsigned short *e = reinterpret_cast<const unsigned short *>(g);
        const int64_t room = rok ? ke - kc : 0;  // elements of this chunk inside the operand
        uint32_t w[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const uint32_t lo = 2 * j < room ? __ldg(e + 2 * j) : 0u;
          const uint32_t hi = 2 * j + 1 < room ? __ldg(e + 2 * j + 1) : 0u;
          w[j] = lo | hi << 16;
        }
        reg[i] = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
  }

  // land stores what issue loaded into the shared tile (!ALIGNED only).
  __device__ __forceinline__ void land(uint32_t tile) const {
    if constexpr (!ALIGNED) {
#pragma unroll
      for (int i = 0; i < N; ++i) st_shared16(tile + S::bytes(r0 + i * STEP, col / 8), reg[i]);
    }
  }
};

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

// raster maps the block to its (M tile, N tile) so that consecutive blocks
// sweep RASTER_GROUP M tiles per N tile: a wave then reads each weight tile
// from DRAM once for RASTER_GROUP M tiles (plain x-major order re-streams
// all weights per M tile). A bijection of the grid (gridDim.x N tiles,
// gridDim.y M tiles); the last group may hold fewer M tiles.
constexpr int RASTER_GROUP = 8;
__device__ __forceinline__ void raster(int64_t &tile_m, int64_t &tile_n) {
  const int64_t nt = gridDim.x, mt = gridDim.y, id = (int64_t)blockIdx.y * nt + blockIdx.x;
  const int64_t first = id / (RASTER_GROUP * nt) * RASTER_GROUP, within = id % (RASTER_GROUP * nt);
  const int64_t rows = min((int64_t)RASTER_GROUP, mt - first);
  tile_m = first + within % rows;
  tile_n = within / rows;
}

template <typename T, typename TOut, int BM, int BN, int BK, int WM, int WN, int STAGES, bool ALIGNED>
__device__ void tiled_mma(const gr_gemm_params &p) {
  constexpr int THREADS = WM * WN * 32, TM = BM / WM, TN = BN / WN, MI = TM / 16, NI = TN / 8;
  static_assert(TM % 16 == 0 && TN % 16 == 0, "warp tiles are multiples of 16x16");
  static_assert(STAGES >= 2, "at least double buffering");
  static_assert(sizeof(T) == 2, "16-bit elements (swizzle, ldmatrix and the element loads assume it)");
  constexpr uint32_t A_STAGE = BM * BK * 2, B_STAGE = BN * BK * 2;  // bytes
  extern __shared__ uint4 gr_smem[];
  const uint32_t sa = smem_addr(gr_smem), sb = sa + STAGES * A_STAGE;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp / WN, wn = warp % WN;
  int64_t m0, n0;
  raster(m0, n0);
  m0 *= BM, n0 *= BN;
  int64_t kb, ke;
  k_range(p, kb, ke);
  const int64_t tiles = ke > kb ? (ke - kb + BK - 1) / BK : 0;
  tile_loader<T, BM, BK, THREADS, ALIGNED> la(reinterpret_cast<const T *>(p.a), p.lda, m0, p.m);
  tile_loader<T, BN, BK, THREADS, ALIGNED> lb(reinterpret_cast<const T *>(p.b), p.ldb, n0, p.n);
  // issue starts loading k-tile kt into stage s; land completes it and
  // commits one cp.async group. Past the last k-tile both do nothing but the
  // commit (an empty group), so the wait count below stays uniform.
  auto issue = [&](int64_t kt, int s) {
    if (kt < tiles) {
      la.issue(sa + s * A_STAGE, kb + kt * BK, ke);
      lb.issue(sb + s * B_STAGE, kb + kt * BK, ke);
    }
  };
  auto land = [&](int64_t kt, int s) {
    if (kt < tiles) {
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
  const int a_row = wm * TM + (lane & 15), a_chunk = lane >> 4;
  const int b_row = wn * TN + (lane & 7) + (lane >> 4) * 8, b_chunk = (lane >> 3) & 1;
  int rd = 0, wr = STAGES - 1;  // stage multiplied, stage loaded
  for (int64_t kt = 0; kt < tiles; ++kt) {
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
  store_fragments<TOut>(p, acc, m0 + wm * TM + (lane >> 2), n0 + wn * TN + (lane & 3) * 2);
}

}  // namespace gr
