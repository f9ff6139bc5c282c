package fileio

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// NotRegularError is WriteAtomic's refusal of a path that exists and is not
// a regular file: a device node (/dev/null), a FIFO, a socket, a directory
// or a symbolic link. Replacing it by a regular file would destroy it (as
// root, -out /dev/null would replace the system's), and writing through a
// link would write wherever it points; name a regular file, or a path that
// does not exist, instead.
type NotRegularError struct {
	Path string
	Mode fs.FileMode // the type bits of what is there
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: write to a regular file or a new path", e.Path, describeType(e.Mode))
}

// describeType names a file type for NotRegularError.
func describeType(m fs.FileMode) string {
	for _, k := range []struct {
		bit  fs.FileMode
		name string
	}{
		{fs.ModeSymlink, "a symbolic link"}, {fs.ModeDir, "a directory"}, {fs.ModeNamedPipe, "a FIFO"},
		{fs.ModeSocket, "a socket"}, {fs.ModeCharDevice, "a character device"}, {fs.ModeDevice, "a device"},
	} {
		if m&k.bit != 0 {
			return k.name
		}
	}
	return "of type " + m.Type().String()
}

// WriteAtomic writes data to a temporary file beside path and renames it
// over path, so that an interrupted run leaves the old file intact and no
// temporary file behind.
//
// A path that exists must be a regular file (else *NotRegularError: a
// device, FIFO, socket, directory or symbolic link is never replaced), and
// the new file keeps its permission bits; a new file gets 0666 less the
// umask, as os.Create would. The temporary file's name has a fixed length,
// whatever path's, so that any legal name can be written.
func WriteAtomic(path string, data []byte) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	exists := err == nil
	tmp, err := createTemp(filepath.Dir(path))
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil && exists {
		err = tmp.Chmod(fi.Mode().Perm()) // the original's mode, not the umask's
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// createTemp creates a new file in dir named ".gemmroute-" and 16 random hex
// digits (32 bytes, however long the target's name), mode 0666 less the
// umask.
func createTemp(dir string) (*os.File, error) {
	for range 100 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		f, err := os.OpenFile(filepath.Join(dir, ".gemmroute-"+hex.EncodeToString(b[:])+".tmp"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("%s: no free temporary file name", dir)
}

// SameFileError is the refusal of an output path that names one of the
// command's inputs (the same file, through any name or link).
type SameFileError struct {
	Out, In string
}

func (e *SameFileError) Error() string {
	if e.Out == e.In {
		return fmt.Sprintf("%s is both an input and the output: write the output to another path", e.Out)
	}
	return fmt.Sprintf("%s is the same file as the input %s: write the output to another path", e.Out, e.In)
}

// CheckNotInput returns a *SameFileError when out names the same file as
// one of inputs ("" inputs, and paths that do not exist, are skipped).
func CheckNotInput(out string, inputs ...string) error {
	fo, err := os.Stat(out)
	if err != nil {
		return nil // a new file is no input; WriteAtomic reports other trouble
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if fi, err := os.Stat(in); err == nil && os.SameFile(fo, fi) {
			return &SameFileError{Out: out, In: in}
		}
	}
	return nil
}

// Outputs writes a command's output files: atomically (WriteAtomic), and
// never over one of its Inputs (*SameFileError).
type Outputs struct {
	Inputs []string // the files the command reads ("" entries are ignored)
}

// Write writes data to path unless path is one of the inputs.
func (o Outputs) Write(path string, data []byte) error {
	if err := CheckNotInput(path, o.Inputs...); err != nil {
		return err
	}
	return WriteAtomic(path, data)
}
