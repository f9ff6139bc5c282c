//go:build nocuda

package main

import "github.com/gemmroute/gemmroute/autotune/tuning"

// gpuMeasurers is nil: a nocuda build cannot measure.
var gpuMeasurers func(devices []int, workspace int64, vendor bool) ([]tuning.Measurer, func(), error)
