/* gemm_params.h — the one kernel ABI of gemmroute.
 *
 * Every GEMM kernel (and the split-K reduce kernel) takes this struct by
 * value as its only parameter. Go fills kernels.Params, whose layout a test
 * asserts equal to this one (size and every offset): change both together.
 *
 *   D[m,n] = alpha * sum_k A[m,k] * B[n,k] + beta * C[m,n] + bias[n]
 *
 * A [M,K] row-major (lda), B [N,K] row-major (ldb), C and D [M,N] row-major
 * sharing ldc. c may be NULL when beta == 0; bias may be NULL. With
 * split_k > 1 the GEMM kernel writes fp32 partials to
 * workspace[z][m][n] (z < split_k, dense M*N slices) and the reduce kernel
 * sums them in order z = 0, 1, ... and applies the epilogue.
 *
 * tma_a and tma_b are used only by kernels that load through the tensor
 * memory accelerator (the manifest's tma_box is set): the host encodes them
 * per call (cuTensorMapEncodeTiled) as K-major 2-D maps of A [M,K] and
 * B [N,K] — dims {K, rows}, row stride lda (ldb) bytes, a box of 64
 * elements of K by tma_box rows, the 128-byte swizzle, zero fill out of
 * bounds — and such kernels take this struct as a __grid_constant__. Other
 * kernels ignore them.
 *
 * tma_d is used only by kernels that store D through the tensor memory
 * accelerator (the manifest's tma_store_box is set, {columns, rows}): the
 * host encodes it per call as a 2-D map of D [M,N] in the output type — dims
 * {N, M}, row stride ldc bytes·sizeof(TOut), a box of tma_store_box, the
 * 128-byte swizzle — beside tma_a and tma_b; such kernels need D 16-byte
 * aligned, ldc·sizeof(TOut) a multiple of 16 and M, N below 2^31 (the
 * manifest's d_ptr_align, d_ld_align). It comes last, so that the other
 * fields keep their offsets (and every other kernel its code).
 *
 * flags are GR_STREAMK_FLAGS words, zero between launches, that stream-K
 * kernels (the manifest's reduction "stream_k") use as one semaphore per
 * block and consumer warpgroup; each kernel leaves them zero (the host zeroes
 * them once, when it allocates them). Such a kernel writes fp32 partial
 * tiles to workspace (grid × tile_m × tile_n floats) and reduces them
 * itself, in a fixed order; its split_k is 1. Other kernels ignore flags.
 *
 * pack_a, pack_b, pack_lda, pack_ldb and pack_k are, for the repack launch
 * of a TMA kernel's repack variant (the manifest's repack_kernel), the
 * operands the caller passed (null: that operand is not copied), their
 * pitches and K; a, b, lda, ldb and k then describe the copies in the
 * workspace (pitch k, a multiple of 8 elements, the K tail zero-filled), for
 * the repack kernel to write and the GEMM kernel to read. Other kernels
 * ignore them.
 *
 * scale_a, scale_b and scaling dequantise e4m3 inputs (16-bit kernels
 * ignore them; scaling is then 0). The kernel multiplies its fp32
 * accumulator by the scales before the epilogue (or before writing a split's
 * partials), so alpha, beta and bias are applied to dequantised values:
 *   GR_SCALE_FOLDED (0): per-tensor scalars, already folded into alpha;
 *   GR_SCALE_TENSOR (1): scale_a[0] · scale_b[0] (device scalars);
 *   GR_SCALE_ROW    (2): scale_a[m] · scale_b[n] (per token, per channel);
 *   GR_SCALE_BLOCK  (3): 1x128 blocks of A, 128x128 of B, applied per
 *     128-element k-block inside the main loop (products promoted to fp32
 *     across k-blocks): scale_a[kb * m_total + m] (M-major, [ceil(K/128)][M])
 *     and scale_b[(n / 128) * ceil(K/128) + kb] ([ceil(N/128)][ceil(K/128)]).
 */
#ifndef GEMMROUTE_GEMM_PARAMS_H
#define GEMMROUTE_GEMM_PARAMS_H

#include <stdint.h>

/* gr_tensor_map is a CUtensorMap's 128 bytes, declared here so that the
 * header needs no CUDA 12 cuda.h. The device copy must be 64-byte aligned
 * (the offsets below are multiples of 64 on the host too). */
#if defined(__CUDACC__)
#define GR_TENSOR_MAP_ALIGN __align__(64)
#else
#define GR_TENSOR_MAP_ALIGN
#endif
typedef struct GR_TENSOR_MAP_ALIGN gr_tensor_map {
  uint64_t opaque[16];
} gr_tensor_map;

typedef struct gr_gemm_params {
  const void *a;
  const void *b;
  const void *c;
  void *d;
  const void *bias;
  float *workspace;
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  int64_t k_per_split; /* K elements per split (a multiple of the kernel's tile K) */
  float alpha;         /* e4m3 scales already folded in */
  float beta;
  int32_t split_k;
  int32_t tail_parts;  /* the plan's parts: stream-K kernels of planned parts, the tail split S (ws_streamk.cuh); fixed-split kernels, S (ws_splitfixed.cuh) */
  int32_t pad[2];      /* the tensor maps start at byte 128 */
  gr_tensor_map tma_a; /* A [M,K], TMA kernels only */
  gr_tensor_map tma_b; /* B [N,K], TMA kernels only */
  const float *scale_a; /* e4m3 scales of A, see above */
  const float *scale_b; /* e4m3 scales of B */
  int32_t scaling;      /* GR_SCALE_* */
  int32_t pad3;
  uint32_t *flags;      /* stream-K kernels' semaphores, see below */
  const void *pack_a;   /* repack: the operands as the caller passed them, see below */
  const void *pack_b;
  int64_t pack_lda, pack_ldb, pack_k;
  int32_t pad2[14];     /* to byte 512, where tma_d starts */
  gr_tensor_map tma_d;  /* D [M,N], kernels that store D through TMA only (640 bytes in all) */
} gr_gemm_params;

#define GR_SCALE_FOLDED 0
#define GR_SCALE_TENSOR 1
#define GR_SCALE_ROW 2
#define GR_SCALE_BLOCK 3
#define GR_SCALE_BLOCK_K 128
#define GR_STREAMK_FLAGS 1024

#endif
