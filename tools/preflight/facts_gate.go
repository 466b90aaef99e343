package preflight

// The facts of the checks job (rules/gate, rules/proof): what CI runs, read
// from the files alone. The packages go list reports; the environment
// ci.yml's checks job gives .ci/run; every command of every script CI could
// run (the workflows' run: steps, .ci/run, the Makefile's recipes), parsed
// with mvdan.cc/sh; and the Makefile's targets that .ci/run's make calls
// reach, their recipe lines expanded as make expands them in that
// environment (GNU make manual, "How make Reads a Makefile", "The Two
// Flavors of Variables", "Variables from the Environment", "Overriding
// Variables", "Functions"). The rules judge; nothing here does.

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// proofFile is the reviewed CI-proof snapshot, relative to the root:
// what CI proves (fuzz targets and time, lint steps, staticcheck's and
// gosec's checks, the skip switches, the packages tested), as
// rules/lib/proof.rego measures it; make preflight-accept writes it.
const proofFile = "tools/preflight/testdata/proof.json"

// gateFacts are input.gate:
//
//	{"packages": [{"import_path", "dir", "module"}],
//	 "staticcheck_conf": [{"file", "text"}],
//	 "job": {"file", "name", "line", "step"} (ci.yml's job that runs bash .ci/run; absent if none),
//	 "env": [{"name", "value", "file", "line"}] (.ci/run's environment in CI, lowest precedence first),
//	 "scripts": [{"file", "line", "job", "step", "target", "commands": [command]}],
//	 "runs": [{"target", "line", "via": {"file", "line"}, "root", "as", "overrides": {"NAME": "value"}, "commands": [command]}]
//	   (each target a make call of .ci/run reaches: "root" that call's target, "as" call or prerequisite),
//	 "make_vars": {"NAME": {"value", "file", "line"}} (as make test's make has them)}
//
// A command is {"line", "words", "assigns": {"NAME": "value"}, "redirects":
// [{"op", "target"}], "background", "top" (a plain statement of the
// script's top level), "loop" (the items of the for loop around it),
// "in_subst" (in a command substitution), "guard" ("" when the command
// runs whenever its script does; else guardOf the script whose condition
// decides, and of the line whose guarded make call runs it),
// "substs": {"<word index>":
// [[command, ...] a pipeline, ...]}}; a word
// with an expansion is its source text.
func gateFacts(root string, wfs []*workflow, m *makeFile, parsed []ciScript) map[string]any {
	pkgs, confs := walkPackages(root)
	out := map[string]any{"packages": pkgs, "staticcheck_conf": confs, "runs": []any{}, "make_vars": map[string]any{}}
	env := checksEnv(wfs, out)
	var scripts, ciCommands []any
	for _, sc := range parsed {
		switch {
		case sc.file == nil:
		case sc.facts["kind"] == "step": // each command on the step's line
			line := sc.facts["line"].(int)
			scripts = append(scripts, map[string]any{"file": sc.facts["file"], "line": line, "job": sc.facts["job"], "step": sc.facts["step"],
				"commands": shCommands(sc.file, func(syntax.Pos) int { return line })})
		case sc.facts["kind"] == "ci":
			ciCommands = shCommands(sc.file, shLine(0))
			scripts = append(scripts, map[string]any{"file": ".ci/run", "line": 1, "commands": ciCommands})
			env = append(env, ciRunEnv(sc.file)...)
		case sc.facts["kind"] == "recipe":
			line := sc.facts["line"].(int)
			scripts = append(scripts, map[string]any{"file": "Makefile", "line": line, "target": sc.facts["target"], "commands": shCommands(sc.file, shLine(line-1))})
		}
	}
	envs := []any{}
	for _, e := range env {
		envs = append(envs, e.fact())
	}
	out["env"] = envs
	if m != nil {
		mr := &makeReader{m: m, env: env, seen: map[string]bool{}}
		out["make_vars"] = mr.vars()
		out["runs"] = mr.follow(ciCommands)
	}
	out["scripts"] = nonNil(scripts)
	return out
}

func nonNil[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

// proofFacts are input.proof: {"file", "reviewed": the snapshot, or null
// where there is none (a copy of the checked files alone)}.
func proofFacts(root string) map[string]any {
	out := map[string]any{"file": proofFile, "reviewed": nil}
	raw, err := os.ReadFile(filepath.Join(root, proofFile))
	if err != nil {
		return out
	}
	var v any
	if err := json.Unmarshal(raw, &v); err == nil {
		out["reviewed"] = v
	}
	return out
}

// walkPackages are the packages of the modules under root as `go list
// ./... ./samlocal/... ./tools/...` names them (go help packages): each
// directory whose Go files, tests included, build for this platform
// (go/build), but testdata, node_modules and directories whose name starts
// with . or _; a directory with a go.mod starts another module. The same
// walk finds staticcheck's configuration files (staticcheck.conf). A walk,
// not `go list -json`: it needs no module download, and it is measured at
// about a tenth of go list's time here.
func walkPackages(root string) (pkgs, confs []any) {
	pkgs, confs = []any{}, []any{}
	modules := map[string]string{} // module directory -> module path
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if name := d.Name(); rel != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if raw, err := os.ReadFile(filepath.Join(p, "staticcheck.conf")); err == nil {
			confs = append(confs, map[string]any{"file": strings.TrimPrefix(rel+"/staticcheck.conf", "./"), "text": string(raw)})
		}
		if raw, err := os.ReadFile(filepath.Join(p, "go.mod")); err == nil {
			if m := moduleLineRe.FindSubmatch(raw); m != nil {
				modules[rel] = string(m[1])
			}
		}
		mod := moduleOf(rel, modules)
		if _, ok := modules[mod]; !ok {
			return nil
		}
		if _, err := build.Default.ImportDir(p, 0); err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
		}
		ip := modules[mod]
		if rel != mod {
			ip += "/" + strings.TrimPrefix(strings.TrimPrefix(rel, mod), "/")
		}
		pkgs = append(pkgs, map[string]any{"import_path": ip, "dir": rel, "module": mod})
		return nil
	})
	return pkgs, confs
}

var moduleLineRe = regexp.MustCompile(`(?m)^module\s+(\S+)`)

// moduleOf is the module directory that holds dir: the longest of modules
// that is dir or a directory above it, "." when none is.
func moduleOf(dir string, modules map[string]string) string {
	best := "."
	for m := range modules {
		if m != "." && (dir == m || strings.HasPrefix(dir, m+"/")) && (best == "." || len(m) > len(best)) {
			best = m
		}
	}
	return best
}

// envVar is one variable of the checks' environment, where it is set.
type envVar struct {
	name, value, file string
	line              int
}

func (e envVar) fact() any {
	return map[string]any{"name": e.name, "value": e.value, "file": e.file, "line": e.line}
}

// checksEnv is the environment ci.yml's checks job (the job whose step runs
// `bash .ci/run`) gives that step: GitHub's CI=true ("Variables
// reference"), then the workflow's, the job's and the step's env:, each
// overriding the one before (workflow syntax, "env"). It sets out["job"].
func checksEnv(wfs []*workflow, out map[string]any) []envVar {
	env := []envVar{{"CI", "true", "", 0}}
	for _, w := range wfs {
		if w.file != "ci.yml" {
			continue
		}
		for _, name := range w.order {
			j := w.Jobs[name]
			for i, s := range j.Steps {
				if !slices.ContainsFunc(topCalls(s), func(a []string) bool { return len(a) == 2 && a[0] == "bash" && a[1] == ".ci/run" }) {
					continue
				}
				file := ".github/workflows/" + w.file
				out["job"] = map[string]any{"file": file, "name": j.name, "line": j.line, "step": i + 1}
				var stepNode *yaml.Node
				if st := entryNode(j.node, "steps"); st != nil && i < len(st.Content) {
					stepNode = st.Content[i]
				}
				for _, n := range []*yaml.Node{entryNode(w.root, "env"), entryNode(j.node, "env"), entryNode(stepNode, "env")} {
					for k := 0; n != nil && n.Kind == yaml.MappingNode && k+1 < len(n.Content); k += 2 {
						env = append(env, envVar{n.Content[k].Value, n.Content[k+1].Value, file, n.Content[k].Line})
					}
				}
				return env
			}
		}
	}
	return env
}

// ciRunEnv are the variables .ci/run sets for what it runs: its top-level
// `export NAME=value` and `NAME=value` lines (an exported one reaches make;
// a plain one only if exported, which this reading grants).
func ciRunEnv(f *syntax.File) []envVar {
	var out []envVar
	for _, s := range f.Stmts {
		var assigns []*syntax.Assign
		switch c := s.Cmd.(type) {
		case *syntax.DeclClause:
			if c.Variant.Value == "export" {
				assigns = c.Args
			}
		case *syntax.CallExpr:
			if len(c.Args) == 0 {
				assigns = c.Assigns
			}
		}
		for _, a := range assigns {
			if a.Name != nil {
				out = append(out, envVar{a.Name.Value, shText(a.Value), ".ci/run", int(a.Pos().Line())})
			}
		}
	}
	return out
}

// shLine maps a script's line to its file's: the script starts after line
// offset.
func shLine(offset int) func(syntax.Pos) int {
	return func(p syntax.Pos) int { return offset + int(p.Line()) }
}

// shText is a word as the rules read it: its literal value, quotes
// removed, or, with an expansion in it, its source text.
func shText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	if lit, ok := shLiteral(w); ok {
		return lit
	}
	var b bytes.Buffer
	_ = syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// shCommands are every command of a script, at any depth (in an if, a
// loop, a function, a list, a pipe, a substitution), as facts.
func shCommands(f *syntax.File, at func(syntax.Pos) int) []any {
	top := map[*syntax.Stmt]bool{}
	for _, s := range f.Stmts {
		if c, ok := s.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 && !s.Negated && !s.Background && !s.Coprocess && !s.Disown {
			top[s] = true
		}
	}
	loops := map[*syntax.Stmt][]string{}
	inSubst := map[*syntax.Stmt]bool{}
	guarded := guardedStmts(f)
	var script bytes.Buffer
	if len(guarded) > 0 {
		_ = syntax.NewPrinter().Print(&script, f)
	}
	var out []any
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ForClause:
			it, ok := n.Loop.(*syntax.WordIter)
			if !ok {
				break
			}
			var items []string
			for _, w := range it.Items {
				items = append(items, strings.Fields(shText(w))...)
			}
			for _, s := range n.Do {
				syntax.Walk(s, func(m syntax.Node) bool {
					if st, ok := m.(*syntax.Stmt); ok {
						if _, set := loops[st]; !set {
							loops[st] = items
						}
					}
					return true
				})
			}
		case *syntax.CmdSubst:
			for _, s := range n.Stmts {
				syntax.Walk(s, func(m syntax.Node) bool {
					if st, ok := m.(*syntax.Stmt); ok {
						inSubst[st] = true
					}
					return true
				})
			}
		case *syntax.Stmt:
			if c := commandFact(n, at); c != nil {
				c["top"] = top[n]
				c["in_subst"] = inSubst[n]
				c["loop"] = nonNil(loops[n])
				c["guard"] = ""
				if guarded[n] {
					c["guard"] = guardOf(script.String(), c["words"].([]string))
				}
				out = append(out, c)
			}
		}
		return true
	})
	return nonNil(out)
}

// guardOf names what decides whether a guarded command runs: the script
// it stands in, less the command's own words wherever they stand (an echo
// of it, a stamp's key), so that a change of the command's flags is the
// flags' rules' to judge, and any other change of the script a new guard.
func guardOf(script string, words []string) string {
	script = strings.ReplaceAll(script, strings.Join(words, " "), "")
	sum := sha256.Sum256([]byte(script))
	return "script sha256:" + hex.EncodeToString(sum[:6])
}

// guardedStmts are the statements that run only when a condition holds
// (POSIX, "Shell Command Language", 2.9.3 and 2.9.4): an if's branches,
// the right side of && and ||, a case's arms, a while's or until's body,
// a function's body. An if's or a while's condition itself runs, and so
// does a for loop's body over its items (the loop fact names them).
func guardedStmts(f *syntax.File) map[*syntax.Stmt]bool {
	g := map[*syntax.Stmt]bool{}
	mark := func(n syntax.Node) {
		syntax.Walk(n, func(m syntax.Node) bool {
			if s, ok := m.(*syntax.Stmt); ok {
				g[s] = true
			}
			return true
		})
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.IfClause:
			for _, s := range n.Then {
				mark(s)
			}
			if n.Else != nil {
				mark(n.Else)
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.AndStmt || n.Op == syntax.OrStmt {
				mark(n.Y)
			}
		case *syntax.CaseClause:
			for _, it := range n.Items {
				for _, s := range it.Stmts {
					mark(s)
				}
			}
		case *syntax.WhileClause:
			for _, s := range n.Do {
				mark(s)
			}
		case *syntax.FuncDecl:
			mark(n.Body)
		}
		return true
	})
	return g
}

// commandFact is one statement's command (a call or an export), or nil.
func commandFact(s *syntax.Stmt, at func(syntax.Pos) int) map[string]any {
	var words []*syntax.Word
	var assigns []*syntax.Assign
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		words, assigns = c.Args, c.Assigns
	case *syntax.DeclClause:
		assigns = c.Args
		words = []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{Value: c.Variant.Value}}}}
	default:
		return nil
	}
	texts := make([]string, len(words))
	substs := map[string]any{}
	for i, w := range words {
		texts[i] = shText(w)
		if p := substPipelines(w); len(p) > 0 {
			substs[fmt.Sprint(i)] = p
		}
	}
	as := map[string]any{}
	for _, a := range assigns {
		if a.Name != nil {
			as[a.Name.Value] = shText(a.Value)
		}
	}
	var redirs []any
	for _, r := range s.Redirs {
		redirs = append(redirs, map[string]any{"op": r.Op.String(), "target": shText(r.Word)})
	}
	return map[string]any{"line": at(s.Pos()), "words": texts, "assigns": as, "redirects": nonNil(redirs), "background": s.Background, "substs": substs}
}

// substPipelines are the command substitutions of a word, each a pipeline
// of command facts (a | b | c, in order).
func substPipelines(w *syntax.Word) []any {
	var out []any
	syntax.Walk(w, func(n syntax.Node) bool {
		cs, ok := n.(*syntax.CmdSubst)
		if !ok {
			return true
		}
		for _, s := range cs.Stmts {
			var pipe []any
			for _, part := range shFlatten(s) {
				if c := commandFact(part, func(syntax.Pos) int { return 0 }); c != nil {
					pipe = append(pipe, c)
				}
			}
			out = append(out, nonNil(pipe))
		}
		return false
	})
	return out
}

// makeVar is a variable as make holds it.
type makeVar struct {
	raw       string // the value; a recursive one is expanded where it is used
	recursive bool
	origin    string // as $(origin) says: file, environment, command line, default
	file      string
	line      int
}

// makeScope is the variables of one make run.
type makeScope map[string]makeVar

// makeReader follows .ci/run's make calls through the Makefile.
type makeReader struct {
	m    *makeFile
	env  []envVar // the environment make starts with
	seen map[string]bool
	runs []any
}

// vars are the variables as make has them when .ci/run runs it.
func (r *makeReader) vars() map[string]any {
	base := r.scope(nil, "")
	out := map[string]any{}
	for name, v := range base {
		out[name] = map[string]any{"value": base.value(name, "", 0), "file": v.file, "line": v.line}
	}
	return out
}

// follow adds the runs of .ci/run's top-level make calls (its commands).
func (r *makeReader) follow(ciRun []any) []any {
	for _, c := range ciRun {
		c := c.(map[string]any)
		if w := c["words"].([]string); c["top"] == true && len(w) > 1 && w[0] == "make" {
			r.call(w[1:], nil, ".ci/run", c["line"].(int), "", "", 0)
		}
	}
	return nonNil(r.runs)
}

// scope is the variables of a run of target: make's own, the
// environment's, then the Makefile's assignments in file order (the
// target's own among them), a command line's overriding all ("Overriding
// Variables"); an assignment with ?= sets only an undefined variable, and
// one of the Makefile overrides the environment ("Variables from the
// Environment").
func (r *makeReader) scope(overrides map[string]envVar, target string) makeScope {
	s := makeScope{"MAKE": {raw: "make", origin: "default"}, "CURDIR": {raw: ".", origin: "default"}, "MAKEFILE_LIST": {raw: "Makefile", origin: "file"}}
	for _, e := range r.env {
		s[e.name] = makeVar{raw: e.value, origin: "environment", file: e.file, line: e.line}
	}
	for name, e := range overrides {
		s[name] = makeVar{raw: e.value, origin: "command line", file: e.file, line: e.line}
	}
	for _, a := range r.m.assigns {
		if (a.target == "" || a.target == target) && s[a.name].origin != "command line" {
			s.assign(a)
		}
	}
	return s
}

func (s makeScope) assign(a makeAssign) {
	old, defined := s[a.name]
	v := makeVar{origin: "file", file: "Makefile", line: a.line}
	switch a.op {
	case "?=":
		if defined {
			return
		}
		v.raw, v.recursive = a.value, true
	case "=":
		v.raw, v.recursive = a.value, true
	case "+=":
		v.recursive = !defined || old.recursive
		add := a.value
		if !v.recursive {
			add = s.expand(a.value, "", 0)
		}
		v.raw = strings.TrimSpace(old.raw + " " + add)
	case "!=":
		// The output of a shell command, which this reading does not run.
	default: // :=, ::=, :::=
		v.raw = s.expand(a.value, "", 0)
	}
	s[a.name] = v
}

// value is a variable's value where it is used.
func (s makeScope) value(name, target string, depth int) string {
	v := s[name]
	if v.recursive {
		return s.expand(v.raw, target, depth+1)
	}
	return v.raw
}

// expand is text with make's references replaced: $$ is $, $(NAME),
// ${NAME} and $X a variable's value, $@ the target, $(fn args) a function.
func (s makeScope) expand(text, target string, depth int) string {
	if depth > 32 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] != '$' || i+1 >= len(text) {
			b.WriteByte(text[i])
			continue
		}
		switch ch := text[i+1]; ch {
		case '$':
			b.WriteByte('$')
			i++
		case '(', '{':
			j := closingParen(text, i+1)
			b.WriteString(s.ref(text[i+2:j], target, depth))
			i = j
		default:
			b.WriteString(s.ref(string(ch), target, depth))
			i++
		}
	}
	return b.String()
}

// closingParen is the index of the paren that closes the one at open, or
// the text's length.
func closingParen(text string, open int) int {
	o, c := text[open], byte(')')
	if o == '{' {
		c = '}'
	}
	depth := 0
	for j := open; j < len(text); j++ {
		switch text[j] {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(text)
}

func (s makeScope) ref(inner, target string, depth int) string {
	if k := strings.IndexAny(inner, " \t"); k > 0 {
		if inner[:k] == "call" { // $(call NAME,ARGS): NAME's value, $(1), $(2)... the ARGS
			a := splitMakeArgs(strings.TrimLeft(inner[k+1:], " \t"))
			in := maps.Clone(s)
			for i, arg := range a[1:] {
				in[strconv.Itoa(i+1)] = makeVar{raw: s.expand(arg, target, depth+1), origin: "automatic"}
			}
			return in.value(strings.TrimSpace(s.expand(a[0], target, depth+1)), target, depth+1)
		}
		if f, ok := makeFuncs[inner[:k]]; ok {
			e := func(a string) string { return s.expand(a, target, depth+1) }
			return f(s, splitMakeArgs(strings.TrimLeft(inner[k+1:], " \t")), e)
		}
	}
	name := s.expand(inner, target, depth+1)
	switch {
	case name == "@":
		return target
	case len(name) == 1 && strings.Contains("<^+*?%|", name):
		return ""
	}
	return s.value(name, target, depth)
}

// splitMakeArgs splits a function's arguments at the commas outside
// parentheses.
func splitMakeArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// makeFuncs are the functions of GNU make ("Functions for Transforming
// Text", "Conditional Functions", "The origin Function") that the checks'
// recipes use. Any other reference with a space, $(shell ...) among them,
// reads as an undefined variable: empty, as a command's output is to a
// reading that runs nothing (a fresh runner, no browser found).
var makeFuncs = map[string]func(s makeScope, args []string, e func(string) string) string{
	"if": func(_ makeScope, a []string, e func(string) string) string {
		if strings.TrimSpace(e(a[0])) != "" {
			return e(argN(a, 1))
		}
		if len(a) > 2 {
			return e(strings.Join(a[2:], ","))
		}
		return ""
	},
	"filter": func(_ makeScope, a []string, e func(string) string) string {
		return filterWords(e(a[0]), e(argN(a, 1)), true)
	},
	"filter-out": func(_ makeScope, a []string, e func(string) string) string {
		return filterWords(e(a[0]), e(argN(a, 1)), false)
	},
	"findstring": func(_ makeScope, a []string, e func(string) string) string {
		if f := e(a[0]); strings.Contains(e(argN(a, 1)), f) {
			return f
		}
		return ""
	},
	"firstword": func(_ makeScope, a []string, e func(string) string) string {
		if w := strings.Fields(e(a[0])); len(w) > 0 {
			return w[0]
		}
		return ""
	},
	"notdir": func(_ makeScope, a []string, e func(string) string) string {
		w := strings.Fields(e(a[0]))
		for i := range w {
			w[i] = w[i][strings.LastIndex(w[i], "/")+1:]
		}
		return strings.Join(w, " ")
	},
	"origin": func(s makeScope, a []string, e func(string) string) string {
		if v, ok := s[strings.TrimSpace(e(a[0]))]; ok {
			return v.origin
		}
		return "undefined"
	},
}

func argN(a []string, i int) string {
	if i < len(a) {
		return a[i]
	}
	return ""
}

// filterWords keeps the words of text that match a pattern (% matches any
// run of characters) or, with keep false, those that match none.
func filterWords(patterns, text string, keep bool) string {
	var out []string
	for _, w := range strings.Fields(text) {
		if slices.ContainsFunc(strings.Fields(patterns), func(p string) bool { return patternMatch(p, w) }) == keep {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

func patternMatch(p, w string) bool {
	pre, post, wild := strings.Cut(p, "%")
	if !wild {
		return p == w
	}
	return len(w) >= len(pre)+len(post) && strings.HasPrefix(w, pre) && strings.HasSuffix(w, post)
}

// call follows `make args...` (a line of file): its VAR=value words
// override the Makefile's variables there and in every make below
// (MAKEFLAGS), its other words that are no flag are the targets it runs.
func (r *makeReader) call(args []string, overrides map[string]envVar, file string, line int, root, guard string, depth int) {
	ov := map[string]envVar{}
	maps.Copy(ov, overrides)
	var targets []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if k := strings.Index(a, "="); k > 0 && makeVarRe.MatchString(a[:k]) {
			ov[a[:k]] = envVar{a[:k], a[k+1:], file, line}
			continue
		}
		targets = append(targets, a)
	}
	for _, t := range targets {
		r.run(t, runVia{ov, file, line, cmp.Or(root, t), "call", guard}, depth)
	}
}

// runVia is how a run starts: the command-line variables, the line that
// calls it or names it as a prerequisite ("as"), and the target of
// .ci/run's make call it serves (its root).
type runVia struct {
	ov       map[string]envVar
	file     string
	line     int
	root, as string
	guard    string // the calling command's guard: the run's commands have it too
}

// run adds a run of target, and of what it runs: its prerequisites and
// the make calls of its recipe.
func (r *makeReader) run(target string, via runVia, depth int) {
	ov := via.ov
	key := target
	ovFacts := map[string]any{}
	for _, n := range slices.Sorted(maps.Keys(ov)) {
		key += "\x00" + n + "=" + ov[n].value
		ovFacts[n] = ov[n].value
	}
	if r.seen[key] || depth > 8 {
		return
	}
	r.seen[key] = true
	s := r.scope(ov, target)
	rules := r.m.rules[r.ruleName(s, target)]
	if len(rules) == 0 {
		return
	}
	run := map[string]any{"target": target, "line": rules[0].line, "via": map[string]any{"file": via.file, "line": via.line}, "root": via.root, "as": via.as, "overrides": ovFacts}
	r.runs = append(r.runs, run)
	var cmds []any
	for _, rule := range rules {
		for _, p := range strings.Fields(s.expand(rule.prereqs, "", 0)) {
			r.run(p, runVia{ov, "Makefile", rule.line, via.root, "prerequisite", via.guard}, depth+1)
		}
		for _, l := range rule.recipe {
			f, err := parseShell(s.expand(l.text, target, 0), "")
			if err != nil {
				continue
			}
			for _, c := range shCommands(f, shLine(l.line-1)) {
				cmds = append(cmds, c)
				c := c.(map[string]any)
				if via.guard != "" {
					c["guard"] = strings.TrimSpace(via.guard + " " + c["guard"].(string))
				}
				if w := c["words"].([]string); len(w) > 1 && w[0] == "make" {
					r.call(w[1:], ov, "Makefile", c["line"].(int), via.root, c["guard"].(string), depth+1)
				}
			}
		}
	}
	run["commands"] = nonNil(cmds)
}

// ruleName is the Makefile's name of target: itself, or a name that
// expands to it ($(TOOLS)/dlv).
func (r *makeReader) ruleName(s makeScope, target string) string {
	if _, ok := r.m.rules[target]; ok {
		return target
	}
	for name := range r.m.rules {
		if strings.Contains(name, "$") && s.expand(name, "", 0) == target {
			return name
		}
	}
	return ""
}
