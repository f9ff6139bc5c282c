package fileio

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads path, refusing a file of more than limit bytes without
// reading it all (what names the kind of file in the message, e.g. "table").
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than the %d MiB a %s may have: is it a %s?", path, limit>>20, what, what)
	}
	return data, nil
}
