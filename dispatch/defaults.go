package dispatch

import (
	"sync"

	"github.com/gemmroute/gemmroute"
	"github.com/gemmroute/gemmroute/kernels"
)

// DefaultCatalog returns the catalog of the embedded kernel manifest.
var DefaultCatalog = sync.OnceValues(func() (*Catalog, error) { return ParseManifest(kernels.Manifest) })

// DefaultTable returns the embedded buckets.yaml, validated against the
// default catalog.
var DefaultTable = sync.OnceValues(func() (*Table, error) {
	cat, err := DefaultCatalog()
	if err != nil {
		return nil, err
	}
	return LoadTable("buckets.yaml (embedded)", gemmroute.DefaultTable, cat)
})
