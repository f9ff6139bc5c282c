// kbench.cu — focused correctness check and timing of the ws_wgmma family
// against cuBLAS, in one process, on an sm_90a GPU.
//
//   kbench check            awkward shapes, every instance, float64 reference
//   kbench time [SHAPES]    Llama-3-8B weights × M list, graph replay, vs cuBLAS
//   kbench memcheck         two small awkward shapes (run under compute-sanitizer)
//   kbench same Ms F NxK    each "sh_" instance against its twin: bit-identical D
//   kbench prof M F NxK     three launches of one configuration for a profiler; built
//                           with KBENCH_FLAGS=-DGR_TRACE, a fourth whose time stamps
//                           (ws_trace.cuh) say where a block's time goes
//
// Inputs are drawn by a hash of (seed, index) with 8-bit values that bf16 and
// f16 hold exactly, so the host reference regenerates any element without
// copying it; the seed is fresh per run. Padding columns past K (lda > K)
// hold NaN, so a kernel that reads past K fails. D is poisoned with NaN
// before each launch; every element must be written (NaN count over all of D)
// and sampled elements (all of them for small shapes) must match the float64
// reference within 1% of |ref| + 1% of the dot product's scale.
// Timing: R calls over rotating weight sets (together ≥ 180 MB, 3× L2) in
// one CUDA graph; per call = replay / R, median of 25 replays after 3
// warm-ups; cuBLAS (cublasGemmEx, bf16 in/out, fp32 compute, loaded with
// dlopen from $CUBLAS_LIB) by the same method on the same data, before and
// after each shape's candidates (the summary line takes the mean).
// Tensor maps are encoded as internal/cuda/shim.go's gr_encode_kmajor does.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <atomic>
#include <chrono>
#include <thread>
#include <type_traits>

#include "kbench_common.h"
#include "splitk_reduce.cuh"
#include "ws_wgmma.cuh"


// ---- instances ----------------------------------------------------------------
// The shipped 16-bit ws_wgmma instances, as kernels/internal/gen writes them.
#define GR_MCAST_1
#define GR_MCAST_2 __cluster_dims__(2, 1, 1)
#define WS(NAME, T, TOUT, BM, BN, ST, NACC, KB, MC, ROLE, CONS, SCALES, SCHED, EPI, REL, THREADS, SMEM)                \
  extern "C" __global__ void __launch_bounds__(THREADS, 1) GR_MCAST_##MC         \
      NAME(const __grid_constant__ gr_gemm_params p) {                                                  \
    gr::ws_wgmma<T, TOUT, BM, BN, ST, NACC, KB, MC, ROLE, CONS, SCALES, SCHED, EPI, REL>(p);            \
  }
typedef __nv_bfloat16 bf16;
#include "ws_instances_gen.h"
GR_WS_16(WS)
extern "C" __global__ void __launch_bounds__(256) reduce_bf16(const gr_gemm_params p) { gr::splitk_reduce<bf16>(p); }
extern "C" __global__ void __launch_bounds__(256) reduce_f16(const gr_gemm_params p) { gr::splitk_reduce<__half>(p); }

struct Inst {
  const char *name;
  void (*fn)(gr_gemm_params);
  int bm, bn, stages;
  bool swap, f16;
  int nacc, kb, mc;
  bool sk;   // stream-K scheduler (gr::ws_stream_k, gr::ws_stream_k_shift, gr::ws_stream_k_parts*)
  bool tp;   // stream-K of planned tail parts (gr::ws_stream_k_parts*): p.tail_parts is the candidate's split
  bool ks;   // every tile split in the plan's parts, summed in the kernel (gr::ws_split_fixed): p.tail_parts is the split
  bool mcn;  // clusters along N, sharing A (ws_schedule_n)
  bool ts;   // D staged in shared memory and stored by TMA (EPI::tma_store): tma_d
  int threads, smem;  // the generator's THREADS and SMEM (the manifest's launch parameters)
};
#define GR_INST(NAME, T, TOUT, BM, BN, ST, NACC, KB, MC, ROLE, CONS, SCALES, SCHED, EPI, REL, THREADS, SMEM) \
  {#NAME, NAME, BM, BN, ST, ROLE::swap, std::is_same<T, __half>::value, NACC, KB, MC, std::string(#SCHED).rfind("gr::ws_stream_k", 0) == 0, \
   std::string(#SCHED).rfind("gr::ws_stream_k_parts", 0) == 0, std::string(#SCHED) == "gr::ws_split_fixed", \
   std::string(#SCHED) == "gr::ws_schedule_n", EPI::tma_store, THREADS, SMEM},
static Inst insts[] = {GR_WS_16(GR_INST)};

// ---- data --------------------------------------------------------------------
// val: an 8-bit value in [-1, 1) that bf16 and f16 hold exactly.
__host__ __device__ inline float val(uint32_t seed, uint64_t i) {
  return (float)((int)(hash32(seed ^ hash32((uint32_t)i ^ (uint32_t)(i >> 32) * 0x9e3779b9U)) & 255) - 128) / 128.f;
}
template <typename T> __device__ T cvt(float x);
template <> __device__ bf16 cvt<bf16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __half cvt<__half>(float x) { return __float2half_rn(x); }
template <typename T>
__global__ void fill(T *p, int64_t rows, int64_t cols, int64_t ld, uint32_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows * ld; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t c = i % ld;
    p[i] = c < cols ? cvt<T>(val(seed, (i / ld) * cols + c)) : cvt<T>(NAN);
  }
}
// fill_rough: values spread over many exponents (the cube of a uniform value
// in [-1, 1)), so that fp32 sums of their products round — the 8-bit values
// of fill sum exactly in any order and cannot show a different order.
template <typename T> __global__ void fill_rough(T *p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float u = (float)hash32(seed ^ hash32((uint32_t)i ^ (uint32_t)(i >> 32) * 0x9e3779b9U)) * 0x1p-31f - 1.f;
    p[i] = cvt<T>(u * u * u);
  }
}
template <typename T> __global__ void poison(T *p, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) p[i] = cvt<T>(NAN);
}
template <typename T> __device__ float f32(T x);
template <> __device__ float f32<bf16>(bf16 x) { return __bfloat162float(x); }
template <> __device__ float f32<__half>(__half x) { return __half2float(x); }
template <typename T>
__global__ void count_nan(const T *d, int64_t rows, int64_t cols, int64_t ld, unsigned long long *n) {
  unsigned long long c = 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows * cols; i += (int64_t)gridDim.x * blockDim.x)
    c += isnan(f32<T>(d[(i / cols) * ld + i % cols])) ? 1 : 0;
  atomicAdd(n, c);
}
template <typename T>
__global__ void gather(const T *d, int64_t ld, const int64_t *idx, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f32<T>(d[idx[2 * i] * ld + idx[2 * i + 1]]);
}

// ---- TMA ---------------------------------------------------------------------
// encode_kmajor for the 16-bit types (kbench_common.h's, box 64 elements).
static void encode_kmajor(gr_tensor_map *map, bool f16, const void *base, int64_t k, int64_t rows, int64_t ld,
                          unsigned box_rows) {
  encode_kmajor(map, f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, k, rows, ld, box_rows);
}

// ---- cuBLAS (dlopen) ---------------------------------------------------------
typedef int (*cublasCreate_t)(void **);
typedef int (*cublasSetStream_t)(void *, cudaStream_t);
typedef int (*cublasSetWorkspace_t)(void *, void *, size_t);
typedef int (*cublasGetVersion_t)(void *, int *);
typedef int (*cublasGemmEx_t)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *, int,
                              int, const void *, void *, int, int, int, int);
static void *cublas;
static cublasGemmEx_t gemmEx;
static void load_cublas(cudaStream_t s) {
  const char *path = getenv("CUBLAS_LIB");
  void *h = dlopen(path ? path : "libcublas.so", RTLD_NOW);
  if (!h) {
    fprintf(stderr, "dlopen cublas (%s): %s\n", path ? path : "libcublas.so", dlerror());
    exit(2);
  }
  auto create = (cublasCreate_t)dlsym(h, "cublasCreate_v2");
  auto setStream = (cublasSetStream_t)dlsym(h, "cublasSetStream_v2");
  auto setWs = (cublasSetWorkspace_t)dlsym(h, "cublasSetWorkspace_v2");
  auto ver = (cublasGetVersion_t)dlsym(h, "cublasGetVersion_v2");
  gemmEx = (cublasGemmEx_t)dlsym(h, "cublasGemmEx");
  if (!create || !setStream || !gemmEx || !setWs || !ver) {
    fprintf(stderr, "cublas symbols missing\n");
    exit(2);
  }
  if (create(&cublas) != 0) exit(3);
  setStream(cublas, s);
  void *ws;
  CK(cudaMalloc(&ws, 64 << 20));
  setWs(cublas, ws, 64 << 20);
  int v = 0;
  ver(cublas, &v);
  printf("cublas version %d (%s)\n", v, path ? path : "libcublas.so");
}
static void cublas_gemm(const gr_gemm_params &p, bool f16) {
  const float alpha = p.alpha, beta = 0.f;
  const int dt = f16 ? 2 : 14;  // CUDA_R_16F, CUDA_R_16BF
  int r = gemmEx(cublas, 1, 0, (int)p.n, (int)p.m, (int)p.k, &alpha, p.b, dt, (int)p.ldb, p.a, dt, (int)p.lda, &beta,
                 p.d, dt, (int)p.ldc, 68 /*CUBLAS_COMPUTE_32F*/, -1 /*CUBLAS_GEMM_DEFAULT*/);
  if (r != 0) {
    fprintf(stderr, "cublasGemmEx: %d\n", r);
    exit(3);
  }
}

// ---- launching ours ----------------------------------------------------------
static void set_attrs() {
  for (auto &in : insts) CK(cudaFuncSetAttribute((const void *)in.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, in.smem));
}
// prepare sets split fields and the tensor maps for instance in.
// A stream-K kernel of planned parts takes split as its tail split
// (p.tail_parts), as dispatch's tailParts would pass it; a fixed-split
// kernel as its parts (p.tail_parts, split_k 1: it writes D itself).
static void prepare(gr_gemm_params &p, const Inst &in, int split) {
  p.tail_parts = in.tp || in.ks ? split : 0;
  if (in.sk || in.ks) split = 1;  // reduced in the kernel
  p.split_k = split;
  p.flags = sk_flags;
  p.k_per_split = split > 1 ? cdiv(cdiv(p.k, split), 64 * in.kb) * 64 * in.kb : p.k;
  // MC: each block loads a part of the shared box (A's along N, else B's)
  encode_kmajor(&p.tma_a, in.f16, p.a, p.k, p.m, p.lda, in.mcn ? in.bm / in.mc : in.bm);
  encode_kmajor(&p.tma_b, in.f16, p.b, p.k, p.n, p.ldb, in.mcn ? in.bn : in.bn / in.mc);
  if (in.ts) encode_d(p, in.f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, in.swap, in.bm, in.bn);
}
// launch: persistent = one block per SM at most (else the dispatch grid).
static void launch(const gr_gemm_params &p, const Inst &in, bool persistent, cudaStream_t s) {
  const int64_t mt = cdiv(p.m, in.bm), nt = cdiv(p.n, in.bn);
  dim3 grid((unsigned)nt, (unsigned)mt, (unsigned)p.split_k);
  if (in.sk) persistent = false, grid = dim3(sk_grid(mt * nt, cdiv(p.k, 64 * in.kb), sms), 1, 1);
  if (in.ks)  // dispatch's splitFixedGrid (its workspace here is ample): min(SMs, tiles·parts)
    persistent = false, grid = dim3((unsigned)std::min<int64_t>(mt * nt * std::max(p.tail_parts, 1), sms), 1, 1);
  if (persistent) grid = dim3((unsigned)std::min<int64_t>(mt * nt * p.split_k, sms), 1, 1);
  if (in.mc > 1) {  // clusters along x, one per group of mc M (or N) tiles (persistent: at most sms / mc)
    const int64_t groups = (in.mcn ? mt * cdiv(nt, in.mc) : cdiv(mt, in.mc) * nt) * p.split_k;
    grid = dim3((unsigned)(in.mc * (persistent ? std::min<int64_t>(groups, sms / in.mc) : groups)), 1, 1);
  }
  in.fn<<<grid, in.threads, in.smem, s>>>(p);
  if (p.split_k > 1) {
    int blocks = (int)std::min<int64_t>(cdiv(p.m * p.n, 256), sms * 8);
    (in.f16 ? reduce_f16 : reduce_bf16)<<<blocks, 256, 0, s>>>(p);
  }
}

// ---- host reference ----------------------------------------------------------
struct Shape {
  int64_t m, n, k, lda, ldb, ldc;
  int split;
  bool beta, bias;
};
struct Seeds {
  uint32_t a, b, c, bias;
};
static double ref_at(const Shape &sh, const Seeds &sd, const float *A, const float *B, int64_t m, int64_t n, float alpha,
                     float beta, double *scale) {
  double acc = 0, sq = 0;
  for (int64_t k = 0; k < sh.k; ++k) {
    const double a = A ? A[m * sh.k + k] : val(sd.a, m * sh.k + k), b = B ? B[n * sh.k + k] : val(sd.b, n * sh.k + k);
    acc += a * b, sq += a * b * a * b;
  }
  double r = alpha * acc;
  if (sh.beta) r += beta * val(sd.c, m * sh.n + n);
  if (sh.bias) r += val(sd.bias, n);
  *scale = std::abs(alpha) * std::sqrt(sq) + 1e-3;
  return r;
}

template <typename T>
struct Bufs {
  T *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr, *bias = nullptr;
  float *ws = nullptr;
  size_t ws_bytes = 0;
};

// check runs every instance on shape sh and reports max error; returns failures.
static int check_shape(const Shape &sh, bool f16, bool persistent_too, bool quick) {
  Seeds sd{(uint32_t)rand(), (uint32_t)rand(), (uint32_t)rand(), (uint32_t)rand()};
  const float alpha = 0.75f, beta = sh.beta ? 0.5f : 0.f;
  Bufs<bf16> b;  // 16-bit storage; f16 reuses the same bytes
  CK(cudaMalloc(&b.a, sh.m * sh.lda * 2));
  CK(cudaMalloc(&b.b, sh.n * sh.ldb * 2));
  CK(cudaMalloc(&b.d, sh.m * sh.ldc * 2));
  CK(cudaMalloc(&b.c, sh.m * sh.ldc * 2));
  CK(cudaMalloc(&b.bias, sh.n * 2));
  b.ws_bytes = (size_t)std::max(sh.split, 1) * sh.m * sh.n * 4 + SK_PARTIAL_BYTES(sms);  // split-K or stream-K partials
  CK(cudaMalloc(&b.ws, b.ws_bytes));
  if (f16) {
    fill<__half><<<1024, 256>>>((__half *)b.a, sh.m, sh.k, sh.lda, sd.a);
    fill<__half><<<1024, 256>>>((__half *)b.b, sh.n, sh.k, sh.ldb, sd.b);
    fill<__half><<<1024, 256>>>((__half *)b.c, sh.m, sh.n, sh.ldc, sd.c);
    fill<__half><<<64, 256>>>((__half *)b.bias, 1, sh.n, sh.n, sd.bias);
  } else {
    fill<bf16><<<1024, 256>>>(b.a, sh.m, sh.k, sh.lda, sd.a);
    fill<bf16><<<1024, 256>>>(b.b, sh.n, sh.k, sh.ldb, sd.b);
    fill<bf16><<<1024, 256>>>(b.c, sh.m, sh.n, sh.ldc, sd.c);
    fill<bf16><<<64, 256>>>(b.bias, 1, sh.n, sh.n, sd.bias);
  }
  CK(cudaGetLastError());
  // samples: all when small, else 4096 random plus the corners
  std::vector<int64_t> idx;
  const bool all = sh.m * sh.n * sh.k <= (int64_t)4e9 && !quick;
  if (all) {
    for (int64_t m = 0; m < sh.m; ++m)
      for (int64_t n = 0; n < sh.n; ++n) idx.push_back(m), idx.push_back(n);
  } else {
    for (int i = 0; i < 4096; ++i) idx.push_back(rand() % sh.m), idx.push_back(rand() % sh.n);
    const int64_t cm[4][2] = {{0, 0}, {0, sh.n - 1}, {sh.m - 1, 0}, {sh.m - 1, sh.n - 1}};
    for (auto &c : cm) idx.push_back(c[0]), idx.push_back(c[1]);
  }
  const int ns = (int)(idx.size() / 2);
  std::vector<float> A, B;
  if (all) {
    A.resize(sh.m * sh.k), B.resize(sh.n * sh.k);
    for (int64_t i = 0; i < sh.m * sh.k; ++i) A[i] = val(sd.a, i);
    for (int64_t i = 0; i < sh.n * sh.k; ++i) B[i] = val(sd.b, i);
  }
  std::vector<double> ref(ns), scale(ns);
  {
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
      pool.emplace_back([&] {
        for (int i; (i = next.fetch_add(1)) < ns;)
          ref[i] = ref_at(sh, sd, all ? A.data() : nullptr, all ? B.data() : nullptr, idx[2 * i], idx[2 * i + 1], alpha, beta,
                          &scale[i]);
      });
    for (auto &t : pool) t.join();
  }
  int64_t *didx;
  float *dout;
  unsigned long long *dnan;
  CK(cudaMalloc(&didx, idx.size() * 8));
  CK(cudaMalloc(&dout, ns * 4));
  CK(cudaMalloc(&dnan, 8));
  CK(cudaMemcpy(didx, idx.data(), idx.size() * 8, cudaMemcpyHostToDevice));
  std::vector<float> out(ns);
  int fails = 0;
  for (auto &in : insts) {
    if (in.f16 != f16 || !selected(in.name)) continue;
    if (in.ts && !d_ok(b.d, sh.ldc, sh.n)) {  // the planner's d_ptr_align / d_ld_align rule it out
      printf("SKIP %-26s M=%lld N=%lld ldc=%lld: TMA-stored D needs ldc·2 and n·2 multiples of 16\n", in.name, (long long)sh.m,
             (long long)sh.n, (long long)sh.ldc);
      continue;
    }
    static const int tps[] = {1, 2, 3, 8};  // a tp kernel's tail splits
    const bool parts = in.tp || in.ks;  // a split of the kernel's own: several
    for (int v = 0; v < (parts ? 4 : persistent_too && !in.sk ? 2 : 1); ++v) {
      const int pers = !parts && v == 1, split = parts ? tps[v] : sh.split;
      gr_gemm_params p{};
      p.a = b.a, p.b = b.b, p.c = sh.beta ? b.c : nullptr, p.d = b.d, p.bias = sh.bias ? b.bias : nullptr;
      p.workspace = b.ws, p.m = sh.m, p.n = sh.n, p.k = sh.k, p.lda = sh.lda, p.ldb = sh.ldb, p.ldc = sh.ldc;
      p.alpha = alpha, p.beta = beta;
      prepare(p, in, split);
      poison<bf16><<<1024, 256>>>(b.d, sh.m * sh.ldc);
      CK(cudaMemset(dnan, 0, 8));
      launch(p, in, pers == 1, 0);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      if (f16) {
        count_nan<__half><<<1024, 256>>>((__half *)b.d, sh.m, sh.n, sh.ldc, dnan);
        gather<__half><<<cdiv(ns, 256), 256>>>((__half *)b.d, sh.ldc, didx, dout, ns);
      } else {
        count_nan<bf16><<<1024, 256>>>(b.d, sh.m, sh.n, sh.ldc, dnan);
        gather<bf16><<<cdiv(ns, 256), 256>>>(b.d, sh.ldc, didx, dout, ns);
      }
      CK(cudaDeviceSynchronize());
      unsigned long long nans;
      CK(cudaMemcpy(&nans, dnan, 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(out.data(), dout, ns * 4, cudaMemcpyDeviceToHost));
      double worst = 0, num = 0, den = 0;
      int bad = 0;
      for (int i = 0; i < ns; ++i) {
        const double e = std::abs((double)out[i] - ref[i]);
        const double tol = 1e-2 * std::abs(ref[i]) + 1e-2 * scale[i];
        if (!(e <= tol)) {
          if (bad < 3)
            printf("    mismatch %s (%lld,%lld): got %g want %g\n", in.name, (long long)idx[2 * i], (long long)idx[2 * i + 1],
                   out[i], ref[i]);
          ++bad;
        }
        worst = std::max(worst, e / (std::abs(ref[i]) + scale[i])), num += e * e, den += ref[i] * ref[i];
      }
      if (in.sk || in.ks) {  // reduced in the kernel: the same bits every run
        std::vector<uint16_t> first(sh.m * sh.ldc), again(sh.m * sh.ldc);
        CK(cudaMemcpy(first.data(), b.d, first.size() * 2, cudaMemcpyDeviceToHost));
        for (int r = 0; r < 3; ++r) {
          launch(p, in, false, 0);
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(again.data(), b.d, again.size() * 2, cudaMemcpyDeviceToHost));
          if (memcmp(first.data(), again.data(), first.size() * 2) != 0) {
            printf("    %s: run %d differs from the first (not deterministic)\n", in.name, r + 2);
            ++bad;
            break;
          }
        }
      }
      const bool ok = bad == 0 && nans == 0;
      fails += !ok;
      printf("%s %-26s %s M=%lld N=%lld K=%lld lda=%lld split=%d beta=%d bias=%d: %s  samples=%d%s bad=%d nan=%llu rel_l2=%.2e worst=%.2e\n",
             ok ? "PASS" : "FAIL", in.name, pers ? "persistent" : "grid      ", (long long)sh.m, (long long)sh.n, (long long)sh.k,
             (long long)sh.lda, split, sh.beta, sh.bias, ok ? "ok" : "WRONG", ns, all ? "(all)" : "", bad, nans,
             std::sqrt(num / std::max(den, 1e-30)), worst);
    }
  }
  cudaFree(b.a), cudaFree(b.b), cudaFree(b.c), cudaFree(b.d), cudaFree(b.bias), cudaFree(b.ws);
  cudaFree(didx), cudaFree(dout), cudaFree(dnan);
  return fails;
}

// ---- timing ------------------------------------------------------------------
struct Cand {
  const Inst *in;  // nullptr: cuBLAS
  int split;
  bool persistent;
};
static std::string cand_name(const Cand &c) {
  if (!c.in) return "cublas";
  char buf[128];
  snprintf(buf, sizeof buf, "%s%s/%s%d", c.in->name, c.persistent ? "/pers" : "", c.in->tp ? "tp" : c.in->ks ? "ks" : "sk", c.split);
  return buf;
}

// time_graph: R launches over the weight sets, captured once; per-call µs.
static double time_graph(const std::vector<gr_gemm_params> &ps, const Cand &c, cudaStream_t s, int R) {
  return replay_us(s, R, [&](int r, cudaStream_t s) {
    const gr_gemm_params &p = ps[r % ps.size()];
    if (c.in)
      launch(p, *c.in, c.persistent, s);
    else
      cublas_gemm(p, false);
  });
}

static std::vector<Cand> candidates(int64_t m, int64_t n, int64_t k) {
  std::vector<Cand> cs;
  for (auto &in : insts) {
    if (in.f16 || !selected(in.name)) continue;
    if (!in.swap && m <= in.bm / 2) continue;  // tokens on the 64-row side: at least half a tile
    // swap tiles: tokens on wgmma's N, at most twice M wide; the narrow ones
    // (≤ 96, and 128) for M ≤ 256 and at least half M, the wave-fitted widths
    // (104…208) at any M
    const bool wave_fitted = strstr(in.name, "swap_wf_ts") != nullptr;  // the name is the spec
    if (in.swap && in.bm > 2 * std::max<int64_t>(m, 32)) continue;
    if (in.swap && !wave_fitted && (m > 256 || in.bm < m / 2)) continue;
    const int64_t tiles = cdiv(m, in.bm) * cdiv(n, in.bn);
    if (in.tp) {  // stream-K of planned parts: every tail split whose flags fit
      const int64_t g = sk_grid(tiles, cdiv(k, 64 * in.kb), sms), rest = tiles % g;
      for (int tp : {1, 2, 3, 4, 5, 6, 8})
        if (tp == 1 || (rest > 0 && (tp - 1) * (rest + 1) * (in.threads / 128) <= GR_STREAMK_FLAGS)) cs.push_back({&in, tp, false});
      continue;
    }
    if (in.ks) {  // fixed split: every split the workspace twin would take
      for (int split : {1, 2, 3, 4, 6, 8}) cs.push_back({&in, split, false});
      continue;
    }
    if (in.sk) {  // stream-K: its own decomposition
      cs.push_back({&in, 1, false});
      continue;
    }
    for (int split : {1, 2, 3, 4, 6, 8}) {
      if (split > 1 && (tiles * split > 2 * sms || k / split < 512)) continue;
      if (split > 1 && m > 256) continue;
      cs.push_back({&in, split, false});
      if (tiles * split > sms) cs.push_back({&in, split, true});
    }
  }
  return cs;
}

static int time_shapes(const std::vector<std::pair<int64_t, int64_t>> &wts, const std::vector<int64_t> &ms, bool all_cands) {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  load_cublas(s);
  printf("\n%-14s %6s %10s %10s %7s %7s  %s\n", "weight NxK", "M", "ours_us", "cublas_us", "ratio", "roof%", "best");
  for (auto &w : wts) {
    const int64_t n = w.first, k = w.second;
    const size_t wbytes = n * k * 2;
    const int nrot = (int)std::max<size_t>(2, cdiv(180u << 20, wbytes));
    std::vector<bf16 *> bs(nrot);
    for (auto &bp : bs) {
      CK(cudaMalloc(&bp, wbytes));
      fill<bf16><<<2048, 256>>>(bp, n, k, k, (uint32_t)rand());
    }
    for (int64_t m : ms) {
      bf16 *a, *d;
      float *ws;
      CK(cudaMalloc(&a, m * k * 2));
      CK(cudaMalloc(&d, m * n * 2));
      CK(cudaMalloc(&ws, 8 * m * n * 4 + SK_PARTIAL_BYTES(sms)));  // split-K or stream-K partials
      fill<bf16><<<2048, 256>>>(a, m, k, k, (uint32_t)rand());
      const double flops = 2.0 * m * n * k, bytes = 2.0 * (m * k + n * k + m * n);
      const double roof = std::max(flops / 750e12, bytes / 4.54e12) * 1e6;
      // cuBLAS first and again last: its figure is the mean of the two, so a
      // clock that drifts over the candidates does not favour either side
      // (docs/perf/2026-12-06-h200-c, call 11: four passes on one H100 spread
      // cuBLAS 7.9 %, ours 2.6 %).
      std::vector<Cand> cs = candidates(m, n, k);
      cs.insert(cs.begin(), Cand{nullptr, 1, false});
      cs.push_back(Cand{nullptr, 1, false});
      double best = 1e30, cub = 0;
      std::string bestn;
      for (auto &c : cs) {
        std::vector<gr_gemm_params> ps(nrot);
        for (int i = 0; i < nrot; ++i) {
          gr_gemm_params &p = ps[i];
          p = gr_gemm_params{};
          p.a = a, p.b = bs[i], p.d = d, p.workspace = ws, p.m = m, p.n = n, p.k = k, p.lda = k, p.ldb = k, p.ldc = n;
          p.alpha = 1.f, p.beta = 0.f, p.split_k = 1, p.k_per_split = k;
          if (c.in) prepare(p, *c.in, c.split);
        }
        // one call first: cheap per-call estimate sets R
        const double est = time_graph(ps, c, s, nrot);
        const int R = est > 400 ? nrot : (int)(cdiv(std::max<int64_t>(20, (int64_t)(2000 / est)), nrot) * nrot);
        const double us = time_graph(ps, c, s, R);
        if (!c.in)
          cub += us / 2;
        else if (us < best)
          best = us, bestn = cand_name(c);
        if (all_cands) printf("   %-40s M=%-5lld N=%-6lld K=%-6lld %9.2f us  (R=%d)\n", cand_name(c).c_str(), (long long)m, (long long)n, (long long)k, us, R);
      }
      printf("%6lldx%-7lld %6lld %10.2f %10.2f %7.3f %6.1f%%  %s  (cublas %.1f%%)\n", (long long)n, (long long)k, (long long)m, best,
             cub, cub / best, 100 * roof / best, bestn.c_str(), 100 * roof / cub);
      fflush(stdout);
      cudaFree(a), cudaFree(d), cudaFree(ws);
    }
    for (auto bp : bs) cudaFree(bp);
  }
  return 0;
}

#ifdef GR_TRACE
// trace_report launches the configuration once more with the stamps cleared
// and prints, over the blocks that stamped, each point's time after the
// block's entry (median and max, ns by %globaltimer and SM cycles by
// clock64), the spread of the entries, and the span from the first entry to
// the last exit.
static void trace_report(const gr_gemm_params &p, const Inst &in, bool persistent, cudaStream_t s) {
  static unsigned long long h[GR_TRACE_BLOCKS * GR_TRACE_POINTS * 2];
  memset(h, 0, sizeof h);
  CK(cudaMemcpyToSymbol(gr_trace, h, sizeof h));
  launch(p, in, persistent, s);
  CK(cudaStreamSynchronize(s));
  CK(cudaMemcpyFromSymbol(h, gr_trace, sizeof h));
  auto clk = [&](int b, int i) { return h[(b * GR_TRACE_POINTS + i) * 2]; };
  auto gt = [&](int b, int i) { return h[(b * GR_TRACE_POINTS + i) * 2 + 1]; };
  static const char *what[GR_TRACE_POINTS] = {"entry", "barriers seen", "first loads to issue", "first stage full",
                                              "main loop done", "epilogue issued", "exit", "producer's last load"};
  unsigned long long first = ~0ull, last = 0, first_entry_max = 0;
  int blocks = 0;
  for (int b = 0; b < GR_TRACE_BLOCKS; ++b) {
    if (!gt(b, 0)) continue;
    ++blocks;
    first = std::min(first, gt(b, 0)), first_entry_max = std::max(first_entry_max, gt(b, 0));
    if (gt(b, 6)) last = std::max(last, gt(b, 6));
  }
  printf("trace %s: %d blocks, entries spread over %llu ns, first entry to last exit %llu ns\n", in.name, blocks,
         first_entry_max - first, last - first);
  for (int i = 1; i < GR_TRACE_POINTS; ++i) {
    std::vector<double> ns, cy;
    for (int b = 0; b < GR_TRACE_BLOCKS; ++b)
      if (gt(b, 0) && gt(b, i)) ns.push_back((double)(gt(b, i) - gt(b, 0))), cy.push_back((double)(clk(b, i) - clk(b, 0)));
    if (ns.empty()) continue;
    std::sort(ns.begin(), ns.end()), std::sort(cy.begin(), cy.end());
    printf("  %d %-22s after entry: median %8.0f ns %8.0f cycles   max %8.0f ns %8.0f cycles  (%zu blocks)\n", i, what[i],
           ns[ns.size() / 2], cy[cy.size() / 2], ns.back(), cy.back(), ns.size());
  }
}
#endif

// prof launches one configuration three times (bf16, weights NxK, M tokens), for a
// profiler to pick the third launch: "cublas", or the first instance whose name
// contains the given text, at a split-K factor, on a persistent grid or not.
static int prof(int64_t m, const char *name, int64_t n, int64_t k, int split, bool persistent) {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const Inst *in = nullptr;
  for (auto &i : insts)
    if (!i.f16 && strstr(i.name, name)) {
      in = &i;
      break;
    }
  if (!in && strcmp(name, "cublas") != 0) {
    fprintf(stderr, "prof: no bf16 instance named like %s\n", name);
    return 2;
  }
  if (!in) load_cublas(s);
  bf16 *a, *b, *d;
  float *ws;
  CK(cudaMalloc(&a, m * k * 2));
  CK(cudaMalloc(&b, n * k * 2));
  CK(cudaMalloc(&d, m * n * 2));
  CK(cudaMalloc(&ws, (size_t)split * m * n * 4 + SK_PARTIAL_BYTES(sms)));
  fill<bf16><<<2048, 256>>>(a, m, k, k, (uint32_t)rand());
  fill<bf16><<<2048, 256>>>(b, n, k, k, (uint32_t)rand());
  gr_gemm_params p{};
  p.a = a, p.b = b, p.d = d, p.workspace = ws, p.m = m, p.n = n, p.k = k, p.lda = k, p.ldb = k, p.ldc = n;
  p.alpha = 1.f, p.beta = 0.f, p.split_k = 1, p.k_per_split = k;
  if (in) prepare(p, *in, split);
  for (int i = 0; i < 3; ++i) {
    if (in)
      launch(p, *in, persistent, s);
    else
      cublas_gemm(p, false);
  }
  CK(cudaStreamSynchronize(s));
  printf("prof %s M=%lld N=%lld K=%lld split=%d persistent=%d: 3 launches\n", in ? in->name : "cublas", (long long)m,
         (long long)n, (long long)k, split, (int)persistent);
#ifdef GR_TRACE
  if (in) trace_report(p, *in, persistent, s);
#endif
  return 0;
}

// grid_shift_parts is the tail split ws_stream_k_shift (ws_streamk.cuh)
// runs m × n × k with on its grid: ⌊G/R⌋ parts (none empty) of its R tail
// tiles, of R + 1 where it moves the shifted last M tile's neighbour into
// the tail.
static int grid_shift_parts(const Inst &in, int64_t m, int64_t n, int64_t k) {
  const int64_t mt = cdiv(m, in.bm), nt = cdiv(n, in.bn), kt = cdiv(k, 64 * in.kb), all = mt * nt;
  const int64_t g = sk_grid(all, kt, sms), full = all / g * g, rows = std::min<int64_t>(8, mt);
  auto parts_of = [&](int64_t rest) {
    if (rest == 0) return (int64_t)1;
    const int64_t s = std::max<int64_t>(1, std::min<int64_t>(g / rest, kt)), kp = cdiv(kt, s);
    return cdiv(kt, kp);
  };
  int64_t parts = parts_of(all - full);
  if (parts > 1 && m >= in.bm && m % in.bm != 0 && rows >= 2 && full > 0 && full < rows * nt && full % rows == 1)
    parts = parts_of(all - full + 1);
  return (int)parts;
}

// same runs each selected instance with a twin — its name without "sh_" (the
// shifted last token tile's kernels against the plain ones) or "ks_" (the
// fixed-split kernels against the workspace split-K with its reduce) — on
// N x K at each M, split-K 1 and 2 (stream-K kernels split-K 1 only: they
// take no split-K, so a split-K 2 run would repeat the first and its
// control could never differ; fixed-split kernels 1, 2, 3, 4 and 8, their
// parts against the twin's split-K), and counts the elements of D whose
// bits differ: the rows a shifted tile recomputes must come out as the tile
// before stored them, and a fixed split as the reduce sums it.
// A grid stream-K kernel with the shift (ws_stream_k_shift, "sk_sh_") walks
// its M tiles from the last, so its split tiles are not its unshifted twin's:
// its twin is the planned-parts kernel of the same tile ("sk_tp_sh_") at the
// grid walk's own tail split (grid_shift_parts), whose walk then gives every
// tile the same role and sums its parts in the same order.
// Returns the runs with a difference (or no twin).
static int same_bits(const std::vector<int64_t> &ms, int64_t n, int64_t k) {
  int fails = 0;
  for (auto &in : insts) {
    const std::string name = in.name;
    const bool grid_sh = in.sk && !in.tp && name.find("sk_sh_") != std::string::npos;
    const size_t at = name.find(grid_sh ? "sk_sh_" : in.ks ? "ks_" : "sh_");
    if (!selected(in.name) || at == std::string::npos) continue;
    const std::string twin_name =
        grid_sh ? name.substr(0, at) + "sk_tp_sh_" + name.substr(at + 6) : name.substr(0, at) + name.substr(at + 3);
    const Inst *twin = nullptr;
    for (auto &t : insts)
      if (twin_name == t.name) twin = &t;
    if (!twin) {
      printf("SAME FAIL %s: no twin %s\n", in.name, twin_name.c_str());
      ++fails;
      continue;
    }
    for (int64_t m : ms) {
      Bufs<bf16> b;  // b.c holds the twin's D
      CK(cudaMalloc(&b.a, m * k * 2));
      CK(cudaMalloc(&b.b, n * k * 2));
      CK(cudaMalloc(&b.d, m * n * 2));
      CK(cudaMalloc(&b.c, m * n * 2));
      b.ws_bytes = (size_t)8 * m * n * 4 + SK_PARTIAL_BYTES(sms);  // the twin's split-K 8
      CK(cudaMalloc(&b.ws, b.ws_bytes));
      const uint32_t sa = (uint32_t)rand(), sb = (uint32_t)rand();
      if (in.f16) {
        fill_rough<__half><<<1024, 256>>>((__half *)b.a, m * k, sa);
        fill_rough<__half><<<1024, 256>>>((__half *)b.b, n * k, sb);
      } else {
        fill_rough<bf16><<<1024, 256>>>(b.a, m * k, sa);
        fill_rough<bf16><<<1024, 256>>>(b.b, n * k, sb);
      }
      std::vector<uint16_t> split1;  // the twin's D with split-K 1: split-K 2 must differ from it (the control)
      const std::vector<int> splits = in.ks   ? std::vector<int>{1, 2, 3, 4, 8}
                                      : grid_sh ? std::vector<int>{grid_shift_parts(in, m, n, k)}
                                      : in.sk   ? std::vector<int>{1}
                                                : std::vector<int>{1, 2};
      for (int split : splits) {
        std::vector<uint16_t> got[2];
        const Inst *runs[2] = {twin, &in};
        for (int r = 0; r < 2; ++r) {
          gr_gemm_params p{};
          p.a = b.a, p.b = b.b, p.d = r ? b.d : b.c, p.workspace = b.ws;
          p.m = m, p.n = n, p.k = k, p.lda = k, p.ldb = k, p.ldc = n, p.alpha = 1.f;
          prepare(p, *runs[r], split);
          poison<bf16><<<1024, 256>>>((bf16 *)p.d, m * n);
          launch(p, *runs[r], false, 0);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          got[r].resize(m * n);
          CK(cudaMemcpy(got[r].data(), p.d, m * n * 2, cudaMemcpyDeviceToHost));
        }
        int64_t diff = 0, first = -1, control = 0;
        for (int64_t i = 0; i < m * n; ++i)
          if (got[0][i] != got[1][i]) diff += 1, first = first < 0 ? i : first;
        printf("%s %s M=%lld N=%lld K=%lld split=%d: %lld of %lld elements differ from %s", diff ? "SAME FAIL" : "same ok", in.name,
               (long long)m, (long long)n, (long long)k, split, (long long)diff, (long long)(m * n), twin->name);
        if (diff) printf(" (first at row %lld, col %lld)", (long long)(first / n), (long long)(first % n));
        if (split == 1) split1 = got[0];
        if (split == 2 && !grid_sh) {  // another summation order: the data must show it, or the test cannot fail
          for (int64_t i = 0; i < m * n; ++i) control += split1[i] != got[0][i];
          printf("; control (twin, split-K 1 against 2): %lld differ", (long long)control);
        }
        printf("\n");
        fails += diff || (split == 2 && !grid_sh && control == 0) ? 1 : 0;
      }
      CK(cudaFree(b.a));
      CK(cudaFree(b.b));
      CK(cudaFree(b.d));
      CK(cudaFree(b.c));
      CK(cudaFree(b.ws));
    }
  }
  printf("%s: %d runs differ\n", fails ? "SAME FAILED" : "SAME OK", fails);
  return fails ? 1 : 0;
}

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "check";
  kbench_init();
  set_attrs();
  for (auto &in : insts) {  // how many clusters of a multicast kernel fit at once
    if (in.mc < 2) continue;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(in.mc * (sms / in.mc), 1, 1), cfg.blockDim = dim3(in.threads, 1, 1), cfg.dynamicSmemBytes = in.smem;
    int n = 0;
    CK(cudaOccupancyMaxActiveClusters(&n, (const void *)in.fn, &cfg));
    printf("%s: %d clusters of %d active at once\n", in.name, n, in.mc);
  }
  if (argc > 3 && argv[3][0]) inst_filter = argv[3];
  if (mode == "check" || mode == "memcheck") {
    std::vector<Shape> shapes;
    if (mode == "memcheck") {
      shapes = {{17, 200, 200, 208, 200, 200, 3, true, true}, {130, 264, 136, 136, 144, 264, 1, true, false}};
    } else {
      shapes = {
          {1, 769, 5120, 5120, 5120, 769, 1, true, true},        {17, 769, 4104, 4112, 4104, 769, 3, false, true},
          {255, 1024, 4104, 4104, 4104, 1024, 1, true, false},   {257, 769, 5120, 5128, 5120, 776, 3, false, true},
          {1100, 769, 4104, 4160, 4104, 769, 1, true, true},     {64, 4096, 4096, 4096, 4096, 4096, 1, false, false},
          {4096, 6144, 4096, 4096, 4096, 6144, 1, false, true},  {200, 28672, 4096, 4096, 4096, 28672, 4, true, false},
          {600, 10240, 1032, 1032, 1032, 10240, 1, false, true}, {800, 4096, 4096, 4096, 4096, 4096, 1, false, false},
      };
    }
    int fails = 0;
    for (auto &sh : shapes) fails += check_shape(sh, false, true, false);
    const std::vector<size_t> f16_shapes = mode == "check" ? std::vector<size_t>{3, 4} : std::vector<size_t>{0, 1};
    for (size_t i : f16_shapes) fails += check_shape(shapes[i], true, false, false);
    printf("%s: %d failing runs\n", fails ? "CHECK FAILED" : "CHECK OK", fails);
    return fails ? 1 : 0;
  }
  if (mode == "time" || mode == "timeall") {
    std::vector<std::pair<int64_t, int64_t>> wts = {{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}};
    if (argc > 4) {  // weights as NxK,NxK,...
      wts.clear();
      for (char *t = strtok(argv[4], ","); t; t = strtok(nullptr, ",")) wts.push_back({atoll(t), atoll(strchr(t, 'x') + 1)});
    }
    std::vector<int64_t> ms = {32, 64, 128, 256, 1024, 4096, 8192};
    if (argc > 2 && strcmp(argv[2], "all") != 0) {
      ms.clear();
      for (char *t = strtok(argv[2], ","); t; t = strtok(nullptr, ",")) ms.push_back(atoll(t));
    }
    return time_shapes(wts, ms, mode == "timeall");
  }
  if (mode == "same" && argc > 4) {  // same M,M,... instances NxK
    std::vector<int64_t> ms;
    for (char *t = strtok(argv[2], ","); t; t = strtok(nullptr, ",")) ms.push_back(atoll(t));
    return same_bits(ms, atoll(argv[4]), atoll(strchr(argv[4], 'x') + 1));
  }
  if (mode == "prof" && argc > 4) {  // prof M name NxK [split [pers]]
    const int64_t n = atoll(argv[4]), k = atoll(strchr(argv[4], 'x') + 1);
    return prof(atoll(argv[2]), argv[3], n, k, argc > 5 ? atoi(argv[5]) : 1, argc > 6 && strcmp(argv[6], "pers") == 0);
  }
  fprintf(stderr, "usage: kbench check|memcheck|time|timeall [M,M,...|all [instance,substrings [NxK,NxK,...]]]\n"
                  "       kbench same M,M,... instance,substrings NxK\n"
                  "       kbench prof M cublas|instance NxK [split [pers]]\n");
  return 2;
}
