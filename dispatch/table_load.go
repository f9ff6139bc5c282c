package dispatch

import (
	"bytes"
	"cmp"
	"encoding"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gemmroute/gemmroute/kernels"
)

// LoadTable parses and validates a bucket table (YAML). name is used in
// error messages. With a non-nil catalog every named kernel must exist, run
// on the entry's arch and compute the entry's dtypes. Every problem found is
// returned as TableErrors, each with its line.
func LoadTable(name string, data []byte, cat *kernels.Catalog) (*Table, error) {
	l := &loader{file: name, bad: map[*yaml.Node]bool{}}
	var t Table
	if root := l.parse(data); root != nil {
		l.decode(root, reflect.ValueOf(&t).Elem(), "table")
		l.check(&t, root, cat)
	}
	if len(l.errs) > 0 {
		slices.SortStableFunc(l.errs, func(a, b *TableError) int { return cmp.Compare(a.Line, b.Line) })
		return nil, l.errs
	}
	return &t, nil
}

// Marshal writes the table as canonical YAML (indent 2, fields in struct
// order, times_us keys sorted): LoadTable(Marshal(t)) gives t back, and
// marshalling that again gives the same bytes.
func (t *Table) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	err := enc.Encode(t)
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// loader collects every problem of one table.
type loader struct {
	file string
	errs TableErrors
	bad  map[*yaml.Node]bool // value nodes that failed to decode (already reported)
}

func (l *loader) errorf(line int, format string, args ...any) {
	l.errs = append(l.errs, &TableError{File: l.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// fail reports a value node that could not be decoded.
func (l *loader) fail(n *yaml.Node, format string, args ...any) {
	l.bad[n] = true
	l.errorf(n.Line, format, args...)
}

var syntaxLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parse returns the root node of the table's single YAML document, or nil
// after reporting why there is none.
func (l *loader) parse(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, more yaml.Node
	err := dec.Decode(&doc)
	if err == nil {
		if err = dec.Decode(&more); err == nil {
			l.errorf(more.Line, "a second YAML document starts here: a table is a single document")
			return nil
		}
	}
	switch {
	case err != io.EOF:
		msg, line := strings.TrimPrefix(err.Error(), "yaml: "), 0
		if m := syntaxLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = err.Error()[len(m[0]):]
		}
		l.errorf(line, "YAML syntax error: %s", msg)
	case len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null":
		l.errorf(0, "the table is empty: it needs at least provenance: {source: ...}")
	default:
		return doc.Content[0]
	}
	return nil
}

var kindNames = map[reflect.Kind]string{reflect.Int: "a whole number", reflect.Float64: "a number", reflect.String: "text"}

// decode fills v from n as yaml.v3 would, except that it reports every
// unknown or repeated key and every bad value with its line and goes on.
// A null leaves v zero; empty lists and mappings stay nil, as Marshal omits
// or writes them.
func (l *loader) decode(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind == yaml.AliasNode {
		l.fail(n, "%s: aliases (*%s) are not supported: write the value out", key, n.Value)
		return
	}
	if n.ShortTag() == "!!null" {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		what := strings.ToLower(v.Type().Name())
		if n.Kind != yaml.MappingNode {
			l.fail(n, "%s must be a mapping of fields (name: value)", what)
			return
		}
		fields := map[string]int{}
		var names []string
		for i := range v.NumField() {
			if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ","); name != "" {
				fields[name] = i
				names = append(names, name)
			}
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			f, known := fields[k.Value]
			switch {
			case !known || k.Kind != yaml.ScalarNode:
				l.errorf(k.Line, "unknown field %q in %s: remove it or use one of %s", k.Value, what, strings.Join(names, ", "))
			case seen[k.Value] > 0:
				l.errorf(k.Line, "field %q repeats line %d: keep one", k.Value, seen[k.Value])
			default:
				seen[k.Value] = k.Line
				l.decode(val, v.Field(f), k.Value)
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			l.fail(n, "%s must be a list (- items)", key)
		} else if len(n.Content) > 0 {
			v.Set(reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content)))
			for i, c := range n.Content {
				l.decode(c, v.Index(i), key)
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			l.fail(n, "%s must be a mapping (M: microseconds)", key)
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val, errs := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem(), len(l.errs)
			l.decode(n.Content[i], k, key)
			l.decode(n.Content[i+1], val, key)
			if len(l.errs) > errs {
				continue
			}
			if v.IsNil() {
				v.Set(reflect.MakeMap(v.Type()))
			}
			if v.MapIndex(k).IsValid() {
				l.errorf(n.Content[i].Line, "%s: key %v repeats: keep one", key, k)
			}
			v.SetMapIndex(k, val)
		}
	default:
		if n.Kind != yaml.ScalarNode {
			l.fail(n, "%s must be a single value", key)
			return
		}
		if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
			if err := u.UnmarshalText([]byte(n.Value)); err != nil {
				l.fail(n, "%s: %v", key, err)
			}
		} else if n.Decode(v.Addr().Interface()) != nil || v.Kind() == reflect.Int && n.ShortTag() != "!!int" {
			l.fail(n, "%s: %q is not %s", key, n.Value, kindNames[v.Kind()])
		}
	}
}

// field returns the key and value nodes of key in mapping m (nil, nil when
// absent or m is not a mapping).
func field(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
				return m.Content[i], m.Content[i+1]
			}
		}
	}
	return nil, nil
}

// at is the line of key in mapping m, or m's own line when key is absent.
func at(m *yaml.Node, key string) int {
	if k, _ := field(m, key); k != nil {
		return k.Line
	}
	return m.Line
}

// need reports a required key of mapping m that is absent or empty, unless
// its value already failed to decode.
func (l *loader) need(m *yaml.Node, key, fix string) {
	switch k, v := field(m, key); {
	case k == nil && !l.bad[m]:
		l.errorf(m.Line, "%s is missing: %s", key, fix)
	case k != nil && !l.bad[v]:
		l.errorf(k.Line, "%s is empty: %s", key, fix)
	}
}

// check validates what decode filled in; root is the table's mapping.
func (l *loader) check(t *Table, root *yaml.Node, cat *kernels.Catalog) {
	if t.Provenance.Source == "" {
		_, prov := field(root, "provenance")
		l.need(cmp.Or(prov, root), "source", `add provenance.source: measured (or "heuristic, not measured")`)
	}
	_, list := field(root, "entries")
	seen := map[EntryKey]int{}
	for i := range t.Entries {
		e, m := &t.Entries[i], list.Content[i]
		if l.bad[m] {
			continue // reported by decode
		}
		l.checkEntry(e, m, cat)
		k := e.Key()
		if first, dup := seen[k]; dup {
			shape := "default entry"
			if e.N != 0 || e.K != 0 {
				shape = fmt.Sprintf("entry n=%d k=%d", e.N, e.K)
			}
			l.errorf(m.Line, "duplicate %s for %s %s→%s %s: line %d has the same key; merge them or remove one",
				shape, e.Arch, e.In, e.Out, e.Layout, first)
		} else {
			seen[k] = m.Line
		}
	}
}

// checkEntry validates entry e, read from mapping m.
func (l *loader) checkEntry(e *Entry, m *yaml.Node, cat *kernels.Catalog) {
	e.line = m.Line
	if e.Arch == 0 {
		l.need(m, "arch", "add arch: sm_90 (or sm_80, sm_86, sm_89)")
	}
	if e.In == kernels.DTypeInvalid {
		l.need(m, "in", "add in: bf16 (or f16, e4m3)")
	} else if e.In == kernels.F32 {
		l.errorf(at(m, "in"), "in: f32 is not an input type: use f16, bf16 or e4m3")
	}
	if e.Out == kernels.DTypeInvalid {
		l.need(m, "out", "add out: bf16 (or f16)")
	} else if e.Out != F16 && e.Out != BF16 {
		l.errorf(at(m, "out"), "out: %s is not an output type: use f16 or bf16", e.Out)
	}
	if e.Layout == "" {
		l.need(m, "layout", "add layout: tn")
	} else if e.Layout != kernels.LayoutTN {
		l.errorf(at(m, "layout"), "layout %q is not served: use layout: tn (A [M,K] and B [N,K] row-major)", e.Layout)
	}
	const shapes = "give both n and k for an exact shape, or neither for the default entry"
	switch {
	case e.N < 0:
		l.errorf(at(m, "n"), "n is %d: it must be positive: %s", e.N, shapes)
	case e.K < 0:
		l.errorf(at(m, "k"), "k is %d: it must be positive: %s", e.K, shapes)
	case e.N == 0 && e.K != 0:
		l.errorf(at(m, "k"), "only k is set: %s", shapes)
	case e.N != 0 && e.K == 0:
		l.errorf(at(m, "n"), "only n is set: %s", shapes)
	}
	if len(e.Buckets) == 0 {
		l.need(m, "buckets", "add at least one bucket, the first with min_m: 1")
		return
	}
	_, list := field(m, "buckets")
	for j := range e.Buckets {
		if !l.bad[list.Content[j]] {
			l.checkBucket(e, list, j, cat)
		}
	}
}

// checkBucket validates e.Buckets[j], read from list.Content[j].
func (l *loader) checkBucket(e *Entry, list *yaml.Node, j int, cat *kernels.Catalog) {
	b, m, last := &e.Buckets[j], list.Content[j], j == len(e.Buckets)-1
	switch prev := &e.Buckets[max(j-1, 0)]; {
	case j == 0 && b.MinM != 1:
		l.errorf(at(m, "min_m"), "first bucket starts at min_m %d: it must start at min_m: 1 so that every M is routed", b.MinM)
	case j == 0 || l.bad[list.Content[j-1]] || prev.MaxM == 0:
		// nothing to compare with: the previous bucket is bad or open-ended (reported there)
	case b.MinM > prev.MaxM+1:
		l.errorf(at(m, "min_m"), "gap: M in [%d, %d] has no bucket: set min_m to %d", prev.MaxM+1, b.MinM-1, prev.MaxM+1)
	case b.MinM <= prev.MaxM:
		l.errorf(at(m, "min_m"), "overlap: min_m %d is inside the previous bucket (up to max_m %d): set min_m to %d", b.MinM, prev.MaxM, prev.MaxM+1)
	}
	switch _, v := field(m, "max_m"); {
	case b.MaxM == 0 && !last && !l.bad[v]:
		l.errorf(m.Line, "open-ended bucket (no max_m) is not the last: give it a max_m (a power of two) or move it to the end")
	case b.MaxM != 0 && last:
		l.errorf(at(m, "max_m"), "last bucket ends at max_m %d: remove max_m so that it covers every larger M", b.MaxM)
	}
	if b.MaxM != 0 && (b.MaxM < 0 || b.MaxM&(b.MaxM-1) != 0) {
		l.errorf(at(m, "max_m"), "max_m %d is not a power of two: bucket edges are powers of two (…, 16, 32, 64, …)", b.MaxM)
	}
	if b.MaxM != 0 && b.MaxM < b.MinM {
		l.errorf(at(m, "max_m"), "max_m %d is below min_m %d: the bucket holds no M", b.MaxM, b.MinM)
	}
	if _, v := field(m, "split_k"); b.SplitK < 1 && !l.bad[v] {
		l.errorf(at(m, "split_k"), "split_k is %d: it must be at least 1 (1: no split-K)", b.SplitK)
	}
	for _, mm := range slices.Sorted(maps.Keys(b.TimesUS)) {
		if us := b.TimesUS[mm]; mm < 1 || !(us > 0) || math.IsInf(us, 1) {
			l.errorf(at(m, "times_us"), "times_us[%d] = %g: sample Ms must be ≥ 1 and times positive microseconds", mm, us)
			break
		}
	}
	if math.IsNaN(b.MarginPct) || math.IsInf(b.MarginPct, 0) {
		l.errorf(at(m, "margin_pct"), "margin_pct is %g: write a finite percentage", b.MarginPct)
	}
	if b.Kernel == "" {
		l.need(m, "kernel", "name the kernel that runs this bucket")
		return
	}
	if !kernels.ValidKernelName(b.Kernel) {
		l.errorf(at(m, "kernel"), "kernel %q is not a kernel name: %s", b.Kernel, kernels.KernelNameRule)
		return
	}
	if cat == nil {
		return
	}
	k, line := cat.Kernel(b.Kernel), at(m, "kernel")
	if k == nil {
		l.errorf(line, "unknown kernel %q: it is not in the kernel manifest; retune the table or pick a kernel the manifest lists", b.Kernel)
		return
	}
	if e.Arch != 0 && !k.RunsOn(e.Arch) {
		runs := k.MinArch.String() + " and newer"
		if k.MaxArch != 0 {
			runs = k.MinArch.String() + " to " + k.MaxArch.String()
		}
		l.errorf(line, "kernel %q does not run on %s (it runs on %s): pick a kernel built for %s", b.Kernel, e.Arch, runs, e.Arch)
	}
	if e.In != kernels.DTypeInvalid && e.Out != kernels.DTypeInvalid && (k.In != e.In || k.Out != e.Out) {
		l.errorf(line, "kernel %q computes %s→%s but the entry is %s→%s: pick a kernel with the entry's dtypes", b.Kernel, k.In, k.Out, e.In, e.Out)
	}
	if b.SplitK > k.MaxSplitK {
		l.errorf(at(m, "split_k"), "split_k %d exceeds kernel %q's max_split_k %d: lower it", b.SplitK, b.Kernel, k.MaxSplitK)
	}
}
