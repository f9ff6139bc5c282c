//go:build cgo

package cublaslt

import (
	"encoding/binary"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSource is a cuBLASLt that checks what it is given: a matmul's
// layouts must agree with the descriptor's operations (op(A) m×k, op(B)
// k×n, C/D m×n, ld ≥ rows), the descriptor must be compute 32F, scale 32F.
// An algorithm's data[0] is its workspace, data[1..4] the alignments of
// A, B, C, D, data[5] out-of-place support, data[7] = 0xdead makes
// AlgoCheck answer NOT_SUPPORTED. Matmul succeeds only for beta 0.25, A
// 0xA00, B 0xB00, C 0xC00, D 0xD00, stream 0x5, a large enough workspace
// at 0x7000 and alpha 1.5, or for FP8 (A of type 28) alpha 1.5 with the
// scale pointers 0x5A and 0x5B or alpha 3 with both NULL. An FP8 AlgoCheck
// or Matmul answers NOT_SUPPORTED unless fast accumulation was set off; an
// FP8 AlgoCheck or heuristic, INVALID_VALUE unless the scale pointers are
// NULL (what they answer must not depend on an earlier matmul's).
const fakeSource = `#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
typedef struct { uint64_t data[8]; } algo_t;
typedef struct { algo_t algo; size_t ws; int state; float waves; int reserved[4]; } result_t;
typedef struct { int compute, scale, ta, tb, fast_set, fast; void *sa, *sb; } desc_t;
typedef struct { int type; uint64_t rows, cols; int64_t ld; } layout_t;
typedef struct { uint64_t max_ws; } pref_t;
size_t cublasLtGetVersion(void) { return 120804; }
int cublasLtCreate(void **h) { *h = (void *)0x10; return 0; }
int cublasLtDestroy(void *h) { return h == (void *)0x10 ? 0 : 7; }
int cublasLtMatmulDescCreate(void **d, int compute, int scale) {
  desc_t *p;
  if (compute != 68 || scale != 0) return 15;
  p = calloc(1, sizeof *p); p->compute = compute; p->scale = scale; *d = p; return 0;
}
int cublasLtMatmulDescDestroy(void *d) { free(d); return 0; }
int cublasLtMatmulDescSetAttribute(void *d, int attr, const void *buf, size_t size) {
  desc_t *p = d;
  if ((attr == 3 || attr == 4) && size == 4) {
    if (attr == 3) p->ta = *(const int32_t *)buf; else p->tb = *(const int32_t *)buf;
  } else if (attr == 25 && size == 1) {
    p->fast_set = 1; p->fast = *(const int8_t *)buf;
  } else if ((attr == 17 || attr == 18) && size == sizeof(void *)) {
    if (attr == 17) p->sa = *(void *const *)buf; else p->sb = *(void *const *)buf;
  } else return 7;
  return 0;
}
static int fill(layout_t *l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  if (ld < (int64_t)rows) return 7;
  l->type = type; l->rows = rows; l->cols = cols; l->ld = ld; return 0;
}
int cublasLtMatrixLayoutCreate(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  layout_t *p = calloc(1, sizeof *p); int r = fill(p, type, rows, cols, ld);
  if (r) { free(p); return r; }
  *l = p; return 0;
}
int cublasLtMatrixLayoutInit_internal(void *l, size_t size, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  if (size < 64) return 3;
  return fill(l, type, rows, cols, ld);
}
int cublasLtMatrixLayoutDestroy(void *l) { free(l); return 0; }
static int consistent(const desc_t *d, const layout_t *a, const layout_t *b, const layout_t *c, const layout_t *dd) {
  uint64_t m = d->ta ? a->cols : a->rows, ka = d->ta ? a->rows : a->cols;
  uint64_t kb = d->tb ? b->cols : b->rows, n = d->tb ? b->rows : b->cols;
  if (c != dd || ka != kb || c->rows != m || c->cols != n || a->type != b->type) return 7;
  if (a->type == 28 && (!d->fast_set || d->fast != 0)) return 15;
  return 0;
}
static int unscaled(const desc_t *d, const layout_t *a) {
  return a->type == 28 && (d->sa != NULL || d->sb != NULL) ? 7 : 0;
}
int cublasLtMatmulAlgoCheck(void *h, void *d, void *a, void *b, void *c, void *dd, const algo_t *algo, result_t *res) {
  int r = consistent(d, a, b, c, dd);
  if (r || (r = unscaled(d, a))) return r;
  if (algo->data[7] == 0xdead) return 15;
  res->ws = algo->data[0]; res->state = 0; return 0;
}
int cublasLtMatmulAlgoCapGetAttribute(const algo_t *algo, int attr, void *buf, size_t size, size_t *written) {
  if (size != 4) return 7;
  if (attr >= 16 && attr <= 19) *(uint32_t *)buf = (uint32_t)algo->data[1 + attr - 16];
  else if (attr == 4) *(int32_t *)buf = (int32_t)algo->data[5];
  else return 7;
  *written = 4; return 0;
}
int cublasLtMatmulPreferenceCreate(void **p) { *p = calloc(1, sizeof(pref_t)); return 0; }
int cublasLtMatmulPreferenceDestroy(void *p) { free(p); return 0; }
int cublasLtMatmulPreferenceSetAttribute(void *p, int attr, const void *buf, size_t size) {
  if (attr != 1 || size != 8) return 7;
  ((pref_t *)p)->max_ws = *(const uint64_t *)buf; return 0;
}
int cublasLtMatmulAlgoGetHeuristic(void *h, void *d, void *a, void *b, void *c, void *dd, void *p, int n, result_t *res, int *got) {
  int i, r = consistent(d, a, b, c, dd);
  if (r || (r = unscaled(d, a))) return r;
  *got = 0;
  for (i = 0; i < 3 && i < n; i++) {
    uint64_t ws = (uint64_t)i * 1024;
    res[i].algo.data[0] = ws; res[i].algo.data[1] = res[i].algo.data[2] = 16;
    res[i].algo.data[3] = res[i].algo.data[4] = 16; res[i].algo.data[5] = 1;
    res[i].ws = ws; res[i].waves = 1.0f + i;
    res[i].state = ws <= ((pref_t *)p)->max_ws ? 0 : 15;
    (*got)++;
  }
  return 0;
}
int cublasLtMatmul(void *h, void *d, const void *alpha, const void *A, void *ad, const void *B, void *bd,
                   const void *beta, const void *C, void *cd, void *D, void *dd, const algo_t *algo,
                   void *ws, size_t wsb, void *stream) {
  int r = consistent(d, ad, bd, cd, dd);
  if (r) return r;
  const desc_t *p = d;
  float al = *(const float *)alpha;
  int scales = p->sa == (void *)0x5A && p->sb == (void *)0x5B, none = p->sa == NULL && p->sb == NULL;
  if (((const layout_t *)ad)->type == 28) {
    if (!(al == 1.5f && scales) && !(al == 3.0f && none)) return 7;
  } else if (al != 1.5f || !none) return 7;
  if (*(const float *)beta != 0.25f) return 7;
  if (A != (void *)0xA00 || B != (void *)0xB00 || C != (void *)0xC00 || D != (void *)0xD00) return 7;
  if (stream != (void *)0x5 || wsb < algo->data[0] || (wsb > 0 && ws != (void *)0x7000)) return 7;
  return 0;
}
`

// fakeAlgo is an algorithm of fakeSource's: workspace ws, every
// alignment 16, out of place.
func fakeAlgo(ws uint64) Algo {
	var a Algo
	for i, v := range []uint64{ws, 16, 16, 16, 16, 1} {
		binary.LittleEndian.PutUint64(a[8*i:], v)
	}
	return a
}

// The API over the fake library: a handle, a descriptor with TN
// operations, layouts for D[m,n] = A[k,m]ᵀ·B[k,n], the algorithm checked
// (workspace, capabilities), the heuristic's proposals within a workspace,
// and a matmul whose every argument the fake checks.
func TestMatmulFake(t *testing.T) {
	lib, err := Open([]string{buildLibrary(t, t.TempDir(), "libfakelt.so", fakeSource)})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lib.Close()) }) // after the layouts' cleanups
	h, err := lib.NewHandle()
	require.NoError(t, err)
	_, err = lib.NewMatmulDesc(Compute32F, R16BF, OpT, OpN)
	var se *StatusError
	require.ErrorAs(t, err, &se, "the fake takes scale 32F only")
	assert.Equal(t, &StatusError{Call: "cublasLtMatmulDescCreate", Status: 15}, se)
	require.ErrorIs(t, err, ErrStatus)
	assert.Contains(t, err.Error(), "CUBLAS_STATUS_NOT_SUPPORTED (15): ")
	desc, err := lib.NewMatmulDesc(Compute32F, R32F, OpT, OpN)
	require.NoError(t, err)

	const m, n, k = 48, 8, 64
	mk := func(rows, cols uint64, ld int64) *Layout {
		y, err := lib.NewLayout(Matrix{Type: R16BF, Rows: rows, Cols: cols, LD: ld})
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, y.Close()) })
		return y
	}
	ls := Layouts{A: mk(k, m, k), B: mk(k, n, k+8), CD: mk(m, n, m)}
	algo := fakeAlgo(4096)
	ws, err := h.AlgoCheck(desc, ls, &algo)
	require.NoError(t, err)
	assert.Equal(t, int64(4096), ws)
	bad := Layouts{A: ls.A, B: ls.B, CD: mk(m+1, n, m+1)}
	_, err = h.AlgoCheck(desc, bad, &algo)
	assert.Equal(t, &StatusError{Call: "cublasLtMatmulAlgoCheck", Status: 7}, err, "layouts that disagree")
	refused := algo
	binary.LittleEndian.PutUint64(refused[56:], 0xdead)
	_, err = h.AlgoCheck(desc, ls, &refused)
	assert.Equal(t, &StatusError{Call: "cublasLtMatmulAlgoCheck", Status: 15}, err)
	_, err = lib.NewLayout(Matrix{Type: R16BF, Rows: 8, Cols: 8, LD: 4})
	assert.Equal(t, &StatusError{Call: "cublasLtMatrixLayoutCreate", Status: 7}, err)

	caps, err := lib.Caps(&algo)
	require.NoError(t, err)
	assert.Equal(t, Caps{Align: [4]int{16, 16, 16, 16}, OutOfPlace: true}, caps)

	hs, err := h.Heuristic(desc, ls, 1024, 8)
	require.NoError(t, err)
	require.Len(t, hs, 2, "the third needs 2048 bytes")
	assert.Equal(t, int64(1024), hs[1].Workspace)
	assert.Equal(t, fakeAlgo(1024), hs[1].Algo)
	assert.InDelta(t, 2.0, hs[1].Waves, 0)
	_, err = h.Heuristic(desc, ls, 1024, 0)
	assert.ErrorContains(t, err, "ask for at least one")

	args := MatmulArgs{
		A: Operand{Matrix{R16BF, k, m, k}, 0xA00}, B: Operand{Matrix{R16BF, k, n, k + 8}, 0xB00},
		CD: Matrix{R16BF, m, n, m}, C: 0xC00, D: 0xD00, Alpha: 1.5, Beta: 0.25,
		Workspace: 0x7000, WorkspaceBytes: 4096, Stream: 0x5,
	}
	require.NoError(t, h.Matmul(desc, &algo, &args))
	allocs := testing.AllocsPerRun(20, func() { _ = h.Matmul(desc, &algo, &args) })
	assert.Zero(t, allocs, "Matmul allocates nothing")
	wrong := args
	wrong.Alpha = 1
	assert.Equal(t, &StatusError{Call: "cublasLtMatmul", Status: 7}, h.Matmul(desc, &algo, &wrong))
	wrong = args
	wrong.WorkspaceBytes = 1024
	assert.Equal(t, &StatusError{Call: "cublasLtMatmul", Status: 7}, h.Matmul(desc, &algo, &wrong), "less workspace than the algorithm needs")
	wrong = args
	wrong.B.LD = 4
	assert.Equal(t, &StatusError{Call: "cublasLtMatrixLayoutInit (B)", Status: 7}, h.Matmul(desc, &algo, &wrong))

	require.NoError(t, desc.Close())
	require.NoError(t, desc.Close(), "a second Close does nothing")
	assert.ErrorIs(t, h.Matmul(desc, &algo, &args), ErrClosed)
	require.NoError(t, h.Close())
	assert.ErrorIs(t, h.Matmul(desc, &algo, &args), ErrClosed)
	_, err = h.AlgoCheck(desc, ls, &algo)
	assert.ErrorIs(t, err, ErrClosed)
}

// An FP8 matmul's descriptor (NewScaledMatmulDesc) sets fast accumulation
// off, and each Matmul sets its scale pointers: its own, or NULL (a scale
// of 1: the scales folded into alpha) after a call that set them, under
// the descriptor's lock (8 goroutines alternating both never see another's
// pointers) and without allocating; AlgoCheck and Heuristic see NULL scale
// pointers whatever a matmul before them set; a descriptor without them refuses
// scale pointers, and the fake refuses an FP8 matmul whose fast
// accumulation was left to the default.
func TestScaledMatmulFake(t *testing.T) {
	lib, err := Open([]string{buildLibrary(t, t.TempDir(), "libfakelt.so", fakeSource)})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lib.Close()) })
	h, err := lib.NewHandle()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, h.Close()) })
	scaled, err := lib.NewScaledMatmulDesc(OpT, OpN)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, scaled.Close()) })
	plain, err := lib.NewMatmulDesc(Compute32F, R32F, OpT, OpN)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, plain.Close()) })

	const m, n, k = 48, 8, 64
	a, b, cd := Matrix{R8FE4M3, k, m, k}, Matrix{R8FE4M3, k, n, k}, Matrix{R16BF, m, n, m}
	var ls Layouts
	for _, l := range []struct {
		dst **Layout
		m   Matrix
	}{{&ls.A, a}, {&ls.B, b}, {&ls.CD, cd}} {
		y, err := lib.NewLayout(l.m)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, y.Close()) })
		*l.dst = y
	}
	algo := fakeAlgo(4096)
	ws, err := h.AlgoCheck(scaled, ls, &algo)
	require.NoError(t, err)
	assert.Equal(t, int64(4096), ws)
	_, err = h.AlgoCheck(plain, ls, &algo)
	assert.Equal(t, &StatusError{Call: "cublasLtMatmulAlgoCheck", Status: 15}, err, "FP8 with fast accumulation left to the default")
	hs, err := h.Heuristic(scaled, ls, 4096, 8)
	require.NoError(t, err)
	assert.Len(t, hs, 3)

	args := func(alpha float32, sa, sb uintptr) *MatmulArgs {
		return &MatmulArgs{A: Operand{a, 0xA00}, B: Operand{b, 0xB00}, CD: cd, C: 0xC00, D: 0xD00, Alpha: alpha, Beta: 0.25,
			Workspace: 0x7000, WorkspaceBytes: 4096, Stream: 0x5, ScaleA: sa, ScaleB: sb}
	}
	for _, c := range []struct {
		name string
		desc *MatmulDesc
		args *MatmulArgs
		err  error
	}{
		{"scale pointers", scaled, args(1.5, 0x5A, 0x5B), nil},
		{"folded after pointers: NULL again", scaled, args(3, 0, 0), nil},
		{"pointers again", scaled, args(1.5, 0x5A, 0x5B), nil},
		{"other pointers", scaled, args(1.5, 0x5B, 0x5A), &StatusError{Call: "cublasLtMatmul", Status: 7}},
		{"fast accumulation left to the default", plain, args(3, 0, 0), &StatusError{Call: "cublasLtMatmul", Status: 15}},
		{"pointers on a plain descriptor", plain, args(1.5, 0x5A, 0x5B), errScalePointers},
	} {
		assert.Equal(t, c.err, h.Matmul(c.desc, &algo, c.args), c.name)
	}
	require.NoError(t, h.Matmul(scaled, &algo, args(1.5, 0x5A, 0x5B)))
	_, err = h.AlgoCheck(scaled, ls, &algo)
	assert.NoError(t, err, "checked with NULL scale pointers after a matmul that set them")
	require.NoError(t, h.Matmul(scaled, &algo, args(1.5, 0x5A, 0x5B)))
	_, err = h.Heuristic(scaled, ls, 4096, 8)
	assert.NoError(t, err, "asked with NULL scale pointers")
	withPtrs, folded := args(1.5, 0x5A, 0x5B), args(3, 0, 0)
	allocs := testing.AllocsPerRun(20, func() { _ = h.Matmul(scaled, &algo, withPtrs) })
	assert.Zero(t, allocs, "a scaled Matmul allocates nothing")

	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Go(func() {
			for i := range 200 {
				x := withPtrs
				if (g+i)%2 == 1 {
					x = folded
				}
				if err := h.Matmul(scaled, &algo, x); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for g, err := range errs {
		assert.NoError(t, err, "goroutine %d", g)
	}
}
