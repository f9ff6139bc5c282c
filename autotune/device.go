package main

import (
	"flag"
	"fmt"

	"github.com/gemmroute/gemmroute/dispatch"
)

// deviceFlags describe a GPU no preset matches: each one set replaces the
// preset's field.
type deviceFlags struct {
	name         string
	sms, smem    int
	l2           int64
	readBW, peak float64
}

func (d *deviceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.name, "name", "", "device name to print (with the flags below: describe any GPU)")
	fs.IntVar(&d.sms, "sms", 0, "streaming multiprocessors")
	fs.IntVar(&d.smem, "smem", 0, "opt-in shared memory per block, bytes")
	fs.Int64Var(&d.l2, "l2", 0, "L2 cache, bytes")
	fs.Float64Var(&d.readBW, "read-bw", 0, "pure-read bandwidth, bytes/s")
	fs.Float64Var(&d.peak, "peak", 0, "dense 16-bit tensor rate, FLOP/s")
}

// apply writes the flags that were set into dev, refusing values that
// describe no GPU.
func (d *deviceFlags) apply(dev *dispatch.DeviceInfo, set map[string]bool) error {
	if set["name"] {
		dev.Name = d.name
	}
	for _, f := range []struct {
		name  string
		v     float64
		store func()
	}{
		{"sms", float64(d.sms), func() { dev.SMs = d.sms }},
		{"smem", float64(d.smem), func() { dev.SmemOptIn = d.smem }},
		{"l2", float64(d.l2), func() { dev.L2Bytes = d.l2 }},
		{"read-bw", d.readBW, func() { dev.ReadBandwidth = d.readBW }},
		{"peak", d.peak, func() { dev.PeakFLOPS = d.peak }},
	} {
		if !set[f.name] {
			continue
		}
		if !(f.v > 0 && f.v < 1e18) {
			return fmt.Errorf("-%s %g: want a positive, finite number", f.name, f.v)
		}
		f.store()
	}
	return nil
}
