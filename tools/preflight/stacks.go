package preflight

// The stacks' part of the facts: each variant's translated stack
// (input.stacks), the stateful reference (input.stateful) and the IAM
// evaluator's answers beside the reviewed snapshot (input.access), made
// once per content of the files they read.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/plantstore/plantstore/tools/iameval"
	"github.com/plantstore/plantstore/tools/samtranslate"
	"github.com/plantstore/plantstore/tools/toolcache"
)

// stackPart is what the stacks give Check: input.stacks, input.stateful
// and input.access.
type stackPart struct {
	facts    []any
	stateful map[string]any
	access   map[string]any
	values   func() (map[string]ast.Value, error) // the three in OPA's form, by input key
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
		if f == "Makefile" {
			// Of the Makefile, the stacks read the edge variant's line
			// alone: an edit elsewhere shares the part.
			raw = edgeLine.Find(raw)
		}
		fmt.Fprintf(h, "%s %d %t\n", f, len(raw), err == nil)
		h.Write(raw)
	}
	key := [sha256.Size]byte(h.Sum(nil))
	f, _ := stackParts.LoadOrStore(key, sync.OnceValues(func() (*stackPart, error) { return readStacks(root, key) }))
	return f.(func() (*stackPart, error))()
}

// readStacks makes the stack part of the repository at root, whose
// inputs' digest is key.
func readStacks(root string, key [sha256.Size]byte) (*stackPart, error) {
	envs, places, err := loadStacks(root)
	if err != nil {
		return nil, err
	}
	stateful, err := statefulFacts(root)
	if err != nil {
		return nil, err
	}
	kept, err := accessKept()
	if err != nil {
		return nil, err
	}
	access, err := keptAccess(kept, key, func() (map[string]any, error) { return accessOf(root, envs) })
	if err != nil {
		return nil, err
	}
	p := &stackPart{facts: stacksFacts(envs, places), stateful: stateful, access: access}
	p.values = sync.OnceValues(func() (map[string]ast.Value, error) {
		out := map[string]ast.Value{}
		for k, v := range map[string]any{"stacks": p.facts, "stateful": p.stateful, "access": p.access} {
			val, err := ast.InterfaceToValue(v)
			if err != nil {
				return nil, fmt.Errorf("the rule book's input %s: %w", k, err)
			}
			out[k] = val
		}
		return out, nil
	})
	return p, nil
}

// accessKept keeps input.access, the evaluator's answers to a stack part's
// hundred thousand questions (most of a Check's time), by the digest of the
// part's inputs, at the version of all that makes it: this executable (the
// questions are its code), the translator and the evaluator. Nil when
// caching is off.
var accessKept = sync.OnceValues(func() (*toolcache.Cache, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	code, err := os.ReadFile(self)
	if err != nil {
		return nil, err
	}
	translator, err := samtranslate.Version()
	if err != nil {
		return nil, err
	}
	evaluator, err := iameval.Version()
	if err != nil || translator == "" || evaluator == "" {
		return nil, err
	}
	return toolcache.Open("", "preflight-access", code, []byte(translator), []byte(evaluator))
})

// keptAccess is the access kept under key, or compute's, then kept. Both
// are the kept JSON, decoded: a hit and a miss give the rules one value.
func keptAccess(c *toolcache.Cache, key [sha256.Size]byte, compute func() (map[string]any, error)) (map[string]any, error) {
	raw, ok := c.Get(key)
	if !ok {
		access, err := compute()
		if err != nil {
			return nil, err
		}
		if raw, err = json.Marshal(access); err != nil {
			return nil, err
		}
		if err := c.Put(key, raw); err != nil {
			return nil, err
		}
	}
	var kept map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&kept); err != nil {
		return nil, fmt.Errorf("the kept access of the stacks (%s): %w", c.Dir(), err)
	}
	return kept, nil
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

// accessOf is input.access: the evaluator's answers for the variants,
// beside the reviewed snapshot.
func accessOf(root string, envs []env) (map[string]any, error) {
	lines, err := effectiveAccess(envs, envs)
	if err != nil {
		return nil, err
	}
	snapshot, err := readAccess(root)
	if err != nil {
		return nil, fmt.Errorf("%w (make preflight-accept writes it)", err)
	}
	return accessFacts(snapshot, lines), nil
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
	if res := entryNode(readYAML(path), "Resources"); res != nil {
		for i := 0; i+1 < len(res.Content); i += 2 {
			out[res.Content[i].Value] = res.Content[i].Line
		}
	}
	return out
}
