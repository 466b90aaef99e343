// Command repocheck is part of `make lint`: it refuses build outputs in git,
// commit subjects not in Go's style, and a workspace (go.work) that would
// build the product with other module versions than its go.mod selects. Every file git tracks is read; an
// executable (ELF, Mach-O or PE, by its first bytes) or a file over 1 MiB
// outside a testdata/ folder is named, and the command exits 1. Every commit
// after subjectsSince has a subject "pkg: what changed" of at most 72
// characters (Go's contribution guide, "Commit messages"), the why in the
// body. Every commit after strictSince also names, before the colon, files
// or folders of the repository, and after it completes "This change
// modifies the repository to ___": a lowercase verb first, no semicolon, no
// period at the end (see strictProblem).
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxSize is the largest file tracked outside testdata/.
const maxSize = 1 << 20

func main() {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	stop(err, "git ls-files")
	paths := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	problems, err := check(paths)
	stop(err, "reading the tracked files")
	refuse(problems, "build outputs do not belong in git: git rm --cached them and add them to .gitignore")
	fmt.Printf("repocheck: %d tracked files: no executable, none over 1 MiB outside testdata/\n", len(paths))

	log, err := exec.Command("git", "log", "--format=%h %s", subjectsSince+"..HEAD").Output()
	stop(err, "git log (a shallow clone lacks the history; fetch it)")
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	refuse(badSubjects(lines), "write subjects as `pkg: what changed`, at most 72 characters, the why in the body (git commit --amend, or git rebase -i before you push)")
	log, err = exec.Command("git", "log", "--format=%H %s", strictSince+"..HEAD").Output()
	stop(err, "git log")
	recent := strings.Split(strings.TrimSpace(string(log)), "\n")
	exists, err := pathsExist(recent)
	stop(err, "git cat-file")
	refuse(strictSubjects(recent, exists), "name files or folders of the repository before the colon (or all), and say what the change does with a lowercase verb: `internal/glyph: add LoneSurrogate`, no semicolon, no period at the end")
	fmt.Printf("repocheck: %d commit subjects since %s in Go's style, the last %d of them naming paths and starting with a verb\n", len(lines), subjectsSince, len(nonEmpty(recent)))

	alone, err := moduleVersions("off")
	stop(err, "the product's modules")
	wd, err := os.Getwd()
	stop(err, "the working directory")
	work, err := moduleVersions(filepath.Join(wd, "go.work"))
	stop(err, "the workspace's modules")
	refuse(drift(alone, work), "the tools must not raise a module the product uses: lower the version in tools/go.mod, or raise it in the product's go.mod on purpose (and measure: make bench)")
	fmt.Printf("repocheck: the workspace builds and tests the product with its own go.mod's versions (%d modules)\n", len(alone))
}

// stop ends the check with status 2 when err says it could not look.
func stop(err error, doing string) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "repocheck: %s: %v\n", doing, err)
		os.Exit(2)
	}
}

// refuse prints each problem and the fix, and exits 1, when there are any.
func refuse(problems []string, fix string) {
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "repocheck:", p)
	}
	if len(problems) > 0 {
		fmt.Fprintln(os.Stderr, "repocheck:", fix)
		os.Exit(1)
	}
}

// moduleVersions lists, path to version, the modules of every package that
// the product's packages and their tests use, with GOWORK set to gowork
// ("off": the product's go.mod alone). The repository's own modules (the
// product and samlocal: main modules of the workspace, replaced by a
// folder in the product's go.mod) have no version to compare.
func moduleVersions(gowork string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-deps", "-test", "-f", "{{with .Module}}{{if not .Main}}{{if not (and .Replace (not .Replace.Version))}}{{.Path}} {{.Version}}{{end}}{{end}}{{end}}", "./...")
	cmd.Env = append(os.Environ(), "GOWORK="+gowork)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("GOWORK=%s go list -deps -test ./...: %v\n%s", gowork, err, stderr.Bytes())
	}
	versions := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, version, ok := strings.Cut(line, " "); ok {
			versions[path] = version
		}
	}
	return versions, nil
}

// drift names each module that the product uses at one version alone and
// at another in the workspace.
func drift(alone, work map[string]string) []string {
	var bad []string
	for path, v := range alone {
		if w, ok := work[path]; !ok || w != v {
			bad = append(bad, fmt.Sprintf("the product uses %s %s, and the workspace selects %q", path, v, w))
		}
	}
	slices.Sort(bad)
	return bad
}

// subjectsSince is the last commit before the subject rule: the history
// before it stays as it was written.
const subjectsSince = "9a8f98d"

// subject is Go's form: the package or folder (or several, comma-separated),
// a colon, what changed.
var subject = regexp.MustCompile(`^[A-Za-z0-9./_-]+(, [A-Za-z0-9./_-]+)*: \S`)

// badSubjects names each "<hash> <subject>" line out of Go's style.
func badSubjects(lines []string) []string {
	var bad []string
	for _, l := range lines {
		hash, s, _ := strings.Cut(l, " ")
		switch {
		case l == "":
		case len(s) > 72:
			bad = append(bad, fmt.Sprintf("commit %s: its subject has %d characters, over 72: %q", hash, len(s), s))
		case !subject.MatchString(s):
			bad = append(bad, fmt.Sprintf("commit %s: its subject does not start with `pkg: `: %q", hash, s))
		}
	}
	return bad
}

// strictSince is the last commit before the stricter subject rule
// (strictProblem); the commits from subjectsSince to it keep the rule they
// were written under. It is the parent of the commit that brought the rule,
// which cannot name its own hash.
const strictSince = "25d21a2"

// strictSubjects names each "<full hash> <subject>" line that breaks the
// stricter rule. exists says whether a path is in a commit's tree or its
// parent's (a commit that removes a folder names it too); looking at the
// commit's own trees, not HEAD's, a later rename leaves older subjects
// right.
func strictSubjects(lines []string, exists func(commit, name string) bool) []string {
	var bad []string
	for _, l := range nonEmpty(lines) {
		hash, s, _ := strings.Cut(l, " ")
		if p := strictProblem(s, func(name string) bool { return exists(hash, name) }); p != "" {
			bad = append(bad, fmt.Sprintf("commit %.7s: %s: %q", hash, p, s))
		}
	}
	return bad
}

// strictProblem says what is wrong with subject under the stricter rule, or
// returns "". Beyond `pkg: what changed` in 72 characters (badSubjects):
//
//   - each name before the colon is a file or folder of the repository,
//     from its root (internal/glyph, Makefile, docs), or all;
//   - the phrase after it starts with a lowercase verb, its plain form, as
//     it completes "This change modifies the repository to ___";
//   - the subject holds no semicolon and does not end with a period.
//
// Whether a word is a verb is a heuristic (verbProblem).
func strictProblem(subject string, exists func(name string) bool) string {
	prefix, phrase, ok := strings.Cut(subject, ": ")
	if !ok {
		return "no `pkg: ` before the phrase"
	}
	for _, name := range strings.Split(prefix, ", ") {
		if name == "all" {
			continue
		}
		if !cleanPath(name) || !exists(name) {
			return fmt.Sprintf("%q names no file or folder of the repository (a path from its root, or all)", name)
		}
	}
	if strings.Contains(subject, ";") {
		return "a semicolon joins two subjects: keep one, and the other for the body"
	}
	if strings.HasSuffix(subject, ".") {
		return "a period ends it"
	}
	first, _, _ := strings.Cut(phrase, " ")
	return verbProblem(first)
}

// cleanPath reports whether name is a path from the repository's root in
// one spelling: no ., .., empty or trailing element, not absolute.
func cleanPath(name string) bool {
	return name == path.Clean(name) && !path.IsAbs(name) && name != "." && name != ".." && !strings.HasPrefix(name, "../")
}

// notVerb reports whether word is one that often starts a subject and never
// an imperative: an article or determiner, a pronoun, a preposition or
// conjunction, a form of be, have or do, a modal, or a noun of old habit.
func notVerb(word string) bool {
	switch word {
	case "a", "an", "the", "this", "that", "these", "those", "its", "their", "our", "my", "your",
		"each", "every", "one", "no", "some", "any", "all", "both", "another", "other", "only", "more", "new",
		"it", "they", "we", "i", "there",
		"and", "or", "but", "if", "when", "for", "in", "on", "of", "to", "with", "without", "from", "by", "at", "as",
		"after", "before", "now", "not",
		"is", "are", "was", "were", "be", "been", "has", "had", "does", "did",
		"can", "could", "will", "would", "should", "must", "may", "might",
		"wip", "misc", "minor", "typo", "cleanup":
		return true
	}
	return false
}

// verbLikeInflection reports whether word ends as an inflection that
// verbProblem refuses and is a verb in its plain form all the same.
func verbLikeInflection(word string) bool {
	switch word {
	case "embed", "shed", "bring", "ring", "sing", "spring", "sting", "string", "swing", "wring", "fling", "cling":
		return true
	}
	return false
}

// verbProblem says why word does not look like a verb in its plain form,
// or returns "". The heuristic: it starts with a lowercase letter (so not
// an identifier or a sentence's capital), is no notVerb word, and does
// not end as an inflection: -s after any letter but s, u or a (adds,
// tests, docs; pass, focus and alias are plain forms), -ed but not -eed
// (added; need), -ing (adding), save for verbLikeInflection's words.
func verbProblem(word string) string {
	r, _ := utf8.DecodeRuneInString(word)
	switch {
	case !unicode.IsLower(r):
		return fmt.Sprintf("the phrase starts with %q, not a lowercase verb", word)
	case notVerb(word):
		return fmt.Sprintf("the phrase starts with %q, which is no verb: start with what the change does (add, fix, use)", word)
	case verbLikeInflection(word):
		return ""
	case strings.HasSuffix(word, "s") && !strings.HasSuffix(word, "ss") && !strings.HasSuffix(word, "us") && !strings.HasSuffix(word, "as"):
		return fmt.Sprintf("the phrase starts with %q, a third person or a plural: write the verb's plain form (add, not adds)", word)
	case strings.HasSuffix(word, "ed") && !strings.HasSuffix(word, "eed"):
		return fmt.Sprintf("the phrase starts with %q, a past tense: write the verb's plain form (add, not added)", word)
	case strings.HasSuffix(word, "ing"):
		return fmt.Sprintf("the phrase starts with %q, a gerund: write the verb's plain form (add, not adding)", word)
	}
	return ""
}

// pathsExist asks git, in one call, whether each name before the colon of
// each "<full hash> <subject>" line is in that commit's tree or its
// parent's.
func pathsExist(lines []string) (func(commit, name string) bool, error) {
	var queries []string
	for _, l := range nonEmpty(lines) {
		hash, s, _ := strings.Cut(l, " ")
		prefix, _, _ := strings.Cut(s, ": ")
		for _, name := range strings.Split(prefix, ", ") {
			if cleanPath(name) {
				queries = append(queries, hash+":"+name, hash+"^:"+name)
			}
		}
	}
	if len(queries) == 0 {
		return func(string, string) bool { return false }, nil
	}
	cmd := exec.Command("git", "cat-file", "--batch-check=%(objecttype)")
	cmd.Stdin = strings.NewReader(strings.Join(queries, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	answers := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(answers) != len(queries) {
		return nil, fmt.Errorf("%d answers to %d questions", len(answers), len(queries))
	}
	found := map[string]bool{}
	for i, a := range answers {
		found[queries[i]] = a == "blob" || a == "tree" || a == "commit" // else "<query> missing"
	}
	return func(commit, name string) bool {
		return found[commit+":"+name] || found[commit+"^:"+name]
	}, nil
}

func nonEmpty(lines []string) []string {
	return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return l == "" })
}

// check returns one line per refused file among paths.
func check(paths []string) ([]string, error) {
	var problems []string
	for _, path := range paths {
		if path == "" {
			continue
		}
		f, err := os.Open(path)
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			return nil, err
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		head := make([]byte, 4)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if kind := executable(head[:n]); kind != "" {
			problems = append(problems, fmt.Sprintf("%s is a %s executable", path, kind))
		} else if info.Size() > maxSize && !inTestdata(path) {
			problems = append(problems, fmt.Sprintf("%s has %d bytes (over 1 MiB, outside testdata/)", path, info.Size()))
		}
	}
	return problems, nil
}

// executable names the binary format that head starts with, or "".
func executable(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case bytes.HasPrefix(head, []byte{0xfe, 0xed, 0xfa, 0xce}), bytes.HasPrefix(head, []byte{0xfe, 0xed, 0xfa, 0xcf}),
		bytes.HasPrefix(head, []byte{0xce, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(head, []byte{0xcf, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(head, []byte{0xca, 0xfe, 0xba, 0xbe}):
		return "Mach-O"
	case bytes.HasPrefix(head, []byte("MZ")):
		return "PE"
	}
	return ""
}

func inTestdata(path string) bool {
	return strings.HasPrefix(path, "testdata/") || strings.Contains(path, "/testdata/")
}
