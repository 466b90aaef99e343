package iameval

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"

	"github.com/plantstore/plantstore/tools/toolcache"
)

// evaluatorRoot is the repository whose evaluator a test asks; without node
// the test skips, except under CI=true (make test), where it fails.
func evaluatorRoot(t *testing.T) string {
	t.Helper()
	if os.Getenv("CI") != "true" {
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node is not installed (make test installs the IAM evaluator and runs this)")
		}
	}
	root, err := srctree.Root()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// cacheOf is the cache under dir of root's evaluator, at its version.
func cacheOf(t *testing.T, root, dir string) *toolcache.Cache {
	t.Helper()
	version, err := evaluatorVersion(root)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := toolcache.Open(dir, "iam-evaluator", version...)
	if err != nil {
		t.Fatal(err)
	}
	return cache
}

// emptyEvaluator is root's evaluator with one worker and a cache of its
// own under dir, empty, at the evaluator's version.
func emptyEvaluator(t *testing.T, root, dir string) (*evaluator, *toolcache.Cache) {
	t.Helper()
	cache := cacheOf(t, root, dir)
	ev, err := newEvaluator(root, cache, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ev, cache
}

// The evaluator's kept answers can never be stale: a question that differs
// in its policy, its request or its context is another key (only its ID is
// not part of it), and another evaluator (node, iamsim.mjs, a package of
// @cloud-copilot) is another folder.
func TestEvaluatorCacheMissesOnAnyChange(t *testing.T) {
	t.Parallel()
	repoRoot := evaluatorRoot(t)
	const account, otherAccount = "123456789012", "999999999999"
	policy := func(action string) []any {
		return []any{map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{"Effect": "Allow", "Action": action, "Resource": "*"}}}}
	}
	base := Question{ID: "a", Principal: "arn:aws:iam::" + account + ":role/r", Action: "s3:GetObject", Resource: "arn:aws:s3:::b/k",
		Account: account, IdentityPolicies: policy("s3:GetObject")}
	key := func(q Question) toolcache.Key {
		k, err := keyOf(q)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	renamed := base
	renamed.ID = "b"
	if key(renamed) != key(base) {
		t.Error("the ID is part of the key")
	}
	changes := map[string]func(*Question){
		"the policy":   func(q *Question) { q.IdentityPolicies = policy("s3:PutObject") },
		"a boundary":   func(q *Question) { q.Boundaries = policy("s3:PutObject") },
		"the action":   func(q *Question) { q.Action = "s3:PutObject" },
		"the resource": func(q *Question) { q.Resource = "arn:aws:s3:::b/other" },
		"the context":  func(q *Question) { q.Context = map[string]any{"aws:SourceAccount": otherAccount} },
		"the principal": func(q *Question) {
			q.Principal = "arn:aws:iam::" + otherAccount + ":root"
		},
		"trust": func(q *Question) { q.Trust = true },
	}
	for what, change := range changes {
		q := base
		change(&q)
		if key(q) == key(base) {
			t.Errorf("a question with another %s has the same key", what)
		}
	}

	// Asked through a cache of its own: the changed policy gets its own
	// answer, not the kept one.
	dir := t.TempDir()
	ev, cache := emptyEvaluator(t, repoRoot, dir)
	denied := base
	denied.IdentityPolicies = policy("s3:PutObject")
	answers, err := ev.ask([]Question{base, denied})
	if err != nil {
		t.Fatal(err)
	}
	if !answers[0].Allowed() || answers[1].Allowed() {
		t.Fatalf("answers %+v: want the first allowed, the second not", answers)
	}
	kept, err := cache.Load()
	if err != nil || len(kept) != 2 {
		t.Fatalf("kept %d answers (%v), want 2", len(kept), err)
	}
	// A second evaluator of the same version answers from what is kept:
	// with no worker at all, it still answers.
	again, err := newEvaluator(repoRoot, cache, 0)
	if err != nil {
		t.Fatal(err)
	}
	if answers, err := again.ask([]Question{denied, base}); err != nil || answers[0].Allowed() || !answers[1].Allowed() {
		t.Fatalf("from the cache: %+v, %v", answers, err)
	}

	// Another evaluator: each input of the version changes the folder.
	fake := t.TempDir()
	copyFile := func(rel string, edit func(string) string) {
		raw, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(fake, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fake, rel), []byte(edit(string(raw))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same := func(s string) string { return s }
	pkgs, _ := filepath.Glob(filepath.Join(repoRoot, "node_modules", "@cloud-copilot", "*", "package.json"))
	files := []string{"tools/iameval/iamsim.mjs"}
	for _, p := range pkgs {
		rel, _ := filepath.Rel(repoRoot, p)
		files = append(files, rel)
	}
	for _, f := range files {
		copyFile(f, same)
	}
	dirOf := func() string { return cacheOf(t, fake, dir).Dir() }
	if dirOf() != cache.Dir() {
		t.Fatal("the same evaluator files give another folder")
	}
	for _, f := range files {
		copyFile(f, func(s string) string { return strings.Replace(s, "\n", "\n ", 1) })
		if dirOf() == cache.Dir() {
			t.Errorf("a changed %s keeps the old answers", f)
		}
		copyFile(f, same)
	}
}

// A worker that fails says why in node's own words, and every later
// question gets that failure rather than a hang.
func TestAFailedWorkerQuotesNode(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	cache, err := toolcache.Open(t.TempDir(), "iam-evaluator", []byte("test"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := newEvaluator(t.TempDir(), cache, 1) // a root without iamsim.mjs
	if err != nil {
		t.Fatal(err)
	}
	q := Question{Principal: "arn:aws:iam::123456789012:root", Action: "s3:GetObject", Resource: "*", Account: "123456789012"}
	_, err = ev.ask([]Question{q})
	if err == nil || !strings.Contains(err.Error(), "Cannot find module") {
		t.Fatalf("ask = %v, want node's error naming the missing script", err)
	}
	q.Action = "s3:PutObject"
	if _, again := ev.ask([]Question{q}); again == nil {
		t.Error("a question after the failure was answered")
	}
}

// A policy the engine refuses is an Error that quotes the engine, for every
// question that holds it: iamsim.mjs checks each policy once a digest and
// hands the engine the result, which must carry the errors to each
// question as the engine's own check would.
func TestARefusedPolicyIsAnErrorForEachQuestion(t *testing.T) {
	t.Parallel()
	ev, _ := emptyEvaluator(t, evaluatorRoot(t), t.TempDir())
	doc := func(effect string, principal any) map[string]any {
		st := map[string]any{"Effect": effect, "Action": "s3:*", "Resource": "*"}
		if principal != nil {
			st["Principal"], st["Resource"] = principal, "arn:aws:s3:::b/*"
		}
		return map[string]any{"Version": "2012-10-17", "Statement": []any{st}}
	}
	refused, good := []any{doc("Maybe", nil)}, []any{doc("Allow", nil)}
	q := func(id, action string, identity []any, resource any) Question {
		return Question{ID: id, Principal: "arn:aws:iam::123456789012:role/r", Action: action, Resource: "arn:aws:s3:::b/k",
			Account: "123456789012", IdentityPolicies: identity, ResourcePolicy: resource}
	}
	answers, err := ev.ask([]Question{
		q("get", "s3:GetObject", refused, nil),
		q("put", "s3:PutObject", refused, nil),
		q("allowed", "s3:GetObject", good, nil),
		q("bad resource policy", "s3:GetObject", good, doc("Perhaps", map[string]any{"AWS": "123456789012"})),
		q("good resource policy", "s3:GetObject", good, doc("Allow", map[string]any{"AWS": "123456789012"})),
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ result, quote string }{
		{"Error", "identityPolicyErrors"}, {"Error", "identityPolicyErrors"}, {"Allowed", ""}, {"Error", "resourcePolicyErrors"}, {"Allowed", ""},
	} {
		a := answers[i]
		if a.Result != want.result || !strings.Contains(a.Error, want.quote) || (want.quote != "" && !strings.Contains(a.Error, "Effect must be present")) {
			t.Errorf("%s: %+v, want %s quoting %q and the engine's reason", a.ID, a, want.result, want.quote)
		}
	}
}
