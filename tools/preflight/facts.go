package preflight

// Facts: every input of the rules, read once into plain data (the input
// document of the rule book). Each part says where it comes from; lines are
// those of the file a person edits.

import (
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// readFacts reads the repository at root into the rule book's input, and
// returns the stack part (stacks.go) with it: input.stacks, and the
// evaluator's answers that checkFacts adds as input.access.
func readFacts(root string) (map[string]any, *stackPart, error) {
	wfs, err := loadWorkflows(filepath.Join(root, ".github", "workflows"))
	if err != nil {
		return nil, nil, err
	}
	var workflows []any
	for _, w := range wfs {
		workflows = append(workflows, workflowFacts(w))
	}
	// Each template as written is parsed once, for the facts of each
	// reader: its top node, nil for an empty file.
	templates, docs := map[string]any{}, map[string]*yaml.Node{}
	for _, name := range credentialTemplates {
		raw, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, nil, err
		}
		top, err := topNode(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if top != nil {
			docs[name] = top
		}
		templates[name] = templateFacts(name, top)
	}
	stacks, err := stacksOf(root)
	if err != nil {
		return nil, nil, err
	}
	// The Makefile and the scripts are read and parsed once, for the
	// facts of each that reads them.
	makefile := readMakefile(root)
	actions := loadActions(root)
	scripts := ciScripts(root, wfs, actions, makefile)
	return map[string]any{
		"workflows":      workflows,
		"actions":        actionsFacts(actions),
		"templates":      templates,
		"oidc_role":      oidcRoleFacts(docs["pipeline/roles.yaml"]),
		"makefile":       makefileFacts(makefile),
		"files":          filesFacts(root),
		"scripts":        scriptsFacts(scripts),
		"stacks":         stacks.facts,
		"supply":         supplyFacts(root, wfs, docs["template.yaml"]),
		"stateful":       stacks.stateful,
		"evidence_floor": evidenceFloor(),
		"declared":       declaredFacts(docs),
		"gate":           gateFacts(root, wfs, makefile, scripts),
		"proof":          proofFacts(root),
	}, stacks, nil
}
