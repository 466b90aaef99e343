package preflight

// The stacks' rules, still in Go (legacy.go gives their IDs): the template
// rules and the exposure rules over each variant's translated stack, and
// the IAM rules over the evaluator's answers (reach, the reviewed
// snapshot, trust, resource policies). Their findings name a logical id of
// the translated stack; place gives them the line in template.yaml or
// pipeline/roles.yaml where a person edits it.

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// stackPart is what the stacks give Check: input.stacks and input.access,
// and the findings of the stacks' rules still in Go.
type stackPart struct {
	facts    []any
	access   map[string]any
	findings []Finding
}

// stackParts holds each stack part by the content of the files it reads
// (stackInputs): the evaluator's thousands of questions and the variants'
// resolution are a second's work, and a copy of the repository whose
// stacks are unchanged (a workflow's edit) shares the part of the copy it
// was made from, as translations are shared.
var stackParts sync.Map // sha256 of the inputs -> func() (*stackPart, error)

// stackInputs are the files, relative to root, that the stack part reads.
func stackInputs(root string) []string {
	files := []string{"template.yaml", "samconfig.toml", "pipeline/roles.yaml", "Makefile", AllowlistFile, StatefulFile, accessFile}
	managed, _ := filepath.Glob(filepath.Join(root, "tools", "preflight", "testdata", "managed", "*.json"))
	for _, m := range managed {
		files = append(files, "tools/preflight/testdata/managed/"+filepath.Base(m))
	}
	return files
}

// stacksOf is the stack part of the repository at root.
func stacksOf(root string) (*stackPart, error) {
	h := sha256.New()
	for _, f := range stackInputs(root) {
		raw, err := os.ReadFile(filepath.Join(root, f))
		fmt.Fprintf(h, "%s %d %t\n", f, len(raw), err == nil)
		h.Write(raw)
	}
	var key [sha256.Size]byte
	copy(key[:], h.Sum(nil))
	f, _ := stackParts.LoadOrStore(key, sync.OnceValues(func() (*stackPart, error) { return readStacks(root) }))
	return f.(func() (*stackPart, error))()
}

// readStacks makes the stack part of the repository at root.
func readStacks(root string) (*stackPart, error) {
	envs, places, err := loadStacks(root)
	if err != nil {
		return nil, err
	}
	allow, err := LoadAllowlist(filepath.Join(root, AllowlistFile))
	if errors.Is(err, fs.ErrNotExist) {
		allow, err = &Allowlist{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", AllowlistFile, err)
	}
	findings, access, err := checkStacks(root, envs, places, allow)
	if err != nil {
		return nil, err
	}
	return &stackPart{facts: stacksFacts(envs, places), access: access, findings: findings}, nil
}

// loadStacks makes every variant of the repository at root concrete, and
// reads the lines of the resources of the files a person edits.
func loadStacks(root string) ([]env, map[string]map[string]int, error) {
	var envs []env
	for _, name := range stackVariants {
		e, err := loadVariant(root, name)
		if err != nil {
			return nil, nil, err
		}
		envs = append(envs, e)
	}
	places := map[string]map[string]int{}
	for _, file := range credentialTemplates {
		places[file] = logicalIDLines(filepath.Join(root, file))
	}
	return envs, places, nil
}

// checkStacks applies the stacks' rules still in Go to the variants, and
// answers the evaluator's access with the snapshot's (input.access).
func checkStacks(root string, envs []env, places map[string]map[string]int, allow *Allowlist) ([]Finding, map[string]any, error) {
	ref, err := LoadStatefulReference(filepath.Join(root, StatefulFile))
	if errors.Is(err, fs.ErrNotExist) {
		ref, err = &StatefulReference{}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w (regenerate it with %s)", StatefulFile, err, regenerate)
	}
	out := CheckTemplate(envs, allow, ref)
	lines, err := effectiveAccess(envs, envs)
	if err != nil {
		return nil, nil, err
	}
	snapshot, err := readAccess(root)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (make preflight-accept writes it)", err)
	}
	for i := range out {
		out[i] = place(out[i], places)
	}
	return out, accessFacts(snapshot, lines), nil
}

// whereForms are the two forms a stack's finding names its place in:
// "template.yaml <what> [<variants>]" (the template rules) and
// "<LogicalId> (<file>, <variant>)" (the IAM rules).
var (
	templateWhere = regexp.MustCompile(`^(template\.yaml) (.*)$`)
	resourceWhere = regexp.MustCompile(`^(\S+) \((template\.yaml|pipeline/roles\.yaml), ([a-z]+)\)(.*)$`)
	fileWhere     = regexp.MustCompile(`^(tools/preflight/[\w./]+)\s*(.*)$`)
	logicalID     = regexp.MustCompile(`^[A-Za-z0-9]+`)
)

// place gives a stack's finding the file a person edits and the line of
// the resource there: the longest logical id of the file that starts the
// translated one (SAM names what it makes after its source: PlantsApi's
// stage is PlantsApiprodStage).
func place(f Finding, places map[string]map[string]int) Finding {
	switch {
	case templateWhere.MatchString(f.Where):
		m := templateWhere.FindStringSubmatch(f.Where)
		f.File, f.Where = m[1], m[2]
	case resourceWhere.MatchString(f.Where):
		m := resourceWhere.FindStringSubmatch(f.Where)
		f.File, f.Where = m[2], m[1]+" ("+m[3]+")"+m[4]
	case fileWhere.MatchString(f.Where):
		m := fileWhere.FindStringSubmatch(f.Where)
		f.File, f.Where = m[1], m[2]
		return f
	default:
		f.File = "template.yaml"
	}
	_, f.Line = sourceOf(places[f.File], logicalID.FindString(f.Where))
	return f
}

// sourceOf is the logical id of the file, and its line, that a translated
// resource comes from: the longest that starts its id.
func sourceOf(lines map[string]int, id string) (string, int) {
	best, line := "", 0
	for src, l := range lines {
		if strings.HasPrefix(id, src) && len(src) > len(best) {
			best, line = src, l
		}
	}
	return best, line
}

// logicalIDLines are the lines of a template's resources, by logical id.
func logicalIDLines(path string) map[string]int {
	out := map[string]int{}
	raw, err := os.ReadFile(path)
	var doc yaml.Node
	if err != nil || yaml.Unmarshal(raw, &doc) != nil || len(doc.Content) == 0 {
		return out
	}
	res := entryNode(doc.Content[0], "Resources")
	if res == nil {
		return out
	}
	for i := 0; i+1 < len(res.Content); i += 2 {
		out[res.Content[i].Value] = res.Content[i].Line
	}
	return out
}
