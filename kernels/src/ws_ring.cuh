// ws_ring.cuh — the warp-specialized kernels' ring of shared-memory stages:
// STAGES full barriers (the producer announces a stage's bytes, the copy
// engine completes them) and STAGES empty barriers (the consumers release a
// stage), 8 bytes apart, and the position — stage and parity — each side
// walks. The position runs on across tiles. A waiter names the parity of the
// phase it waits for: the producer waits on empty with the parity flipped,
// which passes at once on the first round (sm90_tma.cuh).
#pragma once
#include <stdint.h>
#include "sm90_tma.cuh"

namespace gr {

// ws_ring_pos is one side's place in a ring of STAGES stages.
template <int STAGES> struct ws_ring_pos {
  int s = 0;           // the stage
  uint32_t phase = 0;  // the parity of its current round
  __device__ __forceinline__ void next() {
    if (++s == STAGES) s = 0, phase ^= 1;
  }
  // skip passes over n stages (a ping-pong consumer over the other's tile).
  __device__ __forceinline__ void skip(int n) {
    s += n;
    phase ^= (uint32_t)(s / STAGES) & 1;
    s %= STAGES;
  }
};

// ws_release is a consumer's release of the stage whose empty barrier is at
// shared address bar (one arrival, from one thread): with MC > 1 on that
// barrier in every block of the cluster, since each block's producer loads
// into all of them.
template <int MC> __device__ __forceinline__ void ws_release(uint32_t bar) {
  if constexpr (MC > 1) {
#pragma unroll
    for (int r = 0; r < MC; ++r) mbar_arrive_cluster(bar, r);
  } else {
    mbar_arrive(bar);
  }
}

// When a consumer of the 16-bit main loop gives a stage back (ws_wgmma's REL
// policy; e4m3 promotes every k-tile and gives it back at once in any case):
// ws_release_late (CUTLASS's default) keeps the k-tile's wgmma in flight
// while it waits for the next stage and gives back the stage before it,
// once that one's wgmma have retired — the producer refills a stage one
// k-tile after its last use. ws_release_now waits for the k-tile's own
// wgmma and gives its stage back at once: a stage more of lead for the
// producer, and no wgmma of this consumer queued while it waits (the other
// consumer's keep the tensor cores busy). in_flight is the wgmma groups a
// consumer leaves in flight (wgmma_wait's argument).
struct ws_release_late {
  static constexpr int in_flight = 1;
};
struct ws_release_now {
  static constexpr int in_flight = 0;
};

}  // namespace gr
