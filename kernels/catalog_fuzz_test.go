package kernels

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// Any input is refused with ErrManifest or gives a catalog whose kernels all
// hold the manifest's rules; such a catalog marshals and parses back to the
// same kernels. Never a panic.
func FuzzParseManifest(f *testing.F) {
	f.Add(ManifestJSON)
	for _, s := range []string{"", "{}", "null", "[]", `{"schema":3}`, string(ManifestJSON) + "garbage", string(ManifestJSON) + string(ManifestJSON),
		`{"schema":3,"images":[{"file":"a.fatbin","smem_limit":1}],"kernels":[{"name":"k","image":"a.fatbin","layout":"tn","tile_m":1,"tile_n":1,"tile_k":4611686018427387904,"threads":1,"ptr_align":3,"ld_align":2,"k_multiple":1,"max_split_k":1,"reduction":"none","index_bits":64,"in":"bf16","out":"bf16"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
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
