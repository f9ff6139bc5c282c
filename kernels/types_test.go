package kernels

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validTypes is every Types the kernel set computes, with its text: the one
// table a new dtype pair or scaling mode adds a row to.
var validTypes = []struct {
	text string
	t    Types
}{
	{"bf16", Types{In: BF16, Out: BF16}},
	{"f16", Types{In: F16, Out: F16}},
	{"e4m3→bf16", Types{In: E4M3, Out: BF16}},
	{"e4m3→bf16/row", Types{In: E4M3, Out: BF16, Scaling: ScalingRow}},
	{"e4m3→bf16/block128", Types{In: E4M3, Out: BF16, Scaling: ScalingBlock}},
	{"e4m3→f16", Types{In: E4M3, Out: F16}},
	{"e4m3→f16/row", Types{In: E4M3, Out: F16, Scaling: ScalingRow}},
	{"e4m3→f16/block128", Types{In: E4M3, Out: F16, Scaling: ScalingBlock}},
}

// TestTypesRoundTrip: each valid value writes its text, reads back from
// it (and from its ASCII-arrow and JSON forms), passes Check, and
// AllTypes lists exactly these.
func TestTypesRoundTrip(t *testing.T) {
	var want []Types
	for _, c := range validTypes {
		want = append(want, c.t)
		require.NoError(t, c.t.Check(), c.text)
		assert.Equal(t, c.text, c.t.String())
		for _, text := range []string{c.text, " " + c.text + " ", replaceArrow(c.text)} {
			got, err := ParseTypes(text)
			require.NoError(t, err, text)
			assert.Equal(t, c.t, got, text)
		}
		b, err := json.Marshal(c.t)
		require.NoError(t, err)
		var back Types
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, c.t, back, string(b))
	}
	assert.ElementsMatch(t, want, AllTypes())
}

// replaceArrow writes "→" as "->".
func replaceArrow(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '→' {
			out = append(out, '-', '>')
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// TestParseTypesErrors: every malformed text is a *TypesError wrapping
// ErrInvalidArgument that names the text, the part and the rule.
func TestParseTypesErrors(t *testing.T) {
	for _, c := range []struct {
		text, field, rule string
	}{
		{"", "In", "empty"},
		{"  ", "In", "empty"},
		{"int8", "In", `input "int8" is not an input type`},
		{"f32", "In", `input "f32" is not an input type`},
		{"→bf16", "In", `input "" is not an input type`},
		{"e4m3", "Out", "e4m3 inputs name their output: e4m3→bf16 or e4m3→f16"},
		{"e4m3/row", "Out", "e4m3 inputs name their output"},
		{"e4m3→", "Out", `output "" is not a dtype`},
		{"e4m3→int4", "Out", `output "int4" is not a dtype`},
		{"e4m3→f32", "Out", "f32: e4m3 inputs produce bf16 or f16"},
		{"e4m3→e4m3", "Out", "e4m3: e4m3 inputs produce bf16 or f16"},
		{"f16→e4m3", "Out", "e4m3: f16 inputs produce f16"},
		{"bf16→bf16", "Out", "a type in and out is written once: bf16"},
		{"e4m3→bf16/", "Scaling", `scaling "" is not a scaling mode`},
		{"e4m3→bf16/col", "Scaling", `scaling "col" is not a scaling mode`},
		{"e4m3→bf16/row/row", "Scaling", `scaling "row/row" is not a scaling mode`},
		{"e4m3→bf16/tensor", "Scaling", "per-tensor scaling is written without /tensor: e4m3→bf16"},
		{"bf16/row", "Scaling", "row: bf16 inputs take no scales"},
		{"f16/block128", "Scaling", "block128: f16 inputs take no scales"},
		{"bf16→bf16→bf16", "Out", `output "bf16→bf16" is not a dtype`},
	} {
		_, err := ParseTypes(c.text)
		var te *TypesError
		require.ErrorAs(t, err, &te, c.text)
		assert.ErrorIs(t, err, ErrInvalidArgument, c.text)
		assert.Equal(t, c.text, te.Text)
		assert.Equal(t, c.field, te.Field, c.text)
		assert.Contains(t, te.Rule, c.rule, c.text)
		assert.Contains(t, err.Error(), c.rule, c.text)
	}
}

// TestTypesCheck: each rule a value can break, with the field it names;
// an invalid value neither marshals nor writes a text ParseTypes reads.
func TestTypesCheck(t *testing.T) {
	for _, c := range []struct {
		t           Types
		field, rule string
	}{
		{Types{}, "In", "invalid is not an input type: use bf16, f16 or e4m3"},
		{Types{In: F32, Out: F32}, "In", "f32 is not an input type"},
		{Types{In: BF16}, "Out", "invalid: bf16 inputs produce bf16"},
		{Types{In: F16, Out: E4M3}, "Out", "e4m3: f16 inputs produce f16"},
		{Types{In: E4M3, Out: F32}, "Out", "f32: e4m3 inputs produce bf16 or f16"},
		{Types{In: E4M3, Out: BF16, Scaling: 7}, "Scaling", "scaling(7) is not a scaling mode"},
		{Types{In: BF16, Out: BF16, Scaling: ScalingRow}, "Scaling", "row: bf16 inputs take no scales"},
	} {
		err := c.t.Check()
		var te *TypesError
		require.ErrorAs(t, err, &te, "%+v", c.t)
		assert.ErrorIs(t, err, ErrInvalidArgument)
		assert.Empty(t, te.Text)
		assert.Equal(t, c.field, te.Field, "%+v", c.t)
		assert.Contains(t, err.Error(), c.rule, "%+v", c.t)
		_, err = c.t.MarshalText()
		assert.ErrorAs(t, err, &te, "%+v", c.t)
		_, err = ParseTypes(c.t.String())
		assert.Error(t, err, c.t.String())
	}
}

// TestTypesSyntaxNamesEveryType: the usage text that flags and errors show
// names every dtype pair and every scaling suffix AllTypes holds, so a new
// pair or mode reaches them without another edit.
func TestTypesSyntaxNamesEveryType(t *testing.T) {
	syntax := TypesSyntax()
	for _, ty := range AllTypes() {
		pair, suffix, _ := strings.Cut(ty.String(), "/")
		assert.Contains(t, syntax, pair)
		if suffix != "" {
			assert.Contains(t, syntax, "/"+suffix)
		}
	}
	_, err := ParseTypes("e4m3→bf16/col")
	require.Error(t, err)
	for s := ScalingRow; s.Valid(); s++ {
		assert.Contains(t, err.Error(), s.String(), "an unknown suffix's error names every mode")
	}
}
