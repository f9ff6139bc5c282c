// Package cublaslt reaches NVIDIA's cuBLASLt at run time, with no link-time
// or build-time dependency: Open loads the first library of a candidate
// list that the dynamic loader finds (dlopen), resolves the entry points the
// engine calls with the project's own prototypes (dlsym; no cuBLAS header is
// needed to build), and reads the library's version (cublasLtGetVersion).
// Where no candidate loads, cuBLASLt is absent and Open's *LoadError says
// every path tried and why.
//
// The package is cgo (it needs the C library's dlopen) but does not import
// gorgonia.org/cu, so its tests run on a machine without a GPU or CUDA.
// Built without cgo it has no files (its test is cgo-only too), so that the
// pure-Go CPU mode builds without a C compiler; only cgo code imports it.
package cublaslt

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// The entry points, with the project's own prototypes: handles and
// descriptors as void *, enums as int, cublasStatus_t as int (0 is
// CUBLAS_STATUS_SUCCESS), the opaque cublasLtMatmulAlgo_t as 64 bytes.
typedef struct { unsigned long long data[8]; } gr_lt_algo;
typedef size_t (*gr_lt_get_version_fn)(void);
typedef int (*gr_lt_create_fn)(void **handle);
typedef int (*gr_lt_destroy_fn)(void *handle);
typedef int (*gr_lt_desc_create_fn)(void **desc, int compute_type, int scale_type);
typedef int (*gr_lt_desc_destroy_fn)(void *desc);
typedef int (*gr_lt_desc_set_fn)(void *desc, int attr, const void *buf, size_t size);
typedef int (*gr_lt_layout_create_fn)(void **layout, int dtype, unsigned long long rows, unsigned long long cols,
                                      long long ld);
typedef int (*gr_lt_layout_destroy_fn)(void *layout);
typedef int (*gr_lt_algo_check_fn)(void *handle, void *desc, void *a, void *b, void *c, void *d,
                                   const gr_lt_algo *algo, void *result);
typedef int (*gr_lt_matmul_fn)(void *handle, void *desc, const void *alpha, const void *a, void *adesc,
                               const void *b, void *bdesc, const void *beta, const void *c, void *cdesc, void *d,
                               void *ddesc, const gr_lt_algo *algo, void *workspace, size_t workspace_bytes,
                               void *stream);

// gr_lt is one loaded library: its dlopen handle and its entry points.
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
} gr_lt;

// gr_lt_open dlopens path and resolves every entry point into lt. It
// returns 0 on success, else -1 with what failed copied into err (the dlopen
// and dlsym errors are read in the same C call, on the same thread, as the
// failure) and missing set to the entry point a library lacks, if one.
static int gr_lt_open(const char *path, gr_lt *lt, char *err, size_t errlen, const char **missing) {
  static const char *names[] = {"cublasLtGetVersion", "cublasLtCreate", "cublasLtDestroy",
                                "cublasLtMatmulDescCreate", "cublasLtMatmulDescDestroy",
                                "cublasLtMatmulDescSetAttribute", "cublasLtMatrixLayoutCreate",
                                "cublasLtMatrixLayoutDestroy", "cublasLtMatmulAlgoCheck", "cublasLtMatmul"};
  void **slots[] = {(void **)&lt->get_version, (void **)&lt->create, (void **)&lt->destroy,
                    (void **)&lt->desc_create, (void **)&lt->desc_destroy, (void **)&lt->desc_set,
                    (void **)&lt->layout_create, (void **)&lt->layout_destroy, (void **)&lt->algo_check,
                    (void **)&lt->matmul};
  const char *e;
  size_t i;
  memset(lt, 0, sizeof *lt);
  *missing = NULL;
  dlerror();
  if ((lt->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    e = dlerror();
    strncpy(err, e ? e : "dlopen failed", errlen - 1);
    err[errlen - 1] = 0;
    return -1;
  }
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    dlerror();
    *slots[i] = dlsym(lt->lib, names[i]);
    if (*slots[i] == NULL) {
      e = dlerror();
      strncpy(err, e ? e : "dlsym returned NULL", errlen - 1);
      err[errlen - 1] = 0;
      *missing = names[i];
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
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// DefaultNames are the libraries Open is given by the engine, in order:
// the CUDA 13 cuBLASLt, then the CUDA 12 one (their sonames, so the
// dynamic loader's search path and cache find them). Earlier versions'
// libraries are not tried: the prototypes here are CUDA 12's API.
var DefaultNames = []string{"libcublasLt.so.13", "libcublasLt.so.12"}

// ErrAbsent is what a *LoadError wraps: no candidate library could be used.
var ErrAbsent = errors.New("cuBLASLt absent")

// Attempt is one candidate Open tried and why it could not be used.
type Attempt struct {
	Path string // the candidate as given: a soname or a file path
	// Missing is the entry point the library lacks ("" when dlopen itself
	// failed).
	Missing string
	Reason  string // the dynamic loader's message
}

// String is "path: reason", with the missing entry point when there is one.
func (a Attempt) String() string {
	if a.Missing != "" {
		return fmt.Sprintf("%s: lacks %s (%s)", a.Path, a.Missing, a.Reason)
	}
	return a.Path + ": " + a.Reason
}

// LoadError says that Open found no usable cuBLASLt: every candidate tried,
// in order, and why each failed. It wraps ErrAbsent.
type LoadError struct {
	Tried []Attempt
}

// Error is "cuBLASLt absent: " and each attempt, with what to do.
func (e *LoadError) Error() string {
	if len(e.Tried) == 0 {
		return ErrAbsent.Error() + ": no candidate library was given (pass cublaslt.DefaultNames or paths of your own)"
	}
	parts := make([]string, len(e.Tried))
	for i, a := range e.Tried {
		parts[i] = a.String()
	}
	return ErrAbsent.Error() + ": " + strings.Join(parts, "; ") +
		" (install the CUDA 12 or 13 cuBLAS runtime library, or add its directory to LD_LIBRARY_PATH)"
}

// Unwrap returns ErrAbsent.
func (e *LoadError) Unwrap() error { return ErrAbsent }

// Version is cuBLASLt's version as cublasLtGetVersion reports it:
// major·10000 + minor·100 + patch (e.g. 120804 for 12.8.4).
type Version int

// Major is the version's major number (12 for 120804).
func (v Version) Major() int { return int(v) / 10000 }

// String is "major.minor.patch".
func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", int(v)/10000, int(v)/100%100, int(v)%100)
}

// Library is a loaded cuBLASLt with its entry points resolved.
type Library struct {
	lt      *C.gr_lt
	path    string
	version Version
}

// Open loads the first of candidates (sonames or file paths, tried in
// order) that dlopen loads and that has every entry point the engine calls,
// and reads its version. The caller chooses the candidates (the engine
// passes DefaultNames); Open reads no environment variable of its own (the
// dynamic loader still honours LD_LIBRARY_PATH for a soname). When none is
// usable the error is a *LoadError, which wraps ErrAbsent.
func Open(candidates []string) (*Library, error) {
	lerr := &LoadError{}
	lt := (*C.gr_lt)(C.calloc(1, C.sizeof_gr_lt))
	if lt == nil {
		return nil, fmt.Errorf("cublaslt: allocating %d bytes for the entry points failed (out of memory)", C.sizeof_gr_lt)
	}
	var buf [512]C.char
	for _, path := range candidates {
		cpath := C.CString(path)
		var missing *C.char
		rc := C.gr_lt_open(cpath, lt, &buf[0], C.size_t(len(buf)), &missing)
		C.free(unsafe.Pointer(cpath))
		if rc == 0 {
			return &Library{lt: lt, path: path, version: Version(C.gr_lt_version(lt))}, nil
		}
		a := Attempt{Path: path, Reason: C.GoString(&buf[0])}
		if missing != nil {
			a.Missing = C.GoString(missing)
		}
		lerr.Tried = append(lerr.Tried, a)
	}
	C.free(unsafe.Pointer(lt))
	return nil, lerr
}

// Path is the candidate that loaded, as it was given to Open.
func (l *Library) Path() string { return l.path }

// Version is the loaded library's cublasLtGetVersion.
func (l *Library) Version() Version { return l.version }

// Close unloads the library (dlclose); l must not be used after. Closing a
// closed Library does nothing.
func (l *Library) Close() error {
	if l.lt == nil {
		return nil
	}
	rc := C.gr_lt_close(l.lt)
	C.free(unsafe.Pointer(l.lt))
	l.lt = nil
	if rc != 0 {
		return fmt.Errorf("cublaslt: dlclose of %s failed (%d); the library stays loaded, which is harmless", l.path, int(rc))
	}
	return nil
}
