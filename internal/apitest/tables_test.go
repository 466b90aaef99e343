package apitest

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
)

var code = regexp.MustCompile(`\b([1-5][0-9]{4})\b`)

// The error codes live once, in docs/design.md's table; api/openapi.yaml
// names each under its status, and each comes from the code: a constant of
// internal/httpapi/errors.go or a gateway response of template.yaml. A code
// added, changed or dropped in one place and not the others fails here.
func TestErrorCodesAgree(t *testing.T) {
	t.Parallel()
	root := srctree.Path()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// docs/design.md: the table under "## Errors", rows "| when | status | `error` |".
	_, errs, ok := strings.Cut(read("docs/design.md"), "\n## Errors\n")
	if !ok {
		t.Fatal(`docs/design.md has no "## Errors" section`)
	}
	errs, _, _ = strings.Cut(errs, "\n## ")
	var documented []string
	for _, line := range strings.Split(errs, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 {
			continue
		}
		if m := code.FindString(cells[3]); m != "" {
			documented = append(documented, m)
		}
	}

	// api/openapi.yaml: every code named in a response of POST /plants.
	var contracted []string
	for status, resp := range Doc(t).Paths.Find("/plants").Post.Responses.Map() {
		if resp.Value == nil || resp.Value.Description == nil {
			continue
		}
		for _, m := range code.FindAllString(*resp.Value.Description, -1) {
			if status != "default" && !strings.HasPrefix(m, status[:1]) {
				t.Errorf("api/openapi.yaml: %s named under status %s", m, status)
			}
			contracted = append(contracted, m)
		}
	}

	// The code: httpapi's constants and template.yaml's gateway responses.
	produced := code.FindAllString(read("internal/httpapi/errors.go"), -1)
	_, tpl, _ := strings.Cut(read("template.yaml"), "GatewayResponses:")
	for _, m := range regexp.MustCompile(`"error":([0-9]{5})`).FindAllStringSubmatch(tpl, -1) {
		produced = append(produced, m[1])
	}

	norm := func(s []string) string { slices.Sort(s); return fmt.Sprint(slices.Compact(s)) }

	// createplant's metrics name an Outcome for every code the function
	// answers itself (httpapi's), and only those: a code without one counts
	// as "other" on the dashboard and in no alarm.
	var handler []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(Code[A-Za-z]+)\s*=\s*[0-9]{5}$`).FindAllStringSubmatch(read("internal/httpapi/errors.go"), -1) {
		handler = append(handler, m[1])
	}
	_, metrics, ok := strings.Cut(read("functions/createplant/metrics.go"), "var outcomes = map[int64]string{")
	if !ok {
		t.Fatal("functions/createplant/metrics.go has no outcomes map")
	}
	metrics, _, _ = strings.Cut(metrics, "\n}")
	var counted []string
	for _, m := range regexp.MustCompile(`httpapi\.(Code[A-Za-z]+):`).FindAllStringSubmatch(metrics, -1) {
		counted = append(counted, m[1])
	}
	if len(handler) < 10 {
		t.Fatalf("internal/httpapi/errors.go has %d Code constants; has their form changed?", len(handler))
	}
	if h, o := norm(handler), norm(counted); h != o {
		t.Errorf("createplant's metric outcomes differ from the codes it answers:\n internal/httpapi/errors.go       %s\n functions/createplant/metrics.go %s", h, o)
	}

	d, c, p := norm(documented), norm(contracted), norm(produced)
	if len(documented) < 10 {
		t.Fatalf("docs/design.md's error table has %d codes; is the table still there?", len(documented))
	}
	if d != c || d != p {
		t.Errorf("error codes differ:\n docs/design.md   %s\n api/openapi.yaml %s\n code, template   %s", d, c, p)
	}
}

// README's configuration table names every variable the product reads (by
// getenv, Getenv or LookupEnv in the packages that the commands of
// functions/ and cmd/ are built from, as go list -deps names them, like
// make lint's gosec: not the test support, not the local tools' engine),
// and only those; AWS_* variables are the SDK's and Lambda's own, and the
// table names the two a user sets.
func TestConfigurationTable(t *testing.T) {
	t.Parallel()
	root := srctree.Path()
	read := map[string]bool{}
	name := regexp.MustCompile(`(?:getenv|Getenv|LookupEnv)\("([A-Z0-9_]+)"\)`)
	for _, dir := range shippedDirs(t, root) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range name.FindAllStringSubmatch(string(b), -1) {
				if !strings.HasPrefix(m[1], "AWS_") {
					read[m[1]] = true
				}
			}
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n## Configuration\n")
	if !ok {
		t.Fatal(`README.md has no "## Configuration" section`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	documented := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 {
			for _, v := range regexp.MustCompile("`([A-Z0-9_]+)`").FindAllStringSubmatch(cells[1], -1) {
				documented[v[1]] = true
			}
		}
	}
	for v := range read {
		if !documented[v] {
			t.Errorf("the code reads %s; README's configuration table does not name it", v)
		}
	}
	for v := range documented {
		if !read[v] && !strings.HasPrefix(v, "AWS_") {
			t.Errorf("README's configuration table names %s; no code reads it", v)
		}
	}
	if len(read) < 8 {
		t.Errorf("found %d variables read by the code: %v", len(read), read)
	}
}

// shippedDirs are the folders of the product's packages that its commands
// (the main packages of functions/ and cmd/) are built from.
func shippedDirs(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.Dir}} {{join .Deps " "}}{{end}}`, "./functions/...", "./cmd/...")
	cmd.Dir, cmd.Env = root, append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/plantstore/plantstore/"
	dirs := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		dirs[fields[0]] = true
		for _, dep := range fields[1:] {
			if rel, ok := strings.CutPrefix(dep, module); ok {
				dirs[filepath.Join(root, filepath.FromSlash(rel))] = true
			}
		}
	}
	if len(dirs) < 10 {
		t.Fatalf("go list names %d folders of the product's commands: %v", len(dirs), dirs)
	}
	return slices.Sorted(maps.Keys(dirs))
}
