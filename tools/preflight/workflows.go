package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// The workflow guard: rules, not samples. CheckWorkflows reads the GitHub
// workflows, .ci/run and the Makefile and answers one Finding per broken rule.
// The rules come from two documents, cited above each check:
//
//   - GitHub's "Secure use reference" (docs.github.com, actions/reference/
//     security/secure-use; it was "Security hardening for GitHub Actions",
//     and the old address redirects to it), and the workflow syntax reference;
//   - zizmor's audit documentation (docs.zizmor.sh/audits), one section per
//     audit: dangerous-triggers, excessive-permissions, unpinned-uses,
//     artipacked, cache-poisoning, template-injection.
//
// Where a rule here is stricter than the audit it cites, its comment says so.

// The rules, by the name a Finding's Rule starts with.
const (
	ruleDangerousTriggers    = "dangerous-triggers"
	rulePrivilegedTrigger    = "privileged-trigger"
	ruleIDToken              = "id-token"
	ruleExcessivePermissions = "excessive-permissions"
	ruleUnpinnedUses         = "unpinned-uses"
	ruleArtipacked           = "artipacked"
	ruleCachePoisoning       = "cache-poisoning"
	ruleTemplateInjection    = "template-injection"
	ruleContinueOnError      = "continue-on-error"
	ruleRunShell             = "run-shell"
	ruleNeutralised          = "neutralised-check"
	ruleCIRun                = "ci-run"
	ruleMakefile             = "makefile-errors"
	ruleDeployOrder          = "deploy-order"
)

// The sources, as the Rule text cites them.
const (
	srcSecureUse      = `GitHub "Secure use reference"`
	srcWorkflowSyntax = `GitHub "Workflow syntax for GitHub Actions"`
	srcBash           = `bash manual, "The Set Builtin" (-e)`
	srcMake           = `GNU make manual, "Errors in Recipes"`
	srcPrivileged     = srcSecureUse + `, "Use secrets for sensitive information" (least privilege, required reviewers) and "Mitigating the risks of untrusted code checkout"; docs/deploy.md, "A pipeline"`
)

// workflow is what the rules read of one file under .github/workflows.
type workflow struct {
	file        string
	root        *yaml.Node
	order       []string       // job names in file order
	On          yaml.Node      `yaml:"on"`
	Permissions yaml.Node      `yaml:"permissions"`
	Defaults    defaults       `yaml:"defaults"`
	Jobs        map[string]job `yaml:"jobs"`
}

type defaults struct {
	Run struct {
		Shell string `yaml:"shell"`
	} `yaml:"run"`
}

type job struct {
	name            string
	line            int
	node            *yaml.Node
	Uses            string    `yaml:"uses"`
	Secrets         yaml.Node `yaml:"secrets"`
	Needs           any       `yaml:"needs"`
	If              string    `yaml:"if"`
	Environment     any       `yaml:"environment"`
	Permissions     yaml.Node `yaml:"permissions"`
	ContinueOnError yaml.Node `yaml:"continue-on-error"`
	Defaults        defaults  `yaml:"defaults"`
	Steps           []step    `yaml:"steps"`
}

type step struct {
	line            int
	Name            string            `yaml:"name"`
	Uses            string            `yaml:"uses"`
	Run             string            `yaml:"run"`
	Shell           string            `yaml:"shell"`
	If              string            `yaml:"if"`
	With            map[string]string `yaml:"with"`
	Env             map[string]string `yaml:"env"`
	ContinueOnError yaml.Node         `yaml:"continue-on-error"`
}

func (s *step) UnmarshalYAML(n *yaml.Node) error {
	type plain step
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	s.line = n.Line
	return nil
}

func (s step) name() string {
	if s.Name != "" {
		return s.Name
	}
	if s.Uses != "" {
		return s.Uses
	}
	return s.Run
}

// matches says whether a step is the one a test names: by its action
// (owner/repo, any version) or by the text of its name or script.
func (s step) matches(what string) bool {
	if strings.Contains(what, "/") {
		return s.action() == what
	}
	return strings.Contains(s.Name, what) || strings.Contains(s.Run, what)
}

// action is the step's action without its ref, lower case (GitHub's owner
// and repository names are case-insensitive).
func (s step) action() string {
	a, _, _ := strings.Cut(s.Uses, "@")
	return strings.ToLower(a)
}

// needs lists the jobs a job waits for.
func (j job) needs() []string {
	switch n := j.Needs.(type) {
	case string:
		return []string{n}
	case []any:
		var out []string
		for _, e := range n {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// environment is the name of the job's deployment environment, "" for none.
func (j job) environment() string {
	switch e := j.Environment.(type) {
	case string:
		return e
	case map[string]any:
		return fmt.Sprint(e["name"])
	}
	return ""
}

func (w *workflow) where(j job) string {
	return fmt.Sprintf(".github/workflows/%s:%d job %s", w.file, j.line, j.name)
}

func (w *workflow) whereStep(j job, i int) string {
	s := j.Steps[i]
	label := s.Name
	if label == "" {
		label, _, _ = strings.Cut(s.Uses, "@")
	}
	if label == "" {
		label = squeeze(s.Run, 40)
	}
	return fmt.Sprintf(".github/workflows/%s:%d job %s, step %d %q", w.file, s.line, j.name, i+1, label)
}

func (w *workflow) whereTop(key string) string {
	line := 1
	if k, _ := yamlEntry(w.root, key); k != nil {
		line = k.Line
	}
	return fmt.Sprintf(".github/workflows/%s:%d %s", w.file, line, key)
}

// CheckWorkflows checks the repository at root: its GitHub workflows,
// .ci/run and the Makefile. An error is a file it could not read or parse as
// YAML; every broken rule is a Finding.
func CheckWorkflows(root string) ([]Finding, error) {
	wfs, err := loadWorkflows(filepath.Join(root, ".github", "workflows"))
	if err != nil {
		return nil, err
	}
	c := &wfChecker{root: root, wfs: wfs}
	for _, w := range wfs {
		c.triggers(w)
		c.permissions(w)
		c.uses(w)
		c.artipacked(w)
		c.cachePoisoning(w)
		c.templateInjection(w)
		c.continueOnError(w)
		c.runScripts(w)
		c.deployOrder(w)
	}
	c.ciRunsTheChecks()
	c.ciRun()
	c.makefile()
	slices.SortStableFunc(c.out, func(a, b Finding) int {
		fa, la := fileLine(a.Where)
		fb, lb := fileLine(b.Where)
		if fa != fb {
			return strings.Compare(fa, fb)
		}
		return la - lb
	})
	return c.out, nil
}

// fileLine splits a Finding's Where ("file:line ...") for sorting.
func fileLine(where string) (string, int) {
	file, rest, _ := strings.Cut(where, ":")
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end])
	return file, n
}

func loadWorkflows(dir string) ([]*workflow, error) {
	var files []string
	for _, pat := range []string{"*.yml", "*.yaml"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no workflows", dir)
	}
	slices.Sort(files)
	var out []*workflow
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		w, err := parseWorkflow(filepath.Base(f), raw)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

func parseWorkflow(name string, raw []byte) (*workflow, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a workflow (no mapping at the top)", name)
	}
	w := &workflow{file: name, root: doc.Content[0]}
	if err := doc.Decode(w); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, jobs := yamlEntry(w.root, "jobs"); jobs != nil && jobs.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(jobs.Content); i += 2 {
			name := jobs.Content[i].Value
			j := w.Jobs[name]
			j.name, j.line, j.node = name, jobs.Content[i].Line, jobs.Content[i+1]
			w.Jobs[name] = j
			w.order = append(w.order, name)
		}
	}
	return w, nil
}

// yamlEntry is the key and value nodes of key in a mapping node.
func yamlEntry(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

type wfChecker struct {
	root string
	wfs  []*workflow
	out  []Finding
}

func (c *wfChecker) add(where, rule, source, what, fix string) {
	c.out = append(c.out, Finding{
		Where: where,
		Rule:  fmt.Sprintf("%s (%s): %s", rule, source, squeeze(what, 300)),
		Fix:   squeeze(fix, 300),
	})
}

func (c *wfChecker) workflow(file string) *workflow {
	for _, w := range c.wfs {
		if w.file == file {
			return w
		}
	}
	return nil
}

// ---- 1. Triggers ----

type wfTrigger struct {
	event string
	cfg   *yaml.Node // nil for a bare event
	line  int
}

func (w *workflow) triggers() []wfTrigger {
	on := &w.On
	var out []wfTrigger
	switch on.Kind {
	case yaml.ScalarNode:
		out = append(out, wfTrigger{on.Value, nil, on.Line})
	case yaml.SequenceNode:
		for _, e := range on.Content {
			out = append(out, wfTrigger{e.Value, nil, e.Line})
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(on.Content); i += 2 {
			cfg := on.Content[i+1]
			if cfg.Kind == yaml.ScalarNode && (cfg.Tag == "!!null" || cfg.Value == "") {
				cfg = nil
			}
			out = append(out, wfTrigger{on.Content[i].Value, cfg, on.Content[i].Line})
		}
	}
	return out
}

func (w *workflow) hasTrigger(event string) bool {
	for _, t := range w.triggers() {
		if t.event == event {
			return true
		}
	}
	return false
}

// onlyPushToMain says whether the workflow runs for pushes to main and for
// nothing else: `on: push: branches: [main]`, with no other filter.
func (w *workflow) onlyPushToMain() bool {
	ts := w.triggers()
	if len(ts) != 1 || ts[0].event != "push" || ts[0].cfg == nil || ts[0].cfg.Kind != yaml.MappingNode || len(ts[0].cfg.Content) != 2 {
		return false
	}
	k, v := ts[0].cfg.Content[0], ts[0].cfg.Content[1]
	if k.Value != "branches" {
		return false
	}
	if v.Kind == yaml.ScalarNode {
		return v.Value == "main"
	}
	return v.Kind == yaml.SequenceNode && len(v.Content) == 1 && v.Content[0].Value == "main"
}

// publishes says whether the workflow runs where what it builds ships: on a
// push to main (deploy.yml), or on the release triggers zizmor's
// cache-poisoning audit names (a release event, a push of tags).
func (w *workflow) publishes() bool {
	for _, t := range w.triggers() {
		switch t.event {
		case "release":
			return true
		case "push":
			if pushReaches(t.cfg, "main") {
				return true
			}
			if _, tags := yamlEntry(t.cfg, "tags"); tags != nil {
				return true
			}
		}
	}
	return false
}

// pushReaches says whether a push trigger with this configuration runs for a
// push to branch. GitHub's rule (workflow syntax, on.push.<branches|tags>):
// with only tag filters, a push to a branch does not run the workflow.
func pushReaches(cfg *yaml.Node, branch string) bool {
	_, branches := yamlEntry(cfg, "branches")
	_, ignore := yamlEntry(cfg, "branches-ignore")
	_, tags := yamlEntry(cfg, "tags")
	_, tagsIgnore := yamlEntry(cfg, "tags-ignore")
	switch {
	case branches != nil:
		return filterMatches(yamlScalars(branches), branch)
	case ignore != nil:
		return !filterMatches(yamlScalars(ignore), branch)
	case tags != nil || tagsIgnore != nil:
		return false
	}
	return true
}

func yamlScalars(n *yaml.Node) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, e := range n.Content {
		out = append(out, e.Value)
	}
	return out
}

// filterMatches applies a list of GitHub filter patterns (workflow syntax,
// "Filter pattern cheat sheet": * not across /, ** across, ? + [] as in a
// regular expression, and a leading ! that takes back an earlier match).
func filterMatches(patterns []string, name string) bool {
	matched := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		var re strings.Builder
		for i := 0; i < len(p); i++ {
			switch ch := p[i]; {
			case ch == '*' && i+1 < len(p) && p[i+1] == '*':
				re.WriteString(".*")
				i++
			case ch == '*':
				re.WriteString("[^/]*")
			case strings.ContainsRune("?+[]", rune(ch)):
				re.WriteByte(ch)
			default:
				re.WriteString(regexp.QuoteMeta(string(ch)))
			}
		}
		r, err := regexp.Compile("^(?:" + re.String() + ")$")
		if err != nil || r.MatchString(name) {
			// A pattern that does not compile is taken as matching: the
			// rule then errs on the safe side.
			matched = !neg
		}
	}
	return matched
}

var (
	exprRe    = regexp.MustCompile(`(?s)\$\{\{(.*?)\}\}`)
	secretsRe = regexp.MustCompile(`(?i)\bsecrets\b(?:\s*\.\s*([A-Za-z0-9_-]+)|\s*\[\s*'([^']*)'\s*\])?`)
)

// privilege lists why a job is privileged: a deployment environment, an
// OIDC token, a secret other than GITHUB_TOKEN.
func (w *workflow) privilege(j job) []string {
	var why []string
	if env := j.environment(); j.Environment != nil {
		why = append(why, "environment "+env)
	}
	if grantsIDToken(&j.Permissions) || grantsIDToken(&w.Permissions) {
		why = append(why, "id-token: write")
	}
	if !j.Secrets.IsZero() {
		why = append(why, "secrets: passed to "+j.Uses)
	}
	return append(why, secretRefs(j.node)...)
}

// secretRefs are the secrets other than GITHUB_TOKEN that expressions under
// n read.
func secretRefs(n *yaml.Node) []string {
	var out []string
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if n.Kind == yaml.ScalarNode {
			for _, e := range exprRe.FindAllStringSubmatch(n.Value, -1) {
				for _, m := range secretsRe.FindAllStringSubmatch(e[1], -1) {
					name := m[1] + m[2]
					if !strings.EqualFold(name, "GITHUB_TOKEN") {
						out = append(out, strings.TrimSpace(m[0]))
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// Triggers. zizmor's dangerous-triggers audit ("Fundamentally dangerous
// GitHub Actions workflow triggers") flags `pull_request_target` and
// `workflow_run` wherever they appear, with no exception for a workflow that
// checks nothing out: its doc says the claim that they are safe when the PR's
// code is not run "is not true" (argument, environment and file injection).
// GitHub's Secure use reference ("Mitigating the risks of untrusted code
// checkout") adds that both run privileged, share main's cache, and may hold
// write access and secrets. So neither may appear at all.
//
// A workflow that holds a privileged job (a deployment environment,
// `id-token: write`, a secret other than GITHUB_TOKEN) runs only for a push
// to main: a pull request (from a fork or a branch), a dispatch or a schedule
// can start it on code that main's review never saw, and the deploy role
// trusts the environment (pipeline/roles.yaml), not the branch. The
// environments' branch policy (docs/deploy.md) is the second lock; this is
// the first. A reusable workflow (workflow_call) is fine only while it holds
// no such job, since whoever calls it picks the code.
func (c *wfChecker) triggers(w *workflow) {
	for _, t := range w.triggers() {
		if t.event == "pull_request_target" || t.event == "workflow_run" {
			c.add(fmt.Sprintf(".github/workflows/%s:%d on.%s", w.file, t.line, t.event), ruleDangerousTriggers,
				`zizmor dangerous-triggers; `+srcSecureUse+`, "Mitigating the risks of untrusted code checkout"`,
				t.event+" runs in the base repository's privileged context on an event a fork controls",
				"trigger with pull_request (or workflow_call in place of workflow_run)")
		}
	}
	var privileged []string
	if _, env := yamlEntry(w.root, "env"); len(secretRefs(env)) > 0 {
		privileged = append(privileged, "every job (the workflow's env: reads "+strings.Join(secretRefs(env), ", ")+")")
	}
	for _, name := range w.order {
		if why := w.privilege(w.Jobs[name]); len(why) > 0 {
			privileged = append(privileged, fmt.Sprintf("%s (%s)", name, strings.Join(why, ", ")))
		}
	}
	if len(privileged) == 0 || w.onlyPushToMain() {
		return
	}
	c.add(w.whereTop("on"), rulePrivilegedTrigger,
		srcPrivileged,
		fmt.Sprintf("the workflow holds privileged jobs %s but runs on %s", strings.Join(privileged, "; "), describeTriggers(w)),
		"trigger it with `on: push: branches: [main]` and nothing else, or move the privileged jobs to such a workflow")
}

func describeTriggers(w *workflow) string {
	var out []string
	for _, t := range w.triggers() {
		s := t.event
		if t.cfg != nil {
			b, _ := yaml.Marshal(t.cfg)
			s += " " + squeeze(string(b), 80)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "no trigger"
	}
	return strings.Join(out, ", ")
}

// ---- 2, 3. Permissions ----

// grantsIDToken says whether a permissions node lets the job ask for an OIDC
// token (id-token: write, or write-all).
func grantsIDToken(n *yaml.Node) bool {
	return permissionOf(n, "id-token") == "write" || (n.Kind == yaml.ScalarNode && n.Value == "write-all")
}

// permissionOf is the value a permissions node gives scope ("" for none; the
// scalar itself, e.g. write-all, for a scalar node).
func permissionOf(n *yaml.Node, scope string) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	_, v := yamlEntry(n, scope)
	if v == nil {
		return ""
	}
	return v.Value
}

// Permissions. GitHub's Secure use reference ("Use secrets for sensitive
// information", principle of least privilege): "set the default permission
// for the GITHUB_TOKEN to read access only for repository contents", then
// raise it per job as needed. zizmor's excessive-permissions audit flags
// broad workflow-level permissions (all jobs inherit them) and a workflow
// that sets none (the default token can be broad: its scopes come from the
// repository's and organisation's settings, not the file). So: a top-level
// map of read/none (or {}), no write-all/read-all anywhere, and no job-level
// write but id-token.
//
// id-token: write. GitHub's Secure use reference ("Using OpenID Connect to
// access cloud resources") and zizmor's excessive-permissions example (the
// "After" moves `id-token: write` from the workflow to the one publishing
// job): the OIDC token is the deploy credential, so only a job that names an
// environment (whose reviewers and branch policy guard it, and whose name the
// deploy role's trust policy checks) asks for it, never the workflow.
func (c *wfChecker) permissions(w *workflow) {
	const src = `zizmor excessive-permissions; ` + srcSecureUse + `, "Use secrets for sensitive information"`
	top := &w.Permissions
	switch {
	case top.IsZero():
		c.add(w.whereTop("jobs"), ruleExcessivePermissions, src,
			"no top-level permissions: every job gets the repository's default GITHUB_TOKEN scopes", "add `permissions: {contents: read}` at the top")
	case top.Kind != yaml.MappingNode:
		c.add(w.whereTop("permissions"), ruleExcessivePermissions, src,
			"top-level `permissions: "+top.Value+"` grants every scope to every job", "use `permissions: {contents: read}`")
	default:
		for i := 0; i+1 < len(top.Content); i += 2 {
			scope, v := top.Content[i].Value, top.Content[i+1].Value
			if v == "read" || v == "none" {
				continue
			}
			if scope == "id-token" {
				c.add(w.whereTop("permissions"), ruleIDToken, `zizmor excessive-permissions; `+srcSecureUse+`, "Using OpenID Connect to access cloud resources"`,
					"`id-token: "+v+"` at the top level gives every job the deploy credential", "move `id-token: write` to the jobs that name an environment")
				continue
			}
			c.add(w.whereTop("permissions"), ruleExcessivePermissions, src,
				fmt.Sprintf("top-level `%s: %s`: every job inherits it", scope, v), "set "+scope+" to read or none; grant write in the one job that needs it")
		}
	}
	for _, name := range w.order {
		j := w.Jobs[name]
		p := &j.Permissions
		if p.IsZero() {
			continue
		}
		if p.Kind != yaml.MappingNode {
			c.add(w.where(j), ruleExcessivePermissions, src, "`permissions: "+p.Value+"` grants every scope", "list the scopes the job needs, each read")
			continue
		}
		for i := 0; i+1 < len(p.Content); i += 2 {
			scope, v := p.Content[i].Value, p.Content[i+1].Value
			if v == "read" || v == "none" {
				continue
			}
			if scope != "id-token" {
				c.add(w.where(j), ruleExcessivePermissions, src,
					fmt.Sprintf("`%s: %s` in a job: nothing here writes to the repository", scope, v), "set "+scope+": read (or drop it)")
				continue
			}
			if j.Environment == nil {
				c.add(w.where(j), ruleIDToken, `zizmor excessive-permissions; `+srcSecureUse+`, "Using OpenID Connect to access cloud resources"`,
					"`id-token: write` in a job with no environment: it can assume a deploy role without the environment's reviewers and branch policy", "drop id-token: write here; only dev and prod (environment jobs) need it")
			} else if !w.onlyPushToMain() {
				c.add(w.where(j), ruleIDToken, srcPrivileged,
					"`id-token: write` in a workflow not triggered only by a push to main", "trigger the workflow with `on: push: branches: [main]` alone")
			}
		}
	}
}

// ---- 4. unpinned-uses ----

var (
	shaRef    = regexp.MustCompile(`^[^@\s]+@[0-9a-f]{40}$`)
	dockerRef = regexp.MustCompile(`^docker://[^@\s]+@sha256:[0-9a-f]{64}$`)
)

// unpinned-uses. GitHub's Secure use reference ("Using third-party actions",
// "Pin actions to a full-length commit SHA"): a full SHA "is currently the
// only way to use an action as an immutable release"; "Reusing third-party
// workflows" applies the same to reusable workflows. zizmor's unpinned-uses
// audit (default policy since v1.20.0: hash-pin everything, actions/* too)
// agrees; for `docker://` it asks only for a tag, which is mutable, so here a
// Docker action is pinned by digest (@sha256:...). `./` names this
// repository's own code at the same commit.
func (c *wfChecker) uses(w *workflow) {
	const src = `zizmor unpinned-uses; ` + srcSecureUse + `, "Pin actions to a full-length commit SHA"`
	check := func(where, uses string) {
		switch {
		case uses == "" || strings.HasPrefix(uses, "./"):
		case strings.HasPrefix(uses, "docker://"):
			if !dockerRef.MatchString(uses) {
				c.add(where, ruleUnpinnedUses, src, "`"+uses+"` is not pinned by digest: its tag can be moved", "pin the image as docker://image@sha256:<digest>")
			}
		case !shaRef.MatchString(uses):
			c.add(where, ruleUnpinnedUses, src, "`"+uses+"` is not pinned to a commit: a tag or branch can be moved to other code", "pin to the full 40-hex commit SHA with the tag in a comment (uses: owner/repo@<sha> # vX.Y.Z)")
		}
	}
	for _, name := range w.order {
		j := w.Jobs[name]
		check(w.where(j), j.Uses)
		for i, s := range j.Steps {
			check(w.whereStep(j, i), s.Uses)
		}
	}
}

// ---- 5. artipacked ----

// artipacked. zizmor's artipacked audit: actions/checkout persists a
// credential on disk by default (in .git/config before v6), where a later
// step can leak it, e.g. in an artifact (deploy.yml uploads one); "unless
// needed for git operations, actions/checkout should be used with
// persist-credentials: false". Nothing here pushes.
func (c *wfChecker) artipacked(w *workflow) {
	for _, name := range w.order {
		j := w.Jobs[name]
		for i, s := range j.Steps {
			if s.action() == "actions/checkout" && s.With["persist-credentials"] != "false" {
				c.add(w.whereStep(j, i), ruleArtipacked, `zizmor artipacked`,
					"actions/checkout without `persist-credentials: false` leaves the GITHUB_TOKEN on disk for later steps and artifacts", "add `with: persist-credentials: false`")
			}
		}
	}
}

// ---- 6. cache-poisoning ----

// cacheAware maps each cache-aware action that zizmor's cache-poisoning
// audit knows (KNOWN_CACHE_AWARE_ACTIONS in its
// crates/zizmor/src/audit/cache_poisoning.rs, each with the input that
// switches the cache and its default) to whether the step's inputs leave
// the cache on. An input given as an expression counts as on: only a
// literal is known before the run.
var cacheAware = map[string]func(with map[string]string) bool{
	"actions/cache":        func(w map[string]string) bool { return !inputTrue(w["lookup-only"]) },
	"actions/setup-java":   func(w map[string]string) bool { return w["cache"] != "" },
	"actions/setup-go":     func(w map[string]string) bool { return !inputFalse(w["cache"]) }, // on by default
	"actions/setup-node":   func(w map[string]string) bool { return w["cache"] != "" || !inputFalse(w["package-manager-cache"]) },
	"actions/setup-python": func(w map[string]string) bool { return w["cache"] != "" },
	"actions/setup-dotnet": func(w map[string]string) bool { return inputOnIfTrue(w["cache"]) },
	// setup-uv before v10 caches unless enable-cache is false; v10 only when
	// it is true. Without the version at hand, the stricter reading.
	"astral-sh/setup-uv":                        func(w map[string]string) bool { return !inputFalse(w["enable-cache"]) },
	"swatinem/rust-cache":                       func(w map[string]string) bool { return !inputTrue(w["lookup-only"]) },
	"ruby/setup-ruby":                           func(w map[string]string) bool { return inputOnIfTrue(w["bundler-cache"]) },
	"pyo3/maturin-action":                       func(w map[string]string) bool { return inputOnIfTrue(w["sccache"]) },
	"mlugg/setup-zig":                           func(w map[string]string) bool { return !inputFalse(w["use-cache"]) },
	"oven-sh/setup-bun":                         func(w map[string]string) bool { return !inputTrue(w["no-cache"]) },
	"determinatesystems/magic-nix-cache-action": func(w map[string]string) bool { return !inputFalse(w["use-gha-cache"]) },
	"graalvm/setup-graalvm":                     func(w map[string]string) bool { return w["cache"] != "" },
	"gradle/actions/setup-gradle":               func(w map[string]string) bool { return !inputTrue(w["cache-disabled"]) },
	"docker/setup-buildx-action":                func(w map[string]string) bool { return !inputFalse(w["cache-binary"]) && w["version"] != "" },
	"actions-rust-lang/setup-rust-toolchain":    func(w map[string]string) bool { return !inputFalse(w["cache"]) },
	"mozilla-actions/sccache-action":            func(map[string]string) bool { return true },
	"nix-community/cache-nix-action":            func(map[string]string) bool { return true },
	"jdx/mise-action":                           func(w map[string]string) bool { return !inputFalse(w["cache"]) },
	"ramsey/composer-install": func(w map[string]string) bool {
		return !slices.Contains([]string{"yes", "true", "1"}, w["ignore-cache"])
	},
	"awalsh128/cache-apt-pkgs-action": func(map[string]string) bool { return true },
}

func inputTrue(v string) bool     { return v == "true" }
func inputFalse(v string) bool    { return v == "false" }
func inputOnIfTrue(v string) bool { return v == "true" || strings.Contains(v, "${{") }

func cacheOn(s step) bool {
	a := s.action()
	for name, on := range cacheAware {
		if a == name || strings.HasPrefix(a, name+"/") {
			return on(s.With)
		}
	}
	return false
}

// cache-poisoning. zizmor's cache-poisoning audit: a workflow that publishes
// must not restore state cached by earlier runs, since anyone holding a
// GITHUB_TOKEN in the repository (any workflow's, any action's) can write a
// cache entry that the publishing job then restores and runs. zizmor scopes
// it to release triggers (a release event, a tag push) and known publisher
// actions (aws-cloudformation-github-deploy among them); here the same
// reasoning covers what deploy.yml ships on a push to main: every job of a
// publishing workflow (build, dev, prod), with one exception, the job that
// only calls ci.yml, whose caches feed nothing that ships. setup-go caches by
// default (`cache` defaults to true), so it needs an explicit `cache: false`.
func (c *wfChecker) cachePoisoning(w *workflow) {
	if !w.publishes() {
		return
	}
	for _, name := range w.order {
		j := w.Jobs[name]
		steps := j.Steps
		where := func(i int) string { return w.whereStep(j, i) }
		if j.Uses != "" {
			called := strings.TrimPrefix(j.Uses, "./.github/workflows/")
			if called == "ci.yml" || called == j.Uses {
				continue // the checks; or a remote workflow (pinned, read there)
			}
			if cw := c.workflow(called); cw != nil {
				for _, cn := range cw.order {
					cj := cw.Jobs[cn]
					for i, s := range cj.Steps {
						if cacheOn(s) {
							c.add(cw.whereStep(cj, i), ruleCachePoisoning, `zizmor cache-poisoning`,
								fmt.Sprintf("%s restores a cache in a job that %s (job %s) calls on a push to main", s.action(), w.file, name), "disable its cache (e.g. setup-go `cache: false`) or drop the step")
						}
					}
				}
			}
			continue
		}
		for i, s := range steps {
			if cacheOn(s) {
				fix := "drop the step"
				switch s.action() {
				case "actions/setup-go":
					fix = "set `cache: false` (setup-go caches by default)"
				case "actions/setup-node":
					fix = "drop `cache:` and set `package-manager-cache: false`"
				case "actions/setup-python", "actions/setup-java", "graalvm/setup-graalvm":
					fix = "drop `cache:`"
				}
				c.add(where(i), ruleCachePoisoning, `zizmor cache-poisoning`,
					s.action()+" restores a cache in a job of a workflow that ships what it builds", fix)
			}
		}
	}
}

// ---- 7. template-injection ----

// template-injection. zizmor's template-injection audit and GitHub's Secure
// use reference ("Good practices for mitigating script injection attacks",
// "Use an intermediate environment variable"): an expression in a script is
// expanded into the script's text before the shell parses it, so a value
// becomes code. Pass it through `env:` and read "$NAME". zizmor's pedantic
// persona flags every expansion in a code context, since telling safe ones
// from unsafe ones is "more error-prone than forbidding them in a blanket
// fashion"; so does this rule. actions/github-script's `script` is code too.
func (c *wfChecker) templateInjection(w *workflow) {
	const src = `zizmor template-injection; ` + srcSecureUse + `, "Use an intermediate environment variable"`
	for _, name := range w.order {
		j := w.Jobs[name]
		for i, s := range j.Steps {
			code := s.Run
			if s.action() == "actions/github-script" {
				code = s.With["script"]
			}
			for _, m := range exprRe.FindAllString(code, -1) {
				c.add(w.whereStep(j, i), ruleTemplateInjection, src,
					"`"+m+"` is expanded into the script's text before the shell reads it",
					"set it in the step's env: (NAME: "+m+") and use \"$NAME\" in the script")
			}
		}
	}
}

// ---- 8. continue-on-error, shells, scripts ----

// continue-on-error. GitHub's workflow syntax (jobs.<job_id>.continue-on-error,
// jobs.<job_id>.steps[*].continue-on-error): true lets the job or workflow
// pass when the step or job fails, so a failing check would let the deploy
// go on. Only absent or false.
func (c *wfChecker) continueOnError(w *workflow) {
	const src = srcWorkflowSyntax + `, "jobs.<job_id>.continue-on-error"`
	bad := func(n *yaml.Node) bool { return !n.IsZero() && !(n.Kind == yaml.ScalarNode && n.Value == "false") }
	for _, name := range w.order {
		j := w.Jobs[name]
		if bad(&j.ContinueOnError) {
			c.add(w.where(j), ruleContinueOnError, src, "`continue-on-error: "+j.ContinueOnError.Value+"`: the job's failure no longer fails the run", "remove continue-on-error")
		}
		for i, s := range j.Steps {
			if bad(&s.ContinueOnError) {
				c.add(w.whereStep(j, i), ruleContinueOnError, src, "`continue-on-error: "+s.ContinueOnError.Value+"`: the step's failure no longer fails the job", "remove continue-on-error")
			}
		}
	}
}

// runScripts checks each `run:` script. The shell: GitHub's workflow syntax
// (jobs.<job_id>.steps[*].shell) runs a step with no shell as `bash -e {0}`,
// without pipefail, and `shell: bash` as `bash --noprofile --norc -eo
// pipefail {0}`; so every run step must run as `bash` (the workflow's
// `defaults: run: shell: bash`), or `make test | tee log` would pass when the
// tests fail. Then each script is parsed and read for checks it neutralises
// (scriptProblems).
func (c *wfChecker) runScripts(w *workflow) {
	for _, name := range w.order {
		j := w.Jobs[name]
		for i, s := range j.Steps {
			if s.Run == "" {
				continue
			}
			shell := s.Shell
			if shell == "" {
				shell = j.Defaults.Run.Shell
			}
			if shell == "" {
				shell = w.Defaults.Run.Shell
			}
			if shell != "bash" {
				what := "the step runs with GitHub's default `bash -e {0}`, without pipefail: a failure before a | is ignored"
				if shell != "" {
					what = "`shell: " + shell + "` is not GitHub's `bash` (`bash --noprofile --norc -eo pipefail {0}`)"
				}
				c.add(w.whereStep(j, i), ruleRunShell, srcWorkflowSyntax+`, "jobs.<job_id>.steps[*].shell"`, what, "set `defaults: run: shell: bash` at the top of the workflow and no other shell")
			}
			c.shell(w.whereStep(j, i), runScript(s.Run))
		}
	}
}

// shell parses one script and adds its problems; it returns the parsed file,
// nil when it does not parse.
func (c *wfChecker) shell(where, src string) *syntax.File {
	f, err := parseShell(src, "")
	if err != nil {
		c.add(where, ruleNeutralised, srcBash, "the script does not parse as bash ("+err.Error()+"), so its checks cannot be read", "fix the script's syntax")
		return nil
	}
	for _, p := range scriptProblems(f, src) {
		c.add(fmt.Sprintf("%s (script line %d)", where, p.line), ruleNeutralised, srcBash, p.what, p.fix)
	}
	return f
}

func parseShell(src, name string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), name)
}

// runScript is a run: script as the shell gets it: GitHub expands each
// expression into the text first (template-injection reports them), so
// here each becomes a plain word.
func runScript(run string) string {
	return exprRe.ReplaceAllString(run, "_expr_")
}

type shellProblem struct {
	line      int
	what, fix string
}

type shellCheck struct {
	src      string
	problems []shellProblem
}

// scriptProblems are the places where a script run with `set -e` and
// pipefail lets a failed command pass. The bash manual ("The Set Builtin",
// -e): the shell does not exit when the failing command is "part of any
// command executed in a && or || list except the command following the final
// && or ||", "any command in a pipeline but the last", or "if the command's
// return status is being inverted with !"; and "if a compound command other
// than a subshell returns a non-zero status because a command failed while -e
// was being ignored, the shell does not exit". So, outside an if/while
// condition (where testing a status is the point):
//
//   - `a || b` needs a b that ends the script with a failure (`exit N`, N not
//     0, `exit $?`, `false`, `{ ...; exit N; }`); else b hides a's failure
//     (`make test || echo failed`, `|| true`, `|| :`). A left side that only
//     asks a question (test, [, [[, command -v, type, hash, which) is an
//     if-not, not a hidden failure: `command -v x || install x`.
//   - `a && b` and `! a` are fine only as the script's last command (their
//     status is the script's), or with a probe on the left.
//   - `set +e`, `set +o errexit`, `set +o pipefail` (and shopt -u -o) turn the
//     guard off; a trap on EXIT or ERR that exits can replace the status.
//
// `cmd; true` is fine: under -e, cmd's failure ends the script first.
func scriptProblems(f *syntax.File, src string) []shellProblem {
	c := &shellCheck{src: src}
	c.list(f.Stmts, true)
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			c.builtin(call)
		}
		return true
	})
	return c.problems
}

func (c *shellCheck) add(n syntax.Node, what, fix string) {
	c.problems = append(c.problems, shellProblem{int(n.Pos().Line()), what + ": `" + c.text(n) + "`", fix})
}

func (c *shellCheck) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(c.src) || start > end {
		return "?"
	}
	return squeeze(c.src[start:end], 80)
}

// list checks a list of statements; last says whether the status of the
// list's last statement decides the outcome (the script's own last
// statement, a subshell's, a function's).
func (c *shellCheck) list(stmts []*syntax.Stmt, last bool) {
	for i, s := range stmts {
		c.stmt(s, last && i == len(stmts)-1)
	}
}

func (c *shellCheck) stmt(s *syntax.Stmt, decides bool) {
	if s.Negated && !decides && !shProbe(s) {
		c.add(s, "`!` turns off set -e for the command, so its failure is ignored here", "drop the `!` (or test the status in an if)")
	}
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.OrStmt:
			switch {
			case shFails(x.Y):
				c.stmt(x.X, true)
			case shProbe(x.X):
				c.stmt(x.Y, decides)
			default:
				c.add(s, "`a || b` where b does not fail: a's failure is hidden", "drop `|| ...`, or end it with `|| { echo ...; exit 1; }`")
				c.stmt(x.X, true)
				c.stmt(x.Y, decides)
			}
		case syntax.AndStmt:
			if !decides && !shProbe(x.X) {
				c.add(s, "`a && b` not at the end of the script: set -e ignores a's failure", "split it into two commands (a newline or ;)")
			}
			c.stmt(x.X, true)
			c.stmt(x.Y, decides)
		default: // pipes: with pipefail, any failing part fails the pipeline
			c.stmt(x.X, decides)
			c.stmt(x.Y, decides)
		}
	case *syntax.Block:
		c.list(x.Stmts, decides)
	case *syntax.Subshell:
		c.list(x.Stmts, true) // a subshell's status does trigger -e
	case *syntax.IfClause:
		for e := x; e != nil; e = e.Else {
			c.list(e.Then, decides)
		}
	case *syntax.WhileClause:
		c.list(x.Do, false)
	case *syntax.ForClause:
		c.list(x.Do, false)
	case *syntax.CaseClause:
		for _, it := range x.Items {
			c.list(it.Stmts, decides)
		}
	case *syntax.FuncDecl:
		c.stmt(x.Body, true)
	case *syntax.TimeClause:
		if x.Stmt != nil {
			c.stmt(x.Stmt, decides)
		}
	case nil:
	default:
		// Simple commands: read the scripts of their command substitutions.
		syntax.Walk(x, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst:
				c.list(n.Stmts, true)
				return false
			case *syntax.ProcSubst:
				c.list(n.Stmts, true)
				return false
			}
			return true
		})
	}
}

// builtin refuses the builtins that switch the guard off.
func (c *shellCheck) builtin(call *syntax.CallExpr) {
	args := shWords(call.Args)
	if len(args) == 0 {
		return
	}
	switch args[0] {
	case "set":
		for _, a := range args[1:] {
			if a == "\x00" {
				c.add(call, "`set` with a computed argument: whether it turns -e off cannot be read", "spell the options out")
				return
			}
			if a == "--" || a == "-" || (a[0] != '-' && a[0] != '+') {
				break
			}
		}
		o := shellOpts{errexit: true, pipefail: true}
		o.apply(args[1:])
		if !o.errexit {
			c.add(call, "`set +e` turns off exit-on-error: later failures are ignored", "remove it; test a status with if where a failure is expected")
		}
		if !o.pipefail {
			c.add(call, "`set +o pipefail`: a failure before a | is ignored", "remove it")
		}
	case "shopt":
		if slices.Contains(args, "-u") && slices.Contains(args, "-o") && (slices.Contains(args, "errexit") || slices.Contains(args, "pipefail")) {
			c.add(call, "`shopt -u -o` turns off errexit or pipefail", "remove it")
		}
	case "trap":
		if len(args) >= 3 && exitWordRe.MatchString(args[1]) {
			for _, sig := range args[2:] {
				if s := strings.ToUpper(strings.TrimPrefix(strings.ToUpper(sig), "SIG")); s == "EXIT" || s == "0" || s == "ERR" {
					c.add(call, "a trap on "+sig+" that exits replaces the script's failing status", "do not exit from an EXIT or ERR trap")
					break
				}
			}
		}
	}
}

var exitWordRe = regexp.MustCompile(`\bexit\b`)

// shellOpts follows -e and -o pipefail through set's (and bash's) flags.
type shellOpts struct{ errexit, pipefail bool }

func (o *shellOpts) apply(words []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" || w == "-" || len(w) < 2 || (w[0] != '-' && w[0] != '+') {
			return // positional parameters follow
		}
		if strings.HasPrefix(w, "--") {
			continue // bash's long options (--noprofile)
		}
		on := w[0] == '-'
		for _, ch := range w[1:] {
			switch ch {
			case 'e':
				o.errexit = on
			case 'o':
				if i+1 < len(words) {
					i++
					switch words[i] {
					case "errexit":
						o.errexit = on
					case "pipefail":
						o.pipefail = on
					}
				}
			}
		}
	}
}

// words are the literal values of shell words (quotes removed); a word with
// an expansion in it is "\x00".
func shWords(ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = shWord(w)
	}
	return out
}

func shWord(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "\x00"
				}
				b.WriteString(l.Value)
			}
		default:
			return "\x00"
		}
	}
	return b.String()
}

// shProbe says whether a statement only asks a question, so that its failure
// is an answer, not a failed check.
func shProbe(s *syntax.Stmt) bool {
	switch x := s.Cmd.(type) {
	case *syntax.TestClause, *syntax.ArithmCmd:
		return true
	case *syntax.BinaryCmd:
		return (x.Op == syntax.AndStmt || x.Op == syntax.OrStmt) && shProbe(x.X) && shProbe(x.Y)
	case *syntax.CallExpr:
		args := shWords(x.Args)
		if len(args) == 0 {
			return false
		}
		switch args[0] {
		case "test", "[", "type", "hash", "which":
			return true
		case "command":
			return len(args) > 1 && (args[1] == "-v" || args[1] == "-V")
		}
	}
	return false
}

// shFails says whether a statement ends the script with a failure: `exit N`
// (N not 0), `exit $?` after a failure, `false`, or a block or subshell that
// ends with one.
func shFails(s *syntax.Stmt) bool {
	if s.Negated {
		return false
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		args := shWords(x.Args)
		if len(args) == 1 && args[0] == "false" {
			return true
		}
		if len(args) == 2 && args[0] == "exit" {
			if n, err := strconv.Atoi(args[1]); err == nil {
				return n%256 != 0
			}
			if len(x.Args[1].Parts) == 1 {
				if p, ok := x.Args[1].Parts[0].(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == "?" {
					return true
				}
			}
		}
	case *syntax.Block:
		return len(x.Stmts) > 0 && shFails(x.Stmts[len(x.Stmts)-1])
	case *syntax.Subshell:
		return len(x.Stmts) > 0 && shFails(x.Stmts[len(x.Stmts)-1])
	}
	return false
}

// ---- 8. .ci/run and ci.yml ----

// ciRunsTheChecks: ci.yml runs `bash .ci/run`, the one definition of the
// checks (the CI that gates a submission runs the same file), as a plain
// command of a step with no `if:`, in a job with no `if:`; and it can be
// called (workflow_call) by the deploy workflow.
func (c *wfChecker) ciRunsTheChecks() {
	const src = `this repository's rule: one definition of the checks; ` + srcWorkflowSyntax + `, "jobs.<job_id>.steps[*].if"`
	w := c.workflow("ci.yml")
	if w == nil {
		c.add(".github/workflows/ci.yml", ruleCIRun, src, "there is no ci.yml", "restore ci.yml, which runs bash .ci/run")
		return
	}
	if !w.hasTrigger("workflow_call") {
		c.add(w.whereTop("on"), ruleCIRun, src, "ci.yml has no workflow_call trigger: deploy.yml cannot run the checks first", "add `workflow_call:` to its triggers")
	}
	for _, name := range w.order {
		j := w.Jobs[name]
		for _, s := range j.Steps {
			f, err := parseShell(runScript(s.Run), "")
			if err != nil || s.Run == "" {
				continue
			}
			for _, st := range f.Stmts {
				if a := shPlainCall(st); len(a) == 2 && a[0] == "bash" && a[1] == ".ci/run" && j.If == "" && s.If == "" {
					return
				}
			}
		}
	}
	c.add(w.whereTop("jobs"), ruleCIRun, src, "no step runs `bash .ci/run` as a plain command, unconditionally", "add a step `run: bash .ci/run` with no if:")
}

// shPlainCall is a statement's words if it is a plain command: not negated,
// not in the background, no || && or |; nil otherwise.
func shPlainCall(s *syntax.Stmt) []string {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || s.Coprocess || s.Disown {
		return nil
	}
	return shWords(call.Args)
}

// ciRun: .ci/run is the script that CI runs. It starts (after comments) with
// `set -euo pipefail` (or another spelling of -e and -o pipefail), and runs
// `make test` and `make lint` as plain top-level commands: not in an if, a
// loop, a function or a subshell, not negated, backgrounded or in a list,
// with no make flag (-i ignores errors, -n runs nothing), and with no exit or
// exec before them and no function named make. Its other commands get the
// same reading as every run: script.
func (c *wfChecker) ciRun() {
	const src = srcBash + `; this repository's rule: .ci/run is the one definition of the checks`
	path := filepath.Join(c.root, ".ci", "run")
	raw, err := os.ReadFile(path)
	if err != nil {
		c.add(".ci/run", ruleCIRun, src, "cannot read .ci/run: "+err.Error(), "restore .ci/run")
		return
	}
	f := c.shell(".ci/run", string(raw))
	if f == nil {
		return
	}
	var o shellOpts
	if len(f.Stmts) > 0 {
		if a := shPlainCall(f.Stmts[0]); len(a) > 0 && a[0] == "set" {
			o.apply(a[1:])
		}
	}
	if !o.errexit || !o.pipefail {
		c.add(".ci/run:1", ruleCIRun, src, "the first command is not `set -euo pipefail`: a failing check would not stop the script", "begin .ci/run with `set -euo pipefail`")
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.FuncDecl); ok && d.Name != nil && d.Name.Value == "make" {
			c.add(fmt.Sprintf(".ci/run:%d", d.Pos().Line()), ruleCIRun, src, "a function named make replaces the real make", "remove it")
		}
		return true
	})
	for _, target := range []string{"lint", "test"} {
		found := false
		for i, s := range f.Stmts {
			a := shPlainCall(s)
			if len(a) < 2 || a[0] != "make" || !slices.Contains(a[1:], target) {
				continue
			}
			var flags []string
			for _, w := range a[1:] {
				if strings.HasPrefix(w, "-") || w == "\x00" {
					flags = append(flags, w)
				}
			}
			if len(flags) > 0 {
				c.add(fmt.Sprintf(".ci/run:%d", s.Pos().Line()), ruleCIRun, src, fmt.Sprintf("`make %s` with flags %q (-i ignores errors, -n runs nothing)", target, flags), "run plain `make "+target+"`")
				continue
			}
			if early := shExitsBefore(f.Stmts[:i]); early != nil {
				c.add(fmt.Sprintf(".ci/run:%d", early.Pos().Line()), ruleCIRun, src, "the script exits (or execs) before `make "+target+"` runs", "remove the exit/exec")
				continue
			}
			found = true
		}
		if !found {
			c.add(".ci/run", ruleCIRun, src, "no plain top-level `make "+target+"`: it is missing, or in an if, a list (|| && |), a subshell, negated with !, backgrounded with &, given flags, or after an exit", "add the line `make "+target+"` at the top level, after `set -euo pipefail`")
		}
	}
}

// shExitsBefore is the first top-level statement that ends the script with
// success or replaces it (`exit`, `exit 0`, `exec cmd`).
func shExitsBefore(stmts []*syntax.Stmt) *syntax.Stmt {
	for _, s := range stmts {
		found := false
		syntax.Walk(s, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok {
				a := shWords(call.Args)
				found = found || (len(a) > 1 && a[0] == "exec") || (len(a) > 0 && a[0] == "exit" && (len(a) == 1 || a[1] == "0"))
			}
			return !found
		})
		if found {
			return s
		}
	}
	return nil
}

// ---- 8. The Makefile ----

var (
	// A variable assignment, global or after a target's colon.
	assignRe = regexp.MustCompile(`^(?:(?:override|export|private)\s+)*([A-Za-z_.][A-Za-z0-9_.]*)\s*(\+=|\?=|:::=|::=|:=|!=|=)\s*(.*)$`)
	// A rule line: targets, then one colon or two.
	ruleLineRe = regexp.MustCompile(`^([^\t#=:][^#=:]*?)\s*::?(?:[^=]|$)(.*)$`)
	makeVarRe  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

const errorIgnore = `GNU make manual, "Errors in Recipes" (a - prefix, .IGNORE, -i)`

type makeRule struct {
	line   int
	recipe []recipeLine
}

type recipeLine struct {
	line int
	text string // as make hands it to the shell, before variable expansion
	dash bool   // the line had make's - prefix
}

// makeFile is what the rules read of the Makefile: each target's recipe
// lines, the assignments of .SHELLFLAGS and MAKEFLAGS (global and
// target-specific), and the .IGNORE lines.
type makeFile struct {
	rules      map[string][]makeRule
	shellFlags []makeAssign // in file order
	makeFlags  []makeAssign
	ignore     []makeAssign // .IGNORE: lines, value = prerequisites
}

type makeAssign struct {
	line   int
	target string // "" for a global assignment
	op     string
	value  string
}

// parseMakefile reads a Makefile the way make splits it into rules, recipe
// lines (a leading tab; GNU make manual, "Recipe Syntax") and assignments.
// It does not evaluate conditionals or includes.
func parseMakefile(raw string) *makeFile {
	m := &makeFile{rules: map[string][]makeRule{}}
	lines := strings.Split(raw, "\n")
	var current []string // targets whose recipe is being read
	for i := 0; i < len(lines); i++ {
		l, start := lines[i], i+1
		// Backslash-newline joins lines; in a recipe make hands both
		// characters to the shell (and drops the next line's leading tab).
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l += "\n" + strings.TrimPrefix(lines[i], "\t")
		}
		if strings.HasPrefix(l, "\t") {
			if current == nil {
				continue // a recipe line of a rule this reading does not follow
			}
			text := strings.TrimLeft(l[1:], " \t")
			dash := false
			for len(text) > 0 && strings.ContainsRune("@-+", rune(text[0])) {
				dash = dash || text[0] == '-'
				text = strings.TrimLeft(text[1:], " \t")
			}
			for _, t := range current {
				rs := m.rules[t]
				rs[len(rs)-1].recipe = append(rs[len(rs)-1].recipe, recipeLine{start, text, dash})
			}
			continue
		}
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		current = nil
		if a := assignRe.FindStringSubmatch(l); a != nil {
			m.assign(makeAssign{start, "", a[2], stripComment(a[3])}, a[1])
			continue
		}
		r := ruleLineRe.FindStringSubmatch(l)
		if r == nil {
			continue
		}
		targets := strings.Fields(r[1])
		rest := strings.TrimSpace(l[strings.Index(l, ":")+1:])
		rest = strings.TrimLeft(rest, ":")
		if a := assignRe.FindStringSubmatch(strings.TrimSpace(rest)); a != nil {
			for _, t := range targets {
				m.assign(makeAssign{start, t, a[2], stripComment(a[3])}, a[1])
			}
			continue
		}
		// The prerequisites end at a comment (#) or at a ; that starts a
		// recipe on the same line (whose # then belongs to the shell).
		prereqs, recipe := rest, ""
		if k := strings.IndexAny(rest, "#;"); k >= 0 {
			prereqs = rest[:k]
			if rest[k] == ';' {
				recipe = strings.TrimSpace(rest[k+1:])
			}
		}
		for _, t := range targets {
			if t == ".IGNORE" {
				m.ignore = append(m.ignore, makeAssign{start, t, "", strings.TrimSpace(prereqs)})
			}
			m.rules[t] = append(m.rules[t], makeRule{line: start})
		}
		current = targets
		if recipe != "" {
			for _, t := range targets {
				rs := m.rules[t]
				rs[len(rs)-1].recipe = append(rs[len(rs)-1].recipe, recipeLine{start, recipe, false})
			}
		}
	}
	return m
}

func (m *makeFile) assign(a makeAssign, name string) {
	switch name {
	case ".SHELLFLAGS":
		m.shellFlags = append(m.shellFlags, a)
	case "MAKEFLAGS":
		m.makeFlags = append(m.makeFlags, a)
	}
}

func stripComment(s string) string {
	if i := strings.Index(s, "#"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// shellFlagsFor is the value of .SHELLFLAGS for target ("" for the global
// one): make's default (-c) changed by the global assignments in file order,
// then by the target's own.
func (m *makeFile) shellFlagsFor(target string) string {
	v, set := "-c", false
	apply := func(a makeAssign) {
		switch a.op {
		case "+=":
			v += " " + a.value
		case "?=":
			if !set {
				v = a.value
			}
		default:
			v = a.value
		}
		set = true
	}
	for _, a := range m.shellFlags {
		if a.target == "" {
			apply(a)
		}
	}
	for _, a := range m.shellFlags {
		if target != "" && a.target == target {
			apply(a)
		}
	}
	return v
}

// expandMake replaces make's references in a recipe line with plain words
// so that the shell parser can read it: $$ is a literal $, $(NAME) and
// ${NAME} become the name in lower case ($(MAKE) is make, $(GO) go), a
// function call ($(if ...), $(addprefix ...)) becomes _make_, $@ and the
// other automatic variables _auto_.
func expandMake(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch ch := s[i+1]; ch {
		case '$':
			b.WriteByte('$')
			i++
		case '(', '{':
			closer := byte(')')
			if ch == '{' {
				closer = '}'
			}
			depth, j := 0, i+1
			for ; j < len(s); j++ {
				if s[j] == ch {
					depth++
				} else if s[j] == closer {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			inner := s[i+2 : min(j, len(s))]
			if makeVarRe.MatchString(inner) {
				b.WriteString(strings.ToLower(inner))
			} else {
				b.WriteString("_make_")
			}
			i = j
		default:
			b.WriteString("_auto_")
			i++
		}
	}
	return b.String()
}

// makefile: the checks `.ci/run` runs are make targets, so make must stop on
// their failures. GNU make's rule ("Errors in Recipes"): make stops at a
// recipe line that fails, unless the line starts with `-`, the target is in
// .IGNORE, or make runs with -i (--ignore-errors). Each recipe line runs in
// its own `$(SHELL) $(.SHELLFLAGS)`, so .SHELLFLAGS must hold -e (a line with
// several commands) and -o pipefail (a line with a pipe). The recipes of test
// and lint, and of the targets they run through $(MAKE), get the script
// reading of every run: script.
func (c *wfChecker) makefile() {
	raw, err := os.ReadFile(filepath.Join(c.root, "Makefile"))
	if err != nil {
		c.add("Makefile", ruleMakefile, srcMake, "cannot read the Makefile: "+err.Error(), "restore it")
		return
	}
	m := parseMakefile(string(raw))
	checkFlags := func(where, flags string) {
		var o shellOpts
		o.apply(strings.Fields(flags))
		if !o.errexit || !o.pipefail {
			c.add(where, ruleMakefile, `GNU make manual, "Choosing the Shell" (.SHELLFLAGS); `+srcBash,
				fmt.Sprintf(".SHELLFLAGS is %q: without -e and -o pipefail a recipe line's earlier or piped failures pass", flags),
				"set `.SHELLFLAGS := -eu -o pipefail -c`")
		}
	}
	checkFlags(fmt.Sprintf("Makefile:%d .SHELLFLAGS", lastLine(m.shellFlags)), m.shellFlagsFor(""))
	for _, a := range m.shellFlags {
		if a.target != "" {
			checkFlags(fmt.Sprintf("Makefile:%d target %s .SHELLFLAGS", a.line, a.target), m.shellFlagsFor(a.target))
		}
	}
	for _, a := range m.makeFlags {
		for k, f := range strings.Fields(a.value) {
			// MAKEFLAGS may start with its single-letter flags without a dash.
			if ignoresErrors(f) || (k == 0 && !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") && strings.Contains(f, "i")) {
				c.add(fmt.Sprintf("Makefile:%d MAKEFLAGS", a.line), ruleMakefile, errorIgnore, "MAKEFLAGS gets -i (--ignore-errors): every failing recipe line passes", "remove it")
			}
		}
	}
	checked := map[string]bool{}
	var check func(target string)
	check = func(target string) {
		if checked[target] {
			return
		}
		checked[target] = true
		rules, ok := m.rules[target]
		if !ok {
			c.add("Makefile", ruleMakefile, errorIgnore, "no target "+target, "restore the "+target+" target")
			return
		}
		for _, ig := range m.ignore {
			if ig.value == "" || slices.Contains(strings.Fields(ig.value), target) {
				c.add(fmt.Sprintf("Makefile:%d .IGNORE", ig.line), ruleMakefile, errorIgnore, ".IGNORE makes make ignore the failures of "+target+"'s recipe", "remove .IGNORE")
			}
		}
		for _, r := range rules {
			for _, l := range r.recipe {
				where := fmt.Sprintf("Makefile:%d target %s", l.line, target)
				if l.dash {
					c.add(where, ruleMakefile, errorIgnore, "a `-` prefix makes make ignore this line's failure: `"+squeeze(l.text, 80)+"`", "remove the -")
				}
				f := c.shell(where, expandMake(l.text))
				if f == nil {
					continue
				}
				// Targets run through a sub-make are part of the check, and
				// the sub-make must not ignore their errors.
				syntax.Walk(f, func(n syntax.Node) bool {
					if call, ok := n.(*syntax.CallExpr); ok {
						if a := shWords(call.Args); len(a) > 1 && a[0] == "make" {
							for k := 1; k < len(a); k++ {
								switch w := a[k]; {
								case w == "-C" || w == "-f" || w == "-o" || w == "-W":
									k++
								case ignoresErrors(w):
									c.add(where, ruleMakefile, errorIgnore, "a sub-make with "+w+" ignores the failures of what it runs", "remove "+w)
								case strings.HasPrefix(w, "-") || strings.Contains(w, "=") || w == "\x00":
								default:
									check(w)
								}
							}
						}
					}
					return true
				})
			}
		}
	}
	check("test")
	check("lint")
}

// ignoresErrors says whether a make argument is -i (--ignore-errors), alone
// or among other single-letter flags.
func ignoresErrors(w string) bool {
	return w == "--ignore-errors" || (strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "i"))
}

func lastLine(as []makeAssign) int {
	for i := len(as) - 1; i >= 0; i-- {
		if as[i].target == "" {
			return as[i].line
		}
	}
	return 1
}

// ---- 9. The deploy order ----

var statusFuncRe = regexp.MustCompile(`(?i)\b(always|failure|cancelled)\s*\(`)

// waitsFor says whether job name waits, through its needs, for a job that
// ok accepts, with no job on the way (the first included) that runs after a
// failure. GitHub's rule (workflow syntax, jobs.<job_id>.needs and
// jobs.<job_id>.if): a job whose needed job failed or was skipped is skipped,
// unless its `if` uses always(), failure() or cancelled() (function names are
// case-insensitive in expressions).
func waitsFor(w *workflow, name string, ok func(job) bool, seen map[string]bool) bool {
	if seen[name] {
		return false
	}
	seen[name] = true
	j, exists := w.Jobs[name]
	if !exists || statusFuncRe.MatchString(j.If) {
		return false
	}
	if ok(j) {
		return true
	}
	for _, n := range j.needs() {
		if waitsFor(w, n, ok, seen) {
			return true
		}
	}
	return false
}

func callsCI(j job) bool {
	return strings.TrimPrefix(j.Uses, "./") == ".github/workflows/ci.yml"
}

// shCalls says whether a script runs `words...` as one of its commands
// at the top level (not in an if or a function); it reads the command's first
// len(want) words.
func shCalls(src string, want ...string) bool {
	f, err := parseShell(runScript(src), "")
	if err != nil {
		return false
	}
	for _, s := range f.Stmts {
		for _, st := range shFlatten(s) {
			if a := shPlainCall(st); len(a) >= len(want) && slices.Equal(a[:len(want)], want) {
				return true
			}
		}
	}
	return false
}

// shFlatten is a statement and, for a list or pipe, the statements in it.
func shFlatten(s *syntax.Stmt) []*syntax.Stmt {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok {
		return append(shFlatten(b.X), shFlatten(b.Y)...)
	}
	return []*syntax.Stmt{s}
}

// deployOrder: nothing deploys a commit whose checks failed, and prod gets
// only what dev proved. In a workflow whose jobs name environments:
//
//   - every environment job waits, through its needs, for the job that calls
//     ci.yml, with no always()/failure()/cancelled() on the way;
//   - the workflow has a dev job and a prod job (environments dev and prod),
//     and prod waits for dev the same way;
//   - the dev job runs `sam deploy`, then, in a later step with no `if:`,
//     `make smoke` (the smoke check against the stack it just deployed).
func (c *wfChecker) deployOrder(w *workflow) {
	const src = srcWorkflowSyntax + `, "jobs.<job_id>.needs" and "jobs.<job_id>.if"; docs/deploy.md, "A pipeline"`
	var dev, prod []string
	for _, name := range w.order {
		j := w.Jobs[name]
		if j.Environment == nil {
			continue
		}
		switch j.environment() {
		case "dev":
			dev = append(dev, name)
		case "prod":
			prod = append(prod, name)
		}
		if !waitsFor(w, name, callsCI, map[string]bool{}) {
			c.add(w.where(j), ruleDeployOrder, src, "job "+name+" deploys without waiting for ci.yml's checks to pass", "make it need (through its needs) the job `uses: ./.github/workflows/ci.yml`, with no always()/failure()/cancelled() in any if: on the way")
		}
	}
	if dev == nil && prod == nil {
		return
	}
	if len(dev) != 1 || len(prod) != 1 {
		c.add(w.whereTop("jobs"), ruleDeployOrder, src, fmt.Sprintf("jobs in environment dev: %v, in prod: %v; want one of each", dev, prod), "deploy dev, then prod, one job each")
		return
	}
	isDev := func(j job) bool { return j.name == dev[0] }
	if !waitsFor(w, prod[0], isDev, map[string]bool{}) {
		c.add(w.where(w.Jobs[prod[0]]), ruleDeployOrder, src, "prod does not wait for dev (needs, with no always()/failure()/cancelled()): it can ship what dev's smoke check never saw", "set `needs: "+dev[0]+"` on "+prod[0])
	}
	d := w.Jobs[dev[0]]
	deployed, smoked := -1, false
	for i, s := range d.Steps {
		if deployed < 0 && shCalls(s.Run, "sam", "deploy") {
			deployed = i
		} else if deployed >= 0 && s.If == "" && shCalls(s.Run, "make", "smoke") {
			smoked = true
		}
	}
	if deployed < 0 || !smoked {
		c.add(w.where(d), ruleDeployOrder, src, "the dev job does not run `make smoke` (in a step with no if:) after its `sam deploy` step", "keep the smoke check step after `sam deploy` in "+dev[0])
	}
}

// squeeze squeezes s onto one line of at most n characters.
func squeeze(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
