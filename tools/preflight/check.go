package preflight

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Check applies the rule book to the repository at root, and answers its findings after the suppressions
// (suppress.go), stale suppressions among them.
func Check(ctx context.Context, root string) ([]Finding, error) {
	b, err := LoadBook()
	if err != nil {
		return nil, err
	}
	facts, stacks, err := readFacts(root)
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
	// The evaluator's answers, and the acceptances.
	facts["access"] = stacks.access
	facts["allowlist"] = allowlistFacts(allow)
	facts["allowlist_entries"] = allowlistEntries(allow)
	out, err := b.Eval(ctx, facts)
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
