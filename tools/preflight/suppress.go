package preflight

// Accepting a finding: in place, with `# preflight: ignore[ID] reason` on
// the finding's line or the line above (YAML, the Makefile, .ci/run), or in
// AllowlistFile with kind finding, what "<ID> <file>" and a reason. Either
// without a reason accepts nothing, and one that no longer matches a
// finding is itself a finding: an acceptance outlives nothing it was for.

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

const kindFinding = "finding" // what: "<ID> <file>", a finding accepted in that file

// suppressedFiles are the files where an in-place acceptance may stand.
var suppressedFiles = []string{"template.yaml", "pipeline/roles.yaml", "Makefile", ".ci/run", ".github/requirements.txt"}

var ignoreComment = regexp.MustCompile(`#\s*preflight:\s*ignore\[([A-Z0-9-]+(?:\s*,\s*[A-Z0-9-]+)*)\]\s*(.*)$`)

type ignore struct {
	file   string
	line   int
	id     string
	reason string
	used   bool
}

// ignores reads the in-place acceptances of the files findings can name.
func ignores(root string) ([]*ignore, error) {
	files := append([]string{}, suppressedFiles...)
	wfs, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.y*ml"))
	for _, w := range wfs {
		files = append(files, ".github/workflows/"+filepath.Base(w))
	}
	var out []*ignore
	for _, file := range files {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(file)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if m := ignoreComment.FindStringSubmatch(sc.Text()); m != nil {
				for _, id := range strings.Split(m[1], ",") {
					out = append(out, &ignore{file: file, line: n, id: strings.TrimSpace(id), reason: strings.TrimSpace(m[2])})
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// suppress drops the accepted findings and adds a finding for each
// acceptance without a reason or that matches nothing.
func suppress(root string, findings []Finding, allow *Allowlist) ([]Finding, error) {
	igs, err := ignores(root)
	if err != nil {
		return nil, err
	}
	used := map[int]bool{}
	var out []Finding
	for _, f := range findings {
		accepted := false
		for _, ig := range igs {
			if ig.reason != "" && ig.id == f.ID && ig.file == f.File && (ig.line == f.Line || ig.line == f.Line-1) {
				ig.used, accepted = true, true
			}
		}
		for i, e := range allow.Entries {
			if e.Kind == kindFinding && e.What == f.ID+" "+f.File && strings.TrimSpace(e.Reason) != "" {
				used[i], accepted = true, true
			}
		}
		if !accepted {
			out = append(out, f)
		}
	}
	for _, ig := range igs {
		switch {
		case ig.reason == "":
			out = append(out, Finding{ID: suppressionRule.ID, File: ig.file, Line: ig.line, Rule: fmt.Sprintf("ignore[%s] gives no reason, so it accepts nothing", ig.id), Fix: "say after ignore[...] why the finding is meant"})
		case !ig.used:
			out = append(out, Finding{ID: suppressionRule.ID, File: ig.file, Line: ig.line, Rule: fmt.Sprintf("ignore[%s] is stale: no %s finding on this line or the next", ig.id, ig.id), Fix: "remove it"})
		}
	}
	for i, e := range allow.Entries {
		if e.Kind == kindFinding && !used[i] {
			out = append(out, Finding{ID: suppressionRule.ID, File: AllowlistFile, Rule: fmt.Sprintf("entry %d (finding %q) is stale or has no reason: it accepts no finding", i+1, e.What), Fix: "remove the entry, or give it the reason"})
		}
	}
	return out, nil
}

// suppressionRule is the one rule of the engine itself, not of the book:
// it judges the acceptances, after every rule has spoken.
var suppressionRule = Rule{ID: "PS-BOOK-001", Title: "Every acceptance has a reason and still matches", File: "suppress.go",
	Danger: "an acceptance without a reason hides a finding nobody explained; one that matches nothing any more would silently accept the next finding of its kind.",
	Fix:    "give the reason, or remove the acceptance",
	Source: "https://docs.zizmor.sh/usage/#ignoring-results"}
