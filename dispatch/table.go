package dispatch

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/gemmroute/gemmroute/kernels"
)

// Table is a bucket table (buckets.yaml): for each (arch, types, layout) and
// optionally an exact (N, K), geometric M buckets naming a kernel and split-K.
type Table struct {
	// Schema is the table format's version: LoadTable reads TableSchema
	// and schema 3 (the same format without a bucket's own provenance), and
	// Marshal writes TableSchema.
	Schema     int        `yaml:"schema"`
	Provenance Provenance `yaml:"provenance"`
	Entries    []Entry    `yaml:"entries"`
}

// TableSchema is the table format this package reads and writes. Schema 2
// added each bucket's kernel digest (a table of schema 1 has to be tuned
// again); schema 3 writes an entry's types as one field, with the e4m3
// scaling (types: e4m3→bf16 for schema 2's in: e4m3, out: bf16; e4m3→bf16/row);
// schema 4 lets a bucket say its own source, device and date where they
// differ from its entry's (Bucket.Source).
const TableSchema = 4

// Provenance records where a table's numbers came from.
type Provenance struct {
	Source string `yaml:"source"`           // "measured" or "heuristic, not measured"
	Device string `yaml:"device,omitempty"` // e.g. NVIDIA H200
	SMs    int    `yaml:"sms,omitempty"`    // multiprocessor count
	Arch   string `yaml:"arch,omitempty"`   // e.g. sm_90
	Driver string `yaml:"driver,omitempty"` // driver version
	Date   string `yaml:"date,omitempty"`   // YYYY-MM-DD
	Method string `yaml:"method,omitempty"` // how times were taken
}

// Entry routes one (arch, types, layout) and, when N and K are nonzero, one
// exact weight shape. An entry with N = K = 0 is the default for its key.
type Entry struct {
	Arch   Arch   `yaml:"arch"`
	Types  Types  `yaml:"types"` // what the problems it routes compute in, e4m3 scaling included
	Layout string `yaml:"layout"`
	N      int    `yaml:"n,omitempty"`
	K      int    `yaml:"k,omitempty"`
	// Source says where the buckets came from: SourceMeasured (timed by
	// autotune tune on Device) or SourceModel (the analytic model's choices
	// for Device, no times). Left out (older tables), an entry counts as
	// measured, on the provenance's device, when a bucket has times_us, and
	// as the model's otherwise.
	Source  string   `yaml:"source,omitempty"`
	Device  string   `yaml:"device,omitempty"` // the GPU that measured (or was modelled for) the entry
	Date    string   `yaml:"date,omitempty"`   // YYYY-MM-DD
	Buckets []Bucket `yaml:"buckets"`
	// Invariant is the reduction class the batch-invariant mode
	// (Limits.BatchInvariant) runs the entry's weight in, at every M; the
	// default entry's holds for weights without an exact entry that has
	// one. nil: the planner chooses a class by the analytic model.
	Invariant *Invariant `yaml:"invariant,omitempty"`
}

// Invariant is an entry's choice of reduction class for the batch-invariant
// mode (kernels.KernelSpec.ReductionClass), with where it came from. Every
// M of the weight runs a kernel of the class at split-K 1.
type Invariant struct {
	Class  string `yaml:"class"`
	Source string `yaml:"source"`           // SourceMeasured (autotune tune) or SourceModel
	Device string `yaml:"device,omitempty"` // the GPU that measured (or was modelled for) the choice
	Date   string `yaml:"date,omitempty"`   // YYYY-MM-DD
	// WorstSlowdown is, when measured, the class's largest time over the
	// normal mode's across the weight's M samples (1.07: 7 % slower at
	// worst); it was the least of every class's (ChooseClass).
	WorstSlowdown float64 `yaml:"worst_slowdown,omitempty"`
	// SplitK is the class's split-K (0 or 1: none): every M of the weight
	// runs the class's kernels at this split, at the same K offsets — a
	// workspace split-K kernel where its M·N·SplitK fp32 partials fit, a
	// kernel that sums its parts itself (kernels.KernelSpec.SplitFixed) at
	// any M — so that the K order stays one for every M.
	SplitK int `yaml:"split_k,omitempty"`
	// Kernels are, when measured, the experimental kernels the tuner ran
	// in the class at its split and gated (kernels.KernelSpec.Experimental):
	// the only experimental kernels the mode routes for the entry, so that
	// one added to the class since is not routed before a tune admits it.
	Kernels []string `yaml:"kernels,omitempty,flow"`
}

// Entry sources.
const (
	SourceMeasured = "measured" // timed on a GPU by autotune tune
	SourceModel    = "model"    // chosen by the analytic model, not measured
)

// Measured reports whether the entry's buckets were timed on a GPU.
func (e *Entry) Measured() bool {
	if e.Source == "" {
		return slices.ContainsFunc(e.Buckets, func(b Bucket) bool { return len(b.TimesUS) > 0 })
	}
	return e.Source == SourceMeasured
}

// Bucket covers M in [MinM, MaxM] (MaxM = 0: no upper bound). Upper edges are
// powers of two, and an entry's buckets cover [1, ∞) without gap or overlap.
// A bucket names a kernel of ours (Kernel, Digest, SplitK), a cuBLASLt
// algorithm (Vendor; no kernel, no digest, split_k 1), or both: a bucket that
// cuBLASLt won also keeps the best of our kernels there, which runs wherever
// the vendor route cannot (no library, another version, Options.NoVendor, a
// problem cuBLASLt does not take), with its own measured times
// (KernelTimesUS).
type Bucket struct {
	MinM   int    `yaml:"min_m"`
	MaxM   int    `yaml:"max_m,omitempty"`
	Kernel string `yaml:"kernel,omitempty"`
	// Digest is the digest of the kernel's compiled code the bucket was
	// measured (or modelled) with, as the manifest recorded it
	// (kernels.KernelSpec.Digest). A planner routes by the bucket only while
	// its catalog's kernel of that name has this digest.
	Digest string `yaml:"digest,omitempty"`
	SplitK int    `yaml:"split_k"`
	// Vendor routes the bucket to cuBLASLt's algorithm before its kernel
	// (see Vendor); nil for a kernel of ours alone.
	Vendor *Vendor `yaml:"vendor,omitempty"`
	// Measured by autotune (absent in heuristic tables).
	TimesUS map[int]float64 `yaml:"times_us,omitempty"` // the route's time at sample Ms (cuBLASLt's with Vendor)
	// KernelTimesUS is, in a bucket with both Vendor and Kernel, our
	// kernel's time at the same sample Ms.
	KernelTimesUS map[int]float64 `yaml:"kernel_times_us,omitempty"`
	RunnerUp      string          `yaml:"runner_up,omitempty"`  // second-best kernel
	MarginPct     float64         `yaml:"margin_pct,omitempty"` // runner-up's worst-case slowdown over the choice, %
	// Source, Device and Date say where the bucket's route came from where
	// that differs from its entry's — a bucket that a tune of other buckets
	// kept from its base table, or that was spliced in from another tune —
	// as the entry's fields do; "" is the entry's.
	Source string `yaml:"source,omitempty"`
	Device string `yaml:"device,omitempty"`
	Date   string `yaml:"date,omitempty"`
}

// From returns b's source, device and date: its own, else its entry e's.
func (b *Bucket) From(e *Entry) (source, device, date string) {
	source = b.Source
	if source == "" {
		source = SourceModel
		if e.Measured() {
			source = SourceMeasured
		}
	}
	return source, cmp.Or(b.Device, e.Device), cmp.Or(b.Date, e.Date)
}

// Stamp gives b its entry e's source, device and date as its own where it
// has none (before the bucket moves into another entry).
func (b *Bucket) Stamp(e *Entry) {
	b.Source, b.Device, b.Date = b.From(e)
}

// Unstamp drops b's own source, device and date where they are its entry
// e's (after the entry's own are set).
func (b *Bucket) Unstamp(e *Entry) {
	src, dev, date := (&Bucket{}).From(e)
	if b.Source == src {
		b.Source = ""
	}
	if b.Device == dev {
		b.Device = ""
	}
	if b.Date == date {
		b.Date = ""
	}
}

// String writes the bucket's range: "[17, 64]", or "[257, ∞)" when open.
func (b *Bucket) String() string {
	if b.MaxM == 0 {
		return fmt.Sprintf("[%d, ∞)", b.MinM)
	}
	return fmt.Sprintf("[%d, %d]", b.MinM, b.MaxM)
}

// Contains reports whether m falls in the bucket.
func (b *Bucket) Contains(m int) bool { return m >= b.MinM && (b.MaxM == 0 || m <= b.MaxM) }

// Bucket returns the bucket holding m (binary search), or nil for m < 1.
func (e *Entry) Bucket(m int) *Bucket {
	if m < 1 || len(e.Buckets) == 0 {
		return nil
	}
	i := sort.Search(len(e.Buckets), func(i int) bool {
		b := &e.Buckets[i]
		return b.MaxM == 0 || b.MaxM >= m
	})
	if i == len(e.Buckets) || !e.Buckets[i].Contains(m) {
		return nil
	}
	return &e.Buckets[i]
}

// KernelMatch counts a table's buckets by whether the kernel each names
// is, in a catalog, the compiled code the bucket was measured with. A
// bucket routed to cuBLASLt (Bucket.Vendor) counts as changed unless the
// planner's loaded cuBLASLt is the version it records.
type KernelMatch struct {
	Matched int // the catalog's kernel of that name has the bucket's digest
	Changed int // it has another digest (or cuBLASLt is absent, of another version, or rejects the algorithm): the bucket is not used
	Missing int // the catalog has no kernel of that name; the bucket is not used
	// Vendor counts buckets routed to the loaded cuBLASLt's version (that
	// the library accepts, for an exact entry, at the entry's shape): an
	// Engine's planner routes by them, a Planner of its own does not.
	Vendor int
}

// String writes the counts as "matched 412, changed 3, missing 0", and
// ", cuBLASLt 2" when Vendor is not zero.
func (m KernelMatch) String() string {
	s := fmt.Sprintf("matched %d, changed %d, missing %d", m.Matched, m.Changed, m.Missing)
	if m.Vendor != 0 {
		s += fmt.Sprintf(", cuBLASLt %d", m.Vendor)
	}
	return s
}

// MatchKernels counts t's buckets against cat (see KernelMatch), with no
// cuBLASLt loaded (Planner.KernelMatch counts with the planner's). A planner
// routes by the matched buckets only: a call whose bucket is changed or
// missing falls back, level by level, to the heuristic, and its Explain
// says why.
func (t *Table) MatchKernels(cat *kernels.Catalog) KernelMatch {
	return t.matchKernels(cat, VendorLibrary{}.verdicts(t))
}

// matchKernels is MatchKernels with verdicts judging t's buckets routed to
// cuBLASLt (VendorLibrary.verdicts).
func (t *Table) matchKernels(cat *kernels.Catalog, verdicts map[*Bucket]verdict) KernelMatch {
	var m KernelMatch
	if t == nil || cat == nil {
		return m
	}
	for i := range t.Entries {
		for j := range t.Entries[i].Buckets {
			b := &t.Entries[i].Buckets[j]
			_, st := bucketKernel(cat, b)
			if v := verdicts[b].st; b.Vendor != nil && (v == kernelVendor || b.Kernel == "") {
				st = v // else the vendor route is passed over and the bucket's kernel counts
			}
			switch st {
			case kernelMatched:
				m.Matched++
			case kernelChanged:
				m.Changed++
			case kernelMissing:
				m.Missing++
			case kernelVendor:
				m.Vendor++
			}
		}
	}
	return m
}

// kernelState is what a catalog holds of a bucket's kernel.
type kernelState uint8

const (
	kernelMatched kernelState = iota // the kernel, with the bucket's digest
	kernelChanged                    // a kernel of that name with another digest
	kernelMissing                    // no kernel of that name
	kernelVendor                     // a cuBLASLt algorithm of the loaded library's version
)

// bucketKernel returns cat's kernel of b's name (nil when missing) and
// whether it is the code b was measured with.
func bucketKernel(cat *kernels.Catalog, b *Bucket) (*kernels.KernelSpec, kernelState) {
	switch k := cat.Kernel(b.Kernel); {
	case k == nil:
		return nil, kernelMissing
	case k.Digest != b.Digest:
		return k, kernelChanged
	default:
		return k, kernelMatched
	}
}

// EntryKey is what routes a call to an entry: arch, types, layout and the
// exact weight shape (N = K = 0 for the default entry). A table holds at most
// one entry per key.
type EntryKey struct {
	Arch   Arch
	Types  Types
	Layout string
	N, K   int
}

// Key returns the entry's key.
func (e *Entry) Key() EntryKey { return EntryKey{e.Arch, e.Types, e.Layout, e.N, e.K} }

// String writes the key as "sm_90 bf16 default" or
// "sm_90 e4m3→bf16/row N=4096 K=4096" (the layout only when it is not tn).
func (k EntryKey) String() string {
	s := fmt.Sprintf("%s %s", k.Arch, k.Types)
	if k.Layout != kernels.LayoutTN {
		s += " " + k.Layout
	}
	if k.N == 0 && k.K == 0 {
		return s + " default"
	}
	return fmt.Sprintf("%s N=%d K=%d", s, k.N, k.K)
}

// Entry returns the entry with key k, or nil.
func (t *Table) Entry(k EntryKey) *Entry {
	if t == nil {
		return nil
	}
	for i := range t.Entries {
		if t.Entries[i].Key() == k {
			return &t.Entries[i]
		}
	}
	return nil
}

// Route returns the bucket that the entry with key k routes m to, or nil
// when the table has no such entry or m < 1.
func (t *Table) Route(k EntryKey, m int) *Bucket {
	if e := t.Entry(k); e != nil {
		return e.Bucket(m)
	}
	return nil
}

// Find returns the entry for the exact shape (N, K) and the default entry for
// (arch, types, tn); either may be nil.
func (t *Table) Find(arch Arch, types Types, n, k int) (exact, def *Entry) {
	key := EntryKey{Arch: arch, Types: types, Layout: kernels.LayoutTN}
	def = t.Entry(key)
	if n != 0 || k != 0 {
		key.N, key.K = n, k
		exact = t.Entry(key)
	}
	return exact, def
}

// Clone returns a deep copy of t (nil for nil): editing one, its entries,
// buckets or times, never changes the other.
func (t *Table) Clone() *Table {
	if t == nil {
		return nil
	}
	c := *t
	c.Entries = slices.Clone(t.Entries)
	for i := range c.Entries {
		c.Entries[i] = c.Entries[i].clone()
	}
	return &c
}

// clone returns e with its own buckets, times, vendor routes and invariant choice.
func (e Entry) clone() Entry {
	if e.Invariant != nil {
		inv := *e.Invariant
		inv.Kernels = slices.Clone(inv.Kernels)
		e.Invariant = &inv
	}
	e.Buckets = slices.Clone(e.Buckets)
	for j := range e.Buckets {
		e.Buckets[j].TimesUS = maps.Clone(e.Buckets[j].TimesUS)
		e.Buckets[j].KernelTimesUS = maps.Clone(e.Buckets[j].KernelTimesUS)
		if v := e.Buckets[j].Vendor; v != nil {
			c := *v
			e.Buckets[j].Vendor = &c
		}
	}
	return e
}

// Merge returns a table with provenance prov holding t's entries that no
// entry of fresh replaces (same key), in their order, then fresh. A fresh
// entry the model chose does not replace a measured one unless
// replaceMeasured is set: kept lists the keys that stayed measured that way.
// The result is a deep copy: it shares no bucket with t or fresh, and
// neither is changed. Two entries of fresh with one key are an *ArgError
// (ErrInvalidArgument). A nil t merges as an empty table.
func (t *Table) Merge(prov Provenance, fresh []Entry, replaceMeasured bool) (out *Table, kept []EntryKey, err error) {
	old := map[EntryKey]*Entry{}
	if t != nil {
		for i := range t.Entries {
			if e := &t.Entries[i]; old[e.Key()] == nil {
				old[e.Key()] = e
			}
		}
	}
	replaced := map[EntryKey]bool{}
	var add []Entry
	for _, f := range fresh {
		k := f.Key()
		if _, dup := replaced[k]; dup {
			return nil, nil, &ArgError{Field: "fresh", Value: k, Rule: "holds two entries with this key: merge them or drop one"}
		}
		if o := old[k]; o != nil && o.Measured() && !f.Measured() && !replaceMeasured {
			replaced[k] = false
			kept = append(kept, k)
			continue
		}
		replaced[k] = true
		add = append(add, f)
	}
	out = &Table{Schema: TableSchema, Provenance: prov}
	if t != nil {
		for _, e := range t.Entries {
			if !replaced[e.Key()] {
				out.Entries = append(out.Entries, e.clone())
			}
		}
	}
	for _, f := range add {
		out.Entries = append(out.Entries, f.clone())
	}
	return out, kept, nil
}

// MarkModel makes e the model's choices for device on date: a bucket
// without a source of its own (the model's choice) loses what only a
// measurement may say (times, runner-up, margin); a bucket kept from
// another entry (Stamp) keeps its times and its own source, device and date
// where they are not e's (Unstamp).
func (e *Entry) MarkModel(device, date string) {
	e.Source, e.Device, e.Date = SourceModel, device, date
	for i := range e.Buckets {
		b := &e.Buckets[i]
		if b.Source == "" {
			b.TimesUS, b.KernelTimesUS, b.RunnerUp, b.MarginPct = nil, nil, "", 0
			b.Device, b.Date = "", ""
		}
		b.Unstamp(e)
	}
}

// GeometricBuckets is the table's bucket scheme up to maxM (a power of two):
// [1, 1], [2, 2], [3, 4], [5, 8], …, [maxM/2+1, maxM], then [maxM+1, ∞).
// Kernels are left unset.
func GeometricBuckets(maxM int) []Bucket {
	var out []Bucket
	lo := 1
	for hi := 1; hi <= maxM; hi *= 2 {
		out = append(out, Bucket{MinM: lo, MaxM: hi})
		lo = hi + 1
		if hi > maxM/2 { // the last edge: doubling again could overflow
			break
		}
	}
	return append(out, Bucket{MinM: lo})
}
