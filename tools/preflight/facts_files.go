package preflight

// The facts of the build's own files: the Makefile as make reads it (one
// parse, workflow_makefile.go: every assignment with its operator, every
// target's recipe lines), and the text, line by line, of the files that
// say what a build fetches or runs (.ci/run, the requirements pip
// installs, npm's settings, the go.mod files).

import (
	"os"
	"path/filepath"
	"strings"
)

// textFiles are the files input.files holds, where they exist.
var textFiles = []string{"Makefile", ".ci/run", ".github/requirements.txt", ".npmrc", "package.json", "go.mod", "tools/go.mod", "samlocal/go.mod"}

// filesFacts are input.files: {"<path>": {"lines": ["line 1", ...]}}, the
// first string line 1 of the file.
func filesFacts(root string) map[string]any {
	out := map[string]any{}
	for _, f := range textFiles {
		raw, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		out[f] = map[string]any{"lines": strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")}
	}
	return out
}

// makefileFacts are input.makefile:
//
//	{"file": "Makefile",
//	 "assignments": [{"line": n, "target": "" or a target's, "name": "GO", "op": "?=", "value": "go"}],
//	 "rules": {"<target>": [{"line": n, "recipe": [{"line": n, "text": "...", "dash": false}]}]}}
//
// A recipe line is as make hands it to the shell (its @, - and + prefixes
// taken off, dash telling a -); a value is before expansion.
func makefileFacts(root string) map[string]any {
	out := map[string]any{"file": "Makefile", "assignments": []any{}, "rules": map[string]any{}}
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return out
	}
	m := parseMakefile(string(raw))
	var assigns []any
	for _, a := range m.assigns {
		assigns = append(assigns, map[string]any{"line": a.line, "target": a.target, "name": a.name, "op": a.op, "value": a.value})
	}
	rules := map[string]any{}
	for t, rs := range m.rules {
		var list []any
		for _, r := range rs {
			var recipe []any
			for _, l := range r.recipe {
				recipe = append(recipe, map[string]any{"line": l.line, "text": l.text, "dash": l.dash})
			}
			list = append(list, map[string]any{"line": r.line, "recipe": recipe})
		}
		rules[t] = list
	}
	if assigns != nil {
		out["assignments"] = assigns
	}
	out["rules"] = rules
	return out
}
