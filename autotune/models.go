package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/kernels"
)

// weight is one linear layer's weight as the tuner routes it: its name, dtype,
// N (output features) and K (input features).
type weight struct {
	name  string
	dtype dispatch.DType
	n, k  int
}

// aligned reports whether every 16-byte kernel can run the weight (N and K
// multiples of 8 elements): default entries learn from such weights only.
func (w weight) aligned() bool { return w.n%8 == 0 && w.k%8 == 0 }

// transformer is a decoder's dimensions; its linear layers at tensor
// parallelism 1 are fused as inference code runs them (q, k and v in one
// GEMM, gate and up in one).
type transformer struct {
	prefix                          string // shape-name prefix, as in ../shared/gpu/shapes-*.csv
	hidden, heads, kvHeads, headDim int
	ffn                             int // intermediate size
}

func (t transformer) weights(dt dispatch.DType) []weight {
	return []weight{
		{t.prefix + ".qkv", dt, (t.heads + 2*t.kvHeads) * t.headDim, t.hidden},
		{t.prefix + ".o", dt, t.hidden, t.heads * t.headDim},
		{t.prefix + ".gateup", dt, 2 * t.ffn, t.hidden},
		{t.prefix + ".down", dt, t.hidden, t.ffn},
	}
}

// models are the -model presets (dimensions from the models' published
// configs).
var models = map[string]transformer{
	"llama3-8b":   {"l3-8b", 4096, 32, 8, 128, 14336},
	"llama3-70b":  {"l3-70b", 8192, 64, 8, 128, 28672},
	"llama3.2-1b": {"l3.2-1b", 2048, 32, 8, 64, 8192},
	"qwen2.5-7b":  {"qwen2.5-7b", 3584, 28, 4, 128, 18944},
}

// modelNames lists the presets for usage text.
func modelNames() string { return strings.Join(slices.Sorted(maps.Keys(models)), ", ") }

// weightsOf returns the weights of a model preset in each dtype.
func weightsOf(model string, dtypes []dispatch.DType) ([]weight, error) {
	t, ok := models[model]
	if !ok {
		return nil, fmt.Errorf("unknown model %q: use one of %s, or -shapes", model, modelNames())
	}
	var out []weight
	for _, dt := range dtypes {
		out = append(out, t.weights(dt)...)
	}
	return out, nil
}

// weightsFromShapes returns the distinct weights of a shapes CSV (its M
// column is ignored: the tuner picks Ms per bucket). With dtypes, each weight
// is tuned in each of them; without, in the CSV's dtype.
func weightsFromShapes(shapes []shape, dtypes []dispatch.DType) []weight {
	var out []weight
	add := func(w weight) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for _, s := range shapes {
		if len(dtypes) == 0 {
			add(weight{s.name, s.dtype, s.n, s.k})
		}
		for _, dt := range dtypes {
			add(weight{s.name, dt, s.n, s.k})
		}
	}
	return out
}

// parseDTypes parses a comma-separated dtype list ("" gives none).
func parseDTypes(s string) ([]dispatch.DType, error) {
	var out []dispatch.DType
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		dt, err := kernels.ParseDType(f)
		if err != nil {
			return nil, err
		}
		if dt != dispatch.BF16 && dt != dispatch.F16 {
			return nil, fmt.Errorf("dtype %s: the tuner measures bf16 and f16 (16-bit in and out)", dt)
		}
		if !slices.Contains(out, dt) {
			out = append(out, dt)
		}
	}
	return out, nil
}
