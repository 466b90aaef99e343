package preflight

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"iter"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// The checks still gate (issue 41, class 6). One invariant, checked by its
// outcome: whatever .ci/run, the Makefile, the workflows or their
// environment say, the CI job runs the tests of every package of both
// modules, with no filter, and every lint step; any one of those checks
// failing fails the job; and nothing in it accepts the reviewed snapshot or
// the allowlist on a reviewer's behalf.
//
// CheckGate does not read those files for spellings: it runs the CI job.
// The run: steps of ci.yml's job that runs .ci/run are run in order, as
// GitHub runs them (`bash --noprofile --norc -eo pipefail`, the workflow's,
// job's and step's env:, what earlier steps wrote to $GITHUB_ENV and
// $GITHUB_PATH), on a copy of the repository, with the real make and bash.
// Every tool a check runs (go, gofmt, staticcheck, gosec, cfn-lint,
// actionlint, npm, pip, ...) is a stub that records its arguments and
// environment and passes; an unknown command is recorded the same way.
// Then:
//
//   - from the record: each package (GoPackage, from `go list ./...
//     ./tools/...`) is named by a `go test` with CI=true and no flag, in
//     its arguments or GOFLAGS, that selects or skips tests (go help
//     testflag: -run, -skip, -short, -list; -args, -c, -exec, -n, -tags and
//     any flag this rule does not know count as such); every lint step of
//     lintSteps ran; no check ran with UPDATE_PREFLIGHT set; the allowlist
//     and the reviewed snapshots are unchanged;
//   - then each check in turn is made to fail, and the job must fail: every
//     check called from a line with control flow (a loop, an if, a
//     background job) or from a script the workflow rules do not read, and
//     the first and the last check; a check on a plain line is one whose
//     failure those rules already prove ends the job (plainSite).
//
// The sources: GitHub's workflow syntax (jobs.<job_id>.steps[*].shell, env,
// continue-on-error) and "Workflow commands" (environment files); the bash
// manual ("The Set Builtin"); the GNU make manual ("Errors in Recipes");
// `go help testflag` and `go help environment` (GOFLAGS).
const (
	ruleChecksGate     = "checks-gate"
	ruleReviewerAccept = "reviewer-accepts"

	srcGate   = srcWorkflowSyntax + `; ` + srcBash + `; ` + srcMake + `; go help testflag, go help environment (GOFLAGS)`
	srcAccept = `this repository's rule: a person accepts the reviewed snapshot (make preflight-accept) and commits its diff for review; docs/security.md`
)

// GoPackage is one package of the repository's two modules: its import
// path, and its directory and its module's directory relative to the
// repository root ("." for the root), with slashes.
type GoPackage struct {
	ImportPath, Dir, Module string
}

// ListPackages are the packages of the modules under root as `go list
// ./... ./tools/...` names them (go help packages): each directory whose Go
// files, tests included, build for this platform (go/build), but testdata,
// node_modules and directories whose name starts with . or _; a directory
// with a go.mod starts another module.
func ListPackages(root string) ([]GoPackage, error) {
	var pkgs []GoPackage
	modules := map[string]string{} // module directory -> module path
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if name := d.Name(); rel != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if raw, err := os.ReadFile(filepath.Join(p, "go.mod")); err == nil {
			m := moduleLineRe.FindSubmatch(raw)
			if m == nil {
				return fmt.Errorf("%s/go.mod: no module line", rel)
			}
			modules[rel] = string(m[1])
		}
		mod := moduleOf(rel, maps.Keys(modules))
		if _, err := build.Default.ImportDir(p, 0); err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
		}
		ip := modules[mod]
		if sub := strings.TrimPrefix(strings.TrimPrefix(rel, mod), "/"); rel != mod {
			ip += "/" + sub
		}
		pkgs = append(pkgs, GoPackage{ImportPath: ip, Dir: rel, Module: mod})
		return nil
	})
	return pkgs, err
}

var moduleLineRe = regexp.MustCompile(`(?m)^module\s+(\S+)`)

// moduleOf is the module directory that holds dir: the longest of modules
// that is dir or a directory above it, "." when none is.
func moduleOf(dir string, modules iter.Seq[string]) string {
	best := "."
	for m := range modules {
		if m != "." && (dir == m || strings.HasPrefix(dir, m+"/")) && (best == "." || len(m) > len(best)) {
			best = m
		}
	}
	return best
}

// lintStep is one check of make lint, and how a recorded call is known as
// it.
type lintStep struct {
	what string
	is   func(gateCall) bool
}

// lintSteps are the checks `make lint` runs (the Makefile's lint target and
// its help line): each must run in CI.
var lintSteps = []lintStep{
	{"repocheck (go run ./tools/cmd/repocheck)", func(c gateCall) bool { return c.goSub() == "run" && slices.Contains(c.args, "./tools/cmd/repocheck") }},
	{"gofmt -l", func(c gateCall) bool { return c.name == "gofmt" && slices.Contains(c.args, "-l") }},
	{"go mod tidy -diff of the product module", func(c gateCall) bool { return c.goSub() == "mod" && c.dir() == "." && slices.Contains(c.args, "-diff") }},
	{"go mod tidy -diff of the tools module", func(c gateCall) bool {
		return c.goSub() == "mod" && c.dir() == "tools" && slices.Contains(c.args, "-diff")
	}},
	{"go vet of the product module alone", func(c gateCall) bool { return c.goSub() == "vet" && c.dir() == "." && c.env["GOWORK"] == "off" }},
	{"go vet of the tools module alone", func(c gateCall) bool { return c.goSub() == "vet" && c.dir() == "tools" && c.env["GOWORK"] == "off" }},
	{"go vet for darwin", func(c gateCall) bool { return c.goSub() == "vet" && c.env["GOOS"] == "darwin" }},
	{"go vet for windows", func(c gateCall) bool { return c.goSub() == "vet" && c.env["GOOS"] == "windows" }},
	{"staticcheck of both modules", func(c gateCall) bool {
		return c.name == "staticcheck" && slices.Contains(c.args, "./...") && slices.Contains(c.args, "./tools/...")
	}},
	{"gosec", func(c gateCall) bool { return c.name == "gosec" }},
	{"cfn-lint of both templates", func(c gateCall) bool {
		return c.name == "cfn-lint" && slices.Contains(c.args, "template.yaml") && slices.Contains(c.args, "pipeline/roles.yaml")
	}},
	{"actionlint", func(c gateCall) bool { return c.name == "actionlint" }},
	{"the deploy preflight (bin/preflight)", func(c gateCall) bool { return c.name == "preflight" }},
}

// stubbed are the tools the job's stubs stand for. Calls of the first
// group only ask or set up (their failure is not a check's verdict).
var (
	stubbedSetup  = []string{"git", "npm", "npx", "node", "python", "python3", "pip", "pip3", "sudo", "apt-get", "apt", "chromium", "chromium-browser", "google-chrome", "moto_server", "curl", "wget", "docker", "sam", "aws", "dlv"}
	stubbedChecks = []string{"go", "gofmt", "staticcheck", "gosec", "cfn-lint", "actionlint", "preflight"}
	goSetup       = []string{"list", "env", "version", "build", "install", "mod download"}
)

// hostTools are the ordinary commands the job may run for real: the shell,
// make and the file utilities; no network client, interpreter or compiler.
var hostTools = []string{"bash", "sh", "make", "mkdir", "chmod", "rm", "rmdir", "mktemp", "grep", "egrep", "tail", "head", "cat", "touch", "ls", "awk", "sed", "sort", "uniq", "tr", "id", "dirname", "basename", "env", "sleep", "wc", "cut", "tee", "xargs", "find", "cp", "mv", "ln", "uname", "date", "readlink", "realpath", "expr", "seq", "stat", "diff", "cmp", "tar", "gzip", "sha256sum", "which", "nproc", "timeout", "true", "false", "printf", "test"}

// protectedFiles are what only a reviewer's own commit may change.
var protectedFiles = []string{AllowlistFile, "tools/preflight/testdata"}

// gateStubs is the stubs' shell code, handed to every bash the job starts as
// exported functions (BASH_FUNC_name%%), so that recipes and scripts call
// them by name. A call appends one record to $PREFLIGHT_GATE_LOG: the
// command and its arguments joined by \x1f, then the variables that change
// what a check does, then the directory. The call whose record is
// $PREFLIGHT_GATE_FAIL fails. `go list` answers from $PREFLIGHT_GATE_PKGS
// with go's pattern rules (go help packages: ./... stops at a nested
// module); go build writes its output as a stub of the command it names, go install into GOBIN likewise; npm ci makes
// node_modules/.bin.
var gateStubs = map[string]string{
	"__gate": `() { local name=$1; shift; local rec=$name a site pid=${PREFLIGHT_GATE_PPID:-$$} line=${BASH_LINENO[1]-0}; local -a argv
  for a in "$@"; do rec+=$'\x1f'"$a"; done
  rec=${rec//$'\n'/ }
  if [[ ${PREFLIGHT_GATE_PPID-} ]]; then line=0; fi
  mapfile -d '' -t argv < /proc/$pid/cmdline 2>/dev/null || argv=("$rec")
  local IFS=$'\x1e'; site="$line"$'\x1e'"${argv[*]}"; IFS=$' \t\n'; site=${site//$'\t'/$'\x1c'}; site=${site//$'\n'/$'\x1d'}
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rec" "${GOFLAGS-}" "${GOOS-}" "${GOWORK-}" "${CI-}" "${UPDATE_PREFLIGHT-}" "${MAKEFLAGS-}" "$PWD" "$site" >> "$PREFLIGHT_GATE_LOG"
  if [[ $rec == "${PREFLIGHT_GATE_FAIL-}" ]]; then echo "FAIL (preflight: this check fails on purpose)" >&2; return 1; fi
  case $name in
  go) __gate_go "$@";;
  npm) if [[ ${1-} == ci ]]; then mkdir -p node_modules/.bin; fi;;
  esac
  return 0
}`,
	"__gate_go": `() { local dir=$PWD a out= prev=
  while [[ ${1-} == -C ]]; do dir=$dir/$2; shift 2; done
  case ${1-} in
  list) shift; __gate_list "$dir" "$@";;
  env) case ${2-} in GOHOSTARCH|GOARCH) echo amd64;; GOHOSTOS|GOOS) echo linux;; GOPATH) echo "$HOME/go";; esac;;
  test) if [[ " $* " == *" -fuzz"* ]]; then echo "fuzz: elapsed: 0s, execs: 1 (1/sec)"; fi; echo ok;;
  build|install)
    for a in "$@"; do if [[ $prev == -o ]]; then out=$a; fi; prev=$a; done
    if [[ -n $out ]]; then mkdir -p "${out%/*}"; printf '#!/bin/bash\nPREFLIGHT_GATE_PPID=$PPID __gate %s "$@"\n' "${out##*/}" > "$out"; chmod +x "$out"; fi
    if [[ $1 == install && -n ${GOBIN-} ]]; then a=${*: -1}; a=${a%@*}; a=${a##*/}; mkdir -p "$GOBIN"
      printf '#!/bin/bash\nPREFLIGHT_GATE_PPID=$PPID __gate %s "$@"\n' "$a" > "$GOBIN/$a"; chmod +x "$GOBIN/$a"; fi;;
  esac
}`,
	"__gate_list": `() { local - cwd=${1#"$PREFLIGHT_GATE_ROOT"} p all base bm cm line ip d m seen=' ' IFS=$'\n'; local -a table
  shift; cwd=${cwd#/}; cwd=${cwd:-.}
  set -f; table=($PREFLIGHT_GATE_PKGS); IFS=$' \t\n'
  __gate_mod "$cwd"; cm=$REPLY
  for p; do
    case $p in -*|*'{{'*) continue;; esac
    all=; if [[ $p == ... || $p == */... ]]; then all=1; p=${p%...}; p=${p%/}; p=${p:-.}; fi
    base=
    if [[ $p == . || $p == ./* ]]; then p=${p#.}; p=${p#/}; if [[ $cwd == . ]]; then base=${p:-.}; else base=$cwd${p:+/$p}; fi; fi
    __gate_mod "$base"; bm=$REPLY
    for line in "${table[@]}"; do
      ip=${line%%$'\t'*}; m=${line#*$'\t'}; d=${m%%$'\t'*}; m=${m#*$'\t'}
      if [[ -n $base ]]; then
        if [[ $all ]]; then [[ ($base == . || $d == "$base" || $d == "$base"/*) && $m == "$bm" ]] || continue
        else [[ $d == "$base" ]] || continue; fi
      else
        if [[ $all ]]; then [[ $ip == "$p" || $ip == "$p"/* ]] || continue; else [[ $ip == "$p" ]] || continue; fi
      fi
      if [[ ${GOWORK-} == off && $m != "$cm" ]]; then continue; fi
      if [[ $seen != *" $ip "* ]]; then seen+="$ip "; echo "$ip"; fi
    done
  done
}`,
	"__gate_mod": `() { local m; REPLY=.
  for m in $PREFLIGHT_GATE_MODS; do if [[ $1 == "$m" || $1 == "$m"/* ]]; then REPLY=$m; fi; done
}`,
	"command_not_found_handle": `() { __gate "$@"; }`,
}

// gateCall is one recorded call of a stub.
type gateCall struct {
	name string
	args []string
	env  map[string]string // GOFLAGS, GOOS, GOWORK, CI, UPDATE_PREFLIGHT, MAKEFLAGS
	cwd  string            // relative to the copy's root
	rec  string            // the record's command part, as the stub compares it
	site string            // where it was called: the line, then the calling shell's arguments (\x1e between them)
}

// dir is the directory a go call works in: its cwd changed by -C.
func (c gateCall) dir() string {
	d := c.cwd
	for a := c.args; len(a) > 1 && a[0] == "-C"; a = a[2:] {
		d = filepath.ToSlash(filepath.Clean(filepath.Join(d, a[1])))
	}
	return d
}

// goArgs are a go call's arguments after its -C flags.
func (c gateCall) goArgs() []string {
	a := c.args
	for len(a) > 1 && a[0] == "-C" {
		a = a[2:]
	}
	return a
}

func (c gateCall) goSub() string {
	if c.name != "go" || len(c.goArgs()) == 0 {
		return ""
	}
	return c.goArgs()[0]
}

// isCheck says whether the call's failure is a check's verdict.
func (c gateCall) isCheck() bool {
	if slices.Contains(stubbedSetup, c.name) {
		return false
	}
	if c.name == "go" {
		a := strings.Join(c.goArgs(), " ")
		return !slices.ContainsFunc(goSetup, func(s string) bool { return a == s || strings.HasPrefix(a, s+" ") })
	}
	return true
}

// testFlags are go test's flags (go help testflag, go help build) that
// neither select nor skip tests, with whether each takes a value.
var testFlags = map[string]bool{
	"count": true, "race": false, "v": false, "timeout": true, "p": true, "parallel": true, "json": false,
	"failfast": false, "shuffle": true, "cover": false, "covermode": true, "coverprofile": true, "coverpkg": true,
	"mod": true, "trimpath": false, "buildvcs": true, "cpu": true, "benchmem": false, "bench": true, "benchtime": true,
	"x": false, "work": false, "a": false, "vet": true, "outputdir": true, "cpuprofile": true, "memprofile": true,
	"blockprofile": true, "mutexprofile": true, "trace": true, "ldflags": true, "gcflags": true, "fullpath": false,
}

// valueFlags are the other flags that take a value, so that their value is
// not read as a package.
var valueFlags = []string{"run", "skip", "list", "exec", "o", "tags", "fuzz", "fuzztime", "fuzzminimizetime", "toolexec", "overlay", "modfile", "pkgdir", "asmflags", "pgo", "memprofilerate", "blockprofilerate", "mutexprofilefraction"}

// testSelection parses a go test call: the patterns it tests and the flags
// (its own, then GOFLAGS') that select or skip tests.
func testSelection(c gateCall) (patterns, filters []string) {
	args := c.goArgs()[1:]
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "-args" {
			filters = append(filters, "-args "+strings.Join(args[i+1:], " "))
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			patterns = append(patterns, w)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		name = strings.TrimPrefix(name, "test.")
		takes, known := testFlags[name]
		if !hasValue && (takes || slices.Contains(valueFlags, name)) && i+1 < len(args) {
			i++
			w += " " + args[i]
		}
		if !known {
			filters = append(filters, w)
		}
	}
	for _, w := range strings.Fields(c.env["GOFLAGS"]) {
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if _, known := testFlags[strings.TrimPrefix(name, "test.")]; !known {
			filters = append(filters, w+" (GOFLAGS)")
		}
	}
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	return patterns, filters
}

// matchPackages is go's reading of patterns in directory cwd (go help
// packages): ./x/... is x and the directories under it in x's module,
// ./x is that directory, other patterns are import paths (with /...).
// With GOWORK=off only the module of cwd counts.
func matchPackages(pkgs []GoPackage, cwd string, gowork string, patterns []string) []string {
	modules := map[string]bool{}
	for _, p := range pkgs {
		modules[p.Module] = true
	}
	cwdModule := moduleOf(cwd, maps.Keys(modules))
	var out []string
	for _, pat := range patterns {
		all := pat == "..." || strings.HasSuffix(pat, "/...")
		p := strings.TrimSuffix(strings.TrimSuffix(pat, "..."), "/")
		if p == "" {
			p = "."
		}
		local := p == "." || strings.HasPrefix(p, "./") || p == ".." || strings.HasPrefix(p, "../")
		base := filepath.ToSlash(filepath.Clean(filepath.Join(cwd, p)))
		baseModule := moduleOf(base, maps.Keys(modules))
		for _, pk := range pkgs {
			var ok bool
			switch {
			case local && all:
				ok = (base == "." || pk.Dir == base || strings.HasPrefix(pk.Dir, base+"/")) && pk.Module == baseModule
			case local:
				ok = pk.Dir == base
			case all:
				ok = pk.ImportPath == p || strings.HasPrefix(pk.ImportPath, p+"/")
			default:
				ok = pk.ImportPath == p
			}
			if ok && (gowork != "off" || pk.Module == cwdModule) && !slices.Contains(out, pk.ImportPath) {
				out = append(out, pk.ImportPath)
			}
		}
	}
	return out
}

// runsChecks says whether a job is the checks job: a step of it runs
// `bash .ci/run`.
func runsChecks(j job) bool {
	return slices.ContainsFunc(j.Steps, func(s step) bool {
		return slices.ContainsFunc(topCalls(s.Run), func(a []string) bool { return len(a) >= 2 && a[0] == "bash" && a[1] == ".ci/run" })
	})
}

// CheckGate runs ci.yml's checks job, as the comment above says, on a copy
// of the repository at root, and answers a Finding for each broken part of
// the invariant. pkgs are the packages of both modules (ListPackages);
// failEach also makes each check fail in turn, which costs a run each. An
// error is a failure to set the run up (no bash or make on this machine, a
// copy that cannot be written).
func CheckGate(ctx context.Context, root string, pkgs []GoPackage, failEach bool) ([]Finding, error) {
	return checkGate(ctx, root, pkgs, failEach, true)
}

// checkGate is CheckGate; without copy it runs the job in root itself,
// which must then be a copy the caller throws away.
func checkGate(ctx context.Context, root string, pkgs []GoPackage, failEach, copy bool) ([]Finding, error) {
	wfs, err := loadWorkflows(filepath.Join(root, ".github", "workflows"))
	if err != nil {
		return nil, err
	}
	c := &wfChecker{root: root, wfs: wfs}
	w := c.workflow("ci.yml")
	var ci *job
	if w != nil {
		for _, name := range w.order {
			if j := w.Jobs[name]; runsChecks(j) {
				ci = &j
				break
			}
		}
	}
	if ci == nil {
		return []Finding{{Where: ".github/workflows/ci.yml", Rule: ruleChecksGate + " (" + srcGate + "): no job runs `bash .ci/run`, so CI runs none of the checks", Fix: "keep the job whose step runs `bash .ci/run`"}}, nil
	}
	where := w.where(*ci)
	r, err := newGateRun(root, pkgs, copy)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(r.tmp)
	before, err := r.protectedSums()
	if err != nil {
		return nil, err
	}
	calls, out, err := r.job(ctx, w, *ci, "")
	if err != nil {
		return nil, err
	}
	if out != "" {
		return []Finding{gateFinding(where, "with every check passing, the job fails ("+squeeze(out, 160)+"): its checks cannot be known to run", "make the job pass when its checks pass")}, nil
	}
	var fs []Finding
	fs = append(fs, coverage(where, calls, pkgs)...)
	for _, s := range lintSteps {
		if !slices.ContainsFunc(calls, s.is) {
			fs = append(fs, gateFinding(where, "the job no longer runs the lint step "+s.what, "run it in make lint, as the Makefile's lint target says"))
		}
	}
	for _, call := range calls {
		if call.env["UPDATE_PREFLIGHT"] != "" {
			fs = append(fs, Finding{Where: where, Rule: ruleReviewerAccept + " (" + srcAccept + "): `" + squeeze(strings.Join(append([]string{call.name}, call.args...), " "), 60) + "` runs with UPDATE_PREFLIGHT set: CI would rewrite the reviewed snapshot and accept the change itself", Fix: "never set UPDATE_PREFLIGHT or run make preflight-accept in CI; a person runs it and commits the diff"})
			break
		}
	}
	after, err := r.protectedSums()
	if err != nil {
		return nil, err
	}
	for f, sum := range after {
		if before[f] != sum {
			fs = append(fs, Finding{Where: where, Rule: ruleReviewerAccept + " (" + srcAccept + "): the job writes " + f + ", which only a reviewer's own commit may change", Fix: "remove the step that writes it"})
		}
	}
	if len(fs) > 0 {
		return fs, nil
	}
	if !failEach {
		return nil, nil
	}
	// Each check fails in turn; the job must fail. One call of each kind
	// from each place that calls it (the fuzz loop's runs are one), taken
	// from both ends so that an edit near either end is found early. A
	// check on a plain line (plainSite) is left to the workflow rules but
	// for the first and the last, which prove the layers above every line.
	var all []gateCall
	for _, call := range calls {
		if call.isCheck() {
			all = append(all, call)
		}
	}
	var checks, sites []string
	for i, call := range all {
		site := call.name + " " + call.goSub() + " " + call.site
		if !slices.Contains(sites, site) && (i == 0 || i == len(all)-1 || !r.plainSite(call)) {
			checks, sites = append(checks, call.rec), append(sites, site)
		}
	}
	for i, j := 0, len(checks)-1; i <= j; i, j = i+1, j-1 {
		for _, k := range []int{i, j}[:min(2, j-i+1)] {
			_, out, err := r.job(ctx, w, *ci, checks[k])
			if err != nil {
				return nil, err
			}
			if out == "" {
				what := strings.ReplaceAll(checks[k], "\x1f", " ")
				return []Finding{gateFinding(where, "when `"+squeeze(what, 70)+"` fails, the job still passes: a failing check no longer fails the run",
					"find what hides its status (|| true, an if without exit 1, set +e, continue-on-error, make -i, a - prefix, a loop that ignores it) and let the failure end the run")}, nil
			}
		}
	}
	return nil, nil
}

// plainSite says whether a check was called from a line whose failure the
// workflow rules already prove fails the job: a recipe line of the Makefile
// (make runs it as bash -c), a line of .ci/run or of a run: step, whose
// statements are all plain commands or pipes (no if, loop, case, function,
// block, subshell, && or ||, !, &), one of them the check itself, not
// inside a substitution. Such a line is read by the makefile-errors,
// neutralised-check and ci-run rules, with the layers above it; GNU make
// ("Errors in Recipes") and bash -e fail it when the check fails. A line
// with control flow, or of a script those rules do not read, is run.
func (r *gateRun) plainSite(call gateCall) bool {
	lineText, rest, _ := strings.Cut(call.site, "\x1e")
	line, err := strconv.Atoi(lineText)
	argv := strings.Split(strings.NewReplacer("\x1c", "\t", "\x1d", "\n").Replace(rest), "\x1e")
	if err != nil || len(argv) < 2 {
		return false
	}
	var src string
	if i := slices.Index(argv, "-c"); i > 0 && i+1 < len(argv) {
		src = argv[i+1]
	} else {
		file := argv[len(argv)-1]
		if !filepath.IsAbs(file) {
			file = filepath.Join(r.repo, call.cwd, file)
		}
		if rel, err := filepath.Rel(r.repo, file); err != nil || (rel != filepath.Join(".ci", "run") && filepath.Dir(file) != r.tmp) {
			return false
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			return false
		}
		src = string(raw)
	}
	f, err := parseShell(src, "")
	if err != nil {
		return false
	}
	named := false
	for _, st := range f.Stmts {
		if line > 0 && (int(st.Pos().Line()) > line || int(st.End().Line()) < line) {
			continue // line 0: a stub run by its path, whose caller's line is unknown
		}
		if st.Negated || st.Background || st.Coprocess {
			return false
		}
		parts := []*syntax.Stmt{st}
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok {
			if b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
				return false
			}
			parts = shFlatten(st)
		}
		for _, p := range parts {
			c, ok := p.Cmd.(*syntax.CallExpr)
			if !ok {
				return false
			}
			a := shWords(c.Args)
			if len(a) > 0 && filepath.Base(a[0]) == call.name {
				named = true
			} else if len(a) > 0 && callsInSubstitution(c, call.name) {
				return false
			}
		}
	}
	return named
}

// callsInSubstitution says whether a command runs name in a command or
// process substitution of its arguments, whose status it does not pass on.
func callsInSubstitution(c *syntax.CallExpr, name string) bool {
	found := false
	for _, w := range c.Args {
		syntax.Walk(w, func(n syntax.Node) bool {
			if in, ok := n.(*syntax.CallExpr); ok {
				if a := shWords(in.Args); len(a) > 0 && filepath.Base(a[0]) == name {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

func gateFinding(where, what, fix string) Finding {
	return Finding{Where: where, Rule: ruleChecksGate + " (" + srcGate + "): " + what, Fix: fix}
}

// coverage: every package is tested by a go test with CI=true and no
// filter.
func coverage(where string, calls []gateCall, pkgs []GoPackage) []Finding {
	full := map[string]bool{}
	why := map[string]string{}
	for _, c := range calls {
		if c.goSub() != "test" {
			continue
		}
		patterns, filters := testSelection(c)
		if slices.ContainsFunc(filters, func(f string) bool { return strings.HasPrefix(strings.TrimLeft(f, "-"), "fuzz") }) {
			continue // a fuzz run, which make test adds to the tests
		}
		reason := ""
		switch {
		case len(filters) > 0:
			reason = "their go test has " + strings.Join(filters, " ") + ", which selects or skips tests"
		case c.env["CI"] != "true":
			reason = "their go test runs without CI=true, where tests that need moto, dynalite or node skip instead of failing"
		}
		for _, p := range matchPackages(pkgs, c.dir(), c.env["GOWORK"], patterns) {
			if reason == "" {
				full[p] = true
			} else if why[p] == "" {
				why[p] = reason
			}
		}
	}
	var missing []string
	reason := ""
	for _, p := range pkgs {
		if !full[p.ImportPath] {
			missing = append(missing, p.Dir)
			if reason == "" {
				reason = cmp.Or(why[p.ImportPath], "no go test names them")
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	list := strings.Join(missing[:min(3, len(missing))], ", ")
	if len(missing) > 3 {
		list += fmt.Sprintf(" and %d more", len(missing)-3)
	}
	return []Finding{gateFinding(where, fmt.Sprintf("%d of the %d packages (%s) are not fully tested in CI: %s", len(missing), len(pkgs), list, reason),
		"run every package's tests in make test (go test ./... ./tools/...), with no -run, -skip or -short in the Makefile, .ci/run, GOFLAGS or the workflow's env")}
}

// gateRun is the copy of the repository and the stubs one CheckGate uses.
type gateRun struct {
	tmp, repo, bin, home string
	env                  map[string]string // the stubs and the runner's defaults
}

func newGateRun(root string, pkgs []GoPackage, copy bool) (*gateRun, error) {
	for _, t := range []string{"bash", "make"} {
		if _, err := exec.LookPath(t); err != nil {
			return nil, fmt.Errorf("the checks gate runs CI's job with %s: %w", t, err)
		}
	}
	tmp, err := os.MkdirTemp("", "preflight-gate-")
	if err != nil {
		return nil, err
	}
	if t, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = t
	}
	r := &gateRun{tmp: tmp, repo: filepath.Join(tmp, "repo"), bin: filepath.Join(tmp, "bin"), home: filepath.Join(tmp, "home")}
	if !copy {
		if r.repo, err = filepath.EvalSymlinks(root); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
	} else if err := copyRepository(root, r.repo); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	for _, d := range []string{r.bin, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
	}
	for _, t := range hostTools {
		if p, err := exec.LookPath(t); err == nil {
			_ = os.Symlink(p, filepath.Join(r.bin, t))
		}
	}
	// Stub files beside the functions, for a caller that execs a tool by
	// its path or from a shell other than bash.
	for _, t := range append(slices.Clone(stubbedSetup), stubbedChecks...) {
		if err := os.WriteFile(filepath.Join(r.bin, t), []byte("#!/bin/bash\nPREFLIGHT_GATE_PPID=$PPID __gate "+t+" \"$@\"\n"), 0o755); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
	}
	var table strings.Builder
	modules := map[string]bool{}
	for _, p := range pkgs {
		fmt.Fprintf(&table, "%s\t%s\t%s\n", p.ImportPath, p.Dir, p.Module)
		if p.Module != "." {
			modules[p.Module] = true
		}
	}
	r.env = map[string]string{
		"PATH": r.bin, "HOME": r.home, "LANG": "C.UTF-8", "USER": "runner",
		// GitHub's default variables ("Variables reference").
		"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "RUNNER_OS": "Linux",
		"GITHUB_WORKSPACE": r.repo, "RUNNER_TEMP": tmp,
		"PREFLIGHT_GATE_ROOT": r.repo, "PREFLIGHT_GATE_PKGS": table.String(),
		"PREFLIGHT_GATE_MODS": strings.Join(slices.Sorted(maps.Keys(modules)), " "),
	}
	for name, body := range gateStubs {
		r.env["BASH_FUNC_"+name+"%%"] = body
	}
	for _, t := range append(slices.Clone(stubbedSetup), stubbedChecks...) {
		r.env["BASH_FUNC_"+t+"%%"] = "() { __gate " + t + " \"$@\"; }"
	}
	return r, nil
}

// copyRepository copies what the job can read: every file but Go sources
// and the untracked outputs (.git, .bin, bin, node_modules, .aws-sam). A
// file over 256 KiB (a schema, a picture, the access snapshot) is copied
// only under tools/preflight/ (the protected files); elsewhere it is left
// empty, since only the tools a stub stands for read such data.
func copyRepository(root, dst string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if slices.Contains([]string{".git", ".bin", "bin", "node_modules", ".aws-sam", ".plantstore"}, rel) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".test") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var raw []byte
		if info.Size() <= 256<<10 || strings.HasPrefix(filepath.ToSlash(rel), "tools/preflight/") {
			if raw, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		return os.WriteFile(filepath.Join(dst, rel), raw, info.Mode().Perm())
	})
}

// protectedSums hashes the protected files of the copy.
func (r *gateRun) protectedSums() (map[string][32]byte, error) {
	sums := map[string][32]byte{}
	for _, f := range protectedFiles {
		err := filepath.WalkDir(filepath.Join(r.repo, f), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			raw, err := os.ReadFile(p)
			rel, _ := filepath.Rel(r.repo, p)
			sums[filepath.ToSlash(rel)] = sha256.Sum256(raw)
			return err
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return sums, nil
}

// job runs the run: steps of job j of w in order, the call whose record is
// fail failing, and returns the calls recorded and, when the job fails, the
// end of the failing step's output ("" when the job passes).
func (r *gateRun) job(ctx context.Context, w *workflow, j job, fail string) ([]gateCall, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	log := filepath.Join(r.tmp, "calls.log")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		return nil, "", err
	}
	env := maps.Clone(r.env)
	env["PREFLIGHT_GATE_LOG"] = log
	env["PREFLIGHT_GATE_FAIL"] = fail
	_, top := yamlEntry(w.root, "env")
	_, jenv := yamlEntry(j.node, "env")
	for _, m := range []*yaml.Node{top, jenv} {
		for k := 0; m != nil && m.Kind == yaml.MappingNode && k+1 < len(m.Content); k += 2 {
			env[m.Content[k].Value] = runScript(m.Content[k+1].Value)
		}
	}
	var paths []string
	failed := ""
	for i, s := range j.Steps {
		if s.Run == "" {
			continue
		}
		script := filepath.Join(r.tmp, fmt.Sprintf("step%d.sh", i))
		files := map[string]string{}
		for _, f := range []string{"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
			files[f] = filepath.Join(r.tmp, fmt.Sprintf("%s.%d", strings.ToLower(f), i))
			if err := os.WriteFile(files[f], nil, 0o644); err != nil {
				return nil, "", err
			}
		}
		if err := os.WriteFile(script, []byte(runScript(s.Run)), 0o644); err != nil {
			return nil, "", err
		}
		stepEnv := maps.Clone(env)
		for k, v := range s.Env {
			stepEnv[k] = runScript(v)
		}
		for f, p := range files {
			stepEnv[f] = p
		}
		stepEnv["PATH"] = strings.Join(append(slices.Clone(paths), env["PATH"]), ":")
		cmd := exec.CommandContext(ctx, filepath.Join(r.bin, "bash"), "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = r.repo
		if wd := cmp.Or(j.Defaults.Run.WorkingDirectory, w.Defaults.Run.WorkingDirectory); wd != "" {
			cmd.Dir = filepath.Join(r.repo, wd)
		}
		if wd := s.WorkingDirectory; wd != "" {
			cmd.Dir = filepath.Join(r.repo, wd)
		}
		for _, k := range slices.Sorted(maps.Keys(stepEnv)) {
			cmd.Env = append(cmd.Env, k+"="+stepEnv[k])
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.WaitDelay = time.Second
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return nil, "", fmt.Errorf("the checks job did not end in time: %w", ctx.Err())
			}
			tail := strings.TrimSpace(out.String())
			if k := strings.LastIndex(tail, "\n"); k >= 0 {
				tail = tail[k+1:]
			}
			failed = fmt.Sprintf("step %d %q: %v: %s", i+1, s.name(), err, tail)
			break
		}
		// GitHub reads the environment files after the step
		// ("Workflow commands", GITHUB_ENV and GITHUB_PATH).
		raw, _ := os.ReadFile(files["GITHUB_ENV"])
		lines := strings.Split(string(raw), "\n")
		for k := 0; k < len(lines); k++ {
			if name, delim, ok := strings.Cut(lines[k], "<<"); ok && !strings.Contains(name, "=") {
				var v []string
				for k++; k < len(lines) && lines[k] != delim; k++ {
					v = append(v, lines[k])
				}
				env[name] = strings.Join(v, "\n")
			} else if name, v, ok := strings.Cut(lines[k], "="); ok {
				env[name] = v
			}
		}
		raw, _ = os.ReadFile(files["GITHUB_PATH"])
		for _, p := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if p != "" {
				paths = append([]string{p}, paths...)
			}
		}
	}
	calls, err := r.calls(log)
	return calls, failed, err
}

// calls reads the stubs' records.
func (r *gateRun) calls(log string) ([]gateCall, error) {
	raw, err := os.ReadFile(log)
	if err != nil {
		return nil, err
	}
	var out []gateCall
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 9 {
			continue
		}
		words := strings.Split(f[0], "\x1f")
		cwd, _ := filepath.Rel(r.repo, f[7])
		out = append(out, gateCall{
			name: words[0], args: words[1:], rec: f[0], cwd: filepath.ToSlash(cwd), site: f[8],
			env: map[string]string{"GOFLAGS": f[1], "GOOS": f[2], "GOWORK": f[3], "CI": f[4], "UPDATE_PREFLIGHT": f[5], "MAKEFLAGS": f[6]},
		})
	}
	return out, nil
}

// ---- the parts read from the files ----

// gateFiles are the rules of the invariant that need no run: ci.yml runs on
// every change, the checks' environment is in the files, and no workflow,
// .ci/run or Makefile recipe accepts the snapshot for a reviewer.
//
//   - A pull_request or push trigger of ci.yml with paths or paths-ignore
//     lets a change to the other paths merge unchecked (workflow syntax,
//     on.<push|pull_request>.<paths|paths-ignore>); types without
//     synchronize skip the checks of a pull request's later commits
//     (on.pull_request.types; the default is opened, synchronize, reopened).
//   - The env: of ci.yml and of its checks job and steps holds literal
//     values: a ${{ }} there is set in the repository's settings, outside
//     review, and could turn off what the job runs (GOFLAGS, MAKEFLAGS);
//     github.token is the exception.
func (c *wfChecker) gateFiles() {
	w := c.workflow("ci.yml")
	if w != nil {
		for _, t := range w.triggers() {
			if t.event != "push" && t.event != "pull_request" {
				continue
			}
			where := fmt.Sprintf(".github/workflows/ci.yml:%d on.%s", t.line, t.event)
			for _, k := range []string{"paths", "paths-ignore"} {
				if _, v := yamlEntry(t.cfg, k); v != nil {
					c.add(where, ruleChecksGate, srcWorkflowSyntax+`, "on.<push|pull_request>.<paths|paths-ignore>"`,
						"`"+k+"` lets a change outside "+strings.Join(yamlScalars(v), ", ")+" merge without the checks (the tests read docs, configs and templates too)", "remove "+k)
				}
			}
			if _, v := yamlEntry(t.cfg, "types"); v != nil && t.event == "pull_request" && !slices.Contains(yamlScalars(v), "synchronize") {
				c.add(where, ruleChecksGate, srcWorkflowSyntax+`, "on.pull_request.types"`,
					"types without synchronize: a pull request's later commits are not checked", "remove types (the default includes synchronize)")
			}
		}
		_, top := yamlEntry(w.root, "env")
		c.literalEnv(w.whereTop("env"), top)
		for _, name := range w.order {
			j := w.Jobs[name]
			if !runsChecks(j) {
				continue
			}
			_, jenv := yamlEntry(j.node, "env")
			c.literalEnv(w.where(j), jenv)
			_, steps := yamlEntry(j.node, "steps")
			for i := range j.Steps {
				if steps != nil && i < len(steps.Content) {
					_, senv := yamlEntry(steps.Content[i], "env")
					c.literalEnv(w.whereStep(j, i), senv)
				}
			}
		}
	}
	for _, w := range c.wfs {
		walkYAML(w.root, func(m *yaml.Node) {
			if key, _ := yamlEntry(m, "UPDATE_PREFLIGHT"); key != nil {
				c.add(fmt.Sprintf(".github/workflows/%s:%d env UPDATE_PREFLIGHT", w.file, key.Line), ruleReviewerAccept, srcAccept,
					"UPDATE_PREFLIGHT makes the preflight rewrite the reviewed snapshot instead of comparing with it", "remove it: a person runs make preflight-accept and commits the diff")
			}
		})
	}
	for _, s := range c.scripts() {
		if strings.HasSuffix(s.where, "target preflight-accept") {
			continue // the target itself, which a person runs
		}
		c.acceptsForReviewer(s)
	}
}

// literalEnv refuses an env: value set outside the file.
func (c *wfChecker) literalEnv(where string, n *yaml.Node) {
	for k := 0; n != nil && n.Kind == yaml.MappingNode && k+1 < len(n.Content); k += 2 {
		v := n.Content[k+1].Value
		for _, e := range exprRe.FindAllString(v, -1) {
			if isJobToken(e) {
				continue
			}
			c.add(where+" env "+n.Content[k].Value, ruleChecksGate, srcWorkflowSyntax+`, "env"; `+`go help environment (GOFLAGS)`,
				"`"+e+"` reaches the checks from the repository's settings, outside review: it can change what they run", "give it a literal value in the file")
		}
	}
}

// isJobToken says whether an expression is the job's own token.
func isJobToken(e string) bool {
	e = strings.Join(strings.Fields(strings.Trim(e, "${}")), "")
	return e == "github.token" || e == "secrets.GITHUB_TOKEN"
}

// acceptsForReviewer: a script runs no `make preflight-accept`, sets no
// UPDATE_PREFLIGHT, and writes nothing to the allowlist or the reviewed
// snapshots.
func (c *wfChecker) acceptsForReviewer(s ciScript) {
	report := func(n syntax.Node, what string) {
		c.add(fmt.Sprintf("%s (script line %d)", s.where, n.Pos().Line()), ruleReviewerAccept, srcAccept, what, "remove it: a person runs make preflight-accept and commits the diff for review")
	}
	protected := func(w *syntax.Word) bool {
		t, _ := shLiteral(w)
		return strings.Contains(t, "allowlist.yaml") || strings.Contains(t, "preflight/testdata")
	}
	syntax.Walk(s.file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && n.Name.Value == "UPDATE_PREFLIGHT" {
				report(n, "UPDATE_PREFLIGHT makes the preflight rewrite the reviewed snapshot instead of comparing with it")
			}
		case *syntax.CallExpr:
			a := shWords(n.Args)
			if len(a) > 1 && a[0] == "make" && slices.Contains(a[1:], "preflight-accept") {
				report(n, "`make preflight-accept` accepts the access snapshot on a reviewer's behalf")
			}
			if len(a) > 1 && slices.Contains([]string{"tee", "cp", "mv", "sed", "install", "dd", "ln", "truncate"}, a[0]) && slices.ContainsFunc(n.Args[1:], protected) {
				report(n, "`"+a[0]+"` writes the allowlist or a reviewed snapshot")
			}
		case *syntax.Redirect:
			if n.Word != nil && (n.Op == syntax.RdrOut || n.Op == syntax.AppOut || n.Op == syntax.RdrClob || n.Op == syntax.RdrAll || n.Op == syntax.AppAll) && protected(n.Word) {
				report(n, "the script writes the allowlist or a reviewed snapshot")
			}
		}
		return true
	})
}
