// ws_wgmma.cuh — Hopper warp-specialized GEMM family (sm_90a): TMA loads
// into a ring of shared-memory stages guarded by mbarriers, one producer
// warpgroup, one to three consumer warpgroups issuing wgmma.
//
// A block computes BM x BN tiles of D (BM rows of A, the tokens; BN rows of
// B, the weights). Elements are 16-bit or e4m3; a box row is 128 bytes, EB
// = 128/sizeof(T) elements (64 or 128). Warpgroup 0 is the producer: it
// gives registers back (setmaxnreg) and one thread loads each of the
// block's k-tiles (BK = EB·KB elements of K) into the ring by TMA
// (ws_producer.cuh: KB boxes of A and of B a stage, zero-filled past M, N
// and K; with ws_swap_ab the weights evict-first). KB > 1 makes each DRAM
// visit to a weight row 128·KB contiguous bytes. Warpgroups 1…C are
// consumers: each waits for a full stage, issues its 4·KB k16 steps of
// wgmma (32 bytes of K each) into its accumulator and gives stages back by
// the accumulate policy (ws_accumulate.cuh: 16-bit keeps one group in
// flight and releases the stage before it, or REL = ws_release_now its own;
// e4m3 (KB = 1, so a k-tile is one 128-element k-block) promotes each
// k-tile's fresh chains into fp32 and, with SCALES = ws_scales_block128,
// scales them by the k-block's scales of A's row and B's 128-row block).
// B's block must be one per tile column range: BN = 128 (tn·128 is
// block-aligned), or with ws_swap_ab a consumer's 64 weight rows. In the
// tensor and row modes (SCALES = ws_scales_after) the fp32 accumulator is
// scaled (ws_scale) before the epilogue.
//
// Which operand sits on wgmma's 64-row side is the ROLE policy
// (ws_roles.cuh; SWAP below is ROLE::swap):
//   ws_ab (large M): consumer c owns A rows 64c…64c+63 and all BN
//     columns: wgmma m64nBNk16, C = BM/64 consumers; BM = 256 (two
//     consumers, "cooperative" as cuBLAS's 256-row tiles): consumer c owns
//     rows 128c…128c+127 as two 64-row blocks, two independent wgmma chains
//     m64nBNk16 per k16 step (data-parallel or split-K schedules; no
//     stream-K, swap, ping-pong or e4m3).
//   ws_swap_ab (skinny M, weight streaming): consumer c owns weight rows
//     64c…64c+63 of the BN, and the BM tokens are wgmma's N (16…256):
//     wgmma m64nBMk16, C = BN/64 consumers; no tensor-core row is spent on
//     absent tokens. The producer is the same; the epilogue transposes.
//     At M ≥ 257 the token side in steps of 8 (104…208) fits the token
//     tiles to the SMs' waves: cuBLAS's nvjet tiles there are weights ×
//     tokens 128x136 (M = 513: 4 × 32 tiles at o), 192x176 (M = 1025:
//     6 × 22), BN = 192 being three consumers.
// NACC > 1 spreads a k-tile's k16 steps over NACC independent accumulator
// sets (ws_accumulate.cuh). The epilogue (ws_epilogue_tile in
// ws_epilogue_tma.cuh, by the EPI policy) runs from registers (ws_epilogue.cuh),
// with M and N tails predicated: alpha, beta·C, bias, convert, store (column
// pairs in one 4-byte store where alignment allows); with split_k > 1 the
// fp32 partials go to workspace[z][m][n] and splitk_reduce applies the
// epilogue.
// How the consumers share tiles is the CONS policy (ws_roles.cuh; PP below
// is CONS::pingpong): ws_cooperative (above) or ws_pingpong (non-swap
// BM = 128, two consumers): each consumer takes whole tiles, alternately
// (two m64 wgmma per k16 step), so one
// consumer's epilogue overlaps the other's main loop; the empty barriers
// then count one arrival, and a turn barrier per consumer keeps the two
// within one round of the ring. It pays only with a persistent grid (≥ 2
// tiles per block); under the dispatch grid one consumer would idle. With
// the TMA-store epilogue its two 64-row blocks go out through the
// consumer's staging buffer in turn, as BM = 256's do.
// MC = 2 (multicast clusters): the kernel is compiled with
// __cluster_dims__(2, 1, 1) and launched persistent (gridDim.x even); the
// two blocks of a cluster take M tiles 2g and 2g + 1 of one N tile (a tile
// id then names such a group), and block r loads rows r·BN/2… of each B box
// into both blocks' shared memory by one multicast copy (tma_b's box is BN/2
// rows), so the weights cross L2 once per two M tiles. With SCHED =
// ws_schedule_n the cluster lies along N instead: N tiles 2g and 2g + 1 of
// one M tile, sharing A (tma_a's box is BM/2 rows), for mid M, where every
// block reads the same few token rows (not with ws_swap_ab: there the cluster
// lies along M, two token tiles sharing the weights' box, as cuBLAS's
// nvjet 64x32 1×2 at o, M = 64). A stage is free once
// the consumers of both blocks have released it: empty barriers count the
// consumers of both (each consumer arrives on both blocks'), and neither
// block leaves before the other (cluster barrier at the end). The last
// group's second M tile may lie past M: loaded as zeros, never stored.
// Tiles (ws_schedule.cuh): ceil(M/BM) x ceil(N/BN) x split_k, numbered in
// grouped order (ws_tile). Block b of a grid of G blocks computes tiles b,
// b + G, …: the dispatch grid (ceil(N/BN), ceil(M/BM), split_k) gives one
// tile a block; a persistent grid (one block per SM) walks several, and the
// producer then loads the next tile's stages while the consumers run the
// epilogue. The ring's stage and parity (ws_ring.cuh) run on across tiles.
// SCHED is the tile scheduler policy: ws_schedule (above), ws_schedule_il
// (ws_schedule.cuh: the same tiles and grids, but split z of S takes
// k-tiles z, z + S, z + 2S, … of the whole K) or ws_stream_k
// (ws_streamk.cuh: the blocks of a persistent grid share all tiles'
// k-tiles evenly; a segment that covers part of a tile leaves its fp32
// accumulator in the workspace for the block that finishes the tile, which
// adds them in a fixed order before its epilogue). All walk cursors
// t = first, first + blocks, … below tiles; work(t) gives the t-th item's
// tile, first K offset kb and k-tiles (the stream-K walk's items are
// segments), and kstep() the K distance between consecutive k-tiles: BK,
// a compile-time constant, except ws_schedule_il's S·BK. k-tile kt of an
// item starts at kb + kt·kstep().
//
// Block: (C + 1) × 128 threads (C = ROWS/64 consumers, two for BM = 256),
// __launch_bounds__(threads, 1) (setmaxnreg needs the cap). Dynamic shared memory: STAGES × KB × (BM + BN) × 128 bytes
// + 1024 (stages start on a 1024-byte boundary, as the swizzle atoms must);
// the 2 × STAGES + 2 mbarriers are static shared memory.
// REL is when a consumer gives a stage back (ws_ring.cuh): ws_release_late
// (the default, as above) or ws_release_now (experimental: after the
// k-tile's own wgmma retire, a stage more of lead for the producer); for
// e4m3, ws_promote_lagged (ws_accumulate.cuh, experimental: k-tile kt − 1
// promoted while kt's wgmma run).
// EPI is the epilogue policy (ws_epilogue_tma.cuh): ws_epi_reg (the default)
// stores D from registers as above; ws_epi_tma (no ping-pong, 16-bit D,
// after the e4m3 scales) stages each consumer's part of D in shared memory (C x 64 x COLS x 2 bytes
// after the ring's stages: 64 x BN blocks, BM = 256 storing its two through
// the buffer in turn; with ws_swap_ab the consumer's 64 weight columns of D for
// the BM tokens, transposed) and stores it by TMA through tma_d, while the
// consumer goes on to its next tile (split_k > 1: the register path for the
// partials).
// Tensor maps (gemm_params.h): tma_a with BM-row boxes, tma_b
// with BN/MC-row boxes (the manifest's tma_box = {BM, BN/MC}); with ws_epi_tma, tma_d with
// boxes of 64 columns x 64 rows, or x BM rows with ws_swap_ab (the manifest's
// tma_store_box).
//
// Constraints (written into the manifest by the generator):
//   A and B 16-byte aligned, lda and ldb multiples of 16 bytes, K a
//   multiple of 16 bytes (TMA strides).  (ptr_align 16, ld_align 16, k_multiple 16/sizeof(T))
//   M, N, K and the tile count below 2^31 (TMA coordinates, tile ids);
//   offsets into C, D and the workspace are 64-bit. split-K: any factor, workspace reduction,
//   k_per_split a multiple of BK = EB·KB (the manifest's tile_k).
#pragma once
#include "convert.cuh"
#include "mma_sm80.cuh"
#include "scales.cuh"
#include "sm90_tma.cuh"
#include "wgmma_sm90.cuh"
#include "ws_accumulate.cuh"
#include "ws_epilogue.cuh"
#include "ws_epilogue_tma.cuh"
#include "ws_producer.cuh"
#include "ws_ring.cuh"
#include "ws_roles.cuh"
#include "ws_schedule.cuh"
#include "ws_splitfixed.cuh"
#include "ws_streamk.cuh"
#include "ws_trace.cuh"
#include <type_traits>

namespace gr {

template <typename T, typename TOut, int BM, int BN, int STAGES, int NACC = 1, int KB = 1, int MC = 1, class ROLE = ws_ab,
          class CONS = ws_cooperative, class SCALES = ws_scales_after,
          template <int, int, int, int> class SCHED = ws_schedule, class EPI = ws_epi_reg, class REL = ws_release_late>
__device__ void ws_wgmma(const gr_gemm_params &p) {
  GR_TRACE_STAMP(0, threadIdx.x == 0);
  constexpr int EB = 128 / sizeof(T);  // elements per 128-byte box row
  constexpr int BK = EB * KB;          // K per stage: KB boxes
  constexpr bool SWAP = ROLE::swap, PP = CONS::pingpong, B128 = SCALES::block;  // the variant's policies
  constexpr int ROWS = ROLE::rows(BM, BN), COLS = ROLE::cols(BM, BN), CONSUMERS = ROWS == 256 ? 2 : ROWS / 64;
  static_assert(ROWS == 64 || ROWS == 128 || ROWS == 192 || (ROWS == 256 && !SWAP),
                "one, two or three consumer warpgroups of 64 rows, or two of 128 (BM = 256)");
  static_assert(sizeof(T) == 2 || sizeof(T) == 1, "16-bit or e4m3 elements");
  static_assert(STAGES >= 2, "a stage loading while one is multiplied");
  static_assert(4 * KB % NACC == 0, "the wgmma steps of a k-tile spread evenly over the accumulator sets");
  static_assert(!PP || (!SWAP && NACC == 1 && BM == 128), "ping-pong: two consumers of whole 128-row tiles");
  constexpr bool PROMOTE = sizeof(T) == 1;  // e4m3: fp32 promotion every k-tile
  static_assert(!PROMOTE || (KB == 1 && !PP), "e4m3: one 128-element k-block per k-tile, promoted; no room for ping-pong");
  static_assert(!B128 || (PROMOTE && (SWAP || BN == 128)), "128-block scales: e4m3, one B block per consumer");
  constexpr int MW = PP ? 2 : ROWS / 64 / CONSUMERS;  // 64-row blocks per consumer
  static_assert(MW == 1 || PP || (!PROMOTE && !B128), "BM = 256: 16-bit, no block scales");
  constexpr uint32_t A_BOX = BM * 128, B_BOX = BN * 128, A_STAGE = KB * A_BOX, B_STAGE = KB * B_BOX;  // bytes
  static_assert(MC == 1 || MC == 2, "multicast: clusters of two blocks");
  static_assert(A_BOX % 1024 == 0 && B_BOX % 1024 == 0, "boxes of whole 8-row swizzle atoms");
  static_assert(!EPI::tma_store || sizeof(TOut) == 2, "TMA-stored D: 16-bit D");
  // consumer budget; the producer keeps 40 (40 + C·REGS ≤ 512 per thread of a warpgroup column)
  constexpr int REGS = CONSUMERS == 3 ? 152 : CONSUMERS == 2 ? 232 : 240;
  extern __shared__ __align__(1024) unsigned char gr_smem_ws[];
  __shared__ __align__(8) uint64_t gr_ws_bars[2 * STAGES + 2];
  const uint32_t sa = (smem_addr(gr_smem_ws) + 1023) & ~1023u, sb = sa + STAGES * A_STAGE;
  const uint32_t full = smem_addr(gr_ws_bars), empty = full + STAGES * 8;  // barrier s at +8s
  const uint32_t turn = empty + STAGES * 8;  // PP: turn[c] at +8c, see the consumers' tile loop
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, CONS::arrivals(CONSUMERS) * MC);  // MC: the consumers of every block that receives B
    }
    mbar_init(turn, 1);
    mbar_init(turn + 8, 1);
    mbar_init_fence();
  }
  if constexpr (MC > 1)
    cluster_sync();  // the other block's copies and arrivals reach initialized barriers
  else
    __syncthreads();
  GR_TRACE_STAMP(1, threadIdx.x == 0);
  using schedule = SCHED<BM, BN, BK, MC>;
  static_assert(std::is_same<schedule, ws_schedule<BM, BN, BK, MC>>::value || !PP,
                "ping-pong consumers take whole tiles in turn");
  static_assert(MW == 1 || !std::is_base_of<ws_stream_k<BM, BN, BK, MC>, schedule>::value,
                "ws_stream_k's fixup carries one 64-row block per consumer (ws_stream_k_planned's fixup_blocks, any)");
  const schedule sched(p);

  if (wg == 0) {  // producer
    setmaxnreg_dec<40>();
    const bool leader = tid < 32 && elect_one();
    if (leader) {
      tma_prefetch_map(&p.tma_a);
      tma_prefetch_map(&p.tma_b);
    }
    ws_ring_pos<STAGES> pos;
    for (int64_t t = sched.first; t < sched.tiles; t += sched.blocks) {
      int64_t tm, tn, kb;
      int z;
      const int nk = sched.work(p, t, tm, tn, z, kb);
      GR_TRACE_STAMP(2, leader && t == sched.first);
      if (leader) ws_load_item<EB, BM, BN, KB, MC, ROLE>(p, sched, tm, tn, kb, nk, pos, sa, sb, full, empty);
    }
    GR_TRACE_STAMP(7, leader);
    if constexpr (MC > 1) cluster_sync();  // no block leaves while another may still reach its shared memory
    return;
  }

  setmaxnreg_inc<REGS>();  // consumers
  const int c = wg - 1, warp = tid / 32, lane = tid % 32;
  constexpr uint32_t ROW_STAGE = SWAP ? B_STAGE : A_STAGE, COL_STAGE = SWAP ? A_STAGE : B_STAGE;
  constexpr uint32_t ROW_BOX = SWAP ? B_BOX : A_BOX, COL_BOX = SWAP ? A_BOX : B_BOX;
  const uint32_t rows = (SWAP ? sb : sa) + (PP ? 0 : c * MW * 64 * 128), cols = SWAP ? sa : sb;
  ws_accumulator<T, COLS, MW, NACC, SCALES, REL, MC> ac;  // ws_accumulate.cuh
  const int64_t kblocks = B128 ? block_kblocks(p) : 0;
  // EPI::tma_store: this consumer's staging buffer for D, after the ring
  const uint32_t staging = sb + STAGES * B_STAGE + c * EPI::template staging_bytes<TOut, COLS>;
  if constexpr (EPI::tma_store)
    if (tid == 0) tma_prefetch_map(&p.tma_d);
  int own = 0;
  ws_ring_pos<STAGES> pos;
  for (int64_t t = sched.first; t < sched.tiles; t += sched.blocks) {
    int64_t tm, tn, kb;
    int z;
    const int nk = sched.work(p, t, tm, tn, z, kb);
    // PP: consumer c takes this block's tiles j ≡ c (mod 2) and passes over
    // the other's stages. Parity waits cannot tell rounds two apart, so
    // before its tile j it also waits on turn[c] until the other consumer
    // has seen every full barrier of tile j − 1 (its arrival after that
    // main loop): the two then stay within one round of the ring.
    const int j = own++;
    if (PP && (j & 1) != c) {
      pos.skip(nk);
      continue;
    }
    if (PP && j > 0) mbar_wait(turn + 8 * c, (uint32_t)((j - 1) / 2) & 1);
    ac.start();
    // accumulator (row, col): row r0 + 8h on wgmma's 64-row side, col q0 + 8i
    const int r0 = c * 64 + warp * 16 + lane / 4, q0 = 2 * (lane % 4);
    const int64_t row_base = SWAP ? tn * BN : sched.token0(p, tm), col_base = SWAP ? sched.token0(p, tm) : tn * BN;
    int prev = -1;  // the stage whose wgmma may still be in flight
    for (int kt = 0; kt < nk; ++kt) {
      typename decltype(ac)::scales sc;
      if constexpr (B128)
        ac.template load_scales<ROLE>(sc, p, (kb + (int64_t)kt * sched.kstep()) / GR_SCALE_BLOCK_K, kblocks, row_base,
                                      col_base, c, r0, q0);
      const int s = pos.s;
      mbar_wait(full + 8 * s, pos.phase);
      GR_TRACE_STAMP(3, c == 0 && tid == 0 && kt == 0 && t == sched.first);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4 * KB; ++kk)  // box kk / 4, 32-byte step kk % 4 in it
#pragma unroll
        for (int w = 0; w < MW; ++w)
          ac.mma(kk, w, smem_desc(rows + s * ROW_STAGE + kk / 4 * ROW_BOX + w * 64 * 128 + kk % 4 * 32),
                 smem_desc(cols + s * COL_STAGE + kk / 4 * COL_BOX + kk % 4 * 32));
      wgmma_commit();
      prev = ac.retire(empty, s, prev, tid, sc);
      pos.next();
    }
    if (PP && tid == 0) mbar_arrive(turn + 8 * (1 - c));  // the other consumer's turn
    ac.drain(empty, prev, tid);
    GR_TRACE_STAMP(4, c == 0 && tid == 0 && t == sched.first);
    // stream-K: a partial goes to the workspace, a finisher adds the others'
    if constexpr (MW == 1) {
      if (!sched.template fixup<COLS, CONSUMERS>(p, t, ac.r.acc[0][0], c, tid)) continue;
    } else if (!sched.template fixup_blocks<COLS, CONSUMERS>(p, t, ac.r.acc, c, tid)) {
      continue;
    }
    if constexpr (sizeof(T) == 1 && !B128)
#pragma unroll
      for (int w = 0; w < MW; ++w)
        ws_scale<ROLE, COLS>(p, ac.r.acc[w][0], row_base + (PP ? 64 * w + warp * 16 + lane / 4 : r0), col_base + q0);
    ws_epilogue_tile<TOut, COLS, ROLE, CONS, EPI>(p, z, ac.r.acc, row_base, col_base, c, tid, warp, lane, staging);
    GR_TRACE_STAMP(5, c == 0 && tid == 0 && t == sched.first);
  }
  if constexpr (EPI::tma_store)
    if (tid == 0) EPI::exit_wait();  // this consumer's last stores are complete (or have read the staging buffer)
  GR_TRACE_STAMP(6, c == 0 && tid == 0);
  if constexpr (MC > 1) cluster_sync();  // the producer's
}

}  // namespace gr
