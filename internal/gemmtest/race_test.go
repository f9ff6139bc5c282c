//go:build race

package gemmtest

// raceEnabled: the test binary runs under the race detector, about 10×
// slower on this package's arithmetic (see TestCPUBackendPassesAwkwardCases).
const raceEnabled = true
