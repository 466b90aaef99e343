// Package daytwo walks docs/deploy.md's "Adding a function" on a copy of
// the repository, as a team would on its second day: a new Go function with
// a route and the role SAM makes, then the preflight, make invoke and make
// start-api.
package daytwo

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/plantstore/plantstore/tools/watchtest"
)

// step is one block of the page: a file to write, or text to put after or
// before a line of a file, or in place of it.
type step struct {
	file, how, line, text string
}

var marker = regexp.MustCompile("(?s)<!-- daytwo: (\\S+)(?: (after|before|replace) \"([^\"]*)\")? -->\n```\\w*\n(.*?)```")

// steps reads the page's daytwo blocks.
func steps(t *testing.T) []step {
	t.Helper()
	raw, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []step
	for _, m := range marker.FindAllStringSubmatch(string(raw), -1) {
		out = append(out, step{m[1], m[2], m[3], m[4]})
	}
	if len(out) == 0 {
		t.Fatal(`docs/deploy.md has no "daytwo:" blocks`)
	}
	return out
}

// apply makes the step in the tree at root.
func (s step) apply(t *testing.T, root string) {
	t.Helper()
	path := filepath.Join(root, s.file)
	if s.how == "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s.text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	line := "\n" + s.line + "\n" // the whole line, not a part of another
	with := map[string]string{"after": line + s.text, "before": "\n" + s.text + s.line + "\n", "replace": "\n" + s.text}[s.how]
	watchtest.Edit(t, path, line, with)
}

// run runs a command in root and returns its output; it fails the test
// with that output when the command fails.
func run(t *testing.T, root string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CI=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The page's steps make a function that the preflight takes and the local
// tools serve, with no change to tools/.
func TestAddingAFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the walk builds and asks the preflight on a copy")
	}
	if _, err := os.Stat("../../node_modules/.bin/dynalite"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("no node_modules (make test installs it and runs this)")
	}
	root := watchtest.CopyTree(t)
	// What the walk builds (bin/, .bin/ with preflight-accept's test
	// binary, samlocal's .aws-sam/) is kept from run to run, as in a
	// developer's clone: the go command relinks only what changed.
	kept := proctest.BuildDir(t)
	for _, d := range []string{"bin", ".bin", ".aws-sam"} {
		if err := os.MkdirAll(filepath.Join(kept, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(kept, d), filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range steps(t) {
		s.apply(t, root)
	}
	// The copy's node_modules links to the repository's: make must not run
	// npm ci there (it would empty the repository's), so its package files
	// are made no newer than what they installed, and -o says the same.
	installed, err := os.Stat("../../node_modules/.bin/dynalite")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		if err := os.Chtimes(filepath.Join(root, f), installed.ModTime(), installed.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	keep := []string{"--no-print-directory", "-o", "node_modules/.bin/dynalite"}
	run(t, root, "make", append(keep, "preflight-accept")...)
	run(t, root, "make", append(keep, "-s", "bin/preflight")...)
	run(t, root, "bin/preflight") // as make lint runs it: every rule, by ID
	if access, _ := os.ReadFile(filepath.Join(root, "tools/preflight/testdata/access.txt")); !strings.Contains(string(access), "\ndev HealthFunctionRole logs:") {
		t.Error("the snapshot holds no access of the new role")
	}

	out := run(t, root, "make", append(keep, "-s", "invoke", "FUNCTION=HealthFunction", "EVENT=events/health.json")...)
	if !regexp.MustCompile(`"statusCode":\s*200`).MatchString(out) || !strings.Contains(out, `{\"status\":\"ok\"}`) {
		t.Errorf("make invoke: %s", out)
	}

	cmd := exec.Command("make", append(keep, "start-api")...)
	cmd.Dir = root
	// The cleanup kills it as a crash would: what it keeps in TMPDIR (its
	// emulator's socket folder) goes with the test's folder.
	cmd.Env = append(os.Environ(), "PORT=0", "TMPDIR="+t.TempDir())
	var stdout, stderr proctest.Output
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := childproc.Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { childproc.Kill(cmd); _ = cmd.Wait() })
	banner := stdout.Banner(t)
	req, _ := http.NewRequest("GET", banner.URL+"/health", nil)
	req.Header.Set("Authorization", "Bearer "+banner.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != `{"status":"ok"}` {
		t.Errorf("make start-api GET /health: %d %s\n%s", resp.StatusCode, body, stderr.String())
	}
}
