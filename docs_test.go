package gemmroute

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// mdLink is a Markdown link or image: [text](target) or ![alt](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codePath is a path of two or more segments in backticks whose last
	// segment has an extension: `docs/perf/NOTES.md`, `c5/tune.md`,
	// `2026-11-30-h200/ptxas-*.log` (a glob).
	codePath = regexp.MustCompile("`([\\w.*-]+(?:/[\\w.*-]+)+\\.\\w+)`")
	// outside is a path into the directory beside the repository that the
	// developers share (GPU scripts and logs lived there once): nothing a
	// user has names it.
	outside = regexp.MustCompile(`\.\./` + `shared/`)
)

// repoFiles walks the repository from its root (this package's directory),
// skipping hidden directories (.git), and calls fn with each regular file's
// slash path and contents.
func repoFiles(t *testing.T, fn func(path string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(path), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// exists reports whether pattern (a path or a glob) names a file or
// directory relative to one of dirs.
func exists(pattern string, dirs ...string) bool {
	for _, d := range dirs {
		if m, _ := filepath.Glob(filepath.Join(d, filepath.FromSlash(pattern))); len(m) > 0 {
			return true
		}
	}
	return false
}

// Every file a Markdown page links to, and every path of two or more
// segments it quotes, is in the repository (relative to the page, or a
// quoted path to the root): docs/perf/NOTES.md once named a deleted file,
// and tune reports linked plots that were never committed.
func TestDocsNameFilesThatExist(t *testing.T) {
	pages := 0
	repoFiles(t, func(path string, data []byte) {
		if !strings.HasSuffix(path, ".md") {
			return
		}
		pages++
		dir := filepath.Dir(filepath.FromSlash(path))
		for i, line := range bytes.Split(data, []byte("\n")) {
			for _, m := range mdLink.FindAllSubmatch(line, -1) {
				target, _, _ := strings.Cut(string(m[1]), "#")
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if !exists(target, dir) {
					t.Errorf("%s:%d: links to %s, which is not in the repository", path, i+1, target)
				}
			}
			for _, m := range codePath.FindAllSubmatch(line, -1) {
				if p := string(m[1]); !exists(p, dir, ".") {
					t.Errorf("%s:%d: names `%s`, which is not in the repository", path, i+1, p)
				}
			}
		}
	})
	if pages < 10 {
		t.Fatalf("found %d Markdown pages: not walking the repository?", pages)
	}
}

// No text file of the repository points into the developers' shared
// directory beside it (help text, comments and recipes once named its gpu/
// scripts, which live in scripts/).
func TestNothingPointsOutsideTheRepository(t *testing.T) {
	files := 0
	repoFiles(t, func(path string, data []byte) {
		if bytes.IndexByte(data, 0) >= 0 { // a fatbin, an image
			return
		}
		files++
		for i, line := range bytes.Split(data, []byte("\n")) {
			if outside.Match(line) {
				t.Errorf("%s:%d: %s", path, i+1, bytes.TrimSpace(line))
			}
		}
	})
	if files < 100 {
		t.Fatalf("found %d files: not walking the repository?", files)
	}
}

// A reader without a GPU finds what to run on the README's first screen
// (it was 160 lines down): the section, the planning example and the test
// command, each line of it within the first 30.
func TestReadmeFirstScreenRunsWithoutGPU(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 31)
	screen := strings.Join(lines[:min(30, len(lines))], "\n")
	for _, want := range []string{"## Try it without a GPU", "go run -tags nocuda ./examples/plan", "go test -tags nocuda ./..."} {
		if !strings.Contains(screen, want) {
			t.Errorf("README.md's first 30 lines lack %q", want)
		}
	}
	if !exists("examples/plan/main.go", ".") {
		t.Error("examples/plan, which the first screen runs, is gone")
	}
}
