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
// Issue 41's rules live beside: credentials.go (only the environment's role,
// through OIDC), runners.go (hosted runners, pinned fetches, no event data
// in the environment files) and gate.go (the checks still gate; CheckGate
// runs CI's job to see it).

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
		Shell            string `yaml:"shell"`
		WorkingDirectory string `yaml:"working-directory"`
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
	line             int
	Name             string            `yaml:"name"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	If               string            `yaml:"if"`
	WorkingDirectory string            `yaml:"working-directory"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
	ContinueOnError  yaml.Node         `yaml:"continue-on-error"`
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
		c.runners(w)
		c.images(w)
		c.githubEnv(w)
	}
	c.credentials()
	for _, s := range c.scripts() {
		c.fetches(s)
	}
	c.gateFiles()
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
	root   string
	wfs    []*workflow
	out    []Finding
	parsed []ciScript      // the scripts CI runs (credentials.go)
	read   map[string]bool // requirements files already read (runners.go)
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
