package kernels

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ErrFatbin: a fatbin could not be read for its kernels' digests. Every
// error Digests returns wraps it.
var ErrFatbin = errors.New("gemmroute: unreadable fatbin")

// The fatbin container as nvcc writes it: a 16-byte header (magic, version,
// header size, size of the entries), then entries, each a header (kind, its
// own size, the payload's size, the target arch, flags) and a payload: PTX
// text or an ELF of machine code.
const (
	fatbinMagic      = 0xBA55ED50
	fatbinKindELF    = 2
	fatbinCompressed = 0x2000 // entry flag: the payload is compressed
	fatbinEntryMin   = 0x40   // the entry header fields read below
)

// DigestRule says what ValidDigest accepts.
const DigestRule = `a digest is "sha256:" and 64 lowercase hex digits (kernels.Digests writes them)`

// ValidDigest reports whether d has a digest's form (DigestOf's).
func ValidDigest(d string) bool {
	hexPart, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hexPart) != 2*sha256.Size {
		return false
	}
	for _, c := range hexPart {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Digests returns the digest of every kernel function's compiled code in a
// fatbin, by function name: the sha256 of, for each ELF entry holding the
// function (in the fatbin's order), its target arch, the bytes of its
// .text section and the size of its static shared memory. It depends on
// nothing else: a change to a comment, or to another kernel, leaves a
// kernel's digest as it was, while any change to its machine code changes
// it. PTX entries are not read (the digest is the machine code a device
// runs natively). Compressed ELF entries and functions with relocations
// (calls or references into other sections, which the digest would not
// cover) are refused: build without fatbin compression, and keep kernels
// self-contained.
func Digests(fatbin []byte) (map[string]string, error) {
	le := binary.LittleEndian
	if len(fatbin) < 16 || le.Uint32(fatbin) != fatbinMagic {
		return nil, fmt.Errorf("%w: no fatbin header (magic %#x): is it a fatbin nvcc --fatbin wrote?", ErrFatbin, uint32(fatbinMagic))
	}
	start, size := uint64(le.Uint16(fatbin[6:])), le.Uint64(fatbin[8:])
	if start < 16 || start > uint64(len(fatbin)) || size > uint64(len(fatbin))-start {
		return nil, fmt.Errorf("%w: header says %d bytes of entries after %d, the file has %d", ErrFatbin, size, start, len(fatbin))
	}
	hashes := map[string][]byte{} // function → what its digest hashes
	for off, end := start, start+size; off < end; {
		e := fatbin[off:end]
		if len(e) < fatbinEntryMin {
			return nil, fmt.Errorf("%w: entry at byte %d: %d bytes, shorter than an entry header", ErrFatbin, off, len(e))
		}
		kind, hdr, n := le.Uint16(e), uint64(le.Uint32(e[4:])), le.Uint64(e[8:])
		arch, flags := le.Uint32(e[0x1c:]), le.Uint64(e[0x28:])
		if hdr < fatbinEntryMin || hdr > uint64(len(e)) || n > uint64(len(e))-hdr {
			return nil, fmt.Errorf("%w: entry at byte %d: header of %d bytes and payload of %d overrun the entries", ErrFatbin, off, hdr, n)
		}
		if kind == fatbinKindELF {
			if flags&fatbinCompressed != 0 {
				return nil, fmt.Errorf("%w: entry at byte %d (sm_%d): compressed machine code, which Digests does not read: build with --no-compress (kernels/build.sh does for images without PTX: nvcc 12.4 compresses a large image's machine code)", ErrFatbin, off, arch)
			}
			if err := digestELF(e[hdr:hdr+n], arch, hashes); err != nil {
				return nil, fmt.Errorf("%w: entry at byte %d (sm_%d): %w", ErrFatbin, off, arch, err)
			}
		}
		off += hdr + n
	}
	out := make(map[string]string, len(hashes))
	for name, b := range hashes {
		out[name] = DigestOf(b)
	}
	return out, nil
}

// DigestOf returns the digest of data: "sha256:" and its sha256 in hex.
// Digests applies it to what it reads of each kernel.
func DigestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// digestELF appends to hashes[name], for every function of one ELF, what
// its digest covers (see Digests).
func digestELF(payload []byte, arch uint32, hashes map[string][]byte) error {
	// CUDA's ELFs carry their ABI version in e_version (debug/elf accepts
	// only 1): read a copy with the field set to 1.
	const eVersion = 20
	if len(payload) < eVersion+4 {
		return fmt.Errorf("an ELF of %d bytes", len(payload))
	}
	b := bytes.Clone(payload)
	binary.LittleEndian.PutUint32(b[eVersion:], 1)
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return err
	}
	for _, s := range f.Sections {
		name, ok := strings.CutPrefix(s.Name, ".text.")
		if !ok {
			continue
		}
		for _, rel := range []string{".rel.text.", ".rela.text."} {
			if r := f.Section(rel + name); r != nil && r.Size > 0 {
				return fmt.Errorf("function %s has relocations (%s): its digest would not cover what they link to", name, r.Name)
			}
		}
		code, err := s.Data()
		if err != nil {
			return fmt.Errorf("function %s: %w", name, err)
		}
		var shared uint64
		if sh := f.Section(".nv.shared." + name); sh != nil {
			shared = sh.Size
		}
		h := fmt.Appendf(hashes[name], "sm_%d\n", arch)
		h = binary.LittleEndian.AppendUint64(h, uint64(len(code)))
		h = append(h, code...)
		hashes[name] = binary.LittleEndian.AppendUint64(h, shared)
	}
	return nil
}
