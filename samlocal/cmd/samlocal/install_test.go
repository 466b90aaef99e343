package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	modzip "golang.org/x/mod/zip"

	"golang.org/x/mod/module"
)

// A team installs samlocal as any Go command, with go install
// <module>/cmd/samlocal@<version> from outside a module: this module is
// published to a GOPROXY made of files (the module zip made by
// golang.org/x/mod/zip, as a module proxy serves it: the GOPROXY protocol
// of "go help goproxy"), and go install takes it from there with no
// replace and no workspace. The installed command runs.
func TestInstallsWithGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds samlocal from a module proxy")
	}
	t.Parallel()
	const path, version = "github.com/plantstore/plantstore/samlocal", "v0.1.0"
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	proxy := t.TempDir()
	dir := filepath.Join(proxy, path, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if err := modzip.CreateFromDir(&z, module.Version{Path: path, Version: version}, src); err != nil {
		t.Fatal(err)
	}
	if r, err := zip.NewReader(bytes.NewReader(z.Bytes()), int64(z.Len())); err != nil {
		t.Fatal(err)
	} else {
		for _, f := range r.File {
			if strings.Contains(f.Name, "/testdata/shop/") {
				t.Errorf("the module zip holds %s, of another module", f.Name)
			}
		}
	}
	goMod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(goMod), "\nreplace ") {
		t.Fatal("samlocal's go.mod has a replace directive, which go install module@version refuses")
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)})
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": info, version + ".mod": goMod, version + ".zip": z.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	bin, home := t.TempDir(), t.TempDir()
	cmd := exec.Command("go", "install", path+"/cmd/samlocal@"+version)
	cmd.Dir = home // outside any module or workspace
	// The dependencies come from the module cache, which the build of
	// this test filled; the checksum database does not know this module.
	// The dependencies' checksums are looked up through the proxies after
	// the file proxy, as go does for a GOPROXY list ("Checksum database"
	// in go help module-auth), so a machine that reaches the Go module
	// proxy but not sum.golang.org itself still verifies them.
	goproxy := "file://" + filepath.ToSlash(proxy)
	if up, err := exec.Command("go", "env", "GOPROXY").Output(); err == nil && strings.TrimSpace(string(up)) != "" {
		goproxy += "," + strings.TrimSpace(string(up))
	}
	cmd.Env = append(os.Environ(), "GOPROXY="+goproxy, "GONOSUMDB="+path, "GOWORK=off", "GOFLAGS=", "GOBIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "samlocal"), "generate-event", "apigateway", "aws-proxy", "--method", "GET", "--path", "plants/1").Output()
	if err != nil {
		t.Fatalf("the installed samlocal: %v", err)
	}
	var ev struct{ HTTPMethod, Path string }
	if err := json.Unmarshal(out, &ev); err != nil || ev.HTTPMethod != "GET" || ev.Path != "/plants/1" {
		t.Errorf("the installed samlocal's event: %s (%v)", out, err)
	}
}
