//go:build !nocuda

package gpuharness

import (
	"fmt"
	"unsafe"

	"github.com/gemmroute/gemmroute/autotune/tuning"
	"github.com/gemmroute/gemmroute/dispatch"
	"github.com/gemmroute/gemmroute/internal/cuda"
	"github.com/gemmroute/gemmroute/internal/gemmtest"
)

// Device is one GPU's primary context with the buffer operations every
// check on it uses.
type Device struct{ *cuda.Context }

// OpenDevice opens GPU ordinal's primary context.
func OpenDevice(ordinal int) (*Device, error) {
	ctx, err := cuda.Open(ordinal)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: %w", ordinal, err)
	}
	return &Device{ctx}, nil
}

// Buf is a device allocation of N 16-bit elements, with 256 bytes of slack
// after them so that a 32-bit fill or an offset view stays inside.
type Buf struct {
	Base uintptr
	N    int
}

// Ptr is the address of element off.
func (b Buf) Ptr(off int) dispatch.DevicePtr { return dispatch.DevicePtr(b.Base + uintptr(off)*2) }

// alloc allocates n elements, uninitialised.
func (d *Device) alloc(n int) (Buf, error) {
	base, err := d.Alloc(int64(max(n, 1))*2 + 256)
	return Buf{Base: base, N: n}, err
}

// Upload copies host to a new allocation.
func (d *Device) Upload(host []uint16) (Buf, error) {
	b, err := d.alloc(len(host))
	if err != nil {
		return b, err
	}
	if len(host) > 0 {
		if err = d.CopyIn(b.Base, unsafe.Pointer(&host[0]), int64(len(host))*2); err != nil {
			d.Release(b)
		}
	}
	return b, err
}

// Poisoned allocates n elements holding gemmtest.Poison (NaN in f16 and bf16).
func (d *Device) Poisoned(n int) (Buf, error) {
	host := make([]uint16, n)
	for i := range host {
		host[i] = gemmtest.Poison
	}
	return d.Upload(host)
}

// Download copies b back to the host.
func (d *Device) Download(b Buf) ([]uint16, error) {
	host := make([]uint16, b.N)
	if b.N == 0 {
		return host, nil
	}
	return host, d.CopyOut(unsafe.Pointer(&host[0]), b.Base, int64(b.N)*2)
}

// Release frees b.
func (d *Device) Release(b Buf) { _ = d.Free(b.Base) }

// Operands are one gemmtest problem on the device: its inputs uploaded and
// a poisoned output of M·LDC elements, with P's pointers set to them.
type Operands struct {
	Data *gemmtest.Data
	P    dispatch.Problem
	Out  Buf
	dev  *Device
	bufs []Buf
}

// Operands uploads data's A, B, C and bias and a poisoned D.
func (d *Device) Operands(data *gemmtest.Data) (*Operands, error) {
	o := &Operands{Data: data, P: data.P, dev: d}
	up := func(host []uint16, n int) (Buf, error) {
		var b Buf
		var err error
		if host != nil {
			b, err = d.Upload(host)
		} else {
			b, err = d.Poisoned(n)
		}
		if err == nil {
			o.bufs = append(o.bufs, b)
		}
		return b, err
	}
	a, err := up(data.A, 0)
	if err == nil {
		var b, c Buf
		if b, err = up(data.B, 0); err == nil {
			if c, err = up(data.C, 0); err == nil {
				o.Out, err = up(nil, o.P.M*o.P.LDC)
				o.P.A, o.P.B, o.P.C, o.P.D = a.Ptr(data.OffA), b.Ptr(data.OffB), c.Ptr(0), o.Out.Ptr(0)
			}
		}
	}
	if err == nil && data.Bias != nil {
		var bias Buf
		bias, err = up(data.Bias, 0)
		o.P.Bias = bias.Ptr(0)
	}
	if err != nil {
		o.Free()
		return nil, err
	}
	return o, nil
}

// Free releases the operands' buffers.
func (o *Operands) Free() {
	for _, b := range o.bufs {
		o.dev.Release(b)
	}
	o.bufs = nil
}

// Check poisons the output, runs launch on stream s, waits, and compares
// the output with the float64 reference; a mismatch wraps tuning.ErrWrong.
func (o *Operands) Check(s cuda.Stream, launch func(*dispatch.Problem, dispatch.Stream) error) error {
	words := int64(o.Out.N+1) / 2
	if err := o.dev.Fill(o.Out.Base, uint32(gemmtest.Poison)<<16|uint32(gemmtest.Poison), words, s); err != nil {
		return err
	}
	if err := launch(&o.P, dispatch.Stream(s)); err != nil {
		return err
	}
	if err := o.dev.Sync(s); err != nil {
		return err
	}
	out, err := o.dev.Download(o.Out)
	if err != nil {
		return err
	}
	if err := o.Data.Check(out); err != nil {
		return fmt.Errorf("%w: %v", tuning.ErrWrong, err)
	}
	return nil
}
