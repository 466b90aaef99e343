package preflight

import "fmt"

// A Finding is one broken rule, told in one line: where it is broken (the
// file, resource, role or job), the rule, and the change that fixes it.
type Finding struct {
	Where string
	Rule  string
	Fix   string
}

func (f Finding) String() string {
	if f.Fix == "" {
		return fmt.Sprintf("%s: %s", f.Where, f.Rule)
	}
	return fmt.Sprintf("%s: %s; fix: %s", f.Where, f.Rule, f.Fix)
}
