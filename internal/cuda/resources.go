//go:build !nocuda

package cuda

/*
#include <cuda.h>
static CUresult gr_graph_instantiate(CUgraphExec *exec, CUgraph g) { return cuGraphInstantiateWithFlags(exec, g, 0); }
*/
import "C"

import (
	"unsafe"

	"gorgonia.org/cu"
)

// DeviceAttrs is what planning needs to know of the device.
type DeviceAttrs struct {
	Name         string
	Major, Minor int
	SMs, L2Bytes int
	SmemOptIn    int // opt-in shared memory per block
	MemBytes     int64
}

// Attrs reads the device's attributes.
func (c *Context) Attrs() (DeviceAttrs, error) {
	var a DeviceAttrs
	var err error
	if a.Name, err = c.Device.Name(); err != nil {
		return a, wrap("cuDeviceGetName", err)
	}
	if a.MemBytes, err = c.Device.TotalMem(); err != nil {
		return a, wrap("cuDeviceTotalMem", err)
	}
	for _, q := range []struct {
		attr C.CUdevice_attribute
		dst  *int
	}{
		{C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &a.Major},
		{C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &a.Minor},
		{C.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &a.SMs},
		{C.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &a.L2Bytes},
		{C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &a.SmemOptIn},
	} {
		var v C.int
		if err := check("cuDeviceGetAttribute", C.cuDeviceGetAttribute(&v, q.attr, C.CUdevice(c.Device))); err != nil {
			return a, err
		}
		*q.dst = int(v)
	}
	return a, nil
}

// Module is a loaded image.
type Module struct{ m cu.Module }

// LoadModule loads a fatbin/cubin/PTX image (the driver JIT-compiles PTX).
func (c *Context) LoadModule(image []byte) (Module, error) {
	var m cu.Module
	err := c.Do(func() (err error) {
		m, err = cu.LoadData(string(image))
		return wrap("cuModuleLoadData", err)
	})
	return Module{m}, err
}

// Unload unloads the module.
func (c *Context) Unload(m Module) error {
	return c.Do(func() error { return wrap("cuModuleUnload", m.m.Unload()) })
}

// Function resolves a kernel by name and raises its dynamic shared memory
// limit to smem bytes when that is above the 48 KB default.
func (c *Context) Function(m Module, name string, smem int) (Function, error) {
	var f cu.Function
	err := c.Do(func() (err error) {
		if f, err = m.m.Function(name); err != nil {
			return wrap("cuModuleGetFunction("+name+")", err)
		}
		if smem > 48<<10 {
			raw := *(*C.CUfunction)(unsafe.Pointer(&f))
			return check("cuFuncSetAttribute", C.cuFuncSetAttribute(raw, C.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, C.int(smem)))
		}
		return nil
	})
	return Function(*(*uintptr)(unsafe.Pointer(&f))), err
}

// Alloc allocates device memory.
func (c *Context) Alloc(bytes int64) (uintptr, error) {
	var p C.CUdeviceptr
	err := c.Do(func() error { return check("cuMemAlloc", C.cuMemAlloc(&p, C.size_t(bytes))) })
	return uintptr(p), err
}

// Free frees device memory from Alloc.
func (c *Context) Free(p uintptr) error {
	return c.Do(func() error { return check("cuMemFree", C.cuMemFree(C.CUdeviceptr(p))) })
}

// MemInfo returns free and total device memory.
func (c *Context) MemInfo() (free, total int64, err error) {
	var f, t C.size_t
	err = c.Do(func() error { return check("cuMemGetInfo", C.cuMemGetInfo(&f, &t)) })
	return int64(f), int64(t), err
}

// CopyIn copies host bytes to device memory (synchronous).
func (c *Context) CopyIn(dst uintptr, src unsafe.Pointer, bytes int64) error {
	return c.Do(func() error { return check("cuMemcpyHtoD", C.cuMemcpyHtoD(C.CUdeviceptr(dst), src, C.size_t(bytes))) })
}

// CopyOut copies device memory to host bytes (synchronous).
func (c *Context) CopyOut(dst unsafe.Pointer, src uintptr, bytes int64) error {
	return c.Do(func() error { return check("cuMemcpyDtoH", C.cuMemcpyDtoH(dst, C.CUdeviceptr(src), C.size_t(bytes))) })
}

// Fill sets bytes of device memory to a 32-bit pattern on a stream.
func (c *Context) Fill(dst uintptr, pattern uint32, words int64, s Stream) error {
	return c.Do(func() error {
		return check("cuMemsetD32Async", C.cuMemsetD32Async(C.CUdeviceptr(dst), C.uint(pattern), C.size_t(words), s.c()))
	})
}

// NewStream creates a non-blocking stream.
func (c *Context) NewStream() (Stream, error) {
	var s C.CUstream
	err := c.Do(func() error { return check("cuStreamCreate", C.cuStreamCreate(&s, C.CU_STREAM_NON_BLOCKING)) })
	return Stream(unsafe.Pointer(s)), err
}

// DestroyStream destroys a stream from NewStream.
func (c *Context) DestroyStream(s Stream) error {
	return c.Do(func() error { return check("cuStreamDestroy", C.cuStreamDestroy(s.c())) })
}

// Sync waits for a stream.
func (c *Context) Sync(s Stream) error {
	return c.Do(func() error { return check("cuStreamSynchronize", C.cuStreamSynchronize(s.c())) })
}

// Event is a raw CUevent.
type Event uintptr

func (e Event) c() C.CUevent { return *(*C.CUevent)(unsafe.Pointer(&e)) }

// NewEvent creates a timing event.
func (c *Context) NewEvent() (Event, error) {
	var e C.CUevent
	err := c.Do(func() error { return check("cuEventCreate", C.cuEventCreate(&e, C.CU_EVENT_DEFAULT)) })
	return Event(unsafe.Pointer(e)), err
}

// DestroyEvent destroys an event.
func (c *Context) DestroyEvent(e Event) error {
	return c.Do(func() error { return check("cuEventDestroy", C.cuEventDestroy(e.c())) })
}

// Record records e on s.
func (c *Context) Record(e Event, s Stream) error {
	return c.Do(func() error {
		return check("cuEventRecord", C.cuEventRecord(e.c(), s.c()))
	})
}

// Elapsed waits for end and returns the milliseconds between start and end.
func (c *Context) Elapsed(start, end Event) (float64, error) {
	var ms C.float
	err := c.Do(func() error {
		if err := check("cuEventSynchronize", C.cuEventSynchronize(end.c())); err != nil {
			return err
		}
		return check("cuEventElapsedTime", C.cuEventElapsedTime(&ms, start.c(), end.c()))
	})
	return float64(ms), err
}

// Graph is an instantiated CUDA graph.
type Graph struct {
	g    C.CUgraph
	exec C.CUgraphExec
}

// Capture records everything f enqueues on s into a graph and instantiates
// it. f must only enqueue asynchronous work on s.
func (c *Context) Capture(s Stream, f func() error) (Graph, error) {
	var g C.CUgraph
	var exec C.CUgraphExec
	cs := s.c()
	err := c.Do(func() error {
		if err := check("cuStreamBeginCapture", C.cuStreamBeginCapture(cs, C.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)); err != nil {
			return err
		}
		ferr := f()
		if err := check("cuStreamEndCapture", C.cuStreamEndCapture(cs, &g)); err != nil {
			return err
		}
		if ferr != nil {
			C.cuGraphDestroy(g)
			return ferr
		}
		return check("cuGraphInstantiate", C.gr_graph_instantiate(&exec, g))
	})
	return Graph{g, exec}, err
}

// Capturing reports whether s is being captured into a graph.
func (c *Context) Capturing(s Stream) (bool, error) {
	var st C.CUstreamCaptureStatus
	err := c.Do(func() error { return check("cuStreamIsCapturing", C.cuStreamIsCapturing(s.c(), &st)) })
	return st != C.CU_STREAM_CAPTURE_STATUS_NONE, err
}

// Replay launches the graph on s.
func (c *Context) Replay(g Graph, s Stream) error {
	return c.Do(func() error {
		return check("cuGraphLaunch", C.cuGraphLaunch(g.exec, s.c()))
	})
}

// DestroyGraph frees the graph.
func (c *Context) DestroyGraph(g Graph) error {
	return c.Do(func() error {
		if err := check("cuGraphExecDestroy", C.cuGraphExecDestroy(g.exec)); err != nil {
			return err
		}
		return check("cuGraphDestroy", C.cuGraphDestroy(g.g))
	})
}

// CopyDevice copies device memory to device memory (synchronous).
func (c *Context) CopyDevice(dst, src uintptr, bytes int64) error {
	return c.Do(func() error {
		return check("cuMemcpyDtoD", C.cuMemcpyDtoD(C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(bytes)))
	})
}
