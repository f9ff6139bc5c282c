// Package gemmroute holds the default bucket table, embedded so that importing
// github.com/gemmroute/gemmroute/dispatch needs no file on disk. The library
// itself is in package dispatch.
package gemmroute

import _ "embed"

// DefaultTable is buckets.yaml as committed.
//
//go:embed buckets.yaml
var DefaultTable []byte
