package dispatch

import (
	"fmt"
	"sort"

	"github.com/gemmroute/gemmroute/kernels"
)

// Table is a bucket table (buckets.yaml): for each (arch, dtypes, layout) and
// optionally an exact (N, K), geometric M buckets naming a kernel and split-K.
type Table struct {
	Provenance Provenance `yaml:"provenance"`
	Entries    []Entry    `yaml:"entries"`
}

// Provenance records where a table's numbers came from.
type Provenance struct {
	Source        string `yaml:"source"`                    // "measured" or "heuristic, not measured"
	Device        string `yaml:"device,omitempty"`          // e.g. NVIDIA H200
	SMs           int    `yaml:"sms,omitempty"`             // multiprocessor count
	Arch          string `yaml:"arch,omitempty"`            // e.g. sm_90
	Driver        string `yaml:"driver,omitempty"`          // driver version
	KernelSetHash string `yaml:"kernel_set_hash,omitempty"` // manifest source hash the table was tuned on
	Date          string `yaml:"date,omitempty"`            // YYYY-MM-DD
	Method        string `yaml:"method,omitempty"`          // how times were taken
}

// Entry routes one (arch, dtypes, layout) and, when N and K are nonzero, one
// exact weight shape. An entry with N = K = 0 is the default for its key.
type Entry struct {
	Arch    Arch     `yaml:"arch"`
	In      DType    `yaml:"in"`
	Out     DType    `yaml:"out"`
	Layout  string   `yaml:"layout"`
	N       int      `yaml:"n,omitempty"`
	K       int      `yaml:"k,omitempty"`
	Buckets []Bucket `yaml:"buckets"`
	line    int      // source line, for error messages
}

// Bucket covers M in [MinM, MaxM] (MaxM = 0: no upper bound). Upper edges are
// powers of two, and an entry's buckets cover [1, ∞) without gap or overlap.
type Bucket struct {
	MinM   int    `yaml:"min_m"`
	MaxM   int    `yaml:"max_m,omitempty"`
	Kernel string `yaml:"kernel"`
	SplitK int    `yaml:"split_k"`
	// Measured by autotune (absent in heuristic tables).
	TimesUS   map[int]float64 `yaml:"times_us,omitempty"`   // chosen kernel's time at sample Ms
	RunnerUp  string          `yaml:"runner_up,omitempty"`  // second-best kernel
	MarginPct float64         `yaml:"margin_pct,omitempty"` // runner-up's worst-case slowdown over the choice, %
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

// Find returns the entry for the exact shape (N, K) and the default entry for
// (arch, in, out, tn); either may be nil.
func (t *Table) Find(arch Arch, in, out DType, n, k int) (exact, def *Entry) {
	if t == nil {
		return nil, nil
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Arch != arch || e.In != in || e.Out != out || e.Layout != kernels.LayoutTN {
			continue
		}
		switch {
		case e.N == 0 && e.K == 0:
			def = e
		case e.N == n && e.K == k:
			exact = e
		}
	}
	return exact, def
}
