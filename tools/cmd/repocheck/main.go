// Command repocheck is part of `make lint`: it refuses build outputs in git,
// commit subjects not in Go's style, and a workspace (go.work) that would
// build the product with other module versions than its go.mod selects. Every file git tracks is read; an
// executable (ELF, Mach-O or PE, by its first bytes) or a file over 1 MiB
// outside a testdata/ folder is named, and the command exits 1. Every commit
// after subjectsSince has a subject "pkg: what changed" of at most 72
// characters (Go's contribution guide, "Commit messages"), the why in the
// body.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// maxSize is the largest file tracked outside testdata/.
const maxSize = 1 << 20

func main() {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	stop(err, "git ls-files")
	paths := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	problems, err := check(paths)
	stop(err, "reading the tracked files")
	refuse(problems, "build outputs do not belong in git: git rm --cached them and add them to .gitignore")
	fmt.Printf("repocheck: %d tracked files: no executable, none over 1 MiB outside testdata/\n", len(paths))

	log, err := exec.Command("git", "log", "--format=%h %s", subjectsSince+"..HEAD").Output()
	stop(err, "git log (a shallow clone lacks the history; fetch it)")
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	refuse(badSubjects(lines), "write subjects as `pkg: what changed`, at most 72 characters, the why in the body (git commit --amend, or git rebase -i before you push)")
	fmt.Printf("repocheck: %d commit subjects since %s in Go's style\n", len(lines), subjectsSince)

	alone, err := moduleVersions("off")
	stop(err, "the product's modules")
	wd, err := os.Getwd()
	stop(err, "the working directory")
	work, err := moduleVersions(filepath.Join(wd, "go.work"))
	stop(err, "the workspace's modules")
	refuse(drift(alone, work), "the tools must not raise a module the product uses: lower the version in tools/go.mod, or raise it in the product's go.mod on purpose (and measure: make bench)")
	fmt.Printf("repocheck: the workspace builds and tests the product with its own go.mod's versions (%d modules)\n", len(alone))
}

// stop ends the check with status 2 when err says it could not look.
func stop(err error, doing string) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "repocheck: %s: %v\n", doing, err)
		os.Exit(2)
	}
}

// refuse prints each problem and the fix, and exits 1, when there are any.
func refuse(problems []string, fix string) {
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "repocheck:", p)
	}
	if len(problems) > 0 {
		fmt.Fprintln(os.Stderr, "repocheck:", fix)
		os.Exit(1)
	}
}

// moduleVersions lists, path to version, the modules of every package that
// the product's packages and their tests use, with GOWORK set to gowork
// ("off": the product's go.mod alone).
func moduleVersions(gowork string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}} {{.Version}}{{end}}", "./...")
	cmd.Env = append(os.Environ(), "GOWORK="+gowork)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("GOWORK=%s go list -deps -test ./...: %v\n%s", gowork, err, stderr.Bytes())
	}
	versions := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, version, ok := strings.Cut(line, " "); ok {
			versions[path] = version
		}
	}
	return versions, nil
}

// drift names each module that the product uses at one version alone and
// at another in the workspace.
func drift(alone, work map[string]string) []string {
	var bad []string
	for path, v := range alone {
		if w, ok := work[path]; !ok || w != v {
			bad = append(bad, fmt.Sprintf("the product uses %s %s, and the workspace selects %q", path, v, w))
		}
	}
	slices.Sort(bad)
	return bad
}

// subjectsSince is the last commit before the subject rule: the history
// before it stays as it was written.
const subjectsSince = "9a8f98d"

// subject is Go's form: the package or folder (or several, comma-separated),
// a colon, what changed.
var subject = regexp.MustCompile(`^[A-Za-z0-9./_-]+(, [A-Za-z0-9./_-]+)*: \S`)

// badSubjects names each "<hash> <subject>" line out of Go's style.
func badSubjects(lines []string) []string {
	var bad []string
	for _, l := range lines {
		hash, s, _ := strings.Cut(l, " ")
		switch {
		case l == "":
		case len(s) > 72:
			bad = append(bad, fmt.Sprintf("commit %s: its subject has %d characters, over 72: %q", hash, len(s), s))
		case !subject.MatchString(s):
			bad = append(bad, fmt.Sprintf("commit %s: its subject does not start with `pkg: `: %q", hash, s))
		}
	}
	return bad
}

// check returns one line per refused file among paths.
func check(paths []string) ([]string, error) {
	var problems []string
	for _, path := range paths {
		if path == "" {
			continue
		}
		f, err := os.Open(path)
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			return nil, err
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		head := make([]byte, 4)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if kind := executable(head[:n]); kind != "" {
			problems = append(problems, fmt.Sprintf("%s is a %s executable", path, kind))
		} else if info.Size() > maxSize && !inTestdata(path) {
			problems = append(problems, fmt.Sprintf("%s has %d bytes (over 1 MiB, outside testdata/)", path, info.Size()))
		}
	}
	return problems, nil
}

// executable names the binary format that head starts with, or "".
func executable(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case bytes.HasPrefix(head, []byte{0xfe, 0xed, 0xfa, 0xce}), bytes.HasPrefix(head, []byte{0xfe, 0xed, 0xfa, 0xcf}),
		bytes.HasPrefix(head, []byte{0xce, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(head, []byte{0xcf, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(head, []byte{0xca, 0xfe, 0xba, 0xbe}):
		return "Mach-O"
	case bytes.HasPrefix(head, []byte("MZ")):
		return "PE"
	}
	return ""
}

func inTestdata(path string) bool {
	return strings.HasPrefix(path, "testdata/") || strings.Contains(path, "/testdata/")
}
