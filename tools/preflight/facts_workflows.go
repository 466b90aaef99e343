package preflight

// The facts of the workflows, as the rules read them: each file's triggers,
// permissions and env, each job's needs, environment, runner labels,
// containers and steps, each step's inputs and, for a run: script, the
// commands it runs at its top level (mvdan.cc/sh). Values are as the file
// writes them (a permissions map, a trigger's filters); lines are the
// file's.

import (
	"cmp"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// yamlValue is a node as plain data (maps, lists, strings), as JSON would
// carry it; scalars stay strings.
func yamlValue(n *yaml.Node) any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.AliasNode:
		if len(n.Content) > 0 {
			return yamlValue(n.Content[0])
		}
		if n.Alias != nil {
			return yamlValue(n.Alias)
		}
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = yamlValue(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			l = append(l, yamlValue(c))
		}
		return l
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		return n.Value
	}
	return nil
}

// entryFacts are the keys of a mapping with their lines and values:
// {"KEY": {"line": n, "value": value(the key's node)}}, value being
// yamlValue or cfnValue.
func entryFacts(m *yaml.Node, value func(*yaml.Node) any) map[string]any {
	out := map[string]any{}
	if m == nil || m.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		out[m.Content[i].Value] = map[string]any{"line": m.Content[i].Line, "value": value(m.Content[i+1])}
	}
	return out
}

var matrixRef = regexp.MustCompile(`^\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}$`)

// workflowFacts are one workflow's facts.
func workflowFacts(w *workflow) map[string]any {
	var triggers []any
	for _, t := range w.triggers() {
		triggers = append(triggers, map[string]any{"event": t.event, "line": t.line, "config": yamlValue(t.cfg)})
	}
	var jobs []any
	for _, name := range w.order {
		jobs = append(jobs, jobFacts(w, w.Jobs[name]))
	}
	return map[string]any{
		"file": ".github/workflows/" + w.file, "name": w.file, "top": entryFacts(w.root, yamlValue), "triggers": triggers, "jobs": jobs,
		"secret_refs": secretRefs(entryNode(w.root, "env")),
	}
}

func entryNode(m *yaml.Node, key string) *yaml.Node {
	_, v := yamlEntry(m, key)
	return v
}

// entryValue is the value of key's node in a mapping node, "" for none.
func entryValue(m *yaml.Node, key string) string {
	if v := entryNode(m, key); v != nil {
		return v.Value
	}
	return ""
}

func jobFacts(w *workflow, j job) map[string]any {
	labels := []string{}
	if _, n := yamlEntry(j.node, "runs-on"); n != nil {
		labels = runnerLabels(j, n)
	}
	var steps []any
	for i, s := range j.Steps {
		shell := cmp.Or(s.Shell, j.Defaults.Run.Shell, w.Defaults.Run.Shell)
		with := map[string]any{}
		for k, v := range s.With {
			with[k] = v
		}
		var node *yaml.Node
		if _, st := yamlEntry(j.node, "steps"); st != nil && i < len(st.Content) {
			node = st.Content[i]
		}
		steps = append(steps, map[string]any{
			"index": i + 1, "line": s.line, "label": s.label(), "uses": s.Uses, "action": s.action(),
			"run": s.Run, "shell": shell, "if": s.If, "with": with, "keys": entryFacts(node, yamlValue),
			"calls": topCalls(s), "uses_comment": usesComment(node),
		})
	}
	env, hasEnv := any(nil), j.Environment != nil
	if hasEnv {
		env = j.environment()
	}
	return map[string]any{
		"name": j.name, "line": j.line, "keys": entryFacts(j.node, yamlValue), "uses": j.Uses, "uses_comment": usesComment(j.node), "if": j.If, "needs": j.needs(),
		"environment": env, "has_environment": hasEnv, "runner_labels": labels,
		"secret_refs": secretRefs(j.node), "secrets_passed": !j.Secrets.IsZero(), "steps": steps,
	}
}

// usesComment is the comment on a uses: line (YAML keeps it beside the
// value): "# v4.2.2" names the tag a SHA pin stands for.
func usesComment(n *yaml.Node) string {
	_, v := yamlEntry(n, "uses")
	if v == nil {
		return ""
	}
	return v.LineComment
}

// runnerLabels are the labels a runs-on value can select: a group (a
// mapping) counts as its group name; ${{ matrix.x }} as the values of x in
// the job's matrix (and its include entries).
func runnerLabels(j job, n *yaml.Node) []string {
	switch n.Kind {
	case yaml.SequenceNode:
		return yamlScalars(n)
	case yaml.MappingNode:
		if g := entryNode(n, "group"); g != nil {
			return []string{"group " + g.Value}
		}
		return []string{"(a runner group)"}
	}
	m := matrixRef.FindStringSubmatch(strings.TrimSpace(n.Value))
	matrix := entryNode(entryNode(j.node, "strategy"), "matrix")
	if m == nil || matrix == nil || matrix.Kind != yaml.MappingNode {
		return []string{n.Value}
	}
	var out []string
	if v := entryNode(matrix, m[1]); v != nil {
		out = append(out, yamlScalars(v)...)
	}
	if inc := entryNode(matrix, "include"); inc != nil {
		for _, e := range inc.Content {
			if v := entryNode(e, m[1]); v != nil {
				out = append(out, yamlScalars(v)...)
			}
		}
	}
	if len(out) == 0 {
		return []string{n.Value}
	}
	return out
}

// topCalls are the words of each command a run: script runs at its top
// level (not in an if or a function; a list's and a pipe's parts each).
func topCalls(s step) [][]string {
	out := [][]string{}
	if s.script == nil {
		return out
	}
	for _, st := range s.script.Stmts {
		for _, st := range shFlatten(st) {
			if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 && !st.Negated && !st.Background {
				out = append(out, shWords(call.Args))
			}
		}
	}
	return out
}
