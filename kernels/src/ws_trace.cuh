// ws_trace.cuh — time stamps inside ws_wgmma for the kernel bench's trace
// build (scripts/kbench, built with KBENCH_FLAGS=-DGR_TRACE): where a
// block's time goes between its entry and its exit, the fixed cost a GEMM
// pays whatever its K. Without GR_TRACE a stamp is no code at all, so the
// shipped images do not change.
//
// GR_TRACE_STAMP(i, cond) records where cond holds, for the first
// GR_TRACE_BLOCKS blocks of a launch (x fastest), the SM's clock64 and
// %globaltimer (ns) at point i:
//   0 entry (thread 0)          1 the barriers initialized and seen by all
//   2 the producer's first work item computed, its loads about to issue
//   3 consumer 0's first stage full
//   4 consumer 0's main loop of its first tile done (accumulators drained)
//   5 its epilogue issued        6 its exit (the TMA stores waited for)
//   7 the producer's last load issued
// cond picks the thread; a stamp is a store, not a fence.
#pragma once

#ifdef GR_TRACE
#include <cstdint>
#define GR_TRACE_POINTS 8
#define GR_TRACE_BLOCKS 1024
// gr_trace[(block · GR_TRACE_POINTS + i) · 2]: clock64, then %globaltimer.
__device__ unsigned long long gr_trace[GR_TRACE_BLOCKS * GR_TRACE_POINTS * 2];
#define GR_TRACE_STAMP(i, cond)                                                           \
  do {                                                                                    \
    const unsigned b_ = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z); \
    if ((cond) && b_ < GR_TRACE_BLOCKS) {                                                 \
      unsigned long long gt_;                                                             \
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt_));                             \
      gr_trace[(b_ * GR_TRACE_POINTS + (i)) * 2] = clock64();                             \
      gr_trace[(b_ * GR_TRACE_POINTS + (i)) * 2 + 1] = gt_;                               \
    }                                                                                     \
  } while (0)
#else
#define GR_TRACE_STAMP(i, cond) \
  do {                          \
  } while (0)
#endif
