// Package cublaslt reaches NVIDIA's cuBLASLt at run time, with no link-time
// or build-time dependency: Open loads the first library of a candidate
// list that the dynamic loader finds (dlopen), resolves the entry points the
// engine calls with the project's own prototypes (dlsym; no cuBLAS header is
// needed to build), and reads the library's version (cublasLtGetVersion).
// Handle, MatmulDesc, Layout and Matmul are the small API the engine
// launches a recorded algorithm with; Heuristic proposes algorithms.
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
#include "lt.h"
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
