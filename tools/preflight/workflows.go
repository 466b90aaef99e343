package preflight

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// The workflows as the facts (facts_workflows.go, facts_scripts.go,
// facts_gate.go) read them: each file's triggers, jobs and steps, with their
// lines.

// workflow is what the rules read of one file under .github/workflows.
type workflow struct {
	file        string
	root        *yaml.Node
	order       []string       // job names in file order
	On          yaml.Node      `yaml:"on"`
	Permissions yaml.Node      `yaml:"permissions"`
	Defaults    defaults       `yaml:"defaults"`
	Jobs        map[string]job `yaml:"jobs"`
}

type defaults struct {
	Run struct {
		Shell            string `yaml:"shell"`
		WorkingDirectory string `yaml:"working-directory"`
	} `yaml:"run"`
}

type job struct {
	name            string
	line            int
	node            *yaml.Node
	Uses            string    `yaml:"uses"`
	Secrets         yaml.Node `yaml:"secrets"`
	Needs           any       `yaml:"needs"`
	If              string    `yaml:"if"`
	Environment     any       `yaml:"environment"`
	Permissions     yaml.Node `yaml:"permissions"`
	ContinueOnError yaml.Node `yaml:"continue-on-error"`
	Defaults        defaults  `yaml:"defaults"`
	Steps           []step    `yaml:"steps"`
}

type step struct {
	line             int
	src              string       // the run: script as the shell gets it (eventScript)
	script           *syntax.File // src parsed once, nil when it does not parse
	scriptErr        error
	Name             string            `yaml:"name"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	If               string            `yaml:"if"`
	WorkingDirectory string            `yaml:"working-directory"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
	ContinueOnError  yaml.Node         `yaml:"continue-on-error"`
}

func (s *step) UnmarshalYAML(n *yaml.Node) error {
	type plain step
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	s.line = n.Line
	if s.Run != "" {
		s.src = eventScript(s.Run)
		s.script, s.scriptErr = parseShell(s.src, "")
	}
	return nil
}

// action is the step's action without its ref, lower case (GitHub's owner
// and repository names are case-insensitive).
func (s step) action() string {
	a, _, _ := strings.Cut(s.Uses, "@")
	return strings.ToLower(a)
}

// label names the step in a finding: its name, else its uses: without
// the ref, else its run: squeezed onto one line.
func (s step) label() string {
	uses, _, _ := strings.Cut(s.Uses, "@")
	return cmp.Or(s.Name, uses, squeeze(s.Run, 40))
}

// needs lists the jobs a job waits for.
func (j job) needs() []string {
	switch n := j.Needs.(type) {
	case string:
		return []string{n}
	case []any:
		var out []string
		for _, e := range n {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// environment is the name of the job's deployment environment, "" for none.
func (j job) environment() string {
	switch e := j.Environment.(type) {
	case string:
		return e
	case map[string]any:
		return fmt.Sprint(e["name"])
	}
	return ""
}

func (w *workflow) whereStep(j job, i int) string {
	s := j.Steps[i]
	return fmt.Sprintf(".github/workflows/%s:%d job %s, step %d %q", w.file, s.line, j.name, i+1, s.label())
}

func loadWorkflows(dir string) ([]*workflow, error) {
	var files []string
	for _, pat := range []string{"*.yml", "*.yaml"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no workflows", dir)
	}
	slices.Sort(files)
	var out []*workflow
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		w, err := parseWorkflow(filepath.Base(f), raw)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

func parseWorkflow(name string, raw []byte) (*workflow, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a workflow (no mapping at the top)", name)
	}
	w := &workflow{file: name, root: doc.Content[0]}
	if err := doc.Decode(w); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, jobs := yamlEntry(w.root, "jobs"); jobs != nil && jobs.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(jobs.Content); i += 2 {
			name := jobs.Content[i].Value
			j := w.Jobs[name]
			j.name, j.line, j.node = name, jobs.Content[i].Line, jobs.Content[i+1]
			w.Jobs[name] = j
			w.order = append(w.order, name)
		}
	}
	return w, nil
}

// yamlEntry is the key and value nodes of key in a mapping node.
func yamlEntry(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// readYAML is the top node of the YAML file at path: nil when it cannot be
// read or parsed, or holds no document.
func readYAML(path string) *yaml.Node {
	raw, _ := os.ReadFile(path)
	top, _ := topNode(raw)
	return top
}

// topNode is the top node of the YAML document raw: nil when it holds
// none.
func topNode(raw []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) == 0 {
		return nil, err
	}
	return doc.Content[0], nil
}

type wfTrigger struct {
	event string
	cfg   *yaml.Node // nil for a bare event
	line  int
}

func (w *workflow) triggers() []wfTrigger {
	on := &w.On
	var out []wfTrigger
	switch on.Kind {
	case yaml.ScalarNode:
		out = append(out, wfTrigger{on.Value, nil, on.Line})
	case yaml.SequenceNode:
		for _, e := range on.Content {
			out = append(out, wfTrigger{e.Value, nil, e.Line})
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(on.Content); i += 2 {
			cfg := on.Content[i+1]
			if cfg.Kind == yaml.ScalarNode && (cfg.Tag == "!!null" || cfg.Value == "") {
				cfg = nil
			}
			out = append(out, wfTrigger{on.Content[i].Value, cfg, on.Content[i].Line})
		}
	}
	return out
}

func yamlScalars(n *yaml.Node) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, e := range n.Content {
		out = append(out, e.Value)
	}
	return out
}

var (
	exprRe    = regexp.MustCompile(`(?s)\$\{\{(.*?)\}\}`)
	secretsRe = regexp.MustCompile(`(?i)\bsecrets\b(?:\s*\.\s*([A-Za-z0-9_-]+)|\s*\[\s*'([^']*)'\s*\])?`)
)

// secretRefs are the secrets other than GITHUB_TOKEN that expressions under
// n read.
func secretRefs(n *yaml.Node) []string {
	var out []string
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if n.Kind == yaml.ScalarNode {
			for _, e := range exprRe.FindAllStringSubmatch(n.Value, -1) {
				for _, m := range secretsRe.FindAllStringSubmatch(e[1], -1) {
					name := m[1] + m[2]
					if !strings.EqualFold(name, "GITHUB_TOKEN") {
						out = append(out, strings.TrimSpace(m[0]))
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// shFlatten is a statement and, for a list or pipe, the statements in it.
func shFlatten(s *syntax.Stmt) []*syntax.Stmt {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok {
		return append(shFlatten(b.X), shFlatten(b.Y)...)
	}
	return []*syntax.Stmt{s}
}

// squeeze squeezes s onto one line of at most n characters.
func squeeze(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
