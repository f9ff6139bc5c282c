package fileio

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.csv")
	require.NoError(t, os.WriteFile(path, []byte("name,M,t\na, 3 ,1.5\nb,x,2\n"), 0o644))
	c, err := ReadCSV(path, "name", "M")
	require.NoError(t, err)
	assert.True(t, c.Has("t"))
	assert.False(t, c.Has("dtype"))
	var got []string
	var errs []error
	for r := range c.Rows() {
		got = append(got, r.Str("name"))
		assert.Empty(t, r.Str("dtype"), "a missing column reads empty")
		if r.Int("M") == 3 {
			assert.Equal(t, 1.5, r.Float("t"))
		}
		errs = append(errs, r.Err())
	}
	assert.Equal(t, []string{"a", "b"}, got)
	assert.NoError(t, errs[0])
	assert.EqualError(t, errs[1], path+`:3: M "x" is not a whole number`)

	_, err = ReadCSV(path, "K")
	assert.ErrorContains(t, err, `no "K" column`)
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	_, err = ReadCSV(path)
	assert.ErrorContains(t, err, "empty")
}

// Float refuses NaN and infinities; IntIn names its bounds.
func TestReadCSVNumbers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.csv")
	require.NoError(t, os.WriteFile(path, []byte("v,n\nNaN,1\n+Inf,0\n-inf,5\n1e308,3\n"), 0o644))
	c, err := ReadCSV(path, "v", "n")
	require.NoError(t, err)
	var errs []string
	for r := range c.Rows() {
		r.Float("v")
		r.IntIn("n", 1, 4)
		errs = append(errs, fmt.Sprint(r.Err()))
	}
	assert.Equal(t, []string{
		path + `:2: v "NaN" is not a finite number`,
		path + `:3: v "+Inf" is not a finite number`,
		path + `:4: v "-inf" is not a finite number`,
		"<nil>",
	}, errs)
	for r := range c.Rows() {
		r.IntIn("n", 1, 4)
		if r.Str("n") == "0" || r.Str("n") == "5" {
			assert.ErrorContains(t, r.Err(), "n "+r.Str("n")+": want 1 to 4")
		}
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "buckets.yaml")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, WriteAtomic(path, []byte("new")))
	got, _ := os.ReadFile(path)
	assert.Equal(t, "new", string(got))
	// A rename that fails (the target is a non-empty directory) leaves no
	// temporary file behind.
	target := filepath.Join(dir, "busy")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "x"), 0o755))
	require.Error(t, WriteAtomic(target, []byte("new")))
	matches, _ := filepath.Glob(filepath.Join(dir, ".busy-*"))
	assert.Empty(t, matches)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2)
}
