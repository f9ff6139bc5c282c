// Package fileio holds the file handling autotune's packages share: one CSV
// reader that reads fields by column name and names the file and line of a
// bad one, and atomic writes.
package fileio

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
)

// CSV is a CSV file with a header row, read by column name.
type CSV struct {
	path string
	rows [][]string
	col  map[string]int
}

// MaxCSVBytes bounds the CSV files ReadCSV reads.
const MaxCSVBytes = 64 << 20

// MaxCSVLines bounds the lines of the CSV files ReadCSV reads, counted
// before parsing (a tune run's tune.csv of every timing has thousands; 64
// MiB of one-byte rows parsed into 5 GiB).
const MaxCSVLines = 1 << 20

// ReadCSV reads path (at most MaxCSVBytes and MaxCSVLines); every column
// named in need must be in its header.
func ReadCSV(path string, need ...string) (*CSV, error) {
	data, err := ReadFile(path, MaxCSVBytes, "CSV file")
	if err != nil {
		return nil, err
	}
	if n := bytes.Count(data, []byte{'\n'}); n > MaxCSVLines {
		return nil, fmt.Errorf("%s: %d lines, more than the %d a CSV file may have", path, n, MaxCSVLines)
	}
	all, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: empty (a header row is needed)", path)
	}
	c := &CSV{path: path, rows: all[1:], col: map[string]int{}}
	for i, h := range all[0] {
		c.col[h] = i
	}
	for _, h := range need {
		if !c.Has(h) {
			return nil, fmt.Errorf("%s: no %q column", path, h)
		}
	}
	return c, nil
}

// Has reports whether the file has the column.
func (c *CSV) Has(column string) bool { _, ok := c.col[column]; return ok }

// Rows yields the data rows in order.
func (c *CSV) Rows() iter.Seq[*Row] {
	return func(yield func(*Row) bool) {
		for i := range c.rows {
			if !yield(&Row{c: c, line: i + 2, fields: c.rows[i]}) {
				return
			}
		}
	}
}

// Row is one data row. Its getters keep the first bad field, which Err
// returns with the file and line, so that a reader checks once per row.
type Row struct {
	c      *CSV
	line   int
	fields []string
	err    error
}

// Str returns the column's field, trimmed ("" when the file has no such
// column).
func (r *Row) Str(column string) string {
	if i, ok := r.c.col[column]; ok && i < len(r.fields) {
		return strings.TrimSpace(r.fields[i])
	}
	return ""
}

// Raw returns the column's field as written.
func (r *Row) Raw(column string) string {
	if i, ok := r.c.col[column]; ok && i < len(r.fields) {
		return r.fields[i]
	}
	return ""
}

// Int returns the column's field as an integer.
func (r *Row) Int(column string) int {
	v, err := strconv.Atoi(r.Str(column))
	if err != nil {
		r.Fail(fmt.Errorf("%s %q is not a whole number", column, r.Str(column)))
	}
	return v
}

// IntIn returns the column's field as an integer in [lo, hi].
func (r *Row) IntIn(column string, lo, hi int) int {
	v, err := strconv.Atoi(r.Str(column))
	switch {
	case err != nil:
		r.Fail(fmt.Errorf("%s %q is not a whole number", column, r.Str(column)))
	case v < lo || v > hi:
		r.Fail(fmt.Errorf("%s %d: want %d to %d", column, v, lo, hi))
	}
	return v
}

// Float returns the column's field as a finite number (NaN and infinities
// are refused: no column of these files means them).
func (r *Row) Float(column string) float64 {
	v, err := strconv.ParseFloat(r.Str(column), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		r.Fail(fmt.Errorf("%s %q is not a finite number", column, r.Str(column)))
	}
	return v
}

// Fail records err as the row's problem unless it already has one.
func (r *Row) Fail(err error) {
	if r.err == nil && err != nil {
		r.err = fmt.Errorf("%s:%d: %w", r.c.path, r.line, err)
	}
}

// Err is the row's first problem, naming the file and line, or nil.
func (r *Row) Err() error { return r.err }
