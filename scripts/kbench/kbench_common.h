// kbench_common.h — what kbench.cu and kbench8.cu share: the CUDA error
// check, ceiling division, the data hash, the instance-name filter, the
// K-major tensor-map encoding (internal/cuda/shim.go's gr_encode_kmajor) and
// the graph-replay timing, and the stream-K kernels' flags and grid.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gemm_params.h"

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(2);                                                                           \
    }                                                                                    \
  } while (0)

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ---- stream-K (ws_streamk.cuh) ----------------------------------------------
// sk_flags: GR_STREAMK_FLAGS words, zeroed once (alloc_sk_flags); every
// stream-K launch leaves them zero. sk_grid: its grid for tiles of kt
// k-tiles each, as dispatch's streamKGrid (one block per SM, at most one per
// k-tile). SK_PARTIAL_BYTES: room for any tail's partial tiles (256 x 256
// fp32 per block, 8 a block: a tail split of up to 8 parts, several a block).
static uint32_t *sk_flags;
static void alloc_sk_flags() {
  CK(cudaMalloc(&sk_flags, GR_STREAMK_FLAGS * 4));
  CK(cudaMemset(sk_flags, 0, GR_STREAMK_FLAGS * 4));
}
static unsigned sk_grid(int64_t tiles, int64_t kt, int sms) { return (unsigned)std::min<int64_t>(tiles * kt, sms); }
#define SK_PARTIAL_BYTES(sms) ((size_t)(sms) * 256 * 256 * 4 * 8)

__host__ __device__ inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16, x *= 0x7feb352dU, x ^= x >> 15, x *= 0x846ca68bU, x ^= x >> 16;
  return x;
}

// inst_filter: comma-separated name substrings (argv[3]); null selects all.
static const char *inst_filter;
static bool selected(const char *name) {
  if (!inst_filter) return true;
  std::string f = inst_filter;
  for (size_t a = 0; a <= f.size();) {
    size_t b = f.find(',', a);
    if (b == std::string::npos) b = f.size();
    if (b > a && std::string(name).find(f.substr(a, b - a)) != std::string::npos) return true;
    a = b + 1;
  }
  return false;
}

// ---- TMA ---------------------------------------------------------------------
typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static encode_fn encode;  // load_encode sets it

static void load_encode() {
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void **)&encode, cudaEnableDefault, &q));
  if (!encode) {
    fprintf(stderr, "no cuTensorMapEncodeTiled\n");
    exit(2);
  }
}

// sms is the device's SM count (kbench_init).
static int sms;

// kbench_init seeds rand, prints the device, and sets sms, the tensor-map
// encoder and the stream-K flags: what every kbench tool does first.
static void kbench_init() {
  srand((unsigned)std::chrono::steady_clock::now().time_since_epoch().count());
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  printf("%s, %d SMs, L2 %d MB\n", prop.name, sms, prop.l2CacheSize >> 20);
  load_encode();
  alloc_sk_flags();
}

// encode_kmajor: dims {k, rows}, row stride ld elements of esize bytes, a box
// of 128 bytes of K by box_rows, 128-byte swizzle, zero fill.
static void encode_kmajor(gr_tensor_map *map, CUtensorMapDataType dt, unsigned esize, const void *base, int64_t k,
                          int64_t rows, int64_t ld, unsigned box_rows) {
  cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)ld * esize};
  cuuint32_t box[2] = {128 / esize, box_rows}, elem[2] = {1, 1};
  CUresult r = encode((CUtensorMap *)map, dt, 2, (void *)base, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "cuTensorMapEncodeTiled: %d (k %lld rows %lld ld %lld box %u)\n", r, (long long)k, (long long)rows,
            (long long)ld, box_rows);
    exit(2);
  }
}

// encode_d fills p.tma_d, the map of D [M,N] for a ts instance
// (internal/cuda/shim.go's gr_encode_d): dims {n, m}, row stride ldc
// elements of the 16-bit type dt, the tile's box as the generator's
// tmaStoreBox writes it — 64 columns (32 where a non-swap BN is not a
// multiple of 64) by 64 rows (a swap tile's BM tokens) — swizzled by the span
// of a box row (128 or 64 bytes), for gr::ws_epi_tma.
static void encode_d(gr_gemm_params &p, CUtensorMapDataType dt, bool swap, int bm, int bn) {
  const cuuint32_t cols = swap || bn % 64 == 0 ? 64 : 32, rows = swap ? bm : 64;
  cuuint64_t dims[2] = {(cuuint64_t)p.n, (cuuint64_t)p.m}, strides[1] = {(cuuint64_t)p.ldc * 2};
  cuuint32_t box[2] = {cols, rows}, elem[2] = {1, 1};
  CUresult r = encode((CUtensorMap *)&p.tma_d, dt, 2, p.d, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      cols == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "cuTensorMapEncodeTiled (D): %d (n %lld m %lld ldc %lld)\n", r, (long long)p.n, (long long)p.m,
            (long long)p.ldc);
    exit(2);
  }
}
// d_ok: what TMA needs of D for a ts instance (16-byte aligned D, ldc·2 and
// n·2: the store writes a row's last 16-byte piece whole).
static bool d_ok(const void *d, int64_t ldc, int64_t n) {
  return ((uintptr_t)d & 15) == 0 && (ldc * 2) % 16 == 0 && (n * 2) % 16 == 0;
}

// replay_us captures R calls of launch(r, s) in one CUDA graph and returns the
// per-call µs: median of 25 replays after 3 warm-ups.
template <typename F>
static double replay_us(cudaStream_t s, int R, F launch) {
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int r = 0; r < R; ++r) launch(r, s);
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int i = 0; i < 28; ++i) {
    CK(cudaEventRecord(e0, s));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 3) t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  cudaGraphExecDestroy(ge), cudaGraphDestroy(g), cudaEventDestroy(e0), cudaEventDestroy(e1);
  return t[t.size() / 2] * 1000.0 / R;
}
