// ws_wgmma.cuh — Hopper warp-specialized GEMM family (sm_90a): TMA loads
// into a ring of shared-memory stages guarded by mbarriers, one producer
// warpgroup, one or two consumer warpgroups issuing wgmma.
//
// A block computes BM x BN tiles of D (BM rows of A, the tokens; BN rows of
// B, the weights). Elements are 16-bit or e4m3; a box row is 128 bytes, EB
// = 128/sizeof(T) elements (64 or 128). Warpgroup 0 is the producer: it
// gives registers back (setmaxnreg) and one thread walks the block's
// k-tiles (BK = EB·KB elements of K), waits until the ring's next stage is
// empty, announces its bytes on the stage's full barrier and starts 2·KB
// TMA copies, KB boxes of BM x EB of A and of BN x EB of B (128-byte
// swizzle, zero-filled past M, N and K: the K tail needs no special case). KB > 1 makes each DRAM visit to
// a weight row 128·KB contiguous bytes. In SWAP mode the weight loads carry
// an L2 evict-first policy (read once; the tokens stay cached). Warpgroups
// 1…C are consumers: each waits for a full stage, issues its 4·KB k16 steps
// of wgmma (32 bytes of K each), keeps that group in flight and, once the
// previous group has retired, releases the previous stage (one arrival per
// consumer on its empty barrier).
// e4m3 (KB = 1, so a k-tile is one 128-element k-block): the tensor cores'
// fp8 accumulator keeps about 14 bits, so each k-tile's wgmma go to fresh
// accumulators (`part`; a chain's first wgmma ignores their old values),
// which the consumer awaits (wgmma_wait<0>), releases the stage and adds to
// the fp32 accumulator — the promotion that keeps long-K sums at fp32
// accuracy (without it the H200 missed a 2^-13·Σ|terms| bound from K ≈ 1000).
// In the tensor and row modes the fp32 accumulator is scaled (ws_scale)
// before the epilogue; with B128 (the 128-block mode) each k-tile's part is
// added times the k-block's scales of A's row and B's 128-row block. B's
// block must be one per tile column range: BN = 128 (tn·128 is
// block-aligned), or with SWAP a consumer's 64 weight rows.
//
// Which operand sits on wgmma's 64-row side is the SWAP choice:
//   SWAP = false (large M): consumer c owns A rows 64c…64c+63 and all BN
//     columns: wgmma m64nBNk16, C = BM/64 consumers.
//   SWAP = true (skinny M, weight streaming): consumer c owns weight rows
//     64c…64c+63 of the BN, and the BM tokens are wgmma's N (16…256):
//     wgmma m64nBMk16, C = BN/64 consumers; no tensor-core row is spent on
//     absent tokens. The producer is the same; the epilogue transposes.
// NACC > 1 spreads a k-tile's 4 k16 steps over NACC accumulator sets
// (summed in order at the end): independent wgmma chains, which small-N
// (swap) tiles need to keep the tensor cores busy; it costs NACC× the
// accumulator registers.
// The epilogue runs from registers, with M and N tails predicated: alpha,
// beta·C, bias, convert, store (column pairs in one 4-byte store where
// alignment allows); with split_k > 1 the fp32 partials go to
// workspace[z][m][n] and splitk_reduce applies the epilogue.
// CS > 1 (cluster split-K): the kernel is launched with __cluster_dims__(1,
// 1, CS) and gridDim.z a multiple of CS; the CS blocks of a cluster split
// one tile's K evenly (k-tiles of 64), write their fp32 partials to shared
// memory, and block r sums rows r·ROWS/CS… of all partials in rank order
// through distributed shared memory (deterministic, no workspace, no reduce
// kernel) and applies the epilogue. Such kernels run with split_k = 1.
// PP (ping-pong, non-swap BM = 128, two consumers): each consumer takes
// whole tiles, alternately (two m64 wgmma per k16 step), so one
// consumer's epilogue overlaps the other's main loop; the empty barriers
// then count one arrival, and a turn barrier per consumer keeps the two
// within one round of the ring. It pays only with a persistent grid (≥ 2
// tiles per block); under the dispatch grid one consumer would idle.
// MC = 2 (multicast clusters, non-swap): the kernel is compiled with
// __cluster_dims__(2, 1, 1) and launched persistent (gridDim.x even); the
// two blocks of a cluster take M tiles 2g and 2g + 1 of one N tile (a tile
// id then names such a group), and block r loads rows r·BN/2… of each B box
// into both blocks' shared memory by one multicast copy (tma_b's box is BN/2
// rows), so the weights cross L2 once per two M tiles. A stage is free once
// the consumers of both blocks have released it: empty barriers count the
// consumers of both (each consumer arrives on both blocks'), and neither
// block leaves before the other (cluster barrier at the end). The last
// group's second M tile may lie past M: loaded as zeros, never stored.
// Tiles: ceil(M/BM) x ceil(N/BN) x split_k, numbered in grouped order
// (ws_tile). Block b of a grid of G blocks computes tiles b, b + G, …: the
// dispatch grid (ceil(N/BN), ceil(M/BM), split_k) gives one tile a block;
// a persistent grid (one block per SM) walks several, and the producer then
// loads the next tile's stages while the consumers run the epilogue.
// The ring's stage and parity run on across tiles. With CS > 1 a cluster
// counts as one block and walks tiles likewise (the producer then waits at
// each tile's two cluster barriers).
//
// Block: (C + 1) × 128 threads, __launch_bounds__(threads, 1) (setmaxnreg
// needs the cap). Dynamic shared memory: STAGES × KB × (BM + BN) × 128 bytes
// (+ ROWS × (COLS + 1) × 4 with CS > 1) + 1024 (stages start on a 1024-byte
// boundary, as the swizzle atoms must); the 2 × STAGES mbarriers are static
// shared memory.
// Tensor maps (gemm_params.h): tma_a with BM-row boxes, tma_b with BN-row
// boxes (the manifest's tma_box = {BM, BN}).
//
// Constraints (written into the manifest by the generator):
//   A and B 16-byte aligned, lda and ldb multiples of 16 bytes, K a
//   multiple of 16 bytes (TMA strides).  (ptr_align 16, ld_align 16, k_multiple 16/sizeof(T))
//   M, N, K and the tile count below 2^31 (TMA coordinates, tile ids);
//   offsets into C, D and the workspace are 64-bit. split-K: any factor, workspace reduction,
//   k_per_split a multiple of BK = EB·KB (the manifest's tile_k).
#pragma once
#include <type_traits>
#include "block_tile.cuh"
#include "convert.cuh"
#include "epilogue.cuh"
#include "mma_sm80.cuh"
#include "scales.cuh"
#include "sm90_tma.cuh"
#include "wgmma_sm90.cuh"

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

__device__ __forceinline__ float2 to_f32x2(__nv_bfloat162 x) { return __bfloat1622float2(x); }
__device__ __forceinline__ float2 to_f32x2(__half2 x) { return __half22float2(x); }
template <typename T> struct pair_of;
template <> struct pair_of<__nv_bfloat16> {
  using type = __nv_bfloat162;
  static __device__ __forceinline__ type from(float a, float b) { return __floats2bfloat162_rn(a, b); }
};
template <> struct pair_of<__half> {
  using type = __half2;
  static __device__ __forceinline__ type from(float a, float b) { return __floats2half2_rn(a, b); }
};

// ws_store finishes D[m, n] when it lies inside M x N: store_out's
// epilogue, or with split_k > 1 the fp32 partial of split z. Out of line:
// it serves the tails and the cluster reduction, not the common path.
template <typename TOut>
__device__ __noinline__ void ws_store(const gr_gemm_params &p, int z, int64_t m, int64_t n, float v) {
  if (m >= p.m || n >= p.n) return;
  if (p.split_k > 1)
    p.workspace[((int64_t)z * p.m + m) * p.n + n] = v;
  else
    store_out<TOut>(p, m, n, v);
}

// The register epilogues below run once per tile on one or two warps per
// scheduler, so they are written for few instructions per element: row
// pointers hoisted, column offsets compile-time, uniform branches for beta,
// bias and split-K, the general path (ws_store) only at the M/N tails.
// d is a warpgroup's 64 x COLS accumulator (wgmma layout); r0 is this
// thread's first accumulator row (global), q0 its first column (global).

// ws_epilogue_mn: accumulator rows are D's rows (m), columns D's columns
// (n); column pairs go out in one 4-byte access (8 bytes for partials) when
// ldc is even and c, d, bias 4-byte aligned (partials: N even, workspace
// 8-byte aligned).
template <typename TOut, int COLS>
__device__ __forceinline__ void ws_epilogue_mn(const gr_gemm_params &p, int z, const float (&d)[COLS / 2], int64_t r0,
                                               int64_t q0) {
  using P = typename pair_of<TOut>::type;
  const bool all_n = q0 + COLS - 7 < p.n;  // this thread's last column pair lies inside N
  if (p.split_k > 1) {
    const bool vec = (p.n & 1) == 0 && ((uintptr_t)p.workspace & 7) == 0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t m = r0 + 8 * h;
      if (m >= p.m) continue;
      float *w = p.workspace + ((int64_t)z * p.m + m) * p.n + q0;
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i) {
        const float v0 = d[4 * i + 2 * h], v1 = d[4 * i + 2 * h + 1];
        if (vec && (all_n || q0 + 8 * i + 1 < p.n)) {
          *reinterpret_cast<float2 *>(w + 8 * i) = make_float2(v0, v1);
        } else {
          ws_store<TOut>(p, z, m, q0 + 8 * i, v0);
          ws_store<TOut>(p, z, m, q0 + 8 * i + 1, v1);
        }
      }
    }
    return;
  }
  const bool vec = (p.ldc & 1) == 0 && (((uintptr_t)p.d | (uintptr_t)p.c | (uintptr_t)p.bias) & 3) == 0;
  if (!vec || !all_n) {  // tails and unaligned outputs: element by element
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
        for (int b = 0; b < 2; ++b) ws_store<TOut>(p, z, r0 + 8 * h, q0 + 8 * i + b, d[4 * i + 2 * h + b]);
    return;
  }
  // rows: PLAIN (beta == 0, no bias) is alpha·acc alone
  auto rows = [&](auto plain) {
    const float alpha = p.alpha, beta = p.beta;
    const TOut *bias = reinterpret_cast<const TOut *>(p.bias) + q0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t m = r0 + 8 * h;
      if (m >= p.m) continue;
      TOut *dr = reinterpret_cast<TOut *>(p.d) + m * p.ldc + q0;
      const TOut *cr = reinterpret_cast<const TOut *>(p.c) + m * p.ldc + q0;
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i) {
        float v0 = alpha * d[4 * i + 2 * h], v1 = alpha * d[4 * i + 2 * h + 1];
        if (!decltype(plain)::value) {
          if (beta != 0.f) {
            const float2 c = to_f32x2(*reinterpret_cast<const P *>(cr + 8 * i));
            v0 += beta * c.x, v1 += beta * c.y;
          }
          if (p.bias) {
            const float2 b = to_f32x2(*reinterpret_cast<const P *>(bias + 8 * i));
            v0 += b.x, v1 += b.y;
          }
        }
        *reinterpret_cast<P *>(dr + 8 * i) = pair_of<TOut>::from(v0, v1);
      }
    }
  };
  if (p.beta == 0.f && !p.bias)
    rows(std::true_type{});
  else
    rows(std::false_type{});
}

// ws_epilogue_nm (SWAP): accumulator rows are D's columns (n, the weights),
// columns D's rows (m, the tokens); each element is one store, at row
// stride ldc. bias[n] is read once per accumulator row.
template <typename TOut, int COLS>
__device__ __forceinline__ void ws_epilogue_nm(const gr_gemm_params &p, int z, const float (&d)[COLS / 2], int64_t r0,
                                               int64_t q0) {
  const bool all_m = q0 + COLS - 7 < p.m;  // this thread's last token lies inside M
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int64_t n = r0 + 8 * h;
    if (n >= p.n) continue;
    if (p.split_k > 1) {
      float *w = p.workspace + ((int64_t)z * p.m + q0) * p.n + n;
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
        for (int b = 0; b < 2; ++b)
          if (all_m || q0 + 8 * i + b < p.m) w[(8 * i + b) * p.n] = d[4 * i + 2 * h + b];
      continue;
    }
    const float alpha = p.alpha, beta = p.beta, bn = p.bias ? to_f32(reinterpret_cast<const TOut *>(p.bias)[n]) : 0.f;
    TOut *dc = reinterpret_cast<TOut *>(p.d) + q0 * p.ldc + n;
    const TOut *cc = reinterpret_cast<const TOut *>(p.c) + q0 * p.ldc + n;
#pragma unroll
    for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
      for (int b = 0; b < 2; ++b)
        if (all_m || q0 + 8 * i + b < p.m) {
          float v = alpha * d[4 * i + 2 * h + b];
          if (beta != 0.f) v += beta * to_f32(cc[(8 * i + b) * p.ldc]);
          dc[(8 * i + b) * p.ldc] = from_f32<TOut>(v + bn);
        }
  }
}

// ws_scale multiplies a warpgroup's 64 x COLS accumulator by the e4m3
// tensor or row scales (nothing in the folded mode): r0 is this thread's
// first accumulator row, q0 its first column, both global (rows are m,
// columns n; with SWAP the other way round).
template <bool SWAP, int COLS>
__device__ __forceinline__ void ws_scale(const gr_gemm_params &p, float (&d)[COLS / 2], int64_t r0, int64_t q0) {
  if (p.scaling != GR_SCALE_TENSOR && p.scaling != GR_SCALE_ROW) return;
  float sr[2], sq[COLS / 4];
#pragma unroll
  for (int h = 0; h < 2; ++h)
    sr[h] = p.scaling == GR_SCALE_TENSOR ? scale_at(p, 0, 0) : SWAP ? row_scale_b(p, r0 + 8 * h) : row_scale_a(p, r0 + 8 * h);
#pragma unroll
  for (int j = 0; j < COLS / 4; ++j) {
    const int64_t q = q0 + 8 * (j / 2) + j % 2;
    sq[j] = p.scaling == GR_SCALE_TENSOR ? 1.f : SWAP ? row_scale_a(p, q) : row_scale_b(p, q);
  }
#pragma unroll
  for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) d[4 * i + e] *= sr[e >> 1] * sq[2 * i + (e & 1)];
}

template <typename T, typename TOut, int BM, int BN, int STAGES, bool SWAP, int NACC = 1, int CS = 1, int KB = 1,
          bool PP = false, bool B128 = false, int MC = 1>
__device__ void ws_wgmma(const gr_gemm_params &p) {
  constexpr int EB = 128 / sizeof(T);  // elements per 128-byte box row
  constexpr int BK = EB * KB;          // K per stage: KB boxes
  constexpr int ROWS = SWAP ? BN : BM, COLS = SWAP ? BM : BN, CONSUMERS = ROWS / 64;
  static_assert(ROWS == 64 || ROWS == 128, "one or two consumer warpgroups of 64 rows");
  static_assert(sizeof(T) == 2 || sizeof(T) == 1, "16-bit or e4m3 elements");
  static_assert(STAGES >= 2, "a stage loading while one is multiplied");
  static_assert(4 * KB % NACC == 0, "the wgmma steps of a k-tile spread evenly over the accumulator sets");
  static_assert(!PP || (!SWAP && CS == 1 && NACC == 1 && BM == 128), "ping-pong: two consumers of whole 128-row tiles");
  constexpr bool PROMOTE = sizeof(T) == 1;  // e4m3: fp32 promotion every k-tile
  static_assert(!PROMOTE || (KB == 1 && CS == 1 && !PP), "e4m3: one 128-element k-block per k-tile, promoted; no room for ping-pong");
  static_assert(!B128 || (PROMOTE && (SWAP || BN == 128)), "128-block scales: e4m3, one B block per consumer");
  constexpr int MW = PP ? 2 : 1;  // 64-row blocks per consumer
  constexpr uint32_t A_BOX = BM * 128, B_BOX = BN * 128, A_STAGE = KB * A_BOX, B_STAGE = KB * B_BOX;  // bytes
  static_assert(MC == 1 || (MC == 2 && !SWAP && CS == 1), "multicast: two blocks of a cluster along M share B");
  constexpr uint32_t B_PART = B_BOX / MC;  // bytes of each B box a cluster block loads for all
  static_assert(B_PART % 1024 == 0, "multicast parts of whole 8-row swizzle atoms");
  static_assert(A_BOX % 1024 == 0 && B_BOX % 1024 == 0, "boxes of whole 8-row swizzle atoms");
  constexpr int RED = CS > 1 ? COLS + 1 : 0;  // row pitch (floats) of the cluster-reduction buffer
  constexpr int REGS = CONSUMERS == 2 ? 232 : 240;  // consumer budget; the producer keeps 40
  extern __shared__ __align__(1024) unsigned char gr_smem_ws[];
  __shared__ __align__(8) uint64_t gr_ws_bars[2 * STAGES + 2];
  const uint32_t sa = (smem_addr(gr_smem_ws) + 1023) & ~1023u, sb = sa + STAGES * A_STAGE;
  const uint32_t red = sb + STAGES * B_STAGE;  // CS > 1: ROWS x RED floats
  const uint32_t full = smem_addr(gr_ws_bars), empty = full + STAGES * 8;  // barrier s at +8s
  const uint32_t turn = empty + STAGES * 8;  // PP: turn[c] at +8c, see the consumers' tile loop
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, (PP ? 1 : CONSUMERS) * MC);  // MC: the consumers of every block that receives B
    }
    mbar_init(turn, 1);
    mbar_init(turn + 8, 1);
    mbar_init_fence();
  }
  if constexpr (MC > 1)
    cluster_sync();  // the other block's copies and arrivals reach initialized barriers
  else
    __syncthreads();
  // With CS > 1 the blocks of a cluster (CS along z) split one tile's K and
  // the workspace protocol is unused; else split_k splits come from the tile id.
  const int splits = CS > 1 ? CS : max(p.split_k, 1);
  const int64_t kps = CS > 1 ? ((p.k + CS - 1) / CS + BK - 1) / BK * BK : p.k_per_split;
  // MC > 1: the MC blocks of a cluster (consecutive along x) take MC
  // consecutive M tiles of one N tile; a tile id then names such a group.
  const int64_t mt = (p.m + BM - 1) / BM, nt = (p.n + BN - 1) / BN, mtc = (mt + MC - 1) / MC;
  const int64_t tiles = mtc * nt * (CS > 1 ? 1 : splits);
  const int64_t blocks = (int64_t)gridDim.x * gridDim.y * (gridDim.z / CS) / MC;
  const int64_t first = (blockIdx.x + (int64_t)gridDim.x * (blockIdx.y + (int64_t)gridDim.y * (blockIdx.z / CS))) / MC;
  const int rank = CS > 1 ? (int)(blockIdx.z % CS) : 0;
  const int crank = MC > 1 ? (int)(blockIdx.x % MC) : 0;  // this block's M tile in its cluster's group
  // tile_work: tile t's M tile, N tile and split (ws_tile), and its k-tiles
  // from K offset kb — what the producer loads and the consumers multiply.
  // With MC > 1 the last group's M tiles may lie past M (loaded as zeros,
  // never stored).
  auto tile_work = [&](int64_t t, int64_t &tm, int64_t &tn, int &z, int64_t &kb) {
    ws_tile((uint32_t)t, (uint32_t)mtc, (uint32_t)nt, tm, tn, z);
    tm = tm * MC + crank;
    return ws_k_tiles<BK>(p.k, splits, kps, CS > 1 ? rank : z, kb);
  };

  if (wg == 0) {  // producer
    setmaxnreg_dec<40>();
    const bool leader = tid < 32 && elect_one();
    if (leader) {
      tma_prefetch_map(&p.tma_a);
      tma_prefetch_map(&p.tma_b);
    }
    int s = 0;
    uint32_t phase = 0;
    for (int64_t t = first; t < tiles; t += blocks) {
      int64_t tm, tn, kb;
      int z;
      const int nk = tile_work(t, tm, tn, z, kb);
      for (int kt = 0; leader && kt < nk; ++kt) {
        mbar_wait(empty + 8 * s, phase ^ 1);  // MC: released by the consumers of every block receiving B
        mbar_arrive_expect_tx(full + 8 * s, A_STAGE + B_STAGE);  // MC: B_PART of each box from each block
#pragma unroll
        for (int j = 0; j < KB; ++j) {  // boxes past K (the last stage) arrive as zeros
          const int32_t k = (int32_t)(kb + kt * BK + j * EB);
          tma_load_2d(sa + s * A_STAGE + j * A_BOX, &p.tma_a, full + 8 * s, k, (int32_t)(tm * BM));
          if (SWAP)  // weights are read once: evict them first, keep the tokens
            tma_load_2d_hint(sb + s * B_STAGE + j * B_BOX, &p.tma_b, full + 8 * s, k, (int32_t)(tn * BN), l2_evict_first());
          else if constexpr (MC > 1)  // rows crank·BN/MC… of B's box, into every block of the cluster
            tma_load_2d_multicast(sb + s * B_STAGE + j * B_BOX + crank * B_PART, &p.tma_b, full + 8 * s, k,
                                  (int32_t)(tn * BN + crank * (BN / MC)), (uint16_t)((1u << MC) - 1));
          else
            tma_load_2d(sb + s * B_STAGE + j * B_BOX, &p.tma_b, full + 8 * s, k, (int32_t)(tn * BN));
        }
        if (++s == STAGES) s = 0, phase ^= 1;
      }
      if constexpr (CS > 1) {  // the consumers' two cluster barriers of this tile
        cluster_sync();
        cluster_sync();
      }
    }
    if constexpr (MC > 1) cluster_sync();  // no block leaves while another may still reach its shared memory
    return;
  }

  setmaxnreg_inc<REGS>();  // consumers
  const int c = wg - 1, warp = tid / 32, lane = tid % 32;
  constexpr uint32_t ROW_STAGE = SWAP ? B_STAGE : A_STAGE, COL_STAGE = SWAP ? A_STAGE : B_STAGE;
  constexpr uint32_t ROW_BOX = SWAP ? B_BOX : A_BOX, COL_BOX = SWAP ? A_BOX : B_BOX;
  const uint32_t rows = (SWAP ? sb : sa) + (PP ? 0 : c * 64 * 128), cols = SWAP ? sa : sb;
  // acc[w][a]: 64-row block w of this consumer (PP: two), wgmma step kk into
  // set kk % NACC (NACC independent chains); with PROMOTE the chains are
  // part[a], promoted into acc[0][0] after every k-tile.
  constexpr int NA = PROMOTE ? 1 : NACC, NP = PROMOTE ? NACC : 1;
  float acc[MW][NA][COLS / 2];
  float part[NP][PROMOTE ? COLS / 2 : 1];
  const int64_t kblocks = B128 ? block_kblocks(p) : 0;
  // release: this consumer is done with stage st (MC: in every block whose
  // producer loads into it).
  auto release = [&](int st) {
    if (tid != 0) return;
    if constexpr (MC > 1) {
#pragma unroll
      for (int r = 0; r < MC; ++r) mbar_arrive_cluster(empty + 8 * st, r);
    } else {
      mbar_arrive(empty + 8 * st);
    }
  };
  int s = 0, own = 0;
  uint32_t phase = 0;
  for (int64_t t = first; t < tiles; t += blocks) {
    int64_t tm, tn, kb;
    int z;
    const int nk = tile_work(t, tm, tn, z, kb);
    // PP: consumer c takes this block's tiles j ≡ c (mod 2) and passes over
    // the other's stages. Parity waits cannot tell rounds two apart, so
    // before its tile j it also waits on turn[c] until the other consumer
    // has seen every full barrier of tile j − 1 (its arrival after that
    // main loop): the two then stay within one round of the ring.
    const int j = own++;
    if (PP && (j & 1) != c) {
      s += nk;
      phase ^= (uint32_t)(s / STAGES) & 1;
      s %= STAGES;
      continue;
    }
    if (PP && j > 0) mbar_wait(turn + 8 * c, (uint32_t)((j - 1) / 2) & 1);
#pragma unroll
    for (int w = 0; w < MW; ++w)
#pragma unroll
      for (int a = 0; a < NA; ++a)
#pragma unroll
        for (int i = 0; i < COLS / 2; ++i) acc[w][a][i] = 0.f;
    // accumulator (row, col): row r0 + 8h on wgmma's 64-row side, col q0 + 8i
    const int r0 = c * 64 + warp * 16 + lane / 4, q0 = 2 * (lane % 4);
    const int64_t row_base = SWAP ? tn * BN : tm * BM, col_base = SWAP ? tm * BM : tn * BN;
    int prev = -1;  // the stage whose wgmma may still be in flight
    for (int kt = 0; kt < nk; ++kt) {
      // B128: this k-block's scale of element 4i + 2h + b is sr[h]·sq[2i + b]
      float sr[2], sq[B128 ? COLS / 4 : 1];
      if constexpr (B128) {
        const int64_t kbi = (kb + (int64_t)kt * BK) / GR_SCALE_BLOCK_K;
#pragma unroll
        for (int h = 0; h < 2; ++h)
          sr[h] = SWAP ? block_scale_b(p, row_base + c * 64, kbi, kblocks) : block_scale_a(p, row_base + r0 + 8 * h, kbi);
#pragma unroll
        for (int j = 0; j < COLS / 4; ++j)
          sq[j] = SWAP ? block_scale_a(p, col_base + q0 + 8 * (j / 2) + j % 2, kbi) : block_scale_b(p, col_base, kbi, kblocks);
      }
      mbar_wait(full + 8 * s, phase);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4 * KB; ++kk)  // box kk / 4, 32-byte step kk % 4 in it
#pragma unroll
        for (int w = 0; w < MW; ++w) {
          const uint64_t da = smem_desc(rows + s * ROW_STAGE + kk / 4 * ROW_BOX + w * 64 * 128 + kk % 4 * 32);
          const uint64_t db = smem_desc(cols + s * COL_STAGE + kk / 4 * COL_BOX + kk % 4 * 32);
          if constexpr (PROMOTE) {  // each chain starts afresh in every k-tile
            if (kk < NP)
              wgmma<T, COLS>::run_first(part[kk % NP], da, db);
            else
              wgmma<T, COLS>::run(part[kk % NP], da, db);
          } else
            wgmma<T, COLS>::run(acc[w][kk % NA], da, db);
        }
      wgmma_commit();
      if constexpr (PROMOTE) {  // promote: acc += part (· block scales), then the stage is free
#pragma unroll
        for (int a = 0; a < NP; ++a) pin_registers(part[a]);
        wgmma_wait<0>();
#pragma unroll
        for (int a = 0; a < NP; ++a) pin_registers(part[a]);
        release(s);
#pragma unroll
        for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            float v = part[0][4 * i + e];
#pragma unroll
            for (int a = 1; a < NP; ++a) v += part[a][4 * i + e];
            if constexpr (B128)
              acc[0][0][4 * i + e] = fmaf(v, sr[e >> 1] * sq[2 * i + (e & 1)], acc[0][0][4 * i + e]);
            else
              acc[0][0][4 * i + e] += v;
          }
      } else {
#pragma unroll
        for (int w = 0; w < MW; ++w)
#pragma unroll
          for (int a = 0; a < NA; ++a) pin_registers(acc[w][a]);
        wgmma_wait<1>();
#pragma unroll
        for (int w = 0; w < MW; ++w)
#pragma unroll
          for (int a = 0; a < NA; ++a) pin_registers(acc[w][a]);
        if (prev >= 0) release(prev);
        prev = s;
      }
      if (++s == STAGES) s = 0, phase ^= 1;
    }
    if (PP && tid == 0) mbar_arrive(turn + 8 * (1 - c));  // the other consumer's turn
    wgmma_wait<0>();
#pragma unroll
    for (int w = 0; w < MW; ++w)
#pragma unroll
      for (int a = 0; a < NA; ++a) pin_registers(acc[w][a]);
    if (prev >= 0) release(prev);
#pragma unroll
    for (int w = 0; w < MW; ++w) {
#pragma unroll
      for (int a = 1; a < NA; ++a)
#pragma unroll
        for (int i = 0; i < COLS / 2; ++i) acc[w][0][i] += acc[w][a][i];
      if constexpr (sizeof(T) == 1 && !B128)
        ws_scale<SWAP, COLS>(p, acc[w][0], row_base + (PP ? 64 * w + warp * 16 + lane / 4 : r0), col_base + q0);
    }
    const float(&d)[COLS / 2] = acc[0][0];
    if constexpr (CS > 1) {
      // cluster split-K: partials to shared memory; after a cluster barrier,
      // block `rank` sums rows [rank·ROWS/CS, …) of all CS partials in rank
      // order (deterministic) and stores them; a second barrier keeps every
      // block's partials alive until all have been read.
#pragma unroll
      for (int i = 0; i < COLS / 8; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(red + 4 * ((r0 + 8 * (e >> 1)) * RED + q0 + 8 * i + (e & 1))),
                       "f"(d[4 * i + e])
                       : "memory");
      cluster_sync();
      constexpr int SLICE = ROWS / CS;
#pragma unroll 4
      for (int e = c * 128 + tid; e < SLICE * COLS; e += CONSUMERS * 128) {
        // SWAP: consecutive threads take consecutive rows (n), so D's stores coalesce
        const int row = rank * SLICE + (SWAP ? e % SLICE : e / COLS), col = SWAP ? e / SLICE : e % COLS;
        float v = 0.f;
#pragma unroll
        for (int r = 0; r < CS; ++r) v += ld_dsmem_f32(red + 4 * (row * RED + col), r);
        if (SWAP)
          ws_store<TOut>(p, 0, col_base + col, row_base + row, v);
        else
          ws_store<TOut>(p, 0, row_base + row, col_base + col, v);
      }
      cluster_sync();
    } else if constexpr (SWAP) {
      ws_epilogue_nm<TOut, COLS>(p, z, d, row_base + r0, col_base + q0);
    } else if constexpr (PP) {  // this consumer's whole tile: two 64-row blocks
      ws_epilogue_mn<TOut, COLS>(p, z, acc[0][0], row_base + warp * 16 + lane / 4, col_base + q0);
      ws_epilogue_mn<TOut, COLS>(p, z, acc[1][0], row_base + 64 + warp * 16 + lane / 4, col_base + q0);
    } else {
      ws_epilogue_mn<TOut, COLS>(p, z, d, row_base + r0, col_base + q0);
    }
  }
  if constexpr (MC > 1) cluster_sync();  // the producer's
}

}  // namespace gr
