package main

import (
	"path/filepath"

	"github.com/gemmroute/gemmroute"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/fileio"
	"github.com/gemmroute/gemmroute/kernels"
)

// manifestHelp is the -manifest flag's help, the same for every command.
const manifestHelp = "kernel manifest JSON (default: $GEMMROUTE_KERNEL_DIR's manifest.json, else the embedded one)"

// manifestPath is the manifest file -manifest path names: path, else
// $GEMMROUTE_KERNEL_DIR's manifest.json when that is set (kernels.Dir, as
// the engine finds it), else "" for the embedded one.
func manifestPath(path string) string {
	if dir := kernels.Dir(""); path == "" && dir != "" {
		return filepath.Join(dir, "manifest.json")
	}
	return path
}

// loadCatalog reads the kernel manifest manifestPath(path) names, or the
// embedded one.
func loadCatalog(path string) (*kernels.Catalog, error) {
	if path = manifestPath(path); path == "" {
		return dispatch.DefaultCatalog()
	}
	data, err := fileio.ReadFile(path, kernels.MaxManifestBytes, "manifest")
	if err != nil {
		return nil, err
	}
	return kernels.ParseManifest(data)
}

// embeddedTableName names the embedded buckets.yaml in messages.
const embeddedTableName = "buckets.yaml (embedded)"

// loadTable reads a table file against cat; "" means the embedded
// buckets.yaml.
func loadTable(path string, cat *kernels.Catalog) (*dispatch.Table, error) {
	if path == "" {
		return dispatch.LoadTable(embeddedTableName, gemmroute.DefaultTable, cat)
	}
	data, err := fileio.ReadFile(path, dispatch.MaxTableBytes, "table")
	if err != nil {
		return nil, err
	}
	return dispatch.LoadTable(path, data, cat)
}

// loadCatalogAndTable loads a manifest (see loadCatalog) and a table (see
// loadTable).
func loadCatalogAndTable(manifest, table string) (*kernels.Catalog, *dispatch.Table, error) {
	cat, err := loadCatalog(manifest)
	if err != nil {
		return nil, nil, err
	}
	t, err := loadTable(table, cat)
	return cat, t, err
}

// loadTables loads each table file against the manifest (see loadCatalog).
func loadTables(manifest string, files ...string) ([]*dispatch.Table, error) {
	cat, err := loadCatalog(manifest)
	if err != nil {
		return nil, err
	}
	out := make([]*dispatch.Table, len(files))
	for i, f := range files {
		if out[i], err = loadTable(f, cat); err != nil {
			return nil, err
		}
	}
	return out, nil
}
