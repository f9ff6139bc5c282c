package dispatch

import (
	"cmp"
	"encoding/base64"
	"fmt"
)

// Vendor routes a bucket to cuBLASLt instead of a kernel of ours: the
// algorithm the tuner chose, as the library identifies it, and the version
// of the library that chose it. A planner passes over such a bucket unless
// the loaded library is that very version (VendorLibrary); the engine does
// not launch cuBLASLt yet, so today every one is passed over, saying why.
type Vendor struct {
	// Algo is the opaque cublasLtMatmulAlgo_t (VendorAlgoBytes bytes), in
	// standard base64 with padding.
	Algo string `yaml:"algo"`
	// Version is cublasLtGetVersion of the library that chose the
	// algorithm: major·10000 + minor·100 + patch (120804 for 12.8.4), at
	// least MinVendorVersion. Another version may read the bytes
	// differently, so the algorithm is used with that version only.
	Version int `yaml:"version"`
}

// VendorAlgoBytes is the size of cuBLASLt's cublasLtMatmulAlgo_t (uint64_t
// data[8]) in CUDA 12 and 13.
const VendorAlgoBytes = 64

// MinVendorVersion is the oldest cuBLASLt a vendor bucket may record: 12.0
// (the engine loads libcublasLt.so.13 or .so.12).
const MinVendorVersion = 120000

// VendorLibrary is what a planner knows of cuBLASLt on the machine it plans
// for (Planner.WithVendor): the loaded library's version, or why none is
// loaded. The zero value is an absent library.
type VendorLibrary struct {
	Version int // cublasLtGetVersion of the loaded library; 0: none loaded
	// Absent says why none is loaded, when Version is 0: the loader's
	// error ("cuBLASLt absent: libcublasLt.so.13: …; …"), which Explain
	// quotes.
	Absent string
}

// vendorVersion writes a cublasLtGetVersion value as "12.8.4".
func vendorVersion(v int) string { return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100) }

// pass says why a planner with lib passes over b, a bucket routed to
// cuBLASLt, and how KernelMatch counts it: changed when the library is
// absent or of another version than b's, vendor when it is b's.
func (lib VendorLibrary) pass(b *Bucket) (string, kernelState) {
	switch rec := b.Vendor.Version; {
	case lib.Version == 0:
		return cmp.Or(lib.Absent, "cuBLASLt absent: the planner was given no loaded library (Planner.WithVendor)"), kernelChanged
	case lib.Version != rec:
		return fmt.Sprintf("recorded for cuBLASLt %s, loaded %s: retune the table with the loaded library", vendorVersion(rec), vendorVersion(lib.Version)), kernelChanged
	default:
		return fmt.Sprintf("cuBLASLt %s's algorithm, which the engine does not launch yet", vendorVersion(rec)), kernelVendor
	}
}

// check returns what is wrong with v as a table records it, or "".
func (v *Vendor) check() (field, problem string) {
	switch raw, err := base64.StdEncoding.DecodeString(v.Algo); {
	case v.Algo == "":
		return "algo", "algo is missing: record the cublasLtMatmulAlgo_t the tuner chose, in base64"
	case err != nil:
		return "algo", fmt.Sprintf("algo is not standard base64 (%v): write the bytes autotune recorded", err)
	case len(raw) != VendorAlgoBytes:
		return "algo", fmt.Sprintf("algo decodes to %d bytes; a cublasLtMatmulAlgo_t is %d: write the bytes autotune recorded", len(raw), VendorAlgoBytes)
	case v.Version < MinVendorVersion:
		return "version", fmt.Sprintf("version %d: record cublasLtGetVersion of the library that chose the algorithm (major·10000 + minor·100 + patch; cuBLASLt 12.0 or newer, %d and up)", v.Version, MinVendorVersion)
	}
	return "", ""
}
