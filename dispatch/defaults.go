package dispatch

import (
	"sync"

	"github.com/gemmroute/gemmroute"
	"github.com/gemmroute/gemmroute/kernels"
)

var defaults struct {
	once  sync.Once
	cat   *Catalog
	table *Table
	err   error
}

func loadDefaults() {
	defaults.cat, defaults.err = ParseManifest(kernels.Manifest)
	if defaults.err == nil {
		defaults.table, defaults.err = LoadTable("buckets.yaml (embedded)", gemmroute.DefaultTable, defaults.cat)
	}
}

// DefaultCatalog returns the catalog of the embedded kernel manifest.
func DefaultCatalog() (*Catalog, error) {
	defaults.once.Do(loadDefaults)
	return defaults.cat, defaults.err
}

// DefaultTable returns the embedded buckets.yaml, validated against the
// default catalog.
func DefaultTable() (*Table, error) {
	defaults.once.Do(loadDefaults)
	return defaults.table, defaults.err
}
