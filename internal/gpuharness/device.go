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

// Buf is a device allocation of N elements of Size bytes, with 256 bytes
// of slack after them so that a 32-bit fill or an offset view stays inside.
type Buf struct {
	Base    uintptr
	N, Size int
}

// Ptr is the address of element off.
func (b Buf) Ptr(off int) dispatch.DevicePtr {
	return dispatch.DevicePtr(b.Base + uintptr(off)*uintptr(b.Size))
}

// Bytes is the size of the N elements.
func (b Buf) Bytes() int64 { return int64(b.N) * int64(b.Size) }

// alloc allocates n elements of size bytes, uninitialised.
func (d *Device) alloc(n, size int) (Buf, error) {
	base, err := d.Alloc(int64(max(n, 1))*int64(size) + 256)
	return Buf{Base: base, N: n, Size: size}, err
}

// upload copies host to a new allocation of its element size.
func upload[T uint8 | uint16 | float32](d *Device, host []T) (Buf, error) {
	b, err := d.alloc(len(host), int(unsafe.Sizeof(*new(T))))
	if err != nil {
		return b, err
	}
	if len(host) > 0 {
		if err = d.CopyIn(b.Base, unsafe.Pointer(&host[0]), b.Bytes()); err != nil {
			d.Release(b)
		}
	}
	return b, err
}

// Upload copies 16-bit elements to a new allocation.
func (d *Device) Upload(host []uint16) (Buf, error) { return upload(d, host) }

// UploadAs copies elements of dtype dt, given as gemmtest bits (an e4m3
// code in each low byte), to a new allocation of dt's element size.
func (d *Device) UploadAs(dt dispatch.DType, bits []uint16) (Buf, error) {
	if dt.Size() != 1 {
		return upload(d, bits)
	}
	bytes := make([]uint8, len(bits))
	for i, v := range bits {
		bytes[i] = uint8(v)
	}
	return upload(d, bytes)
}

// UploadFloats copies float32s (e4m3 scales) to a new allocation.
func (d *Device) UploadFloats(host []float32) (Buf, error) { return upload(d, host) }

// Poisoned allocates n 16-bit elements holding gemmtest.Poison (NaN in f16
// and bf16).
func (d *Device) Poisoned(n int) (Buf, error) {
	host := make([]uint16, n)
	for i := range host {
		host[i] = gemmtest.Poison
	}
	return d.Upload(host)
}

// Download copies b, of 16-bit elements, back to the host.
func (d *Device) Download(b Buf) ([]uint16, error) { return d.DownloadInto(nil, b) }

// DownloadInto is Download into host when it holds b's elements (a
// caller's buffer reused call after call), else into a new slice.
func (d *Device) DownloadInto(host []uint16, b Buf) ([]uint16, error) {
	if b.Size != 2 {
		return nil, fmt.Errorf("gpuharness: Download reads 16-bit elements, not %d-byte ones", b.Size)
	}
	if len(host) != b.N {
		host = make([]uint16, b.N)
	}
	if b.N == 0 {
		return host, nil
	}
	return host, d.CopyOut(unsafe.Pointer(&host[0]), b.Base, b.Bytes())
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
	host []uint16 // Check's copy of Out, reused from check to check
}

// Operands uploads data's A and B (in P.In's element size), C and bias, an
// e4m3 problem's scale vectors (setting ScaleAPtr and ScaleBPtr) and a
// poisoned D.
func (d *Device) Operands(data *gemmtest.Data) (*Operands, error) {
	o := &Operands{Data: data, P: data.P, dev: d}
	var err error
	keep := func(b Buf, e error) Buf {
		if e == nil {
			o.bufs = append(o.bufs, b)
		} else if err == nil {
			err = e
		}
		return b
	}
	a := keep(d.UploadAs(o.P.Types.In, data.A))
	b := keep(d.UploadAs(o.P.Types.In, data.B))
	c := keep(d.Upload(data.C))
	o.Out = keep(d.Poisoned(o.P.M * o.P.LDC))
	o.P.A, o.P.B, o.P.C, o.P.D = a.Ptr(data.OffA), b.Ptr(data.OffB), c.Ptr(0), o.Out.Ptr(0)
	if data.Bias != nil {
		o.P.Bias = keep(d.Upload(data.Bias)).Ptr(0)
	}
	if data.ScaleA != nil {
		o.P.ScaleAPtr = keep(d.UploadFloats(data.ScaleA)).Ptr(0)
		o.P.ScaleBPtr = keep(d.UploadFloats(data.ScaleB)).Ptr(0)
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
	var err error
	if o.host, err = o.dev.DownloadInto(o.host, o.Out); err != nil {
		return err
	}
	if err := o.Data.Check(o.host); err != nil {
		return fmt.Errorf("%w: %w", tuning.ErrWrong, err)
	}
	return nil
}
