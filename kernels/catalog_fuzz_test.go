package kernels

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// fuzzInputLimit bounds the inputs FuzzParseManifest parses. The shipped
// manifest (160 KB) as a seed made every mutation parse 160–320 KB and the
// fuzzer spend minutes minimising such inputs at no executions per second;
// ParseManifest's size limit and the shipped manifest itself have unit tests
// (TestParseManifestIsStrict and those that load ManifestJSON), so the
// fuzzer works on small manifests, where its mutations reach every rule.
// 96 KB: the seed below doubled, with room for families still to come.
const fuzzInputLimit = 96 << 10

// smallManifest is the shipped manifest cut to its first kernel of each
// family (about 45 kernels, both images, about 34 KB; the seed doubled must
// fit fuzzInputLimit): every field and rule the full one has.
func smallManifest(f *testing.F) []byte {
	cat, err := ParseManifest(ManifestJSON)
	require.NoError(f, err)
	m := cat.Manifest()
	seen := map[string]bool{}
	var ks []KernelSpec
	for _, k := range m.Kernels {
		if !seen[k.Family] {
			seen[k.Family] = true
			ks = append(ks, k)
		}
	}
	m.Kernels = ks
	b, err := json.Marshal(m)
	require.NoError(f, err)
	require.Less(f, 2*len(b), fuzzInputLimit, "the seeds below must stay under the fuzz input limit")
	return b
}

// Any input is refused with ErrManifest or gives a catalog whose kernels all
// hold the manifest's rules; such a catalog marshals and parses back to the
// same kernels. Never a panic. Inputs over fuzzInputLimit are not parsed.
func FuzzParseManifest(f *testing.F) {
	small := smallManifest(f)
	f.Add(small)
	for _, s := range []string{"", "{}", "null", "[]", `{"schema":4}`, string(small) + "garbage", string(small) + string(small),
		`{"schema":4,"images":[{"file":"a.fatbin","smem_limit":1}],"kernels":[{"name":"k","image":"a.fatbin","layout":"tn","tile_m":1,"tile_n":1,"tile_k":4611686018427387904,"threads":1,"ptr_align":3,"ld_align":2,"k_multiple":1,"max_split_k":1,"reduction":"none","index_bits":64,"in":"bf16","out":"bf16"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzInputLimit {
			return
		}
		cat, err := ParseManifest(data)
		if err != nil {
			require.True(t, errors.Is(err, ErrManifest), "%v does not wrap ErrManifest", err)
			return
		}
		ks := cat.Kernels()
		require.NotEmpty(t, ks, "a catalog without kernels was accepted")
		for i := range ks { // Kernels is a copy: the index holds equal specs
			require.Equal(t, ks[i], *cat.Kernel(ks[i].Name))
		}
		b, err := json.Marshal(cat.Manifest())
		require.NoError(t, err)
		again, err := ParseManifest(b)
		require.NoError(t, err, "a catalog's own manifest does not parse back")
		require.Equal(t, cat.Kernels(), again.Kernels())
	})
}
