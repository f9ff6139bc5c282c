package dispatch

// Stream is a CUDA stream handle (a CUstream); 0 is the legacy default
// stream. With gorgonia.org/cu, StreamOf converts a cu.Stream.
type Stream uintptr

// Options configure Open. The zero value is the embedded kernels and table,
// 32 MiB of split-K workspace per stream, and table routing.
type Options struct {
	// Table replaces the embedded buckets.yaml (see LoadTable).
	Table *Table
	// KernelDir loads manifest.json and the fatbins from this directory
	// instead of the embedded ones (e.g. kernels/ after kernels/build.sh).
	// The environment variable GEMMROUTE_KERNEL_DIR does the same.
	KernelDir string
	// WorkspaceBytes is the workspace the engine reserves for a stream the
	// first time a GEMM on it is planned with one (outside graph capture;
	// Capture reserves before it starts): split-K and stream-K partials,
	// and the repack kernels' copies of A and B. 0 means
	// DefaultWorkspaceBytes. The planner never picks a kernel, split-K
	// factor or copy that needs more than this.
	WorkspaceBytes int64
	// JITImages also loads the images that reach this GPU only through PTX
	// JIT compilation where a native image covers it (on a Hopper card, the
	// sm80 image's compute_80 PTX): to test the Ampere kernels on a newer
	// card. Off, Open loads native code only there, and faster.
	JITImages bool
	// BatchInvariant runs every GEMM in the batch-invariant mode
	// (Limits.BatchInvariant): a row's output bits do not depend on the
	// batch it is in.
	BatchInvariant bool
	// NoVendor turns cuBLASLt off: Open loads no library, and every table
	// bucket routed to cuBLASLt is passed over (Explain: "cuBLASLt off:
	// Options.NoVendor is set"), so only our kernels run. Kernel floors
	// are measured this way.
	NoVendor bool
	// VendorLibraries are the cuBLASLt libraries Open tries, in order
	// (sonames or paths; the first that loads with every entry point
	// wins). Empty: libcublasLt.so.13, then libcublasLt.so.12. The engine
	// still runs when none loads: the table's cuBLASLt buckets are passed
	// over, Explain quoting why each candidate failed.
	VendorLibraries []string
}

// vendorOffText is what the planner of an engine opened with NoVendor says
// of a bucket routed to cuBLASLt.
const vendorOffText = "cuBLASLt off: Options.NoVendor is set"

// vendorOff is the VendorLibrary of an engine opened with o when o turns
// cuBLASLt off, and whether it does.
func (o *Options) vendorOff() (VendorLibrary, bool) {
	return VendorLibrary{Absent: vendorOffText}, o.NoVendor
}

// check returns an *ArgError for the first option Open cannot use.
func (o *Options) check() error {
	if o.WorkspaceBytes < 0 {
		return &ArgError{Field: "Options.WorkspaceBytes", Value: o.WorkspaceBytes, Rule: "must not be negative (0: DefaultWorkspaceBytes)"}
	}
	if o.NoVendor && len(o.VendorLibraries) > 0 {
		return &ArgError{Field: "Options.VendorLibraries", Value: o.VendorLibraries, Rule: "names libraries while NoVendor turns cuBLASLt off: drop one of the two"}
	}
	for _, name := range o.VendorLibraries {
		if name == "" {
			return &ArgError{Field: "Options.VendorLibraries", Value: o.VendorLibraries, Rule: "holds an empty name: give sonames or paths of cuBLASLt libraries (or none, for the defaults)"}
		}
	}
	return nil
}

// DefaultWorkspaceBytes is the workspace per stream when Options leave it
// 0, and the most a plan may need then.
const DefaultWorkspaceBytes = 32 << 20
