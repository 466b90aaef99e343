package preflight

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// A Finding is one broken rule, told in one line: the file a person edits
// and the line there, the rule's ID, the danger and the change that fixes
// it.
type Finding struct {
	ID   string
	File string // relative to the repository, "/"-separated
	Line int    // 0: the file as a whole
	Rule string // the danger, with what the rule saw
	Fix  string
}

func (f Finding) String() string {
	var b strings.Builder
	if f.File != "" {
		b.WriteString(f.File)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d", f.Line)
		}
		b.WriteString(": ")
	}
	if f.ID != "" {
		b.WriteString(f.ID + ": ")
	}
	b.WriteString(f.Rule)
	if f.Fix != "" {
		b.WriteString("; fix: " + f.Fix)
	}
	return b.String()
}

// sortFindings orders findings by file, line and ID.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), a.Line-b.Line, strings.Compare(a.ID, b.ID), strings.Compare(a.Rule, b.Rule))
	})
}
