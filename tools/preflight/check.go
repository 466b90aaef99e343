package preflight

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Check applies the rule book to the repository at root, and answers its findings after the suppressions
// (suppress.go), stale suppressions among them.
func Check(ctx context.Context, root string) ([]Finding, error) {
	b, err := LoadBook()
	if err != nil {
		return nil, err
	}
	facts, stacks, allow, err := checkFacts(root)
	if err != nil {
		return nil, err
	}
	in, err := inputOf(facts, stacks)
	if err != nil {
		return nil, err
	}
	out, err := b.evalValue(ctx, in)
	if err != nil {
		return nil, err
	}
	out, err = suppress(root, out, allow)
	if err != nil {
		return nil, err
	}
	sortFindings(out)
	return out, nil
}

// checkFacts are the facts of the repository at root as Check gives them
// to the rules (the evaluator's answers and the acceptances with them), the
// stack part, and the allowlist.
func checkFacts(root string) (map[string]any, *stackPart, *Allowlist, error) {
	facts, stacks, err := readFacts(root)
	if err != nil {
		return nil, nil, nil, err
	}
	allow, err := LoadAllowlist(filepath.Join(root, AllowlistFile))
	if errors.Is(err, fs.ErrNotExist) {
		allow, err = &Allowlist{}, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", AllowlistFile, err)
	}
	facts["access"] = stacks.access
	facts["allowlist"] = allowlistFacts(allow)
	facts["allowlist_entries"] = allowlistEntries(allow)
	return facts, stacks, allow, nil
}

// inputOf is the rule book's input: facts in OPA's form, the stack part's
// converted once for every Check that shares it (most of the input, and of
// its conversion's time, is the translated stacks).
func inputOf(facts map[string]any, stacks *stackPart) (ast.Value, error) {
	shared, err := stacks.values()
	if err != nil {
		return nil, err
	}
	in := ast.NewObject()
	for k, v := range facts {
		val, ok := shared[k]
		if !ok {
			if val, err = ast.InterfaceToValue(v); err != nil {
				return nil, fmt.Errorf("the rule book's input %s: %w", k, err)
			}
		}
		in.Insert(ast.StringTerm(k), ast.NewTerm(val))
	}
	return in, nil
}
