package samtranslate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// sam build runs `make build-<Function>` with its whole environment and
// ARTIFACTS_DIR set. The architecture must be the template's whatever GOARCH
// the caller's shell exports; GOARCH on make's command line may choose
// another for local builds; without ARTIFACTS_DIR the targets refuse to run.
func TestMakefileBuildsTheTemplatesArchitecture(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	arch := fmt.Sprint(tpl.Get("Globals", "Function", "Architectures"))
	if arch != "[arm64]" {
		t.Fatalf("Globals.Function.Architectures = %s", arch)
	}
	makeN := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("make", append([]string{"--no-print-directory", "-C", "../..", "-n"}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, name := range tpl.Functions() {
		fn := "build-" + name
		out, err := makeN([]string{"GOARCH=amd64"}, fn, "ARTIFACTS_DIR=/tmp/x")
		if err != nil || !strings.Contains(out, "GOARCH=arm64") || strings.Contains(out, "GOARCH=amd64") {
			t.Errorf("%s with GOARCH=amd64 exported: %v\n%s\nwant an arm64 build", fn, err, out)
		}
		out, err = makeN(nil, fn, "ARTIFACTS_DIR=/tmp/x", "GOARCH=amd64")
		if err != nil || !strings.Contains(out, "GOARCH=amd64") {
			t.Errorf("%s GOARCH=amd64 on the command line: %v\n%s\nwant an amd64 build", fn, err, out)
		}
		cmd := exec.Command("make", "--no-print-directory", "-C", "../..", fn)
		cmd.Env = append(os.Environ(), "ARTIFACTS_DIR=")
		out2, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out2), "ARTIFACTS_DIR is not set") {
			t.Errorf("%s without ARTIFACTS_DIR: %v\n%s\nwant a refusal naming ARTIFACTS_DIR", fn, err, out2)
		}
	}
	// make build is a person's command, never sam's: GOARCH as the person
	// types it, exported or on the command line, picks its architecture.
	for _, tc := range []struct {
		env, args []string
		want      string
	}{
		{nil, nil, "bin/arm64/"},
		{[]string{"GOARCH=amd64"}, nil, "bin/amd64/"},
		{nil, []string{"GOARCH=amd64"}, "bin/amd64/"},
	} {
		out, err := makeN(tc.env, append([]string{"build"}, tc.args...)...)
		if err != nil || !strings.Contains(out, "ARTIFACTS_DIR="+tc.want) || strings.Contains(out, "ARTIFACTS_DIR=bin/"+map[string]string{"bin/arm64/": "amd64", "bin/amd64/": "arm64"}[tc.want]) {
			t.Errorf("make build, env %v, args %v: %v\n%s\nwant %s", tc.env, tc.args, err, out, tc.want)
		}
	}
}

// The documents that name sam build's Makefile targets name every one of
// them: a function added to the template (the PreTraffic hook was) is added
// to the lists a reader follows.
func TestDocumentsListEveryBuildTarget(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"README.md", "docs/deploy.md", "docs/design.md"} {
		raw, err := os.ReadFile("../../" + doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), "build-CreatePlantFunction") {
			t.Errorf("%s no longer names the build targets; update this test's list of documents", doc)
			continue
		}
		for _, fn := range tpl.Functions() {
			if !strings.Contains(string(raw), "build-"+fn) {
				t.Errorf("%s lists sam build's Makefile targets without build-%s", doc, fn)
			}
		}
	}
}

// make fuzz and make test run each fuzz target for a count of executions
// unless told otherwise: a duration can end in Go 1.26's fuzz deadline race
// (golang/go#75804), a bare "context deadline exceeded" that fails CI on a
// busy machine with no failing input.
func TestFuzzRunsForACountNotAClock(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("make", "--no-print-directory", "-C", "../..", "-n", "fuzz")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FUZZTIME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n fuzz: %v\n%s", err, out)
	}
	runs := regexp.MustCompile(`-fuzztime (\S+)`).FindAllStringSubmatch(string(out), -1)
	if len(runs) == 0 {
		t.Fatalf("make -n fuzz runs no fuzz target:\n%s", out)
	}
	for _, r := range runs {
		if !regexp.MustCompile(`^[1-9][0-9]*x$`).MatchString(r[1]) {
			t.Errorf("make fuzz runs -fuzztime %s, want a count such as 20000x:\n%s", r[1], out)
		}
	}
}

// sam build hands make its whole environment, so a DEBUG_BUILD exported in
// the shell (left there by a debugging session) must not ship a debug
// build: only DEBUG_BUILD on make's command line makes one, or
// SAM_BUILD_MODE=debug, sam build's own debug mode, which samlocal sets for
// the function it debugs (make deploy runs sam without it:
// TestDeployHandsSamNoMakeVariables).
func TestDebugBuildOnlyFromTheCommandLine(t *testing.T) {
	t.Parallel()
	makeN := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command("make", append([]string{"--no-print-directory", "-C", "../..", "-n"}, args...)...)
		cmd.Env = append(makeEnv("DEBUG_BUILD", "DEBUG", "SAM_BUILD_MODE"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s (env %v): %v\n%s", strings.Join(args, " "), env, err, out)
		}
		return string(out)
	}
	shipped := regexp.MustCompile(`go build -tags lambda\.norpc -trimpath -ldflags='-s -w' -o x/bootstrap `)
	debug := regexp.MustCompile(`go build -tags lambda\.norpc -gcflags='all=-N -l' -o x/bootstrap `)
	for _, env := range [][]string{nil, {"DEBUG_BUILD=1"}} {
		if out := makeN(env, "build-CreatePlantFunction", "ARTIFACTS_DIR=x"); !shipped.MatchString(out) || debug.MatchString(out) {
			t.Errorf("build-CreatePlantFunction with env %v: want -trimpath and -s -w, no debug flags:\n%s", env, out)
		}
	}
	if out := makeN(nil, "build-CreatePlantFunction", "ARTIFACTS_DIR=x", "DEBUG_BUILD=1"); !debug.MatchString(out) || shipped.MatchString(out) {
		t.Errorf("build-CreatePlantFunction DEBUG_BUILD=1 on the command line: want the debug flags:\n%s", out)
	}
	if out := makeN(nil, "build-CreatePlantFunction", "ARTIFACTS_DIR=x", "DEBUG_BUILD="); !shipped.MatchString(out) || debug.MatchString(out) {
		t.Errorf("build-CreatePlantFunction DEBUG_BUILD= (empty) on the command line: want -trimpath and -s -w:\n%s", out)
	}
	// samlocal asks for a debug build as sam build's debug mode does,
	// with SAM_BUILD_MODE=debug in make's environment (localfn.Build).
	if out := makeN([]string{"SAM_BUILD_MODE=debug"}, "build-CreatePlantFunction", "ARTIFACTS_DIR=x"); !debug.MatchString(out) || shipped.MatchString(out) {
		t.Errorf("build-CreatePlantFunction with SAM_BUILD_MODE=debug: want the debug flags:\n%s", out)
	}
}

// make test installs no system package and never runs sudo, on any
// machine: every recipe line it would run (its prerequisites', chromium's and moto's
// included, and the fuzz sub-make's), as make -n prints them, names
// neither; nor do lint's steps. .ci/run installs what CI needs. lint's own
// recipe is left out: make -n runs a line that names $(MAKE) ("How the
// MAKE Variable Works"), and that line runs bin/preflight, which would
// judge the checkout with whatever build of it is there.
func TestMakeTestInstallsNoSystemPackage(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("make", "--no-print-directory", "-C", "../..", "-n", "-B", "test", "chromium", "moto", "lint-go", "lint-templates")
	cmd.Env = append(os.Environ(), "CI=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "go test -race") {
		t.Fatalf("make -n test printed no go test line: the check reads the wrong output\n%s", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		for _, word := range []string{"sudo", "apt-get", "apt ", "dnf ", "yum ", "brew ", "pip install", "pip3 install", "npm install -g"} {
			if strings.Contains(line, word) {
				t.Errorf("make test would run %q: %s", strings.TrimSpace(word), line)
			}
		}
	}
}

// make test runs the packages of RACE_FREE without -race, so each must give
// the detector nothing to watch: no go statement and no WaitGroup.Go in its
// code or its tests, and no import of what starts a server or a goroutine
// in the test process (a listener, httptest, the Runtime API, the
// emulators). What such a package calls that is concurrent (the IAM
// evaluator's workers, toolcache's logs across processes) is tested under
// -race in its own package.
func TestRaceFreePackages(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RACE_FREE := (.+)$`).FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatal("the Makefile has no RACE_FREE := line")
	}
	banned := []string{"net", "net/http/httptest",
		"github.com/plantstore/plantstore/samlocal/lambdaemu", "github.com/plantstore/plantstore/internal/lambdatest",
		"github.com/plantstore/plantstore/samlocal/dynamoemu", "github.com/plantstore/plantstore/internal/dynamotest",
		"github.com/plantstore/plantstore/samlocal/childproc", "github.com/plantstore/plantstore/samlocal/devserver",
		"github.com/plantstore/plantstore/samlocal/localfn", "github.com/plantstore/plantstore/samlocal/localserve",
		"github.com/plantstore/plantstore/samlocal/gateway"}
	for _, pkg := range strings.Fields(m[1]) {
		dir := filepath.Join("../..", pkg)
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Errorf("RACE_FREE names %s, which has no Go files", pkg)
		}
		for _, f := range files {
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); slices.Contains(banned, p) {
					t.Errorf("%s imports %s: a package that starts servers or goroutines runs under -race (take it out of RACE_FREE)", f, p)
				}
			}
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					t.Errorf("%s: a go statement: a package with goroutines runs under -race (take it out of RACE_FREE)", f)
				case *ast.SelectorExpr:
					if n.Sel.Name == "Go" {
						t.Errorf("%s: a call of .Go: a package with goroutines runs under -race (take it out of RACE_FREE)", f)
					}
				}
				return true
			})
		}
	}
}

// GNU make hands the variables of its command line to every make below it,
// through MAKEFLAGS in the environment ("Communicating Variables to a
// Sub-make"), and sam build runs `make build-<Function>` with its whole
// environment (aws-lambda-builders, workflows/custom_make/actions.py:
// CustomMakeAction.execute copies os.environ and adds ARTIFACTS_DIR). So
// `make deploy DEBUG_BUILD=1 GOARCH=amd64` must still ship what a bare
// sam build ships: a stand-in sam that builds as sam does (its make sees
// the environment that make deploy gave sam) prints each build.
func TestDeployHandsSamNoMakeVariables(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "builds")
	sam := `#!/bin/sh
# sam build: make build-<Function> with sam's environment and ARTIFACTS_DIR.
[ "$1" = build ] || exit 0
for f in CreatePlantFunction AuthorizerFunction PreTrafficFunction; do
  ARTIFACTS_DIR=x make -n --no-print-directory -C "` + root + `" build-$f >>"` + log + `" 2>&1 || exit 1
done
`
	if err := os.WriteFile(filepath.Join(bin, "sam"), []byte(sam), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"DEBUG_BUILD=1"}, {"GOARCH=amd64"}, {"DEBUG_BUILD=1", "GOARCH=amd64", "ENV=dev"}} {
		_ = os.Remove(log)
		cmd := exec.Command("make", append([]string{"--no-print-directory", "-C", root, "deploy"}, args...)...)
		cmd.Env = append(makeEnv("PATH"), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make deploy %v with a stand-in sam: %v\n%s", args, err, out)
		}
		raw, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("make deploy %v: the stand-in sam built nothing: %v", args, err)
		}
		builds := regexp.MustCompile(`GOARCH=(\w+) CGO_ENABLED=0 \S+ build -tags lambda\.norpc (.*) -o x/bootstrap `).FindAllStringSubmatch(string(raw), -1)
		if len(builds) != 3 {
			t.Fatalf("make deploy %v: sam's make printed %d builds, want 3:\n%s", args, len(builds), raw)
		}
		for _, b := range builds {
			if b[1] != "arm64" || b[2] != "-trimpath -ldflags='-s -w'" {
				t.Errorf("make deploy %v: sam build built GOARCH=%s with %s, want what ships (arm64, -trimpath -ldflags='-s -w')", args, b[1], b[2])
			}
		}
	}
}

// make run builds before the tool starts, and samlocal (make invoke,
// start-api and start-lambda) builds the functions with make, and go build
// prints the repository's file names as they are: a branch that names a
// file with ESC ]52 (write the clipboard) or a CSI sequence would have the
// reviewer's terminal obey it. Those builds reach the terminal through
// bin/escape or samlocal's own output (termsafe.Escape's rule). A stand-in go,
// which make's GO=... hands samlocal's make too, prints what go build
// prints for such a file and fails; every other go command it is handed is
// either the real one (bin/escape's, samlocal's and bin/token's builds, go
// env) or a pretended success (the tools' own builds, which never run here).
func TestBuildsBeforeAToolArePrintedEscaped(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	stub := filepath.Join(t.TempDir(), "go")
	script := `#!/bin/sh
case "$*" in
  env*|*./tools/cmd/escape*|*./samlocal/cmd/samlocal*|*./tools/cmd/token*) exec "` + goBin + `" "$@" ;;
  *./functions/*|*./cmd/localapi*) printf 'functions/createplant/\033]52;c;ZXZpbA==\007\302\233m.go:1:1: expected package\n' >&2; exit 1 ;;
  *) exit 0 ;;
esac
`
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"run", "invoke", "start-api", "start-lambda"} {
		cmd := exec.Command("make", "--no-print-directory", "-C", root, target, "GO="+stub)
		cmd.Env = makeEnv("DEBUG", "WATCH", "TRACE")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("make %s with a build that fails: exit 0\n%q", target, out)
		}
		if !strings.Contains(string(out), `\x1b]52;c;ZXZpbA==\a\u009bm.go`) {
			t.Errorf("make %s: the failed build's line is missing or not escaped:\n%q", target, out)
		}
		if i := strings.IndexFunc(string(out), func(r rune) bool { return r == 0x1b || r == 0x07 || r == 0x9b || r == utf8.RuneError }); i >= 0 {
			t.Errorf("make %s printed a control a terminal obeys at byte %d:\n%q", target, i, out)
		}
	}
}

// make lint skips cfn-lint (and gosec) when it passed before on the same
// inputs, and only then: a failure leaves no stamp, an edit to a template is
// another key, and PLANTSTORE_CACHE=off runs it whatever the stamps say. A
// stand-in cfn-lint on PATH counts its runs and exits as told.
func TestLintSkipsOnlyWhatPassedOnTheSameInputs(t *testing.T) {
	t.Parallel()
	root, bin, cache := t.TempDir(), t.TempDir(), t.TempDir()
	for _, f := range []string{"Makefile", "template.yaml", "pipeline/roles.yaml"} {
		raw, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs := filepath.Join(bin, "runs")
	if err := os.WriteFile(filepath.Join(bin, "cfn-lint"), []byte("#!/bin/sh\necho \"$*\" >>"+runs+"\nexit ${FAKE_RC:-0}\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		raw, _ := os.ReadFile(runs)
		return strings.Count(string(raw), "\n")
	}
	lint := func(env ...string) (string, error) {
		// The versions, which python would be asked, as the stand-in's.
		cmd := exec.Command("make", "--no-print-directory", "-C", root, "lint-templates", "CFN_VERSIONS=stand-in")
		cmd.Env = append(makeEnv("PATH", "PLANTSTORE_CACHE"), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CACHE_HOME="+cache)
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	stamps := func() int {
		m, _ := filepath.Glob(filepath.Join(cache, "plantstore", "lint-clean", "*"))
		return len(m)
	}
	steps := []struct {
		what    string
		env     []string
		edit    bool
		fails   bool
		runs    int // cfn-lint's runs in this step
		stamps  int // after it
		skipped int // lines that say a run was skipped
	}{
		{"cfn-lint fails", []string{"FAKE_RC=2"}, false, true, 1, 0, 0},
		{"it passes", nil, false, false, 2, 2, 0},
		{"the same inputs", nil, false, false, 0, 2, 2},
		{"PLANTSTORE_CACHE=off", []string{"PLANTSTORE_CACHE=off"}, false, false, 2, 2, 0},
		{"template.yaml edited", nil, true, false, 2, 4, 0},
	}
	for _, s := range steps {
		if s.edit {
			f, err := os.OpenFile(filepath.Join(root, "template.yaml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString("# an edit\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		before := count()
		out, err := lint(s.env...)
		if (err != nil) != s.fails {
			t.Fatalf("%s: make lint-templates: %v, want failure %v\n%s", s.what, err, s.fails, out)
		}
		if got := count() - before; got != s.runs {
			t.Errorf("%s: cfn-lint ran %d times, want %d\n%s", s.what, got, s.runs, out)
		}
		if got := stamps(); got != s.stamps {
			t.Errorf("%s: %d stamps, want %d", s.what, got, s.stamps)
		}
		if got := strings.Count(out, "(skipped: it passed before on the same inputs)"); got != s.skipped {
			t.Errorf("%s: %d runs said skipped, want %d\n%s", s.what, got, s.skipped, out)
		}
	}
}

// makeEnv is this process's environment for a make the test runs, without
// the variables a make above it passes down (MAKEFLAGS, MFLAGS, MAKELEVEL:
// make test runs these tests) and without those named.
func makeEnv(drop ...string) []string {
	drop = append(drop, "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !slices.Contains(drop, name) {
			env = append(env, kv)
		}
	}
	return env
}

// Where python3 is a pyenv shim, make test's environment puts the folder
// of the interpreter the shim would run (pyenv which python3) first on
// PATH, asking pyenv once per make run however often the recipes use it;
// where python3 is no shim, PATH is left alone. Stand-ins: a shim folder
// named as pyenv names it, and a pyenv that logs each question.
func TestTestsRunPythonPastPyenvShims(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	versionBin := filepath.Join(dir, ".pyenv", "versions", "3.11.7", "bin")
	asked := filepath.Join(dir, "asked")
	scripts := map[string]string{
		filepath.Join(dir, ".pyenv", "shims", "python3"): "#!/bin/sh\nexit 1\n",
		filepath.Join(dir, "plain", "python3"):           "#!/bin/sh\nexit 1\n",
		filepath.Join(dir, "bin", "pyenv"): fmt.Sprintf("#!/bin/sh\necho \"$*\" >>%q\n[ \"$*\" = 'which python3' ] && echo %q\n",
			asked, filepath.Join(versionBin, "python3")),
	}
	for path, text := range scripts {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testEnv := func(python string) string {
		t.Helper()
		// Two recipe lines, as make test's two phases: each expands TEST_ENV.
		cmd := exec.Command("make", "-s", "--no-print-directory", "-C", "../..",
			"--eval", "print-test-env: ; @echo '$(TEST_ENV)'; echo '$(TEST_ENV)' >/dev/null", "print-test-env")
		cmd.Env = append(makeEnv("PATH", "PY_BIN"), "PATH="+filepath.Join(dir, "bin")+":"+python+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make print-test-env: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if env := testEnv(filepath.Join(dir, ".pyenv", "shims")); !strings.Contains(" "+env+" ", " PATH="+versionBin+":$PATH ") {
		t.Errorf("python3 a pyenv shim: TEST_ENV = %s\nwant PATH=%s:$PATH in it", env, versionBin)
	}
	if log, _ := os.ReadFile(asked); string(log) != "which python3\n" {
		t.Errorf("one make run asked pyenv %q; want which python3, once", log)
	}
	if env := testEnv(filepath.Join(dir, "plain")); strings.Contains(" "+env, " PATH=") {
		t.Errorf("python3 no shim: TEST_ENV = %s\nwant PATH left alone", env)
	}
}
