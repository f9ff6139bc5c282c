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
 */
#ifndef GEMMROUTE_GEMM_PARAMS_H
#define GEMMROUTE_GEMM_PARAMS_H

#include <stdint.h>

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
  int32_t reserved;
} gr_gemm_params;

#endif
