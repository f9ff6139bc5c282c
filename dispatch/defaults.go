package dispatch

import (
	"sync"

	"github.com/gemmroute/gemmroute"
	"github.com/gemmroute/gemmroute/kernels"
)

var (
	defaultCatalog = sync.OnceValues(func() (*kernels.Catalog, error) { return kernels.ParseManifest(kernels.ManifestJSON) })
	defaultTable   = sync.OnceValues(func() (*Table, error) {
		cat, err := DefaultCatalog()
		if err != nil {
			return nil, err
		}
		return LoadTable("buckets.yaml (embedded)", gemmroute.DefaultTable, cat)
	})
)

// DefaultCatalog returns the catalog of the embedded kernel manifest.
func DefaultCatalog() (*kernels.Catalog, error) { return defaultCatalog() }

// DefaultTable returns the embedded buckets.yaml, validated against the
// default catalog: a copy of its own for each call (see Table.Clone), so
// that a caller's edits change neither the table Open routes by nor
// another caller's.
func DefaultTable() (*Table, error) {
	t, err := defaultTable()
	return t.Clone(), err
}
