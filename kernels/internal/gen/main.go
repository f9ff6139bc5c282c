// Command gen writes kernels/src/instances_gen.cu, kernels/manifest.json and
// the kernel bench's instance list (scripts/kbench/ws_instances_gen.h) from
// the instance list. Run it from the repository root:
//
//	go generate ./kernels                    # after editing the instance list
//	gen -nvcc "$(nvcc --version | tail -1)"  # from build.sh, after nvcc built the images
//	gen -images                              # from build.sh: FILE TAG FLAGS per image
//
// Without -nvcc the build block of the existing manifest (source hash, nvcc
// version, date) is kept, so the manifest keeps saying what the committed
// fatbins were built from. Each kernel's digest is read from the images as
// they are (kernels.Digests): an instance the images lack leaves the
// manifest unwritten until build.sh has built it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gemmroute/gemmroute/kernels"
)

func main() {
	dir := flag.String("dir", "kernels", "the kernels directory")
	nvcc := flag.String("nvcc", "", "nvcc version that just built the images (set by build.sh)")
	ptxas := flag.String("ptxas", "", "directory of build.sh's ptxas-*.log: registers per kernel (default: keep the manifest's)")
	listImages := flag.Bool("images", false, "print FILE TAG FLAGS per image, for build.sh, and exit (writes nothing)")
	flag.Parse()
	if *listImages {
		if err := writeImageFlags(os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	cu, err := instancesCU()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dir, "src", "instances_gen.cu"), cu, 0o644); err != nil {
		log.Fatal(err)
	}
	kb, err := kbenchInstances()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dir, "..", kbenchList), kb, 0o644); err != nil {
		log.Fatal(err)
	}
	old := kernels.Manifest{}
	if b, err := os.ReadFile(filepath.Join(*dir, "manifest.json")); err == nil {
		_ = json.Unmarshal(b, &old)
	}
	digests, err := imageDigests(os.DirFS(filepath.Join(*dir, "images")))
	if err != nil {
		log.Fatal(err)
	}
	build := buildInfo{hash: old.SourceHash, nvcc: old.NVCC, date: old.Built, registers: map[string]int{}, digests: digests}
	for _, k := range old.Kernels {
		build.registers[k.Name] = k.Registers
	}
	if *ptxas != "" {
		regs, err := readRegisters(*ptxas)
		if err != nil {
			log.Fatal(err)
		}
		build.registers = regs
	}
	if *nvcc != "" {
		h, err := kernels.SourceHash(os.DirFS(filepath.Join(*dir, "src")))
		if err != nil {
			log.Fatal(err)
		}
		build.hash, build.nvcc, build.date = h, *nvcc, time.Now().UTC().Format("2006-01-02")
	}
	out, err := manifestJSON(build)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dir, "manifest.json"), out, 0o644); err != nil {
		log.Fatal(err)
	}
}

// buildInfo is what a build adds to the instance list: the sources' hash,
// the nvcc version, the date, the registers ptxas gave each kernel and the
// digests of their code, per image file and kernel name.
type buildInfo struct {
	hash, nvcc, date string
	registers        map[string]int
	digests          map[string]map[string]string
}

// imageDigests reads the digests of every image's kernels (kernels.Digests)
// from fsys, the images directory.
func imageDigests(fsys fs.FS) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, im := range images {
		b, err := fs.ReadFile(fsys, im.file)
		if err != nil {
			return nil, fmt.Errorf("the kernels' digests: %w: build the images (bash kernels/build.sh)", err)
		}
		if out[im.file], err = kernels.Digests(b); err != nil {
			return nil, fmt.Errorf("%s: %w", im.file, err)
		}
	}
	return out, nil
}

// readRegisters reads "Compiling entry function 'NAME'" … "Used N registers"
// pairs from the ptxas-*.log files of dir.
func readRegisters(dir string) (map[string]int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "ptxas-*.log"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no ptxas-*.log in %s", dir)
	}
	entry := regexp.MustCompile(`Compiling entry function '([^']+)'`)
	used := regexp.MustCompile(`Used (\d+) registers`)
	regs := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := ""
		for line := range strings.Lines(string(b)) {
			if m := entry.FindStringSubmatch(line); m != nil {
				name = m[1]
			} else if m := used.FindStringSubmatch(line); m != nil && name != "" {
				regs[name], _ = strconv.Atoi(m[1])
				name = ""
			}
		}
	}
	return regs, nil
}

// instancesCU renders the extern "C" wrappers of every instance, after the
// headers of their families. GR_ARCH (sm80, sm90) is set by build.sh per
// image and prefixes every name.
func instancesCU() ([]byte, error) {
	list, err := instances()
	if err != nil {
		return nil, err
	}
	headers := map[string]bool{splitkReduce.header: true}
	repack := false
	for _, in := range list {
		headers[in.family().header] = true
		repack = repack || in.family().repack
	}
	if repack {
		headers[repackKernel.header] = true
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by kernels/internal/gen; DO NOT EDIT.\n// Edit kernels/internal/gen/instances.go and run `go generate ./kernels`.\n\n")
	for _, h := range slices.Sorted(maps.Keys(headers)) {
		fmt.Fprintf(&b, "#include %q\n", h)
	}
	b.WriteString("\n#define GR_PASTE(a, b) gemmroute_##a##_##b\n#define GR_NAME(a, b) GR_PASTE(a, b)\n\n")
	seen := map[kernels.DType]bool{}
	for _, in := range list {
		sm90a := in.hopperOnly()
		if sm90a {
			b.WriteString("#if defined(GR_HOPPER)\n")
		}
		fmt.Fprintf(&b, "extern \"C\" __global__ void __launch_bounds__(%s)%s GR_NAME(GR_ARCH, %s)(%s) { %s; }\n",
			in.launchBounds(), in.clusterDims(), in.suffix(), in.param(), in.call())
		if sm90a {
			b.WriteString("#endif\n")
		}
		seen[in.out] = true
	}
	outs := make([]kernels.DType, 0, len(seen))
	for d := range seen {
		outs = append(outs, d)
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i] < outs[j] })
	for _, d := range outs {
		fmt.Fprintf(&b, "extern \"C\" __global__ void __launch_bounds__(%d) GR_NAME(GR_ARCH, %s)(const gr_gemm_params p) { %s<%s>(p); }\n",
			splitkReduce.threads, reduceSuffix(d), splitkReduce.template, cuType[d])
	}
	if repack { // the repack variants are sm_90a kernels
		fmt.Fprintf(&b, "#if defined(GR_HOPPER)\nextern \"C\" __global__ void __launch_bounds__(%d) GR_NAME(GR_ARCH, %s)(const gr_gemm_params p) { %s(p); }\n#endif\n",
			repackKernel.threads, repackKernel.suffix, repackKernel.template)
	}
	return b.Bytes(), nil
}

// manifestJSON renders the manifest of every instance in every image.
func manifestJSON(build buildInfo) ([]byte, error) {
	list, err := instances()
	if err != nil {
		return nil, err
	}
	m := kernels.Manifest{Schema: kernels.SchemaVersion, SourceHash: build.hash, NVCC: build.nvcc, Built: build.date}
	for _, im := range images {
		m.Images = append(m.Images, kernels.Image{File: im.file, Targets: im.targets, Flags: strings.TrimSpace(commonFlags + " " + im.flags), SmemLimit: im.smemLimit})
		for _, in := range list {
			if in.hopperOnly() && !im.sm90a {
				continue
			}
			k := in.spec(im)
			k.Registers = build.registers[k.Name]
			var ok bool
			if k.Digest, ok = build.digests[im.file][k.Name]; !ok {
				return nil, fmt.Errorf("kernel %s is not in %s: build the images (bash kernels/build.sh), which then writes the manifest", k.Name, im.file)
			}
			m.Kernels = append(m.Kernels, k)
		}
	}
	if _, err := kernels.NewCatalog(m); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(m, "", "  ")
	return append(out, '\n'), err
}

// writeImageFlags writes "FILE TAG FLAGS" per image, the lines build.sh
// reads from gen -images.
func writeImageFlags(w io.Writer) error {
	for _, im := range images {
		if _, err := fmt.Fprintf(w, "%s %s %s %s\n", im.file, im.tag, commonFlags, im.flags); err != nil {
			return err
		}
	}
	return nil
}

// kbenchList is the kernel bench's list of the ws_wgmma instances, relative
// to the repository root.
const kbenchList = "scripts/kbench/ws_instances_gen.h"

// kbenchInstances renders kbenchList: one X-macro list per types the bench
// times (16-bit in = out; e4m3 → bf16), each entry the kernel's name after
// "gemmroute_<arch>_" and its ws_wgmma template arguments, so that the bench
// keeps no hand copy of the shipped instances (nor of their launch
// parameters: threads and dynamic shared memory, as the manifest's).
func kbenchInstances() ([]byte, error) {
	list, err := instances()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by kernels/internal/gen; DO NOT EDIT.\n// The shipped ws_wgmma instances for scripts/kbench: X(NAME, T, TOUT, BM, BN, STAGES, NACC, KB, MC, ROLE, CONS, SCALES, SCHED, EPI, REL, THREADS, SMEM).\n#pragma once\n")
	for _, l := range []struct {
		macro string
		keep  func(instance) bool
	}{
		{"GR_WS_16", func(in instance) bool { return in.in != kernels.E4M3 }},
		{"GR_WS_E4M3_BF16", func(in instance) bool { return in.in == kernels.E4M3 && in.out == kernels.BF16 }},
	} {
		fmt.Fprintf(&b, "#define %s(X)", l.macro)
		for _, in := range list {
			a, ok := in.args.(wsWGMMAArgs)
			if !ok || a.rp() || !l.keep(in) { // the repack variants are their twins' code
				continue
			}
			fmt.Fprintf(&b, " \\\n  X(%s, %s, %s", in.suffix(), cuType[in.in], cuType[in.out])
			v := a.templateArgs(true) // every entry has every policy
			t := a.tile()
			v = append(v, t.warps*32, in.family().smemBytes(t, in.in.Size())) // the launch's threads and shared bytes, as the manifest's
			for _, v := range v {
				fmt.Fprintf(&b, ", %v", v)
			}
			b.WriteString(")")
		}
		b.WriteString("\n")
	}
	return b.Bytes(), nil
}
