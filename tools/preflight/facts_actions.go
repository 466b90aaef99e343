package preflight

// The repository's own actions (.github/actions/<name>/action.yml): a
// workflow step's `uses: ./.github/actions/<name>` runs a composite
// action's steps as its own, and a Docker action's image ("Metadata syntax
// for GitHub Actions", runs). Their uses: and run: are the workflows' code
// as much as a step's, so the pin and script rules read them too.

import (
	"fmt"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// localAction is one action of the repository: its file, relative to the
// root, and a composite action's steps or a Docker action's image.
type localAction struct {
	file  string
	steps []*yaml.Node
	image *yaml.Node
}

// loadActions reads the actions under .github/actions, one folder each.
func loadActions(root string) []localAction {
	var out []localAction
	files, _ := filepath.Glob(filepath.Join(root, ".github", "actions", "*", "action.y*ml"))
	for _, f := range files {
		top := readYAML(f)
		if top == nil {
			continue
		}
		runs := entryNode(top, "runs")
		rel, _ := filepath.Rel(root, f)
		a := localAction{file: filepath.ToSlash(rel)}
		switch entryValue(runs, "using") {
		case "composite":
			if st := entryNode(runs, "steps"); st != nil && st.Kind == yaml.SequenceNode {
				a.steps = st.Content
			}
		case "docker":
			a.image = entryNode(runs, "image")
		}
		out = append(out, a)
	}
	return out
}

// actionsFacts are input.actions: [{"file", "steps": [{"index", "line",
// "uses", "uses_comment"}]}], a Docker action's image as its one step's
// uses (the run: scripts are input.scripts', kind "action").
func actionsFacts(actions []localAction) []any {
	out := []any{}
	for _, a := range actions {
		steps := []any{}
		for i, s := range a.steps {
			steps = append(steps, map[string]any{"index": i + 1, "line": s.Line, "uses": entryValue(s, "uses"), "uses_comment": usesComment(s)})
		}
		if a.image != nil {
			steps = append(steps, map[string]any{"index": 1, "line": a.image.Line, "uses": a.image.Value, "uses_comment": a.image.LineComment})
		}
		out = append(out, map[string]any{"file": a.file, "steps": steps})
	}
	return out
}

// actionScripts adds each composite step's run: to the scripts CI runs.
func actionScripts(actions []localAction, add func(where, src string, offset int, facts map[string]any)) {
	for _, a := range actions {
		for i, s := range a.steps {
			n := entryNode(s, "run")
			if n == nil {
				continue
			}
			where := fmt.Sprintf("action %s, step %d", filepath.Base(filepath.Dir(a.file)), i+1)
			add(a.file+" "+where, eventScript(n.Value), runOffset(s), map[string]any{"file": a.file, "kind": "action", "where": where, "line": s.Line})
		}
	}
}
