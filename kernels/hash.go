package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"sort"
)

// SourceHash is the sha256 of the kernel sources in fsys (every file at its
// top level, by name order, each as "name\n" then its bytes). The manifest
// records the hash its fatbins were built from; a test compares it with the
// sources, so stale fatbins fail CI.
func SourceHash(fsys fs.FS) (string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return "", err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	h := sha256.New()
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return "", err
		}
		h.Write([]byte(e.Name() + "\n"))
		h.Write(b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
