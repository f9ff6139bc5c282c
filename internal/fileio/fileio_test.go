package fileio

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// ReadCSV counts lines before parsing: 64 MiB of one-byte rows parsed into
// 5 GiB in 23 s.
func TestReadCSVLineLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.csv")
	require.NoError(t, os.WriteFile(path, append([]byte("name\n"), bytes.Repeat([]byte("1\n"), MaxCSVLines)...), 0o644))
	start := time.Now()
	_, err := ReadCSV(path, "name")
	assert.EqualError(t, err, path+": 1048577 lines, more than the 1048576 a CSV file may have")
	assert.Less(t, time.Since(start), time.Second)
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "buckets.yaml")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, WriteAtomic(path, []byte("new")))
	got, _ := os.ReadFile(path)
	assert.Equal(t, "new", string(got))
	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1)
}

// WriteAtomic refuses what is not a regular file (a device, a FIFO, a
// symbolic link, a directory) with a *NotRegularError and leaves it as it
// was.
func TestWriteAtomicRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(target, link))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	for _, tc := range []struct{ path, what string }{
		{link, "a symbolic link"},
		{fifo, "a FIFO"},
		{sub, "a directory"},
		{"/dev/null", "a character device"}, // last: a WriteAtomic that replaced it fails the test first
	} {
		if t.Failed() {
			return
		}
		before, err := os.Lstat(tc.path)
		require.NoError(t, err)
		err = WriteAtomic(tc.path, []byte("new"))
		var nr *NotRegularError
		require.ErrorAs(t, err, &nr, tc.path)
		assert.ErrorContains(t, err, tc.path+" is "+tc.what+", not a regular file")
		after, err := os.Lstat(tc.path)
		require.NoError(t, err)
		assert.Equal(t, before.Mode(), after.Mode(), tc.path)
		assert.True(t, os.SameFile(before, after), "%s was replaced", tc.path)
	}
	got, _ := os.ReadFile(target)
	assert.Equal(t, "old", string(got), "the link's target is untouched")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 4, "no temporary file is left behind")
}

// The temporary file's name does not grow with the target's: a legal
// 250-character name is written.
func TestWriteAtomicLongName(t *testing.T) {
	path := filepath.Join(t.TempDir(), strings.Repeat("n", 250))
	require.NoError(t, WriteAtomic(path, []byte("new")))
	got, _ := os.ReadFile(path)
	assert.Equal(t, "new", string(got))
}

// The written file keeps the permission bits of the one it replaces; a new
// file gets 0666 less the umask, not CreateTemp's 0600.
func TestWriteAtomicKeepsMode(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o600} {
		path := filepath.Join(dir, fmt.Sprintf("f%o", mode))
		require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
		require.NoError(t, os.Chmod(path, mode))
		require.NoError(t, WriteAtomic(path, []byte("new")))
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, mode, fi.Mode().Perm(), path)
	}
	umask := syscall.Umask(0o022)
	syscall.Umask(umask)
	path := filepath.Join(dir, "new")
	require.NoError(t, WriteAtomic(path, []byte("new")))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o666&^umask), fi.Mode().Perm())
}

// CheckNotInput refuses an output that is one of the inputs, by any name.
func TestCheckNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	require.NoError(t, os.WriteFile(in, []byte("x"), 0o644))
	other := filepath.Join(dir, "other.csv")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	hard := filepath.Join(dir, "hard.csv")
	require.NoError(t, os.Link(in, hard))
	var sf *SameFileError
	require.ErrorAs(t, CheckNotInput(in, "", other, in), &sf)
	assert.EqualError(t, sf, in+" is both an input and the output: write the output to another path")
	require.ErrorAs(t, CheckNotInput(filepath.Join(dir, ".", "in.csv"), in), &sf)
	require.ErrorAs(t, CheckNotInput(hard, in), &sf)
	assert.ErrorContains(t, sf, "is the same file as the input "+in)
	assert.NoError(t, CheckNotInput(other, in, ""))
	assert.NoError(t, CheckNotInput(filepath.Join(dir, "new.csv"), in))
}
