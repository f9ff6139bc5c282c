// ws_producer.cuh — the warp-specialized kernels' producer: one elected
// thread of warpgroup 0 walks the block's work items (the schedule's tiles or
// segments) and, per k-tile, waits until the ring's next stage is empty,
// announces the stage's bytes on its full barrier and starts 2·KB TMA
// copies: KB boxes of BM x EB of A (the tokens) and of BN x EB of B (the
// weights), 128-byte box rows, 128-byte swizzle, zero-filled past M, N and K
// (the K tail needs no special case). K-tile kt of an item starts at
// kb + kt·kstep(). With ws_swap_ab the weight loads carry an L2 evict-first
// policy (read once; the tokens stay cached). MC = 2 (clusters of two
// blocks): block crank loads rows crank·BOX/2… of the shared box into both
// blocks' shared memory by one multicast copy — B's box for clusters along
// M (ws_schedule), A's along N (ws_schedule_n: share_a) — and a stage is
// empty once the consumers of both blocks have released it (ws_ring.cuh).
#pragma once
#include <stdint.h>
#include "gemm_params.h"
#include "sm90_tma.cuh"
#include "ws_ring.cuh"
#include "ws_roles.cuh"

namespace gr {

// ws_load_item loads the nk k-tiles of one work item (M tile tm, N tile tn,
// first K offset kb) into the ring: stages at shared addresses sa (A) and sb
// (B), barriers at full and empty, pos the producer's position in the ring
// (it runs on across items). One thread calls it.
template <int EB, int BM, int BN, int KB, int MC, class ROLE, class schedule, int STAGES>
__device__ __forceinline__ void ws_load_item(const gr_gemm_params &p, const schedule &sched, int64_t tm, int64_t tn,
                                             int64_t kb, int nk, ws_ring_pos<STAGES> &pos, uint32_t sa,
                                             uint32_t sb, uint32_t full, uint32_t empty) {
  constexpr uint32_t A_BOX = BM * 128, B_BOX = BN * 128, A_STAGE = KB * A_BOX, B_STAGE = KB * B_BOX;  // bytes
  constexpr bool SHARE_A = schedule::share_a;
  constexpr uint32_t A_PART = A_BOX / MC, B_PART = B_BOX / MC;  // bytes of each shared box a cluster block loads for all
  static_assert(B_PART % 1024 == 0, "multicast parts of whole 8-row swizzle atoms");
  static_assert(!SHARE_A || (MC == 2 && A_PART % 1024 == 0), "A multicast: two blocks, parts of whole 8-row swizzle atoms");
  static_assert(!SHARE_A || !ROLE::swap, "swap clusters lie along M: token tiles sharing the weights");
  for (int kt = 0; kt < nk; ++kt) {
    const int s = pos.s;
    mbar_wait(empty + 8 * s, pos.phase ^ 1);  // MC: released by the consumers of every block receiving the box
    mbar_arrive_expect_tx(full + 8 * s, A_STAGE + B_STAGE);  // MC: a part of each shared box from each block
#pragma unroll
    for (int j = 0; j < KB; ++j) {  // boxes past K (the last stage) arrive as zeros
      const int32_t k = (int32_t)(kb + kt * sched.kstep() + j * EB);
      if constexpr (SHARE_A)  // rows crank·BM/MC… of A's box, into every block of the cluster
        tma_load_2d_multicast(sa + s * A_STAGE + j * A_BOX + sched.crank * A_PART, &p.tma_a, full + 8 * s, k,
                              (int32_t)(sched.token0(p, tm) + sched.crank * (BM / MC)), (uint16_t)((1u << MC) - 1));
      else
        tma_load_2d(sa + s * A_STAGE + j * A_BOX, &p.tma_a, full + 8 * s, k, (int32_t)sched.token0(p, tm));
      if constexpr (MC > 1 && !SHARE_A)  // rows crank·BN/MC… of B's box, into every block of the cluster
        tma_load_2d_multicast(sb + s * B_STAGE + j * B_BOX + sched.crank * B_PART, &p.tma_b, full + 8 * s, k,
                              (int32_t)(tn * BN + sched.crank * (BN / MC)), (uint16_t)((1u << MC) - 1));
      else if (ROLE::swap)  // weights are read once: evict them first, keep the tokens
        tma_load_2d_hint(sb + s * B_STAGE + j * B_BOX, &p.tma_b, full + 8 * s, k, (int32_t)(tn * BN), l2_evict_first());
      else
        tma_load_2d(sb + s * B_STAGE + j * B_BOX, &p.tma_b, full + 8 * s, k, (int32_t)(tn * BN));
    }
    pos.next();
  }
}

}  // namespace gr
