package kernels

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ErrInvalidArgument: a value broke a rule (an unknown arch or dtype name
// here; dispatch's *ArgError for problems). dispatch.ErrInvalidArgument is
// the same error.
var ErrInvalidArgument = errors.New("gemmroute: invalid argument")

// ErrManifest: the kernel manifest is malformed. Every error ParseManifest
// and NewCatalog return wraps it.
var ErrManifest = errors.New("gemmroute: bad kernel manifest")

// Layout names the operand layout. gemmroute serves TN only: A row-major
// [M,K], B row-major [N,K] (the nn.Linear weight), C/D row-major [M,N].
const LayoutTN = "tn"

// Reduction kinds of split-K kernels.
const (
	ReduceNone      = "none"      // the kernel does not split K across blocks
	ReduceWorkspace = "workspace" // fp32 partials in a workspace, then a fixed-order reduce kernel
	// ReduceStreamK: a persistent kernel whose blocks share the tiles'
	// k-tiles evenly (stream-K) and reduce each split tile themselves, in a
	// fixed order: fp32 partial tiles in the workspace (one per block), and
	// semaphores in Params.Flags. No split-K factor (max_split_k 1).
	ReduceStreamK = "stream_k"
	// ReduceStreamKParts: stream-K whose partial last wave's tiles are
	// split into the plan's number of parts (Params.TailParts), several a
	// block where they outnumber the grid; one fp32 partial tile in the
	// workspace and one Params.Flags word per warpgroup for every part but
	// each tile's last. No split-K factor (max_split_k 1).
	ReduceStreamKParts = "stream_k_parts"
	// ReduceSplitFixed: a persistent kernel that splits every tile along K
	// into the plan's split-K parts (Params.TailParts; Params.SplitK stays
	// 1), over the K ranges of the workspace split-K, and sums them itself
	// in the reduce kernel's order, no block waiting for another: where the
	// tiles are fewer than the blocks, the parts are shared by all blocks
	// (one fp32 partial tile each in the workspace, one Params.Flags
	// arrival counter per tile and warpgroup, the last arrival summing);
	// else each block runs its tiles' parts in turn (one partial tile a
	// block, its running sum). Split-K without a reduce kernel
	// (max_split_k > 1, no reduce_kernel).
	ReduceSplitFixed = "split_fixed"
)

// KernelSpec is one precompiled kernel as the manifest describes it: what it
// computes, how it is launched and which problems it accepts.
type KernelSpec struct {
	Name      string `json:"name"`               // e.g. gemmroute_sm90_decode_mma_bf16_bf16_f32_tn_16x16x32_w8_a16
	Image     string `json:"image"`              // fatbin file holding it, e.g. sm90.fatbin
	Family    string `json:"family"`             // decode_fma, decode_mma, ...
	MinArch   Arch   `json:"min_arch"`           // lowest compute capability it runs on
	MaxArch   Arch   `json:"max_arch,omitempty"` // highest; 0 = any newer (PTX is JIT-compiled)
	In        DType  `json:"in"`                 // A and B element type
	Out       DType  `json:"out"`                // C and D element type
	Layout    string `json:"layout"`             // always "tn"
	TileM     int    `json:"tile_m"`             // tokens (rows of A) per block
	TileN     int    `json:"tile_n"`             // output columns per block
	TileK     int    `json:"tile_k"`             // K consumed per main-loop step
	Stages    int    `json:"stages"`             // pipeline depth (1: registers only)
	Threads   int    `json:"threads"`            // threads per block
	SmemBytes int    `json:"smem_bytes"`         // dynamic shared memory per block
	// PtrAlign is the byte alignment the kernel needs of A and B; LDAlign the
	// byte alignment of LDA·size and LDB·size; KMultiple what K must divide by.
	PtrAlign  int `json:"ptr_align"`
	LDAlign   int `json:"ld_align"`
	KMultiple int `json:"k_multiple"`
	// MaxSplitK is the largest split-K factor (1: no split); Reduction how
	// partials are combined; ReduceKernel the function that combines them.
	MaxSplitK    int    `json:"max_split_k"`
	Reduction    string `json:"reduction"`
	ReduceKernel string `json:"reduce_kernel,omitempty"`
	// ReductionClass names the order in which the kernel sums K for one
	// output element (see ValidClass): kernels of one class, given the same
	// K, split-K factor and inputs, write the same bits for a row whatever
	// M and the row's place in the batch (the generator states it from the
	// family's descriptor; the GPU tests check it). "" for a kernel whose
	// order depends on M (stream-K): the batch-invariant mode never runs it.
	ReductionClass string `json:"reduction_class,omitempty"`
	IndexBits      int    `json:"index_bits"` // 32: offsets must stay below 2^31 elements; 64: any
	// LoadBytes is how many weight bytes one thread has in flight per
	// pipeline stage; Registers the registers per thread ptxas reported (0:
	// unknown). The heuristic level uses both to judge latency hiding.
	LoadBytes int `json:"load_bytes"`
	Registers int `json:"registers,omitempty"`
	// TMABox is, for a kernel that loads A and B through the tensor memory
	// accelerator, the rows of A's and of B's box (64 elements of K each,
	// 128-byte swizzle; see gemm_params.h); zero for other kernels. Such a
	// kernel needs 16-byte aligned A and B and lda, ldb multiples of 16 bytes.
	TMABox [2]int `json:"tma_box,omitempty"`
	// TMAStoreBox is, for a kernel that stores D through the tensor memory
	// accelerator, D's box {columns, rows} (gemm_params.h's tma_d, 128-byte
	// swizzle); zero for other kernels. The launch then encodes tma_d
	// beside tma_a and tma_b. Such a kernel loads through TMA too (TMABox
	// set), writes a 16-bit D and needs DPtrAlign and DLDAlign ≥ 16 and M,
	// N below 2^31.
	TMAStoreBox [2]int `json:"tma_store_box,omitempty"`
	// DPtrAlign is the byte alignment the kernel needs of D, DLDAlign of
	// LDC·size(Out) and of N·size(Out) (0: none; the register epilogues
	// store any alignment). A TMA store writes a row's last 16-byte piece
	// whole, past N where N·size is not a multiple of 16.
	DPtrAlign int `json:"d_ptr_align,omitempty"`
	DLDAlign  int `json:"d_ld_align,omitempty"`
	// Scalings are the e4m3 scaling modes the kernel applies (In = E4M3
	// only; empty for 16-bit kernels).
	Scalings []Scaling `json:"scalings,omitempty"`
	// Experimental marks a kernel the planner's heuristic never picks: one
	// not yet run on a GPU, or one that ran but whose wins the analytic
	// model does not yet foresee. Built, loadable and testable; only a table
	// entry (the tuner's, after its correctness gate) routes to it.
	Experimental bool `json:"experimental,omitempty"`
	// Persistent kernels are launched with min(tiles, SMs) blocks in one
	// dimension, each walking the tiles (ceil(M/TileM)·ceil(N/TileN)·split-K
	// of them) in the kernel's own order; others get the tile grid
	// (ceil(N/TileN), ceil(M/TileM), split-K).
	Persistent bool `json:"persistent,omitempty"`
	// Cluster is, for a persistent kernel launched in thread-block clusters
	// (compiled with __cluster_dims__(Cluster, 1, 1)), the blocks of a
	// cluster: they take Cluster consecutive M tiles of one N tile together
	// (sharing that N tile's B by TMA multicast), so the grid is Cluster ·
	// min(⌈⌈M/TileM⌉/Cluster⌉·⌈N/TileN⌉·split-K, ⌊SMs/Cluster⌋) blocks. 0 or
	// 1: no cluster.
	Cluster int `json:"cluster,omitempty"`
	// ClusterAlongN: the blocks of a cluster take Cluster consecutive N
	// tiles of one M tile instead (sharing that M tile's A), so the grid is
	// Cluster · min(⌈M/TileM⌉·⌈⌈N/TileN⌉/Cluster⌉·split-K, ⌊SMs/Cluster⌋).
	ClusterAlongN bool `json:"cluster_along_n,omitempty"`
	// RepackKernel names, for a TMA kernel's repack variant, the kernel its
	// plans launch first: it copies A and B into the workspace at a pitch of
	// ⌈K/8⌉·8 elements (16 bytes), the K tail zero-filled
	// (kernels/src/repack.cuh, Params.PackA…), and the GEMM runs on the
	// copies. Such a kernel takes any alignment and any K (PtrAlign, LDAlign
	// and KMultiple are the element's), and only problems that its TMA
	// constraints rule out. "" for other kernels.
	RepackKernel string `json:"repack_kernel,omitempty"`
	// Model is what the analytic model assumes of the kernel (its family's
	// descriptor in the generator fills it).
	Model Model `json:"model"`
	// Digest is the digest of the kernel's compiled code in Image (see
	// Digests): a table records the digest each bucket's kernel was
	// measured with, and routes by the bucket only while it is the same.
	Digest string `json:"digest"`
}

// Model kinds: how the analytic model counts a kernel's memory traffic and
// walks its K range.
const (
	// ModelDecode: a block reads its weight rows and activation rows straight
	// from global memory; the weights come from DRAM once per RasterGroup M
	// tiles, the activations are re-read by every N tile (from L2); the
	// block's warps split K in interleaved slices, so one K round is
	// warps × TileK.
	ModelDecode = "decode"
	// ModelTiled: a block stages k-tiles of both operands through shared
	// memory; its blocks run in groups of RasterGroup M tiles that share one
	// DRAM pass over the weights, every tile's (TileM + TileN) × K reads
	// beyond that come from L2; one K round is one k-tile of TileK.
	ModelTiled = "tiled"
)

// Model holds the analytic model's parameters of one kernel (dispatch's
// EstimateSeconds reads nothing else that depends on the family).
type Model struct {
	Kind string `json:"kind"` // ModelDecode or ModelTiled
	// RateShare is the share of the device's peak dense rate the kernel's
	// arithmetic reaches (its tile and loads taken into account), in (0, 1].
	RateShare float64 `json:"rate_share"`
	// StreamShare is the share of the read bandwidth its loads reach, in
	// (0, 1] (a tiled block waits at a barrier per k-tile).
	StreamShare float64 `json:"stream_share"`
	// RasterGroup is how many M tiles share one DRAM pass over the weights
	// (1: every M tile streams them), at least 1.
	RasterGroup int `json:"raster_group"`
}

// check returns the rule m breaks, or "".
func (m *Model) check() string {
	switch {
	case m.Kind != ModelDecode && m.Kind != ModelTiled:
		return fmt.Sprintf("model kind %q is not %q or %q: regenerate the manifest (go generate ./kernels)", m.Kind, ModelDecode, ModelTiled)
	case !(m.RateShare > 0 && m.RateShare <= 1):
		return fmt.Sprintf("model rate_share %g outside (0, 1]", m.RateShare)
	case !(m.StreamShare > 0 && m.StreamShare <= 1):
		return fmt.Sprintf("model stream_share %g outside (0, 1]", m.StreamShare)
	case m.RasterGroup < 1:
		return fmt.Sprintf("model raster_group %d must be ≥ 1", m.RasterGroup)
	}
	return ""
}

// checkTypes returns the rule k's dtypes and Scalings break, or "": the
// dtype pair is one the kernel set computes (Types.Check), and an e4m3
// kernel lists the modes it applies, each once; a 16-bit kernel lists none.
func (k *KernelSpec) checkTypes() string {
	pair := Types{In: k.In, Out: k.Out}
	if err := pair.Check(); err != nil {
		return fmt.Sprintf("dtypes %s→%s: %s", k.In, k.Out, err.(*TypesError).Rule)
	}
	if !pair.Scaled() {
		if len(k.Scalings) > 0 {
			return fmt.Sprintf("scalings %v: only e4m3 kernels take scales (a %s kernel lists none)", k.Scalings, k.In)
		}
		return ""
	}
	if len(k.Scalings) == 0 {
		return "an e4m3 kernel lists the scalings it applies (" + scalingList(ScalingTensor) + ")"
	}
	for i, s := range k.Scalings {
		switch {
		case !s.Valid():
			return fmt.Sprintf("scalings: %s is not a scaling mode (%s)", s, scalingList(ScalingTensor))
		case slices.Contains(k.Scalings[:i], s):
			return fmt.Sprintf("scalings: %s listed twice", s)
		}
	}
	return ""
}

// TMA reports whether the kernel loads through tensor maps that the launch
// must encode into Params.
func (k *KernelSpec) TMA() bool { return k.TMABox != [2]int{} }

// TMAStore reports whether the kernel stores D through a tensor map (tma_d)
// that the launch must encode into Params.
func (k *KernelSpec) TMAStore() bool { return k.TMAStoreBox != [2]int{} }

// StreamK reports whether the kernel is stream-K (Reduction ReduceStreamK
// or ReduceStreamKParts): its grid of at most one block per SM shares the
// k-tiles of all ⌈M/TileM⌉·⌈N/TileN⌉ tiles, and it uses Params.Flags
// words and, unless the grid divides the tiles, fp32 TileM × TileN partial
// tiles in the workspace.
func (k *KernelSpec) StreamK() bool {
	return k.Reduction == ReduceStreamK || k.Reduction == ReduceStreamKParts
}

// TailParts reports whether the kernel is stream-K with the plan's tail
// split (Reduction ReduceStreamKParts, Params.TailParts).
func (k *KernelSpec) TailParts() bool { return k.Reduction == ReduceStreamKParts }

// SplitFixed reports whether the kernel sums its split-K parts itself
// (Reduction ReduceSplitFixed): the plan's split-K goes to
// Params.TailParts, and the grid is at most one block per SM.
func (k *KernelSpec) SplitFixed() bool { return k.Reduction == ReduceSplitFixed }

// Repack reports whether the kernel runs on copies of A and B that its
// RepackKernel writes (see RepackKernel).
func (k *KernelSpec) Repack() bool { return k.RepackKernel != "" }

// Computes reports whether the kernel computes in t: its dtype pair, and
// for e4m3 a scaling mode it applies.
func (k *KernelSpec) Computes(t Types) bool {
	return k.In == t.In && k.Out == t.Out && (!t.Scaled() || slices.Contains(k.Scalings, t.Scaling))
}

// RunsOn reports whether the kernel has code for arch.
func (k *KernelSpec) RunsOn(a Arch) bool {
	return a >= k.MinArch && (k.MaxArch == 0 || a <= k.MaxArch)
}

// Image describes one fatbin of the manifest.
type Image struct {
	File    string   `json:"file"`    // e.g. sm80.fatbin
	Targets []string `json:"targets"` // e.g. ["sm_80", "compute_80"]
	Flags   string   `json:"flags"`   // nvcc flags it was built with
	// SmemLimit is the most dynamic shared memory a block may opt into on
	// any device the image serves (A100's 163 KiB for sm80.fatbin): a kernel
	// that needs more could never launch.
	SmemLimit int `json:"smem_limit"`
}

// Native reports whether the image holds machine code (SASS) that runs on a
// without JIT compilation: an sm_XY target of a's major version and a minor
// at most a's (sm_90a counts for sm_90 only).
func (im *Image) Native(a Arch) bool { return im.nativeSet().has(a) }

// nativeSet is the set of archs (up to maxArch) the image holds machine code
// for (see Native), each target parsed once.
func (im *Image) nativeSet() *archSet {
	set := new(archSet)
	for _, t := range im.Targets {
		v, err := ParseArch(strings.TrimPrefix(t, "sm_"))
		if !strings.HasPrefix(t, "sm_") || err != nil || v < 0 || v > maxArch {
			continue
		}
		if strings.HasSuffix(t, "a") {
			set[v] = true // arch-specific: that arch only
			continue
		}
		for a := v; a <= min(v/10*10+9, maxArch); a++ {
			set[a] = true // the same major version, a minor at least v's
		}
	}
	return set
}

// SchemaVersion is the manifest schema this package reads; a manifest of
// another version is refused (regenerate it with go generate ./kernels).
const SchemaVersion = 4

// Manifest is the kernels' generated description (kernels/manifest.json).
type Manifest struct {
	Schema     int          `json:"schema"`
	SourceHash string       `json:"source_hash"` // sha256 of the sources the fatbins were built from
	NVCC       string       `json:"nvcc"`        // nvcc version that built them
	Built      string       `json:"built"`       // build date
	Images     []Image      `json:"images"`
	Kernels    []KernelSpec `json:"kernels"`
}

// Catalog is a validated manifest with kernels indexed by name. It is
// read-only: NewCatalog keeps its own copy of the manifest, and Manifest and
// Kernels return copies.
type Catalog struct {
	m      Manifest
	byName map[string]*KernelSpec
	// native[file][a]: the image has native code for arch a (Image.Native),
	// anyNative[a]: some image has; computed once, for JITOnly.
	native    map[string]*archSet
	anyNative archSet
}

// archSet holds a flag per arch up to maxArch.
type archSet [maxArch + 1]bool

// has reports a's flag (false beyond maxArch).
func (s *archSet) has(a Arch) bool { return a >= 0 && int(a) < len(s) && s[a] }

// ParseManifest reads and validates a manifest.
func ParseManifest(data []byte) (*Catalog, error) {
	if len(data) > MaxManifestBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d a manifest may have", ErrManifest, len(data), MaxManifestBytes)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("%w: a manifest is one JSON object", ErrManifest)
	}
	// Bounded before decoding: 16 MiB of empty kernels decoded (and then
	// copied) into 8 GiB.
	if n := bytes.Count(data, []byte{','}) + bytes.Count(data, []byte{'{'}) + bytes.Count(data, []byte{'['}); n > MaxManifestItems {
		return nil, fmt.Errorf("%w: %d JSON values, more than the %d a manifest may have", ErrManifest, n, MaxManifestItems)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrManifest, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the manifest's JSON object (exactly one value is allowed)", ErrManifest)
	}
	return NewCatalog(m)
}

// Bounds of the manifest's numbers: no real kernel comes near them, and
// within them every launch computation stays far from overflow.
const (
	maxArch = Arch(200)
	maxTile = 4096
	// MaxSplitK is the largest split-K factor a manifest's max_split_k, a
	// table's split_k or a tuning run may name (the shipped kernels split
	// at most 16 ways): workspace sizes stay far from overflow.
	MaxSplitK    = 1024
	MaxSmemBytes = 256 << 10 // the most shared memory a block of any supported GPU may opt into, with margin
)

func powerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// plainFileName reports whether name is a file name with no directory part.
func plainFileName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}

// MaxManifestBytes bounds the manifest ParseManifest reads (the shipped one
// is about 100 KB).
const MaxManifestBytes = 16 << 20

// Bounds on a manifest's lists, so that loading it and planning over it
// take bounded time and memory.
const (
	// MaxManifestItems bounds the bytes ',', '{' and '[' of a manifest
	// (every JSON value but the first needs one): the shipped manifest has
	// about 5 000; each decoded value costs at most a kernel's size.
	MaxManifestItems = 1 << 18
	// MaxImages and MaxImageTargets bound the images and each image's
	// targets (the shipped ones: 2 images of 1 or 2 targets). Planning asks
	// which images hold native code for the device.
	MaxImages, MaxImageTargets = 64, 64
)

// NewCatalog validates a manifest and indexes a copy of it: changing m
// afterwards does not change the catalog.
func NewCatalog(m Manifest) (*Catalog, error) {
	if len(m.Images) > MaxImages {
		return nil, fmt.Errorf("%w: %d images, more than the %d a manifest may list", ErrManifest, len(m.Images), MaxImages)
	}
	for _, im := range m.Images { // before copying them
		if len(im.Targets) > MaxImageTargets {
			return nil, fmt.Errorf("%w: image %q: %d targets, more than the %d an image may have", ErrManifest, im.File, len(im.Targets), MaxImageTargets)
		}
	}
	m = m.clone()
	if m.Schema != SchemaVersion {
		return nil, fmt.Errorf("%w: schema %d, this build reads schema %d: regenerate the manifest (go generate ./kernels) or use a matching gemmroute", ErrManifest, m.Schema, SchemaVersion)
	}
	if len(m.Images) == 0 || len(m.Kernels) == 0 {
		return nil, fmt.Errorf("%w: a manifest lists at least one image and one kernel", ErrManifest)
	}
	c := &Catalog{m: m, byName: make(map[string]*KernelSpec, len(m.Kernels)), native: map[string]*archSet{}}
	images := map[string]*Image{}
	for i := range m.Images {
		im := &m.Images[i]
		switch {
		case !plainFileName(im.File):
			return nil, fmt.Errorf("%w: image %q: an image is a plain file name (no directory, no ..) in the images directory", ErrManifest, im.File)
		case images[im.File] != nil:
			return nil, fmt.Errorf("%w: image %q listed twice", ErrManifest, im.File)
		case im.SmemLimit <= 0 || im.SmemLimit > MaxSmemBytes:
			return nil, fmt.Errorf("%w: image %q: smem_limit must be in [1, %d]", ErrManifest, im.File, MaxSmemBytes)
		}
		images[im.File] = im
		set := im.nativeSet()
		for a := range set {
			c.anyNative[a] = c.anyNative[a] || set[a]
		}
		c.native[im.File] = set
	}
	for i := range m.Kernels {
		k := &c.m.Kernels[i]
		bad := func(rule string) error { return fmt.Errorf("%w: kernel %q: %s", ErrManifest, k.Name, rule) }
		switch {
		case k.Name == "":
			return nil, fmt.Errorf("%w: kernel #%d has no name", ErrManifest, i)
		case !ValidKernelName(k.Name):
			return nil, bad(KernelNameRule)
		case c.byName[k.Name] != nil:
			return nil, bad("listed twice")
		case !ValidDigest(k.Digest):
			return nil, bad(fmt.Sprintf("digest %q: %s: regenerate the manifest (go generate ./kernels)", k.Digest, DigestRule))
		case images[k.Image] == nil:
			return nil, bad(fmt.Sprintf("image %q is not among the manifest's images", k.Image))
		case k.SmemBytes < 0 || k.SmemBytes > images[k.Image].SmemLimit:
			return nil, bad(fmt.Sprintf("smem_bytes %d outside [0, %d], the image's smem_limit", k.SmemBytes, images[k.Image].SmemLimit))
		case k.Layout != LayoutTN:
			return nil, bad("layout must be tn")
		case k.MinArch < SM80 || k.MinArch > maxArch:
			return nil, bad(fmt.Sprintf("min_arch must be in [%s, %s]", SM80, maxArch))
		case k.MaxArch != 0 && (k.MaxArch < k.MinArch || k.MaxArch > maxArch):
			return nil, bad("max_arch must be 0 (any newer, through PTX) or in [min_arch, " + maxArch.String() + "]")
		case k.TileM <= 0 || k.TileN <= 0 || k.TileK <= 0 || k.Threads <= 0 || k.Threads > 1024:
			return nil, bad("tile sizes and threads must be positive (threads ≤ 1024)")
		case k.TileM > maxTile || k.TileN > maxTile || k.TileK > maxTile:
			return nil, bad(fmt.Sprintf("tile_m, tile_n and tile_k must be at most %d", maxTile))
		case k.Stages < 1 || k.Stages > 16:
			return nil, bad("stages must be in [1, 16]")
		case k.LoadBytes < 0 || k.LoadBytes > 1<<16 || k.Registers < 0 || k.Registers > 255:
			return nil, bad("load_bytes must be in [0, 65536] and registers in [0, 255]")
		case k.PtrAlign <= 0 || k.LDAlign <= 0 || k.KMultiple <= 0:
			return nil, bad("ptr_align, ld_align and k_multiple must be positive")
		case !powerOfTwo(k.PtrAlign) || !powerOfTwo(k.LDAlign) || k.PtrAlign > 256 || k.LDAlign > 256:
			return nil, bad("ptr_align and ld_align must be powers of two, at most 256")
		case k.KMultiple > maxTile:
			return nil, bad(fmt.Sprintf("k_multiple must be at most %d", maxTile))
		case k.MaxSplitK < 1 || k.MaxSplitK > MaxSplitK:
			return nil, bad(fmt.Sprintf("max_split_k must be in [1, %d]", MaxSplitK))
		case k.MaxSplitK > 1 && !k.SplitFixed() && (k.Reduction != ReduceWorkspace || k.ReduceKernel == ""):
			return nil, bad("split-K kernels need reduction \"workspace\" and a reduce_kernel, or reduction \"split_fixed\"")
		case k.SplitFixed() && (k.ReduceKernel != "" || !k.Persistent || k.Cluster > 1 || k.Threads < 128):
			return nil, bad("split_fixed kernels sum their parts themselves (no reduce_kernel) and are persistent, without clusters, of whole warpgroups (threads ≥ 128)")
		case k.MaxSplitK == 1 && k.Reduction != ReduceNone && !k.StreamK():
			return nil, bad("kernels without split-K have reduction \"none\", \"stream_k\" or \"stream_k_parts\"")
		case k.StreamK() && (!k.Persistent || k.Cluster > 1 || k.Threads < 128):
			return nil, bad("stream-K kernels are persistent, without clusters, of whole warpgroups (threads ≥ 128)")
		case k.ReductionClass != "" && !ValidClass(k.ReductionClass):
			return nil, bad(fmt.Sprintf("reduction_class %q: %s", k.ReductionClass, ClassRule))
		case k.StreamK() && k.ReductionClass != "":
			return nil, bad("stream-K kernels have no reduction_class (their tiles' K splits depend on M)")
		case k.IndexBits != 32 && k.IndexBits != 64:
			return nil, bad("index_bits must be 32 or 64")
		case k.TMA() && (k.TMABox[0] < 1 || k.TMABox[0] > 256 || k.TMABox[1] < 1 || k.TMABox[1] > 256):
			return nil, bad("tma_box rows must be in [1, 256] (a tensor-map box dimension)")
		case k.TMA() && !k.Repack() && (k.PtrAlign < 16 || k.LDAlign < 16):
			return nil, bad("TMA kernels need ptr_align and ld_align of at least 16 (unless they repack their operands)")
		case k.DPtrAlign < 0 || k.DLDAlign < 0 || k.DPtrAlign > 256 || k.DLDAlign > 256 ||
			k.DPtrAlign > 0 && !powerOfTwo(k.DPtrAlign) || k.DLDAlign > 0 && !powerOfTwo(k.DLDAlign):
			return nil, bad("d_ptr_align and d_ld_align must be 0 or powers of two, at most 256")
		case k.TMAStore() && (k.TMAStoreBox[0] < 1 || k.TMAStoreBox[1] < 1 || k.TMAStoreBox[1] > 256 || k.TMAStoreBox[0]*k.Out.Size() > 128):
			return nil, bad("tma_store_box must be {columns, rows}: at most 128 bytes of columns (the 128-byte swizzle), rows in [1, 256]")
		case k.TMAStore() && (!k.TMA() || k.Repack() || k.Out.Size() != 2 || k.DPtrAlign < 16 || k.DLDAlign < 16):
			return nil, bad("TMA-store kernels load through TMA (no repack), write 16-bit D and need d_ptr_align and d_ld_align of at least 16")
		case k.Repack() && (!k.TMA() || k.In.Size() != 2):
			return nil, bad("repack kernels are 16-bit TMA kernels")
		case k.Cluster < 0 || k.Cluster > 2 || k.Cluster == 2 && !k.Persistent:
			return nil, bad("cluster must be 0, 1 or 2, and 2 only for a persistent kernel")
		case k.ClusterAlongN && k.Cluster < 2:
			return nil, bad("cluster_along_n needs a cluster of 2")
		case k.checkTypes() != "":
			return nil, bad(k.checkTypes())
		case k.Model.check() != "":
			return nil, bad(k.Model.check())
		}
		c.byName[k.Name] = k
	}
	return c, nil
}

// Kernel returns the kernel of that name, or nil. The spec is the catalog's
// own (plans point at it): read it, do not modify it.
func (c *Catalog) Kernel(name string) *KernelSpec { return c.byName[name] }

// Kernels returns a copy of every kernel, in manifest order.
func (c *Catalog) Kernels() []KernelSpec { return cloneKernels(c.m.Kernels) }

// Manifest returns a copy of the manifest the catalog holds (to edit and pass
// to NewCatalog, or to read its provenance).
func (c *Catalog) Manifest() Manifest { return c.m.clone() }

// clone copies m's slices, so that the copy shares nothing mutable with m.
func (m Manifest) clone() Manifest {
	m.Images = slices.Clone(m.Images)
	for i := range m.Images {
		m.Images[i].Targets = slices.Clone(m.Images[i].Targets)
	}
	m.Kernels = cloneKernels(m.Kernels)
	return m
}

// cloneKernels copies ks and the slices in each spec.
func cloneKernels(ks []KernelSpec) []KernelSpec {
	ks = slices.Clone(ks)
	for i := range ks {
		ks[i].Scalings = slices.Clone(ks[i].Scalings)
	}
	return ks
}

// ClassRule says what ValidClass accepts.
const ClassRule = "a reduction class is 1 to 64 of the characters a-z, 0-9 and '.', as the manifest's reduction_class (e.g. wgmma16.seq)"

// ValidClass reports whether class can be a reduction class's name.
func ValidClass(class string) bool {
	if class == "" || len(class) > 64 {
		return false
	}
	for _, r := range class {
		if !(r == '.' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Classes returns the reduction classes of the kernels that compute t and
// run on a, sorted.
func (c *Catalog) Classes(t Types, a Arch) []string {
	var out []string
	for i := range c.m.Kernels {
		k := &c.m.Kernels[i]
		if k.ReductionClass != "" && k.Computes(t) && k.RunsOn(a) && !slices.Contains(out, k.ReductionClass) {
			out = append(out, k.ReductionClass)
		}
	}
	slices.Sort(out)
	return out
}

// ClassStep is the least TileK among the kernels of reduction class class
// that compute t on a (0 if none): the step a split-K of the class rounds
// its K per split to, so that all its kernels split K at the same offsets
// where theirs agree.
func (c *Catalog) ClassStep(class string, t Types, a Arch) int {
	step := 0
	for i := range c.m.Kernels {
		k := &c.m.Kernels[i]
		if k.ReductionClass == class && k.Computes(t) && k.RunsOn(a) && (step == 0 || k.TileK < step) {
			step = k.TileK
		}
	}
	return step
}

// KernelNameRule says what ValidKernelName accepts.
const KernelNameRule = "a kernel name is ASCII letters, digits and '_' (it is a C symbol)"

// ValidKernelName reports whether name can be a kernel's C symbol. Tables and
// manifests accept nothing else, so a name always saves and loads back as
// written.
func ValidKernelName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// JITOnly reports whether k reaches arch a only through PTX JIT while
// another image of the catalog has native code for a: such a kernel is
// neither loaded by an engine by default nor routed to.
// It takes constant time (a manifest of many image targets made one Plan
// take 53 s).
func (c *Catalog) JITOnly(k *KernelSpec, a Arch) bool {
	mine := c.native[k.Image]
	return c.anyNative.has(a) && (mine == nil || !mine.has(a))
}
