// Package srctree finds the repository's root, the one way the tests and
// the local tools find it.
package srctree

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// module is the product's module path: tools/go.mod, a module of its own
// below the root, names another.
const module = "github.com/plantstore/plantstore"

// Root is the folder of the product's go.mod, found by walking up from the
// working directory: go test runs each test in its package's folder, and
// make runs the tools at the root. It does not depend on where the source
// was compiled (-trimpath builds hide that) nor on git.
var Root = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if declares(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of module " + module + " in the working directory or above it")
		}
		dir = parent
	}
})

// declares says whether the go.mod at path is the product's.
func declares(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), `"`) == module
		}
	}
	return false
}

// Path is the path of the named file below the root; it panics outside the
// repository, where no test or tool of it runs.
func Path(elem ...string) string {
	root, err := Root()
	if err != nil {
		panic("srctree: " + err.Error())
	}
	return filepath.Join(append([]string{root}, elem...)...)
}
