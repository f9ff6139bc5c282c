package dispatch

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/gemmroute/gemmroute/kernels"
)

// MaxTableBytes bounds the table LoadTable reads (the shipped buckets.yaml
// is about 100 KB; a table for every weight of many models stays far below).
const MaxTableBytes = 64 << 20

// Bounds that keep LoadTable's time and memory linear and small whatever
// the input, checked before anything is decoded:
const (
	// MaxTableItems bounds a table's YAML indicators (the bytes '-', ',',
	// '[', '{', ':' and '?': every list item and mapping pair needs one,
	// so the parsed nodes are at most about twice as many). The shipped
	// table has one per 27 bytes, so a real table of about 25 MiB fits;
	// 16 MiB of empty entries does not, and is refused before it is parsed.
	MaxTableItems = 1 << 20
	// MaxMappingKeys bounds the keys of one mapping: a table's largest
	// (an entry) has 10 fields, times_us a few sample Ms. yaml.v3 checks a
	// mapping's keys pairwise, in time quadratic in their number.
	MaxMappingKeys = 64
	// MaxTableErrors bounds the errors LoadTable returns: the first ones
	// found (in line order), then one saying how many more there were.
	MaxTableErrors = 100
)

// LoadTable parses and validates a bucket table (YAML, schema TableSchema)
// of at most MaxTableBytes. name is used in error messages. With a non-nil
// catalog, a bucket whose kernel is there with the bucket's digest must
// name a kernel that runs on the entry's arch, computes in the entry's types
// and splits K as far as the bucket does; a bucket whose kernel changed or
// is missing is no error (Table.MatchKernels counts them; planning passes
// over them). Every problem found is returned as TableErrors, each with its
// line.
func LoadTable(name string, data []byte, cat *kernels.Catalog) (*Table, error) {
	if len(data) > MaxTableBytes {
		return nil, TableErrors{{File: name, Msg: fmt.Sprintf("%d bytes, more than the %d MiB a table may have: is it a table?", len(data), MaxTableBytes>>20)}}
	}
	l := &loader{file: name, badLine: map[int]bool{}}
	if n := countIndicators(data); n > MaxTableItems {
		return nil, TableErrors{{File: name, Msg: fmt.Sprintf("%d list items and mapping keys, more than the %d a table may have: is it a table?", n, MaxTableItems)}}
	}
	var t Table
	if root := l.parse(data); root != nil && l.checkKeys(root) && l.checkItems(root) {
		l.scan(root, "table")
		if _, list := field(root, "entries"); list != nil && list.Kind == yaml.SequenceNode {
			for _, e := range list.Content {
				l.scanEntry(e)
			}
		}
		if l.decode(data, root, &t) {
			l.check(&t, root, cat)
		}
	}
	if len(l.errs) > 0 {
		slices.SortStableFunc(l.errs, func(a, b *TableError) int { return cmp.Compare(a.Line, b.Line) })
		if l.dropped > 0 {
			l.errs = append(l.errs, &TableError{File: name, Msg: fmt.Sprintf("… and %d more errors (only the first %d found are listed)", l.dropped, MaxTableErrors)})
		}
		return nil, l.errs
	}
	t.Schema = TableSchema // a schema 3 table reads as the same table of schema 4
	return &t, nil
}

// countIndicators counts the bytes of data that may start a list item or a
// mapping pair (see MaxTableItems): an upper bound on what parsing makes.
func countIndicators(data []byte) int {
	n := 0
	for _, c := range []byte("-,[{:?") {
		n += bytes.Count(data, []byte{c})
	}
	return n
}

// checkItems reports the items of entries and of each entry's buckets that
// are not mappings, ahead of decoding (yaml.v3 makes an error of each, and
// a list of a million numbers took seconds). It returns false when it found
// any: the table is then not decoded.
func (l *loader) checkItems(root *yaml.Node) bool {
	ok := true
	items := func(list *yaml.Node, what string) []*yaml.Node {
		if list == nil || list.Kind != yaml.SequenceNode {
			return nil // reported by decode
		}
		for _, n := range list.Content {
			if n.Kind != yaml.MappingNode && n.Kind != yaml.AliasNode {
				l.fail(n.Line, "%s must be a mapping of fields (name: value)", what)
				ok = false
			}
		}
		return list.Content
	}
	_, entries := field(root, "entries")
	for _, e := range items(entries, "entry") {
		_, buckets := field(e, "buckets")
		items(buckets, "bucket")
	}
	return ok
}

// checkKeys reports mappings with more than MaxMappingKeys keys and keys
// that repeat within a mapping, in time linear in the nodes (yaml.v3's
// strict decoding checks keys pairwise, and reports each pair: n copies of
// one key made n²/2 errors). It returns false when it found any: the table
// is then not decoded.
func (l *loader) checkKeys(root *yaml.Node) bool {
	ok := true
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			if keys := len(n.Content) / 2; keys > MaxMappingKeys {
				l.errorf(n.Line, "a mapping of %d keys: a table's mappings have at most %d (fields, or times_us samples)", keys, MaxMappingKeys)
				ok = false
				return
			}
			first := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode {
					continue
				}
				if line, dup := first[k.Value]; dup {
					l.errorf(k.Line, "field %q repeats line %d: keep one", k.Value, line)
					ok = false
				} else {
					first[k.Value] = k.Line
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return ok
}

// copyTexts returns a copy of t that Marshal may edit (entries and buckets
// copied) and pointers to each of its text fields.
func (t *Table) copyTexts() (*Table, []*string) {
	c := *t
	p := &c.Provenance
	c.Schema = TableSchema
	texts := []*string{&p.Source, &p.Device, &p.Arch, &p.Driver, &p.Date, &p.Method}
	c.Entries = slices.Clone(t.Entries)
	for i := range c.Entries {
		e := &c.Entries[i]
		e.Buckets = slices.Clone(e.Buckets)
		texts = append(texts, &e.Layout, &e.Source, &e.Device, &e.Date)
		for j := range e.Buckets {
			b := &e.Buckets[j]
			texts = append(texts, &b.Kernel, &b.Digest, &b.RunnerUp, &b.Source, &b.Device, &b.Date)
			if b.Vendor != nil {
				v := *b.Vendor
				b.Vendor = &v
				texts = append(texts, &v.Algo)
			}
		}
	}
	return &c, texts
}

// restoreQuoted puts back the texts Marshal replaced by placeholders, each
// double-quoted.
func restoreQuoted(n *yaml.Node, quoted map[string]string) {
	if text, ok := quoted[n.Value]; ok && n.Kind == yaml.ScalarNode {
		n.Value, n.Style = text, yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		restoreQuoted(c, quoted)
	}
}

// Marshal writes the table as canonical YAML (indent 2, fields in struct
// order, times_us keys sorted), of schema TableSchema whatever t.Schema
// says: LoadTable(Marshal(t)) gives t back (its Schema TableSchema), and
// marshalling that again gives the same bytes.
//
// Text with control characters (newlines, tabs) is written double-quoted
// with escapes: yaml.v3's block style loses leading newlines and cannot
// start with a tab.
//
// A nil table is an *ArgError (ErrInvalidArgument).
func (t *Table) Marshal() ([]byte, error) {
	if t == nil {
		return nil, &ArgError{Field: "Table", Value: nil, Rule: "must not be nil: there is nothing to write"}
	}
	c, texts := t.copyTexts()
	quoted := map[string]string{} // placeholder → text
	for _, p := range texts {
		if strings.ContainsFunc(*p, unicode.IsControl) {
			key := fmt.Sprintf("\uE000text-%d", len(quoted))
			for slices.ContainsFunc(texts, func(q *string) bool { return *q == key }) {
				key += "\uE000"
			}
			quoted[key], *p = *p, key
		}
	}
	var root yaml.Node
	if err := root.Encode(c); err != nil {
		return nil, err
	}
	restoreQuoted(&root, quoted)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	err := enc.Encode(&root)
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
	file    string
	errs    TableErrors
	dropped int          // errors beyond MaxTableErrors, counted, not kept
	badLine map[int]bool // lines whose value failed to decode (already reported)
	schema  int          // the table's schema, once check has read it
}

func (l *loader) errorf(line int, format string, args ...any) {
	if len(l.errs) >= MaxTableErrors {
		l.dropped++
		return
	}
	l.errs = append(l.errs, &TableError{File: l.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// fail reports a value that could not be decoded, at line.
func (l *loader) fail(line int, format string, args ...any) {
	l.badLine[line] = true
	l.errorf(line, format, args...)
}

// bad reports whether n's value failed to decode (and was reported).
func (l *loader) bad(n *yaml.Node) bool { return n != nil && l.badLine[n.Line] }

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

// scan reports what yaml.v3 would accept but a table must not hold: aliases
// and merge keys (a table is written out).
func (l *loader) scan(n *yaml.Node, key string) {
	switch n.Kind {
	case yaml.AliasNode:
		l.fail(n.Line, "%s: aliases (*%s) are not supported: write the value out", key, n.Value)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.ShortTag() == "!!merge" {
				l.fail(k.Line, "%s: merge keys (<<) are not supported: write the fields out", key)
				continue
			}
			l.scan(v, k.Value)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			l.scan(c, key)
		}
	}
}

// scanEntry checks an entry's arch and types text ahead of decoding, so
// that a bad one is reported with its line: yaml.v3 stops at the first value
// a TextUnmarshaler refuses, and says no line.
func (l *loader) scanEntry(e *yaml.Node) {
	for _, key := range []string{"arch", "types"} {
		_, v := field(e, key)
		if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
			continue
		}
		var err error
		if key == "arch" {
			_, err = kernels.ParseArch(v.Value)
		} else {
			_, err = kernels.ParseTypes(v.Value)
		}
		if err != nil {
			l.fail(v.Line, "%s: %v", key, err)
		}
	}
}

// decode fills t from data by yaml.v3's strict decoding (unknown fields and
// repeated keys are errors) and reports each of its errors with its line.
// It returns false when decoding stopped early: t is not worth checking.
func (l *loader) decode(data []byte, root *yaml.Node, t *Table) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(t)
	var te *yaml.TypeError
	switch {
	case err == nil:
	case errors.As(err, &te):
		keys := keysByLine(root)
		for i, msg := range te.Errors {
			if len(l.errs) >= MaxTableErrors {
				l.dropped += len(te.Errors) - i // counted, not parsed
				break
			}
			l.typeError(msg, keys)
		}
	default: // a value scan has reported, or one it does not know
		if len(l.errs) == 0 {
			l.errorf(0, "%v", err)
		}
		return false
	}
	// Empty lists and mappings stay nil, as Marshal omits or writes them.
	if len(t.Entries) == 0 {
		t.Entries = nil
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		if len(e.Buckets) == 0 {
			e.Buckets = nil
		}
		for j := range e.Buckets {
			if len(e.Buckets[j].TimesUS) == 0 {
				e.Buckets[j].TimesUS = nil
			}
		}
	}
	return true
}

var (
	lineMsg      = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownField = regexp.MustCompile(`^field (.*) not found in type \w+\.(\w+)$`)
	repeatedKey  = regexp.MustCompile(`^mapping key (".*") already defined at line (\d+)$`)
	badValue     = regexp.MustCompile(`^cannot unmarshal !!\w+(?: .*)? into (\S+)$`)
	// the yaml field names of each table type, for unknown-field messages
	fieldNames = map[string]string{"table": yamlFields[Table](), "provenance": yamlFields[Provenance](), "entry": yamlFields[Entry](), "bucket": yamlFields[Bucket](), "vendor": yamlFields[Vendor]()}
)

// yamlFields lists T's yaml field names.
func yamlFields[T any]() string {
	var names []string
	for f := range reflect.TypeFor[T]().Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// keyed is a mapping's key and its value.
type keyed struct{ key, value *yaml.Node }

// keysByLine maps each line to the innermost key whose value starts there,
// for messages about a value yaml.v3 names only by its line.
func keysByLine(n *yaml.Node) map[int]keyed {
	out := map[int]keyed{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 1 {
				out[c.Line] = keyed{n.Content[i-1], c}
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

// typeError reports one of yaml.v3's decoding errors in the table's terms.
func (l *loader) typeError(msg string, keys map[int]keyed) {
	m := lineMsg.FindStringSubmatch(msg)
	if m == nil {
		l.errorf(0, "%s", msg)
		return
	}
	line, _ := strconv.Atoi(m[1])
	msg = m[2]
	key, value := "value", ""
	if k, ok := keys[line]; ok {
		key, value = k.key.Value, k.value.Value
	}
	if f := unknownField.FindStringSubmatch(msg); f != nil {
		what := strings.ToLower(f[2])
		l.errorf(line, "unknown field %q in %s: remove it or use one of %s", f[1], what, fieldNames[what])
	} else if f := repeatedKey.FindStringSubmatch(msg); f != nil {
		name, _ := strconv.Unquote(f[1])
		l.errorf(line, "field %q repeats line %s: keep one", name, f[2])
	} else if strings.Contains(msg, " already set in type ") {
		// the repeated key above says it
	} else if f := badValue.FindStringSubmatch(msg); f != nil {
		switch into := f[1]; {
		case into == "int":
			l.fail(line, "%s: %q is not a whole number", key, value)
		case into == "float64":
			l.fail(line, "%s: %q is not a number", key, value)
		case strings.HasPrefix(into, "[]"):
			l.fail(line, "%s must be a list (- items)", key)
		case strings.HasPrefix(into, "map["):
			l.fail(line, "%s must be a mapping (M: microseconds)", key)
		case fieldNames[strings.ToLower(strings.TrimPrefix(into, "dispatch."))] != "":
			l.fail(line, "%s must be a mapping of fields (name: value)", strings.ToLower(strings.TrimPrefix(into, "dispatch.")))
		default:
			l.fail(line, "%s must be a single value", key)
		}
	} else {
		l.fail(line, "%s", msg)
	}
}

// whole reports the values of keys in mapping m that yaml.v3 resolved as
// fractions and silently truncated into whole-number fields.
func (l *loader) whole(m *yaml.Node, keys ...string) {
	for _, key := range keys {
		if _, v := field(m, key); v != nil && v.ShortTag() == "!!float" && !l.bad(v) {
			l.fail(v.Line, "%s: %q is not a whole number", key, v.Value)
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
	case k == nil && !l.bad(m):
		l.errorf(m.Line, "%s is missing: %s", key, fix)
	case k != nil && !l.bad(v):
		l.errorf(k.Line, "%s is empty: %s", key, fix)
	}
}

// check validates what decode filled in; root is the table's mapping.
func (l *loader) check(t *Table, root *yaml.Node, cat *kernels.Catalog) {
	const retune = "tune the table again (autotune tune) with the kernels as built, or load it with the gemmroute that wrote it"
	switch k, v := field(root, "schema"); {
	case k == nil:
		l.errorf(root.Line, "schema is missing: this build reads table schema %d, whose buckets record their kernels' digests: %s", TableSchema, retune)
		return
	case l.bad(v):
		return
	case t.Schema == 2 && v.ShortTag() == "!!int":
		l.errorf(k.Line, "schema 2: this build reads table schema %d, which writes an entry's in and out as one types field: replace each entry's in: X, out: X by types: X (16-bit) and in: e4m3, out: Y by types: e4m3→Y, then write schema: %d", TableSchema, TableSchema)
		return
	case t.Schema != TableSchema && t.Schema != 3 || v.ShortTag() != "!!int":
		l.errorf(k.Line, "schema %s: this build reads table schema %d: %s", v.Value, TableSchema, retune)
		return
	}
	l.schema = t.Schema
	if t.Provenance.Source == "" {
		_, prov := field(root, "provenance")
		l.need(cmp.Or(prov, root), "source", `add provenance.source: measured (or "heuristic, not measured")`)
	}
	_, prov := field(root, "provenance")
	l.whole(prov, "sms")
	_, list := field(root, "entries")
	nodes := decoded(list)
	if !l.aligned(list, len(nodes), len(t.Entries)) {
		return
	}
	seen := map[EntryKey]int{}
	for i := range t.Entries {
		e, m := &t.Entries[i], nodes[i]
		if l.bad(m) {
			continue // reported by decode
		}
		l.checkEntry(e, m, cat)
		k := e.Key()
		if first, dup := seen[k]; dup {
			shape := "default entry"
			if e.N != 0 || e.K != 0 {
				shape = fmt.Sprintf("entry n=%d k=%d", e.N, e.K)
			}
			l.errorf(m.Line, "duplicate %s for %s %s %s: line %d has the same key; merge them or remove one",
				shape, e.Arch, e.Types, e.Layout, first)
		} else {
			seen[k] = m.Line
		}
	}
}

// checkSource checks an entry's source: measured or model, and a model
// entry carries no measurements.
func (l *loader) checkSource(e *Entry, m *yaml.Node) {
	timed := slices.ContainsFunc(e.Buckets, func(b Bucket) bool { return len(b.TimesUS) > 0 && b.Source != SourceMeasured })
	switch e.Source {
	case "":
	case SourceModel:
		if timed {
			l.errorf(at(m, "source"), "source: model, but a bucket has times_us: a model entry holds no measurements (say source: measured, in the entry or that bucket, or drop the times)")
		}
	case SourceMeasured:
	default:
		l.errorf(at(m, "source"), "source %q: use measured or model", e.Source)
	}
}

// checkInvariant checks an entry's invariant choice: a class name and a
// source. A class that no kernel of the catalog has is not an error here
// (a table outlives a kernel set): the planner passes over it and says so.
func (l *loader) checkInvariant(e *Entry, m *yaml.Node) {
	if e.Invariant == nil {
		return
	}
	_, v := field(m, "invariant")
	switch inv := e.Invariant; {
	case !kernels.ValidClass(inv.Class):
		l.errorf(at(v, "class"), "invariant: class %q: %s (autotune tune writes it)", inv.Class, kernels.ClassRule)
	case inv.Source != SourceMeasured && inv.Source != SourceModel:
		l.errorf(at(v, "source"), "invariant: source %q: use measured or model", inv.Source)
	case inv.Source == SourceModel && len(inv.Kernels) > 0:
		l.errorf(at(v, "kernels"), "invariant: source: model, but kernels is set: only a tune gates the experimental kernels it ran (say source: measured, or drop it)")
	case inv.Source == SourceModel && inv.WorstSlowdown != 0:
		l.errorf(at(v, "worst_slowdown"), "invariant: source: model, but worst_slowdown is set: a model choice holds no measurements (say source: measured, or drop it)")
	case inv.WorstSlowdown < 0:
		l.errorf(at(v, "worst_slowdown"), "invariant: worst_slowdown %g: a slowdown is a ratio of times, not negative", inv.WorstSlowdown)
	case inv.SplitK < 0 || inv.SplitK > kernels.MaxSplitK:
		l.errorf(at(v, "split_k"), "invariant: split_k %d outside 0..%d (0 or 1: no split)", inv.SplitK, kernels.MaxSplitK)
	}
}

// checkEntry validates entry e, read from mapping m.
func (l *loader) checkEntry(e *Entry, m *yaml.Node, cat *kernels.Catalog) {
	if e.Arch == 0 {
		l.need(m, "arch", "add arch: sm_90 (or sm_80, sm_86, sm_89)")
	}
	if e.Types == (Types{}) {
		l.need(m, "types", "add types: bf16 (or f16, e4m3→bf16, e4m3→f16/row, …)")
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
	case e.N > maxDim:
		l.errorf(at(m, "n"), "n is %d: above 2^31, the largest dimension a problem may have", e.N)
	case e.K > maxDim:
		l.errorf(at(m, "k"), "k is %d: above 2^31, the largest dimension a problem may have", e.K)
	case e.N == 0 && e.K != 0:
		l.errorf(at(m, "k"), "only k is set: %s", shapes)
	case e.N != 0 && e.K == 0:
		l.errorf(at(m, "n"), "only n is set: %s", shapes)
	}
	if len(e.Buckets) == 0 {
		l.need(m, "buckets", "add at least one bucket, the first with min_m: 1")
		return
	}
	l.checkSource(e, m)
	l.checkInvariant(e, m)
	l.whole(m, "n", "k")
	_, list := field(m, "buckets")
	nodes := decoded(list)
	if !l.aligned(list, len(nodes), len(e.Buckets)) {
		return
	}
	for j := range e.Buckets {
		if !l.bad(nodes[j]) {
			l.checkBucket(e, nodes, j, cat)
		}
	}
}

// aligned reports whether a list's decoded items match its nodes one to
// one. yaml.v3 drops an item it could not decode (its error is already
// reported); then the semantic checks cannot tell which node is which item
// and are skipped for that list.
func (l *loader) aligned(list *yaml.Node, nodes, items int) bool {
	if nodes == items {
		return true
	}
	if len(l.errs) == 0 {
		line := 0
		if list != nil {
			line = list.Line
		}
		l.errorf(line, "an item of this list could not be decoded: fix its keys and values")
	}
	return false
}

// decoded lists the items of a sequence that yaml.v3 decoded into a slice
// of structs: the mappings (it drops the others, having reported them).
func decoded(list *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	for _, n := range list.Content {
		if n.Kind == yaml.MappingNode || n.Kind == yaml.AliasNode && n.Alias != nil && n.Alias.Kind == yaml.MappingNode {
			out = append(out, n)
		}
	}
	return out
}

// checkBucketSource checks a bucket's own source (Bucket.Source): none,
// measured or model, and a model bucket carries no measurements. Schema 3
// tables have no bucket provenance.
func (l *loader) checkBucketSource(b *Bucket, m *yaml.Node) {
	switch {
	case l.schema == 3 && (b.Source != "" || b.Device != "" || b.Date != ""):
		l.errorf(m.Line, "a bucket's own source, device or date needs schema: %d (this table says schema: 3)", TableSchema)
	case b.Source != "" && b.Source != SourceMeasured && b.Source != SourceModel:
		l.errorf(at(m, "source"), "source %q: use measured or model (or leave it out: the entry's)", b.Source)
	case b.Source == SourceModel && len(b.TimesUS)+len(b.KernelTimesUS) > 0:
		l.errorf(at(m, "source"), "source: model, but the bucket has times: a model bucket holds no measurements (say source: measured, or drop the times)")
	}
}

// checkBucket validates e.Buckets[j], read from nodes[j].
func (l *loader) checkBucket(e *Entry, nodes []*yaml.Node, j int, cat *kernels.Catalog) {
	b, m, last := &e.Buckets[j], nodes[j], j == len(e.Buckets)-1
	l.whole(m, "min_m", "max_m", "split_k")
	l.checkTimes(m, "times_us", b.TimesUS)
	l.checkTimes(m, "kernel_times_us", b.KernelTimesUS)
	l.checkBucketSource(b, m)
	switch prev := &e.Buckets[max(j-1, 0)]; {
	case j == 0 && b.MinM != 1:
		l.errorf(at(m, "min_m"), "first bucket starts at min_m %d: it must start at min_m: 1 so that every M is routed", b.MinM)
	case j == 0 || l.bad(nodes[j-1]) || prev.MaxM == 0:
		// nothing to compare with: the previous bucket is bad or open-ended (reported there)
	case b.MinM > prev.MaxM+1:
		l.errorf(at(m, "min_m"), "gap: M in [%d, %d] has no bucket: set min_m to %d", prev.MaxM+1, b.MinM-1, prev.MaxM+1)
	case b.MinM <= prev.MaxM:
		l.errorf(at(m, "min_m"), "overlap: min_m %d is inside the previous bucket (up to max_m %d): set min_m to %d", b.MinM, prev.MaxM, prev.MaxM+1)
	}
	switch _, v := field(m, "max_m"); {
	case b.MaxM == 0 && !last && !l.bad(v):
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
	if _, v := field(m, "split_k"); (b.SplitK < 1 || b.SplitK > kernels.MaxSplitK) && !l.bad(v) {
		l.errorf(at(m, "split_k"), "split_k is %d: it must be in [1, %d] (1: no split-K)", b.SplitK, kernels.MaxSplitK)
	}
	if len(b.KernelTimesUS) > 0 && (b.Vendor == nil || b.Kernel == "") {
		l.errorf(at(m, "kernel_times_us"), "kernel_times_us are our kernel's times in a bucket routed to cuBLASLt first: remove them, or name both vendor and kernel")
	}
	if math.IsNaN(b.MarginPct) || math.IsInf(b.MarginPct, 0) || b.MarginPct < 0 {
		l.errorf(at(m, "margin_pct"), "margin_pct is %g: write a finite percentage, not negative (the runner-up's slowdown over the choice)", b.MarginPct)
	}
	if b.Vendor != nil {
		l.checkVendor(b, m)
		if b.Kernel == "" && b.Digest == "" {
			return // cuBLASLt alone
		}
	}
	if b.Kernel == "" {
		l.need(m, "kernel", "name the kernel that runs this bucket (or a cuBLASLt algorithm: vendor)")
		return
	}
	if !kernels.ValidKernelName(b.Kernel) {
		l.errorf(at(m, "kernel"), "kernel %q is not a kernel name: %s", b.Kernel, kernels.KernelNameRule)
		return
	}
	if b.Digest == "" {
		l.need(m, "digest", "record the digest of the kernel's code the bucket was measured with (the manifest's digest of it; autotune tune writes it)")
		return
	}
	if !kernels.ValidDigest(b.Digest) {
		l.errorf(at(m, "digest"), "digest %q: %s", b.Digest, kernels.DigestRule)
		return
	}
	if cat == nil {
		return
	}
	k, st := bucketKernel(cat, b)
	if st != kernelMatched {
		return // counted by Table.MatchKernels; planning passes over it
	}
	line := at(m, "kernel")
	if e.Arch != 0 && !k.RunsOn(e.Arch) {
		runs := k.MinArch.String() + " and newer"
		if k.MaxArch != 0 {
			runs = k.MinArch.String() + " to " + k.MaxArch.String()
		}
		l.errorf(line, "kernel %q does not run on %s (it runs on %s): pick a kernel built for %s", b.Kernel, e.Arch, runs, e.Arch)
	}
	if e.Types != (Types{}) && !k.Computes(e.Types) {
		l.errorf(line, "kernel %q does not compute in the entry's types %s (it computes %s→%s, scalings %v): pick a kernel that does", b.Kernel, e.Types, k.In, k.Out, k.Scalings)
	}
	if b.SplitK > k.MaxSplitK {
		l.errorf(at(m, "split_k"), "split_k %d exceeds kernel %q's max_split_k %d: lower it", b.SplitK, b.Kernel, k.MaxSplitK)
	}
	if src, _, _ := b.From(e); k.Experimental && src == SourceModel {
		l.errorf(line, "kernel %q is experimental and the bucket is the model's choice: only a measured bucket (a tune that gated the kernel) routes an experimental kernel; name one the heuristic may pick, or tune the bucket", b.Kernel)
	}
}

// checkTimes validates a bucket's times of sample Ms (times_us or
// kernel_times_us, name), parsed as times from m: whole, distinct Ms ≥ 1,
// positive finite microseconds.
func (l *loader) checkTimes(m *yaml.Node, name string, times map[int]float64) {
	if _, node := field(m, name); node != nil && node.Kind == yaml.MappingNode {
		for i := 0; i < len(node.Content); i += 2 {
			if k := node.Content[i]; k.ShortTag() == "!!float" {
				l.fail(k.Line, "%s: %q is not a whole number", name, k.Value)
			}
		}
		if len(node.Content)/2 > len(times) && !slices.ContainsFunc(node.Content, l.bad) {
			l.errorf(node.Line, "%s: two keys name the same M: keep one", name)
		}
	}
	for _, mm := range slices.Sorted(maps.Keys(times)) {
		if us := times[mm]; mm < 1 || !(us > 0) || math.IsInf(us, 1) {
			l.errorf(at(m, name), "%s[%d] = %g: sample Ms must be ≥ 1 and times positive microseconds", name, mm, us)
			break
		}
	}
}

// checkVendor validates b, a bucket routed to cuBLASLt (first; its kernel
// of ours, if it names one, is checked as any bucket's), read from m. Whether
// the loaded library is the version it records is the planner's to check
// (VendorLibrary): a table loads without the library.
func (l *loader) checkVendor(b *Bucket, m *yaml.Node) {
	_, v := field(m, "vendor")
	if l.bad(v) {
		return
	}
	// with a kernel of ours as well, split_k is the kernel's (checked with it)
	if b.Kernel == "" && b.Digest == "" && b.SplitK != 1 && b.SplitK >= 1 && b.SplitK <= kernels.MaxSplitK {
		l.errorf(at(m, "split_k"), "split_k is %d: a bucket routed to cuBLASLt alone has split_k: 1 (its algorithm holds its own split)", b.SplitK)
	}
	l.whole(v, "version")
	if key, problem := b.Vendor.check(); problem != "" && !l.bad(v) {
		l.errorf(at(v, key), "vendor %s", problem)
	}
}
