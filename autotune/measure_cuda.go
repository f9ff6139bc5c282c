//go:build !nocuda

package main

import "github.com/gemmroute/gemmroute/internal/gpuharness"

// gpuMeasurers opens the GPU harness's measurers.
var gpuMeasurers = gpuharness.OpenMeasurers
