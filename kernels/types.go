package kernels

import (
	"fmt"
	"slices"
	"strings"
)

// Types is what a GEMM computes in: the element type of its inputs A and
// B, of its output D (and C and bias), and for e4m3 inputs how they are
// scaled. It is comparable: problems, kernels, route keys and table
// entries hold it as one value. The zero value is invalid.
//
// Its text form (String, ParseTypes) is the input type alone when the
// output is the same type ("bf16"), else in→out, then /scaling unless the
// scaling is per-tensor: "e4m3→bf16", "e4m3→f16/row", "e4m3→bf16/block128".
type Types struct {
	In, Out DType
	Scaling Scaling // e4m3 only; 16-bit inputs take ScalingTensor, the zero value
}

// outputs lists, per input type, the output types the kernel set computes
// it into: the dtype pairs. A new pair is a line here (and instances in
// the generator, and the CUDA headers that compute it).
var outputs = map[DType][]DType{
	F16:  {F16},
	BF16: {BF16},
	E4M3: {BF16, F16},
}

// inputOrder is the order AllTypes lists input types in.
var inputOrder = []DType{BF16, F16, E4M3}

// Scaled reports whether the inputs are dequantised by scales (e4m3):
// such types take a scaling mode, the others none.
func (t Types) Scaled() bool { return t.In == E4M3 }

// AllTypes lists every valid Types: each dtype pair, and each scaling mode
// of a scaled one (tensor first).
func AllTypes() []Types {
	var all []Types
	for _, in := range inputOrder {
		for _, out := range outputs[in] {
			t := Types{In: in, Out: out}
			if !t.Scaled() {
				all = append(all, t)
				continue
			}
			for s := range Scaling(len(scalings)) {
				t.Scaling = s
				all = append(all, t)
			}
		}
	}
	return all
}

// TypesError is a Types, or the text of one, that breaks a rule. It wraps
// ErrInvalidArgument.
type TypesError struct {
	Text  string // the text ParseTypes read; "" when Check refused a value
	Field string // the part that breaks the rule: "In", "Out" or "Scaling"
	Rule  string // what the part must be, and what to write instead
}

// Error names the text, if any, and the rule (which names the part).
func (e *TypesError) Error() string {
	if e.Text != "" {
		return fmt.Sprintf("gemmroute: types %q: %s", e.Text, e.Rule)
	}
	return "gemmroute: types: " + e.Rule
}

// Unwrap lets errors.Is(err, ErrInvalidArgument) match.
func (e *TypesError) Unwrap() error { return ErrInvalidArgument }

// Check returns a *TypesError for the first rule t breaks, or nil: In is
// f16, bf16 or e4m3; Out one of the outputs the kernel set computes In
// into (16-bit inputs: the same type; e4m3: bf16 or f16); Scaling a
// scaling mode, and per-tensor (no scales) for 16-bit inputs.
func (t Types) Check() error {
	bad := func(field, rule string, args ...any) error {
		return &TypesError{Field: field, Rule: fmt.Sprintf(rule, args...)}
	}
	outs, ok := outputs[t.In]
	switch {
	case !ok:
		return bad("In", "%s is not an input type: use %s", t.In, dtypeList(inputOrder))
	case !slices.Contains(outs, t.Out):
		return bad("Out", "%s: %s inputs produce %s", t.Out, t.In, dtypeList(outs))
	case !t.Scaling.Valid():
		return bad("Scaling", "%s is not a scaling mode: use %s", t.Scaling, scalingList(ScalingTensor))
	case !t.Scaled() && t.Scaling != ScalingTensor:
		return bad("Scaling", "%s: %s inputs take no scales (only e4m3 has a scaling mode)", t.Scaling, t.In)
	}
	return nil
}

// dtypeList writes ds as "f16, bf16 or e4m3".
func dtypeList(ds []DType) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.String()
	}
	return orList(names)
}

// scalingList writes the scaling modes from from on as "tensor, row or
// block128" (from ScalingRow: the modes a type's text names).
func scalingList(from Scaling) string {
	var names []string
	for s := from; s.Valid(); s++ {
		names = append(names, s.String())
	}
	return orList(names)
}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// TypesSyntax says how the text form is written, for usage lines and
// errors: the dtype pairs, then the scaling suffixes of e4m3 ("bf16, f16,
// e4m3→bf16 or e4m3→f16, then /row or /block128 for e4m3 scaled so").
func TypesSyntax() string {
	var pairs []string
	for _, t := range AllTypes() {
		if t.Scaling == ScalingTensor {
			pairs = append(pairs, t.String())
		}
	}
	suffixes := make([]string, 0, len(scalings)-1)
	for s := ScalingRow; s.Valid(); s++ {
		suffixes = append(suffixes, "/"+s.String())
	}
	return orList(pairs) + ", then " + orList(suffixes) + " for e4m3 scaled so"
}

// String writes t's text form ("bf16", "e4m3→bf16", "e4m3→f16/row"); an
// invalid t is written field by field, with its scaling always.
func (t Types) String() string {
	if t.Check() != nil {
		return fmt.Sprintf("%s→%s/%s", t.In, t.Out, t.Scaling)
	}
	s := t.In.String()
	if t.Out != t.In {
		s += "→" + t.Out.String()
	}
	if t.Scaling != ScalingTensor {
		s += "/" + t.Scaling.String()
	}
	return s
}

// ParseTypes reads the text form String writes ("bf16", "e4m3→bf16",
// "e4m3→bf16/block128"; "->" may stand for "→"), and returns a *TypesError
// naming the rule for any other text.
func ParseTypes(text string) (Types, error) {
	bad := func(field, rule string, args ...any) (Types, error) {
		return Types{}, &TypesError{Text: text, Field: field, Rule: fmt.Sprintf(rule, args...)}
	}
	form := "write " + TypesSyntax()
	s := strings.ReplaceAll(strings.TrimSpace(text), "->", "→")
	if s == "" {
		return bad("In", "empty: %s", form)
	}
	s, scaling, scaled := strings.Cut(s, "/")
	in, out, pair := strings.Cut(s, "→")
	var t Types
	var err error
	if t.In, err = ParseDType(in); err != nil || t.In == F32 {
		return bad("In", "input %q is not an input type: %s", in, form)
	}
	t.Out = t.In
	if !pair && !slices.Contains(outputs[t.In], t.In) {
		pairs := make([]string, len(outputs[t.In]))
		for i, out := range outputs[t.In] {
			pairs[i] = Types{In: t.In, Out: out}.String()
		}
		return bad("Out", "%s inputs name their output: %s", t.In, strings.Join(pairs, " or "))
	}
	if pair {
		if t.Out, err = ParseDType(out); err != nil {
			return bad("Out", "output %q is not a dtype: %s", out, form)
		}
	}
	if scaled {
		if t.Scaling, err = ParseScaling(scaling); err != nil {
			return bad("Scaling", "scaling %q is not a scaling mode: use %s (per-tensor is written without one)", scaling, scalingList(ScalingRow))
		}
		if t.Scaling == ScalingTensor {
			return bad("Scaling", "per-tensor scaling is written without /tensor: %s", t)
		}
	}
	if err := t.Check(); err != nil {
		te := err.(*TypesError) // Check returns nothing else
		te.Text = text
		return Types{}, te
	}
	if pair && t.Out == t.In {
		return bad("Out", "a type in and out is written once: %s", t)
	}
	return t, nil
}

// MarshalText writes the text form; an invalid t is an error.
func (t Types) MarshalText() ([]byte, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads the text form (ParseTypes).
func (t *Types) UnmarshalText(b []byte) error {
	v, err := ParseTypes(string(b))
	*t = v
	return err
}
