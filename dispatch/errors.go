package dispatch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gemmroute/gemmroute/kernels"
)

// Sentinel errors. Every error gemmroute returns wraps one of these, so
// callers can branch with errors.Is.
var (
	// ErrInvalidArgument: an argument (a Problem field, a device
	// description, a nil pointer) broke a rule (see *ArgError).
	ErrInvalidArgument = kernels.ErrInvalidArgument
	// ErrNoCUDA: the package was built with -tags nocuda; planning works, launching does not.
	ErrNoCUDA = errors.New("gemmroute: built without CUDA (-tags nocuda): planning only; rebuild without the tag on a machine with CUDA headers and libcuda to launch kernels")
	// ErrNoKernel: no kernel in the catalog passes the problem's constraints.
	ErrNoKernel = errors.New("gemmroute: no kernel fits this problem")
	// ErrTable: a bucket table is malformed or does not match the catalog (see *TableError).
	ErrTable = errors.New("gemmroute: bad bucket table")
	// ErrManifest: the kernel manifest is malformed (kernels.ErrManifest).
	ErrManifest = kernels.ErrManifest
	// ErrWorkspace: the workspace reserved for a stream is smaller than a plan needs.
	ErrWorkspace = errors.New("gemmroute: split-K workspace too small")
	// ErrClosed: the Engine was closed.
	ErrClosed = errors.New("gemmroute: engine closed")
	// ErrVendor: a cuBLASLt call of a plan routed to cuBLASLt failed.
	ErrVendor = errors.New("gemmroute: cuBLASLt call failed")
	// ErrNoBinary: the running GPU has no code in the kernel images gemmroute holds.
	ErrNoBinary = errors.New("gemmroute: no kernel image for this GPU")
	// ErrCUDA: a CUDA driver call failed (see *CUDAError).
	ErrCUDA = errors.New("gemmroute: CUDA driver error")
)

// ArgError names the argument (most often a Problem field) that broke a
// rule, its value and the rule. Nothing is launched for a problem that fails
// validation.
type ArgError struct {
	Field string // e.g. "LDA"
	Value any    // the offending value
	Rule  string // e.g. "must be >= K (1024)"
}

// Error says which field broke which rule.
func (e *ArgError) Error() string {
	return fmt.Sprintf("gemmroute: invalid %s = %v: %s", e.Field, e.Value, e.Rule)
}

// Unwrap lets errors.Is(err, ErrInvalidArgument) match.
func (e *ArgError) Unwrap() error { return ErrInvalidArgument }

// CUDAError is a failed CUDA driver call: the engine's errors from the
// driver are *CUDAError, so that callers can reach the result code with
// errors.As; errors.Is(err, ErrCUDA) holds for them too.
type CUDAError struct {
	Call string // driver entry point, e.g. "cuLaunchKernel"
	Code int    // the CUresult, e.g. 2
	Name string // its name, e.g. "CUDA_ERROR_OUT_OF_MEMORY"
	Msg  string // the driver's description, e.g. "out of memory"
}

// Error names the call, the result and the driver's description.
func (e *CUDAError) Error() string {
	return fmt.Sprintf("%v: %s: %s (%d): %s", ErrCUDA, e.Call, e.Name, e.Code, e.Msg)
}

// Unwrap lets errors.Is(err, ErrCUDA) match.
func (e *CUDAError) Unwrap() error { return ErrCUDA }

// TableError reports a problem in a bucket table, with the file and line where
// it was found (Line 0 when the problem has no single line).
type TableError struct {
	File string // the table's name, as given to LoadTable
	Line int    // 1-based line, 0 for the whole table
	Msg  string // what is wrong and what to do
}

// Error is "file:line: message".
func (e *TableError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap lets errors.Is(err, ErrTable) match.
func (e *TableError) Unwrap() error { return ErrTable }

// TableErrors is every error found in one table, in line order.
type TableErrors []*TableError

// Error lists every error, one a line (in time linear in their number).
func (es TableErrors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the individual errors.
func (es TableErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
