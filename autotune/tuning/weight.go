package tuning

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
	"github.com/gemmroute/gemmroute/kernels"
)

// Weight is one linear layer's weight as the tuner routes it: its name,
// what it computes in, N (output features) and K (input features).
type Weight struct {
	Name  string
	Types dispatch.Types
	N, K  int
}

// Aligned reports whether every 16-byte kernel can run the weight (N and K
// multiples of 8 elements): default entries learn from such weights only.
func (w Weight) Aligned() bool { return w.N%8 == 0 && w.K%8 == 0 }

// transformer is a decoder's dimensions; its linear layers at tensor
// parallelism 1 are fused as inference code runs them (q, k and v in one
// GEMM, gate and up in one).
type transformer struct {
	prefix                          string // shape-name prefix, as in scripts/shapes-*.csv
	hidden, heads, kvHeads, headDim int
	ffn                             int // intermediate size
}

func (t transformer) weights(dt dispatch.Types) []Weight {
	return []Weight{
		{t.prefix + ".qkv", dt, (t.heads + 2*t.kvHeads) * t.headDim, t.hidden},
		{t.prefix + ".o", dt, t.hidden, t.heads * t.headDim},
		{t.prefix + ".gateup", dt, 2 * t.ffn, t.hidden},
		{t.prefix + ".down", dt, t.hidden, t.ffn},
	}
}

// models are the presets of ModelWeights (dimensions from the models'
// published configs).
var models = map[string]transformer{
	"llama3-8b":   {"l3-8b", 4096, 32, 8, 128, 14336},
	"llama3-70b":  {"l3-70b", 8192, 64, 8, 128, 28672},
	"llama3.2-1b": {"l3.2-1b", 2048, 32, 8, 64, 8192},
	"qwen2.5-7b":  {"qwen2.5-7b", 3584, 28, 4, 128, 18944},
}

// ModelNames lists the model presets, comma-separated.
func ModelNames() string { return strings.Join(slices.Sorted(maps.Keys(models)), ", ") }

// ModelWeights returns the weights of a model preset in each of types.
func ModelWeights(model string, types []dispatch.Types) ([]Weight, error) {
	t, ok := models[model]
	if !ok {
		return nil, fmt.Errorf("unknown model %q: use one of %s, or a shapes CSV", model, ModelNames())
	}
	var out []Weight
	for _, ty := range types {
		out = append(out, t.weights(ty)...)
	}
	return out, nil
}

// Shape is one row of a shapes CSV (name,M,N,K[,dtype][,scaling]), the
// columns scripts/peer_cublas.py reads, so that outputs line up row for row.
type Shape struct {
	Name    string
	M, N, K int
	Types   dispatch.Types
}

// ReadShapes reads a shapes CSV; a missing or empty dtype is bf16.
func ReadShapes(path string) ([]Shape, error) {
	f, err := fileio.ReadCSV(path, "name", "M", "N", "K")
	if err != nil {
		return nil, err
	}
	var out []Shape
	for r := range f.Rows() {
		s := ShapeOf(r)
		if err := r.Err(); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ShapeOf reads a shape from a CSV row's name, M, N, K (each in [1, MaxDim])
// and optional dtype (the input type, bf16 when absent), scaling (tensor
// when absent; only e4m3 shapes take another) and out columns. The output is
// out's type; absent, the input's, and bf16 for e4m3 (peer_cublas.py's
// default); what is wrong, an output the input cannot have among it, stays
// on the row (r.Err).
func ShapeOf(r *fileio.Row) Shape {
	s := Shape{Name: r.Raw("name"), M: r.IntIn("M", 1, MaxDim), N: r.IntIn("N", 1, MaxDim), K: r.IntIn("K", 1, MaxDim), Types: dispatch.Types{In: dispatch.BF16}}
	var err error
	if dt := r.Str("dtype"); dt != "" {
		s.Types.In, err = kernels.ParseDType(dt)
		r.Fail(err)
	}
	if sc := r.Str("scaling"); sc != "" && err == nil {
		s.Types.Scaling, err = kernels.ParseScaling(sc)
		r.Fail(err)
	}
	s.Types.Out = s.Types.In
	if s.Types.Scaled() {
		s.Types.Out = dispatch.BF16
	}
	if o := r.Str("out"); o != "" && err == nil {
		s.Types.Out, err = kernels.ParseDType(o)
		r.Fail(err)
	}
	if err == nil {
		r.Fail(s.Types.Check())
	}
	return s
}

// WeightsFromShapes returns the distinct weights of shapes (their M is
// ignored: the tuner picks Ms per bucket). With types, each weight is tuned
// in each of them; without, in the shape's.
func WeightsFromShapes(shapes []Shape, types []dispatch.Types) []Weight {
	var out []Weight
	seen := map[Weight]bool{}
	add := func(w Weight) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, s := range shapes {
		if len(types) == 0 {
			add(Weight{s.Name, s.Types, s.N, s.K})
		}
		for _, ty := range types {
			add(Weight{s.Name, ty, s.N, s.K})
		}
	}
	return out
}

// ParseTypesList parses a comma-separated list of the types the tuner
// measures ("bf16,e4m3→bf16/row"; "" gives none), each once.
func ParseTypesList(s string) ([]dispatch.Types, error) {
	var out []dispatch.Types
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		t, err := kernels.ParseTypes(f)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Key is the key of w's exact entry for arch.
func (w Weight) Key(arch dispatch.Arch) dispatch.EntryKey {
	return dispatch.EntryKey{Arch: arch, Types: w.Types, Layout: kernels.LayoutTN, N: w.N, K: w.K}
}
