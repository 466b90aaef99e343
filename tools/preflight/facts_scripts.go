package preflight

// The facts of the scripts CI runs (input.scripts): every run: step of the
// workflows, .ci/run, and every recipe line of the Makefile, each parsed
// once with mvdan.cc/sh. A script is the list of all its statements, in
// source order (in lists, pipelines, control flow and substitutions too):
//
//	{"file": ".github/workflows/ci.yml", "kind": "step" | "ci" | "recipe",
//	 "where": "job ci, step 3 \"x\"" | ".ci/run" | "target test",
//	 "line": the step's, 1, or the recipe line's,
//	 "workflow": "ci.yml", "job": "ci", "step": 3, "target": "test",
//	 "error": "" or why it does not parse as bash,
//	 "stmts": [{
//	   "id": 0, "parent": -1 (top level) or the id of the statement it is in,
//	   "end": the id of its last statement within, "line": n, "text": "...",
//	   "kind": "call" | "and" | "or" | "pipe" | "block" | "subshell" | "if" |
//	           "while" | "for" | "case" | "func" | "test" | "arith" | "other",
//	   "negated", "background": bool,
//	   "tail": its status is its script's, subshell's, function's or
//	           substitution's (the last statement there, through blocks,
//	           branches, the right of && and ||, the parts of a pipeline),
//	   "cond": it is in an if's or a while's condition,
//	   "operand": "x" or "y" for the left or the right of && and ||,
//	   "x", "y": the operands' ids, "parts": a pipeline's ids,
//	   "last": a block's or subshell's last statement's id, "name": a function's,
//	   "words": a command's words, each its value or, with an expansion in
//	            it, its source text ($VAR, "$(cmd)"),
//	   "literals": the text of every word of the statement itself, quotes
//	               removed and expansions left out,
//	   "reads": the variables it expands itself,
//	   "assigns": [{"name", "value"}]: the variables it sets itself,
//	   "redirs": [{"op": ">>", "fd": "3" or "", "word": "..."}]}]}
//
// A run: step's expressions become words before the parse, as GitHub
// expands them first: event data (github.event, github.head_ref, inputs) as
// ${__event_data}, any other as _expr_. A recipe line is read as make
// expands it with the Makefile's own values (makeScope, facts_gate.go):
// an undefined variable and $(shell ...) are empty.

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// ciScript is one script CI runs, parsed once (file nil when it does not
// parse).
type ciScript struct {
	where string // "<file>:<line> ...", as gate.go names it
	file  *syntax.File
	src   string
	facts map[string]any
}

// ciScripts are the scripts of the workflows, .ci/run and the Makefile.
func ciScripts(root string, wfs []*workflow, actions []localAction, m *makeFile) []ciScript {
	var out []ciScript
	record := func(where, src string, f *syntax.File, err error, offset int, facts map[string]any) {
		facts["error"], facts["stmts"] = "", []any{}
		if err != nil {
			facts["error"] = err.Error()
		} else {
			facts["stmts"] = stmtFacts(f, src, offset)
		}
		out = append(out, ciScript{where, f, src, facts})
	}
	add := func(where, src string, offset int, facts map[string]any) {
		f, err := parseShell(src, "")
		record(where, src, f, err, offset, facts)
	}
	for _, w := range wfs {
		for _, name := range w.order {
			j := w.Jobs[name]
			_, steps := yamlEntry(j.node, "steps")
			for i, s := range j.Steps {
				if s.Run == "" || steps == nil || i >= len(steps.Content) {
					continue
				}
				where := w.whereStep(j, i)
				_, label, _ := strings.Cut(where, " job ")
				record(where, s.src, s.script, s.scriptErr, runOffset(steps.Content[i]), map[string]any{
					"file": ".github/workflows/" + w.file, "kind": "step", "where": "job " + label, "line": s.line,
					"workflow": w.file, "job": name, "step": i + 1,
				})
			}
		}
	}
	actionScripts(actions, add)
	if raw, err := os.ReadFile(filepath.Join(root, ".ci", "run")); err == nil {
		add(".ci/run", string(raw), 0, map[string]any{"file": ".ci/run", "kind": "ci", "where": ".ci/run", "line": 1})
	}
	if m != nil {
		base := (&makeReader{m: m}).scope(nil, "") // the Makefile's own values, no environment's
		for _, t := range slices.Sorted(maps.Keys(m.rules)) {
			for _, r := range m.rules[t] {
				for _, l := range r.recipe {
					add(fmt.Sprintf("Makefile:%d target %s", l.line, t), base.expand(l.text, t, 0), l.line-1,
						map[string]any{"file": "Makefile", "kind": "recipe", "where": "target " + t, "line": l.line, "target": t})
				}
			}
		}
	}
	return out
}

// scriptsFacts are input.scripts.
func scriptsFacts(scripts []ciScript) []any {
	out := []any{}
	for _, s := range scripts {
		out = append(out, s.facts)
	}
	return out
}

// runOffset is what a run: script's line adds to make it the workflow's: a
// block scalar (| or >) starts on the line after its indicator.
func runOffset(step *yaml.Node) int {
	_, v := yamlEntry(step, "run")
	if v == nil {
		return 0
	}
	if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return v.Line
	}
	return v.Line - 1
}

// parseShell parses a bash script: nil with the error when it does not
// parse (the parser also answers the statements it read before the error,
// and no reader takes them for the script).
func parseShell(src, name string) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// eventDataRe matches, inside an expression, the contexts whose values a
// pull request or a push's author chooses: github.event (titles, bodies,
// branch and commit names), github.head_ref, the whole github context, and
// inputs (of a dispatch or a call).
var eventDataRe = regexp.MustCompile(`\bgithub\s*(?:\.\s*(?:event|head_ref)\b|\[\s*'(?:event|head_ref)'\s*\])|toJSON\s*\(\s*github\s*\)|\binputs\s*[.\[]`)

// eventScript is a run: script as the shell gets it: GitHub expands each
// expression into the text first, so here each becomes a plain word,
// _expr_, but event data, kept as ${__event_data} so that the rules can
// follow where it goes.
func eventScript(run string) string {
	return exprRe.ReplaceAllStringFunc(run, func(e string) string {
		if eventDataRe.MatchString(e) {
			return "${__event_data}"
		}
		return "_expr_"
	})
}

// stmtWalk reads a script's statements into their facts.
type stmtWalk struct {
	src    string
	offset int
	out    []any
}

// stmtPlace is where a statement sits.
type stmtPlace struct {
	parent     int
	tail, cond bool
	operand    string
}

func stmtFacts(f *syntax.File, src string, offset int) []any {
	w := &stmtWalk{src: src, offset: offset}
	w.list(f.Stmts, stmtPlace{parent: -1, tail: true})
	return nonNil(w.out)
}

// list reads a list of statements, whose last has the list's tail.
func (w *stmtWalk) list(stmts []*syntax.Stmt, p stmtPlace) int {
	last := -1
	for i, s := range stmts {
		q := p
		q.tail = p.tail && i == len(stmts)-1
		last = w.stmt(s, q)
	}
	return last
}

func (w *stmtWalk) stmt(s *syntax.Stmt, p stmtPlace) int {
	id := len(w.out)
	f := map[string]any{
		"id": id, "parent": p.parent, "line": w.offset + int(s.Pos().Line()), "text": w.text(s),
		"negated": s.Negated, "background": s.Background || s.Coprocess || s.Disown,
		"tail": p.tail, "cond": p.cond, "operand": p.operand, "kind": "other",
	}
	w.out = append(w.out, f)
	in := stmtPlace{parent: id, cond: p.cond}
	w.own(s, f, in)
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op == syntax.AndStmt || x.Op == syntax.OrStmt {
			f["kind"] = map[syntax.BinCmdOperator]string{syntax.AndStmt: "and", syntax.OrStmt: "or"}[x.Op]
			f["x"] = w.stmt(x.X, stmtPlace{parent: id, cond: p.cond, operand: "x"})
			f["y"] = w.stmt(x.Y, stmtPlace{parent: id, cond: p.cond, operand: "y", tail: p.tail})
			break
		}
		f["kind"] = "pipe"
		parts := []any{}
		for _, part := range shPipeline(s) {
			parts = append(parts, w.stmt(part, stmtPlace{parent: id, cond: p.cond, tail: p.tail}))
		}
		f["parts"] = parts
	case *syntax.Block:
		f["kind"], f["last"] = "block", w.list(x.Stmts, stmtPlace{parent: id, cond: p.cond, tail: p.tail})
	case *syntax.Subshell:
		f["kind"], f["last"] = "subshell", w.list(x.Stmts, stmtPlace{parent: id, cond: p.cond, tail: true})
	case *syntax.IfClause:
		f["kind"] = "if"
		for e := x; e != nil; e = e.Else {
			w.list(e.Cond, stmtPlace{parent: id, cond: true})
			w.list(e.Then, stmtPlace{parent: id, cond: p.cond, tail: p.tail})
		}
	case *syntax.WhileClause:
		f["kind"] = "while"
		w.list(x.Cond, stmtPlace{parent: id, cond: true})
		w.list(x.Do, in)
	case *syntax.ForClause:
		f["kind"] = "for"
		w.list(x.Do, in)
	case *syntax.CaseClause:
		f["kind"] = "case"
		for _, it := range x.Items {
			w.list(it.Stmts, stmtPlace{parent: id, cond: p.cond, tail: p.tail})
		}
	case *syntax.FuncDecl:
		f["kind"], f["name"] = "func", x.Name.Value
		w.stmt(x.Body, stmtPlace{parent: id, tail: true})
	case *syntax.TimeClause:
		if x.Stmt != nil {
			w.stmt(x.Stmt, stmtPlace{parent: id, cond: p.cond, tail: p.tail})
		}
	case *syntax.CallExpr:
		f["kind"], f["words"] = "call", w.words(x.Args)
	case *syntax.DeclClause:
		words := []any{x.Variant.Value}
		for _, a := range x.Args {
			words = append(words, w.text(a))
		}
		f["kind"], f["words"] = "call", words
	case *syntax.TestClause:
		f["kind"] = "test"
	case *syntax.ArithmCmd:
		f["kind"] = "arith"
	}
	f["end"] = len(w.out) - 1
	return id
}

// own reads what a statement itself holds: its words' literals, the
// variables it reads and sets, its redirections; and the statements of its
// substitutions, each a list of its own.
func (w *stmtWalk) own(s *syntax.Stmt, f map[string]any, in stmtPlace) {
	literals, reads, assigns, redirs := []any{}, []any{}, []any{}, []any{}
	for _, r := range s.Redirs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		redirs = append(redirs, map[string]any{"op": r.Op.String(), "fd": fd, "word": w.word(r.Word)})
	}
	if fc, ok := s.Cmd.(*syntax.ForClause); ok {
		if wi, ok := fc.Loop.(*syntax.WordIter); ok && wi.Name != nil {
			assigns = append(assigns, map[string]any{"name": wi.Name.Value, "value": ""})
		}
	}
	syntax.Walk(s, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			return n == s
		case *syntax.CmdSubst:
			w.list(n.Stmts, stmtPlace{parent: in.parent, cond: in.cond, tail: true})
			return false
		case *syntax.ProcSubst:
			w.list(n.Stmts, stmtPlace{parent: in.parent, cond: in.cond, tail: true})
			return false
		case *syntax.Word:
			if lit, _ := shLiteral(n); lit != "" {
				literals = append(literals, lit)
			}
		case *syntax.ParamExp:
			if n.Param != nil {
				reads = append(reads, n.Param.Value)
			}
		case *syntax.Assign:
			if n.Name != nil && !n.Naked {
				assigns = append(assigns, map[string]any{"name": n.Name.Value, "value": w.word(n.Value)})
			}
		}
		return true
	})
	f["literals"], f["reads"], f["assigns"], f["redirs"] = literals, reads, assigns, redirs
}

func (w *stmtWalk) words(ws []*syntax.Word) []any {
	out := make([]any, len(ws))
	for i, x := range ws {
		out[i] = w.word(x)
	}
	return out
}

// word is a word's value, or its source text when it has an expansion.
func (w *stmtWalk) word(x *syntax.Word) string {
	if x == nil {
		return ""
	}
	if lit, ok := shLiteral(x); ok {
		return lit
	}
	return w.text(x)
}

func (w *stmtWalk) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(w.src) || start > end {
		return ""
	}
	return squeeze(w.src[start:end], 120)
}

// shPipeline is the parts of a pipeline.
func shPipeline(s *syntax.Stmt) []*syntax.Stmt {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		return append(shPipeline(b.X), shPipeline(b.Y)...)
	}
	return []*syntax.Stmt{s}
}

// shWords are the literal values of shell words (quotes removed); a word
// with an expansion in it is "\x00".
func shWords(ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "\x00"
		if lit, ok := shLiteral(w); ok {
			out[i] = lit
		}
	}
	return out
}

// shLiteral is the literal text of a word, its quotes removed and its
// expansions left out, and whether it has no expansion.
func shLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	plain := true
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				} else {
					plain = false
				}
			}
		default:
			plain = false
		}
	}
	return b.String(), plain
}
