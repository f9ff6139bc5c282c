// sm90_tma.cuh — sm_90 asynchronous-copy primitives as inline PTX: shared
// memory mbarriers (init, arrive, expect_tx, parity wait), the 2-D tensor
// copy (cp.async.bulk.tensor) that completes on an mbarrier, the 2-D tensor
// store from shared memory (bulk async-groups), elect-one,
// setmaxnreg (sm_90a), the fences they need, and the cluster barrier,
// multicast copy and remote arrival that clusters of blocks use.
//
// An mbarrier counts arrivals and, for TMA, transaction bytes; a phase
// completes when both reach zero, and its parity (0, 1, 0, …) flips. A
// waiter names the parity of the phase it waits for; on a fresh barrier a
// wait for parity 1 returns at once (that "previous" phase counts as done),
// which is how a producer passes its first round of empty slots.
#pragma once
#include <stdint.h>
#include "gemm_params.h"

namespace gr {

// mbar_init sets the barrier at shared address bar to expect count arrivals
// per phase. Make it visible (mbar_init_fence, then a block barrier) before
// any other thread or the copy engine uses it.
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }

// mbar_arrive is one arrival (release semantics: this thread's earlier
// accesses happen before the phase completes).
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// mbar_arrive_expect_tx is one arrival that also announces bytes the copy
// engine will deliver to this phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

// mbar_wait returns once the phase of parity `parity` has completed
// (acquire semantics: what the arrivers and the copy engine wrote is visible).
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// tma_prefetch_map pulls a tensor map (a __grid_constant__ parameter) into
// the descriptor cache.
__device__ __forceinline__ void tma_prefetch_map(const gr_tensor_map *map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// tma_load_2d copies the box at element coordinates (x inner, y outer) of
// the 2-D tensor map into shared memory at dst and completes its bytes on
// mbarrier bar. Box elements outside the tensor arrive as zeros and count.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const gr_tensor_map *map, uint32_t bar, int32_t x,
                                            int32_t y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(x), "r"(y)
      : "memory");
}

// tma_load_2d_multicast is tma_load_2d into every block of the cluster
// whose bit is set in mask: the box lands at shared offset dst of each of
// them and completes its bytes on the mbarrier at offset bar of each.
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const gr_tensor_map *map, uint32_t bar, int32_t x,
                                                      int32_t y, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(x), "r"(y), "h"(mask)
      : "memory");
}

// mbar_arrive_cluster is one arrival on the barrier at this block's shared
// address bar in cluster block `rank`. Default semantics (release at CTA
// scope), as CUTLASS's ClusterBarrier: a consumer arrives once its wgmma
// have retired (wgmma_wait), which orders its reads of the stage before the
// producer's next copy into it. (.release.cluster costs a MEMBAR.ALL.GPU per
// arrival in SASS, and an acquire.cluster wait an L1 invalidation: on the
// H200 that halved the multicast kernels' rate, call 1 of
// docs/perf/2026-12-01-h200-mc.)
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t rank) {
  asm volatile(
      "{\n.reg .b32 r;\n"
      "mapa.shared::cluster.u32 r, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(bar),
      "r"(rank)
      : "memory");
}

// l2_evict_first is a cache policy for tma_load_2d_hint: lines it loads are
// the first the L2 evicts (data read once, e.g. streamed weights).
__device__ __forceinline__ uint64_t l2_evict_first() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

// tma_load_2d_hint is tma_load_2d with an L2 cache policy.
__device__ __forceinline__ void tma_load_2d_hint(uint32_t dst, const gr_tensor_map *map, uint32_t bar, int32_t x,
                                                 int32_t y, uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(x), "r"(y), "l"(policy)
      : "memory");
}

// tma_store_2d copies the box at shared address src to the 2-D tensor
// map's box at element coordinates (x inner, y outer), as a bulk async-group
// operation of the calling thread (tma_store_commit closes the group). Box
// elements outside the tensor are not written, except that a row's last
// 16-byte piece is written whole (the H200 wrote columns 130…135 of an
// N = 130 bf16 map). The shared-memory writes it
// reads must be made visible to the async proxy first (wgmma_sm90.cuh's
// fence_proxy_async).
__device__ __forceinline__ void tma_store_2d(const gr_tensor_map *map, uint32_t src, int32_t x, int32_t y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(src), "r"(x), "r"(y)
               : "memory");
}

// tma_store_commit closes the calling thread's bulk async-group of the stores
// issued since the last commit.
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

// tma_store_wait_read<N> returns once at most N of the calling thread's bulk
// async-groups still read their shared-memory source (the source may then
// be written again); tma_store_wait<N> once at most N are incomplete.
template <int N> __device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N> __device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// elect_one is true in exactly one active lane of the warp.
__device__ __forceinline__ bool elect_one() {
  uint32_t pred;
  asm volatile(
      "{\n.reg .pred p;\n.reg .b32 r;\n"
      "elect.sync r|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(pred));
  return pred != 0;
}

// setmaxnreg_inc / _dec move the calling warpgroup's per-thread register
// budget to R (a multiple of 8 in 24…256). Every warp of the warpgroup runs
// it; it takes effect only when the kernel had a register cap at entry
// (__launch_bounds__(threads, 1)).
template <int R> __device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R> __device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}

// cluster_sync is a barrier over every thread of every block of the cluster
// (release / acquire: shared-memory writes before it are visible to loads of
// other blocks after it). Threads may arrive diverged.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

}  // namespace gr
