//go:build cgo

package cublaslt

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLibrary builds the shared object dir/name with the C compiler cgo
// uses: a stub for every entry point but those in without, and
// cublasLtGetVersion returning version.
func fakeLibrary(t *testing.T, dir, name string, version int, without ...string) string {
	t.Helper()
	src := "#include <stddef.h>\n"
	for _, n := range entryPoints() {
		switch {
		case slices.Contains(without, n):
		case n == "cublasLtGetVersion":
			src += "size_t cublasLtGetVersion(void) { return " + strconv.Itoa(version) + "; }\n"
		default:
			src += "int " + n + "(void) { return 0; }\n"
		}
	}
	return buildLibrary(t, dir, name, src)
}

// buildLibrary compiles the C source src into the shared object dir/name
// with the C compiler cgo uses.
func buildLibrary(t *testing.T, dir, name, src string) string {
	t.Helper()
	c := filepath.Join(dir, name+".c")
	require.NoError(t, os.WriteFile(c, []byte(src), 0o644))
	out, err := exec.Command("go", "env", "CC").Output()
	require.NoError(t, err)
	cc := strings.Fields(string(out))
	require.NotEmpty(t, cc, "go env CC is empty: cgo needs a C compiler")
	so := filepath.Join(dir, name)
	out, err = exec.Command(cc[0], append(cc[1:], "-shared", "-fPIC", "-o", so, c)...).CombinedOutput()
	require.NoError(t, err, "building the fake library: %s", out)
	return so
}

// On a machine without cuBLASLt 12 or 13 (this CPU runner has none; an
// older one does not count), Open of the defaults fails naming both; where
// one is installed it loads and reports a version of its major.
func TestOpenDefaults(t *testing.T) {
	lib, err := Open(DefaultNames)
	if err == nil {
		defer func() { assert.NoError(t, lib.Close()) }()
		assert.Contains(t, DefaultNames, lib.Path())
		assert.Equal(t, lib.Path(), "libcublasLt.so."+strconv.Itoa(lib.Version().Major()), "version %s", lib.Version())
		return
	}
	var lerr *LoadError
	require.ErrorAs(t, err, &lerr)
	require.ErrorIs(t, err, ErrAbsent)
	require.Len(t, lerr.Tried, len(DefaultNames))
	for i, a := range lerr.Tried {
		assert.Equal(t, DefaultNames[i], a.Path)
		assert.Empty(t, a.Missing)
		assert.Contains(t, a.Reason, DefaultNames[i], "dlopen's reason names the file")
		assert.Contains(t, err.Error(), a.String())
	}
	assert.Contains(t, err.Error(), "LD_LIBRARY_PATH", "says what to do")
}

func TestOpenAbsent(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libcublasLt.so.13")
	_, err := Open([]string{missing, "libgemmroute-no-such-library.so.12"})
	var lerr *LoadError
	require.ErrorAs(t, err, &lerr)
	require.ErrorIs(t, err, ErrAbsent)
	require.Len(t, lerr.Tried, 2)
	assert.Equal(t, missing, lerr.Tried[0].Path)
	assert.Contains(t, lerr.Tried[0].Reason, "No such file")
	assert.Equal(t, "libgemmroute-no-such-library.so.12", lerr.Tried[1].Path)
	assert.True(t, strings.HasPrefix(err.Error(), "cuBLASLt absent: "+missing+": "), err.Error())
	assert.Contains(t, err.Error(), "; libgemmroute-no-such-library.so.12: ")

	_, err = Open(nil)
	require.ErrorIs(t, err, ErrAbsent)
	assert.Contains(t, err.Error(), "no candidate library was given")
}

// A fake library with every entry point loads, after the candidates before
// it fail, and its version comes from its own cublasLtGetVersion; one that
// lacks an entry point is passed over, naming it.
func TestOpenFake(t *testing.T) {
	dir := t.TempDir()
	good := fakeLibrary(t, dir, "libfake13.so", 130105)
	noMatmul := fakeLibrary(t, dir, "libfake-nomatmul.so", 120804, "cublasLtMatmul")
	noVersion := fakeLibrary(t, dir, "libfake-noversion.so", 0, "cublasLtGetVersion")

	lib, err := Open([]string{filepath.Join(dir, "absent.so"), noMatmul, noVersion, good})
	require.NoError(t, err)
	assert.Equal(t, good, lib.Path())
	assert.Equal(t, Version(130105), lib.Version())
	assert.Equal(t, "13.1.5", lib.Version().String())
	assert.Equal(t, 13, lib.Version().Major())
	require.NoError(t, lib.Close())
	require.NoError(t, lib.Close(), "a second Close does nothing")

	other := fakeLibrary(t, dir, "libfake12.so", 120804)
	lib, err = Open([]string{other, good})
	require.NoError(t, err)
	assert.Equal(t, other, lib.Path(), "the first usable candidate wins")
	assert.Equal(t, "12.8.4", lib.Version().String())
	require.NoError(t, lib.Close())

	_, err = Open([]string{noMatmul, noVersion})
	var lerr *LoadError
	require.ErrorAs(t, err, &lerr)
	require.Len(t, lerr.Tried, 2)
	assert.Equal(t, Attempt{Path: noMatmul, Missing: "cublasLtMatmul", Reason: lerr.Tried[0].Reason}, lerr.Tried[0])
	assert.Contains(t, lerr.Tried[0].Reason, "cublasLtMatmul")
	assert.Equal(t, "cublasLtGetVersion", lerr.Tried[1].Missing)
	assert.Contains(t, err.Error(), noMatmul+": lacks cublasLtMatmul (")
}
