package main

import (
	"encoding/csv"
	"fmt"
	"os"
)

// readCSV reads a CSV file with a header row and returns the data rows and
// each column's index; every name in need must be a column.
func readCSV(path string, need ...string) (rows [][]string, col map[string]int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("%s: empty (a header row is needed)", path)
	}
	col = map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	for _, h := range need {
		if _, ok := col[h]; !ok {
			return nil, nil, fmt.Errorf("%s: no %q column", path, h)
		}
	}
	return all[1:], col, nil
}
