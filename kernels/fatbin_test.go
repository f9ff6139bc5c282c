package kernels

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sm90Section returns a copy of the embedded sm90.fatbin and, in it, the
// byte offset of the section named name of its one ELF and the offset of
// that section's header.
func sm90Section(t *testing.T, name string) (fatbin []byte, data, header int) {
	t.Helper()
	b, err := Images.ReadFile("images/sm90.fatbin")
	require.NoError(t, err)
	b = bytes.Clone(b)
	le := binary.LittleEndian
	payload := 16 + int(le.Uint32(b[16+4:])) // the fatbin header, then the first entry's
	img := bytes.Clone(b[payload:])
	le.PutUint32(img[20:], 1) // e_version, as Digests reads it
	f, err := elf.NewFile(bytes.NewReader(img))
	require.NoError(t, err)
	for i, s := range f.Sections {
		if s.Name == name {
			return b, payload + int(s.Offset), payload + int(le.Uint64(img[0x28:])) + i*int(le.Uint16(img[0x3a:]))
		}
	}
	t.Fatalf("no section %s in sm90.fatbin", name)
	return nil, 0, 0
}

// A kernel's digest is its machine code's: one changed instruction byte
// changes that kernel's digest and no other's.
func TestDigestsFollowTheCode(t *testing.T) {
	cat, err := ParseManifest(ManifestJSON)
	require.NoError(t, err)
	const name = "gemmroute_sm90_tiled_wgmma_bf16_bf16_f32_tn_128x256x64_w8_s4_a16"
	require.NotNil(t, cat.Kernel(name))
	b, text, _ := sm90Section(t, ".text."+name)
	before, err := Digests(b)
	require.NoError(t, err)
	assert.Equal(t, cat.Kernel(name).Digest, before[name], "the manifest's digest is the committed image's")
	b[text+100] ^= 1
	after, err := Digests(b)
	require.NoError(t, err)
	require.Len(t, after, len(before))
	for k, d := range before {
		if k == name {
			assert.NotEqual(t, d, after[k], "the changed kernel's digest")
		} else {
			assert.Equal(t, d, after[k], "%s did not change", k)
		}
	}
}

// The PTX of an image is not read: sm80.fatbin's digests are those of its
// sm_80 machine code, one per function.
func TestDigestsReadMachineCodeOnly(t *testing.T) {
	b, err := Images.ReadFile("images/sm80.fatbin")
	require.NoError(t, err)
	d, err := Digests(b)
	require.NoError(t, err)
	cat, err := ParseManifest(ManifestJSON)
	require.NoError(t, err)
	n := 0
	for _, k := range cat.Kernels() {
		if k.Image == "sm80.fatbin" {
			n++
			assert.Equal(t, k.Digest, d[k.Name], k.Name)
		}
	}
	assert.Len(t, d, n+2, "the kernels and the two split-K reduces")
}

// What Digests cannot vouch for is refused with ErrFatbin, saying why.
func TestDigestsRefuse(t *testing.T) {
	const name = "gemmroute_sm90_splitk_reduce_f32_bf16"
	b, _, rela := sm90Section(t, ".rela.text."+name)
	binary.LittleEndian.PutUint64(b[rela+32:], 24) // sh_size: one relocation
	_, err := Digests(b)
	require.ErrorIs(t, err, ErrFatbin)
	assert.ErrorContains(t, err, "function "+name+" has relocations")

	b, _, _ = sm90Section(t, ".text."+name)
	b[16+0x29] |= 0x20 // the entry's flags (at 0x28): compressed, 0x2000
	_, err = Digests(b)
	require.ErrorIs(t, err, ErrFatbin)
	assert.ErrorContains(t, err, "compressed machine code")

	for what, data := range map[string][]byte{"empty": nil, "not a fatbin": []byte("\x7fELF and then some bytes"), "header only": b[:16], "cut": b[:len(b)/2], "cut entry header": b[:40]} {
		_, err := Digests(data)
		require.ErrorIs(t, err, ErrFatbin, "%s", what)
	}
}
