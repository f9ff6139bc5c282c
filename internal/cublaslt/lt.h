// The cuBLASLt entry points the package calls, with the project's own
// prototypes (no cuBLAS header is needed to build): handles, descriptors
// and device pointers as void * (uintptr_t where Go passes them), enums as
// int, cublasStatus_t as int (0 is CUBLAS_STATUS_SUCCESS). Included by
// every cgo file of the package; everything here is static.
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// cublasLtMatmulAlgo_t: uint64_t data[8], 64 bytes (CUDA 11.x to 13.x).
typedef struct {
  unsigned long long data[8];
} gr_lt_algo;

// cublasLtMatrixLayoutOpaque_t: uint64_t data[8], the room a layout
// initialised in place (cublasLtMatrixLayoutInit_internal) takes.
typedef struct {
  unsigned long long data[8];
} gr_lt_layout_mem;

// cublasLtMatmulHeuristicResult_t: the algorithm, the workspace it needs,
// its state (a cublasStatus_t), waves count and four reserved ints.
typedef struct {
  gr_lt_algo algo;
  size_t workspace;
  int state;
  float waves;
  int reserved[4];
} gr_lt_heuristic;

typedef size_t (*gr_lt_get_version_fn)(void);
typedef int (*gr_lt_create_fn)(void **handle);
typedef int (*gr_lt_destroy_fn)(void *handle);
typedef int (*gr_lt_desc_create_fn)(void **desc, int compute_type, int scale_type);
typedef int (*gr_lt_desc_destroy_fn)(void *desc);
typedef int (*gr_lt_desc_set_fn)(void *desc, int attr, const void *buf, size_t size);
typedef int (*gr_lt_layout_create_fn)(void **layout, int dtype, unsigned long long rows, unsigned long long cols,
                                      long long ld);
typedef int (*gr_lt_layout_destroy_fn)(void *layout);
typedef int (*gr_lt_layout_init_fn)(void *layout, size_t size, int dtype, unsigned long long rows,
                                    unsigned long long cols, long long ld);
typedef int (*gr_lt_algo_check_fn)(void *handle, void *desc, void *a, void *b, void *c, void *d,
                                   const gr_lt_algo *algo, gr_lt_heuristic *result);
typedef int (*gr_lt_algo_cap_fn)(const gr_lt_algo *algo, int attr, void *buf, size_t size, size_t *written);
typedef int (*gr_lt_pref_create_fn)(void **pref);
typedef int (*gr_lt_pref_destroy_fn)(void *pref);
typedef int (*gr_lt_pref_set_fn)(void *pref, int attr, const void *buf, size_t size);
typedef int (*gr_lt_heuristic_fn)(void *handle, void *desc, void *a, void *b, void *c, void *d, void *pref,
                                  int requested, gr_lt_heuristic *results, int *returned);
typedef int (*gr_lt_matmul_fn)(void *handle, void *desc, const void *alpha, const void *a, void *adesc,
                               const void *b, void *bdesc, const void *beta, const void *c, void *cdesc, void *d,
                               void *ddesc, const gr_lt_algo *algo, void *workspace, size_t workspace_bytes,
                               void *stream);

// gr_lt is one loaded library: its dlopen handle and its entry points, in
// the order of gr_lt_names.
typedef struct {
  void *lib;
  gr_lt_get_version_fn get_version;
  gr_lt_create_fn create;
  gr_lt_destroy_fn destroy;
  gr_lt_desc_create_fn desc_create;
  gr_lt_desc_destroy_fn desc_destroy;
  gr_lt_desc_set_fn desc_set;
  gr_lt_layout_create_fn layout_create;
  gr_lt_layout_destroy_fn layout_destroy;
  gr_lt_algo_check_fn algo_check;
  gr_lt_matmul_fn matmul;
  gr_lt_layout_init_fn layout_init;
  gr_lt_algo_cap_fn algo_cap;
  gr_lt_pref_create_fn pref_create;
  gr_lt_pref_destroy_fn pref_destroy;
  gr_lt_pref_set_fn pref_set;
  gr_lt_heuristic_fn heuristic;
} gr_lt;

// The symbols gr_lt_open resolves, in the order of gr_lt's fields.
static const char *gr_lt_names[] = {
    "cublasLtGetVersion",           "cublasLtCreate",
    "cublasLtDestroy",              "cublasLtMatmulDescCreate",
    "cublasLtMatmulDescDestroy",    "cublasLtMatmulDescSetAttribute",
    "cublasLtMatrixLayoutCreate",   "cublasLtMatrixLayoutDestroy",
    "cublasLtMatmulAlgoCheck",      "cublasLtMatmul",
    "cublasLtMatrixLayoutInit_internal", "cublasLtMatmulAlgoCapGetAttribute",
    "cublasLtMatmulPreferenceCreate", "cublasLtMatmulPreferenceDestroy",
    "cublasLtMatmulPreferenceSetAttribute", "cublasLtMatmulAlgoGetHeuristic"};

static int gr_lt_num_names(void) { return (int)(sizeof gr_lt_names / sizeof gr_lt_names[0]); }

static const char *gr_lt_name(int i) { return gr_lt_names[i]; }

// gr_lt_open dlopens path and resolves every entry point into lt. It
// returns 0 on success, else -1 with what failed copied into err (the dlopen
// and dlsym errors are read in the same C call, on the same thread, as the
// failure) and missing set to the entry point a library lacks, if one.
static int gr_lt_open(const char *path, gr_lt *lt, char *err, size_t errlen, const char **missing) {
  void **slots[] = {(void **)&lt->get_version,   (void **)&lt->create,        (void **)&lt->destroy,
                    (void **)&lt->desc_create,   (void **)&lt->desc_destroy,  (void **)&lt->desc_set,
                    (void **)&lt->layout_create, (void **)&lt->layout_destroy, (void **)&lt->algo_check,
                    (void **)&lt->matmul,        (void **)&lt->layout_init,   (void **)&lt->algo_cap,
                    (void **)&lt->pref_create,   (void **)&lt->pref_destroy,  (void **)&lt->pref_set,
                    (void **)&lt->heuristic};
  const char *e;
  int i;
  memset(lt, 0, sizeof *lt);
  *missing = NULL;
  dlerror();
  if ((lt->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    e = dlerror();
    strncpy(err, e ? e : "dlopen failed", errlen - 1);
    err[errlen - 1] = 0;
    return -1;
  }
  for (i = 0; i < gr_lt_num_names(); i++) {
    dlerror();
    *slots[i] = dlsym(lt->lib, gr_lt_names[i]);
    if (*slots[i] == NULL) {
      e = dlerror();
      strncpy(err, e ? e : "dlsym returned NULL", errlen - 1);
      err[errlen - 1] = 0;
      *missing = gr_lt_names[i];
      dlclose(lt->lib);
      memset(lt, 0, sizeof *lt);
      return -1;
    }
  }
  return 0;
}

static size_t gr_lt_version(const gr_lt *lt) { return lt->get_version(); }

static int gr_lt_close(gr_lt *lt) {
  int r = dlclose(lt->lib);
  memset(lt, 0, sizeof *lt);
  return r;
}

// The calls, with Go's integers for the library's pointers.

static int gr_lt_handle_new(const gr_lt *lt, uintptr_t *h) {
  void *p = NULL;
  int r = lt->create(&p);
  *h = (uintptr_t)p;
  return r;
}

static int gr_lt_handle_del(const gr_lt *lt, uintptr_t h) { return lt->destroy((void *)h); }

static int gr_lt_desc_new(const gr_lt *lt, uintptr_t *d, int compute, int scale) {
  void *p = NULL;
  int r = lt->desc_create(&p, compute, scale);
  *d = (uintptr_t)p;
  return r;
}

static int gr_lt_desc_set_i32(const gr_lt *lt, uintptr_t d, int attr, int32_t v) {
  return lt->desc_set((void *)d, attr, &v, sizeof v);
}

static int gr_lt_desc_set_i8(const gr_lt *lt, uintptr_t d, int attr, int8_t v) {
  return lt->desc_set((void *)d, attr, &v, sizeof v);
}

// gr_lt_desc_clear_scales sets the descriptor's scale pointers (attributes
// attr_sa and attr_sb) to NULL.
static int gr_lt_desc_clear_scales(const gr_lt *lt, uintptr_t d, int attr_sa, int attr_sb) {
  void *none = NULL;
  int r = lt->desc_set((void *)d, attr_sa, &none, sizeof none);
  return r != 0 ? r : lt->desc_set((void *)d, attr_sb, &none, sizeof none);
}

static int gr_lt_desc_del(const gr_lt *lt, uintptr_t d) { return lt->desc_destroy((void *)d); }

static int gr_lt_layout_new(const gr_lt *lt, uintptr_t *l, int dtype, uint64_t rows, uint64_t cols, int64_t ld) {
  void *p = NULL;
  int r = lt->layout_create(&p, dtype, rows, cols, ld);
  *l = (uintptr_t)p;
  return r;
}

static int gr_lt_layout_del(const gr_lt *lt, uintptr_t l) { return lt->layout_destroy((void *)l); }

// gr_lt_check is cublasLtMatmulAlgoCheck with C and D of one layout; the
// workspace the algorithm needs goes to *ws.
static int gr_lt_check(const gr_lt *lt, uintptr_t h, uintptr_t desc, uintptr_t a, uintptr_t b, uintptr_t cd,
                       const gr_lt_algo *algo, size_t *ws) {
  gr_lt_heuristic res;
  int r;
  memset(&res, 0, sizeof res);
  r = lt->algo_check((void *)h, (void *)desc, (void *)a, (void *)b, (void *)cd, (void *)cd, algo, &res);
  *ws = res.workspace;
  return r;
}

// gr_lt_cap_u32 reads a 4-byte capability of algo (uint32_t or int32_t).
static int gr_lt_cap_u32(const gr_lt *lt, const gr_lt_algo *algo, int attr, uint32_t *v) {
  size_t written = 0;
  return lt->algo_cap(algo, attr, v, sizeof *v, &written);
}

static int gr_lt_pref_new(const gr_lt *lt, uintptr_t *p) {
  void *q = NULL;
  int r = lt->pref_create(&q);
  *p = (uintptr_t)q;
  return r;
}

static int gr_lt_pref_set_u64(const gr_lt *lt, uintptr_t p, int attr, uint64_t v) {
  return lt->pref_set((void *)p, attr, &v, sizeof v);
}

static int gr_lt_pref_del(const gr_lt *lt, uintptr_t p) { return lt->pref_destroy((void *)p); }

static int gr_lt_heuristic_call(const gr_lt *lt, uintptr_t h, uintptr_t desc, uintptr_t a, uintptr_t b,
                                uintptr_t cd, uintptr_t pref, int n, gr_lt_heuristic *res, int *got) {
  return lt->heuristic((void *)h, (void *)desc, (void *)a, (void *)b, (void *)cd, (void *)cd, (void *)pref, n, res,
                       got);
}

// gr_lt_rc is a matmul's result: the status of the first call that failed
// (0: none) and which: 0-2 initialising the layouts of A, B, C/D, 3-4
// setting the scale pointers of A and B, 5 the matmul itself.
typedef struct {
  int status, stage;
} gr_lt_rc;

// gr_lt_matmul_call initialises the layouts of A, B and C/D in place, on
// this C stack (nothing is allocated), sets the descriptor's scale pointers
// of A and B (attributes attr_sa and attr_sb) to sa and sb when scaled is
// set (NULL for 0: a scale of 1), and calls cublasLtMatmul with host alpha
// and beta, C and D sharing a layout.
static gr_lt_rc gr_lt_matmul_call(const gr_lt *lt, uintptr_t h, uintptr_t desc, const gr_lt_algo *algo, int ta,
                                  uint64_t ra, uint64_t ca, int64_t lda, uintptr_t pa, int tb, uint64_t rb,
                                  uint64_t cb, int64_t ldb, uintptr_t pb, int tc, uint64_t rc, uint64_t cc,
                                  int64_t ldc, uintptr_t pc, uintptr_t pd, float alpha, float beta, uintptr_t ws,
                                  size_t ws_bytes, uintptr_t stream, int scaled, int attr_sa, uintptr_t sa,
                                  int attr_sb, uintptr_t sb) {
  gr_lt_layout_mem la, lb, lcd;
  gr_lt_rc rc_ = {0, 0};
  void *scale_a = (void *)sa, *scale_b = (void *)sb;
  if ((rc_.status = lt->layout_init(&la, sizeof la, ta, ra, ca, lda)) != 0) return rc_;
  rc_.stage = 1;
  if ((rc_.status = lt->layout_init(&lb, sizeof lb, tb, rb, cb, ldb)) != 0) return rc_;
  rc_.stage = 2;
  if ((rc_.status = lt->layout_init(&lcd, sizeof lcd, tc, rc, cc, ldc)) != 0) return rc_;
  if (scaled) {
    rc_.stage = 3;
    if ((rc_.status = lt->desc_set((void *)desc, attr_sa, &scale_a, sizeof scale_a)) != 0) return rc_;
    rc_.stage = 4;
    if ((rc_.status = lt->desc_set((void *)desc, attr_sb, &scale_b, sizeof scale_b)) != 0) return rc_;
  }
  rc_.stage = 5;
  rc_.status = lt->matmul((void *)h, (void *)desc, &alpha, (const void *)pa, &la, (const void *)pb, &lb, &beta,
                          (const void *)pc, &lcd, (void *)pd, &lcd, algo, (void *)ws, ws_bytes, (void *)stream);
  return rc_;
}
