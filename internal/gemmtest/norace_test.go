//go:build !race

package gemmtest

// raceEnabled: the test binary runs under the race detector.
const raceEnabled = false
