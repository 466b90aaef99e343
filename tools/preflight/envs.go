// Package preflight applies the rules that AWS and GitHub apply at deploy and
// run time, which neither cfn-lint nor the SAM translator applies, to the
// translated template.yaml, pipeline/roles.yaml and the workflows: what each
// role may do is asked of a real IAM policy evaluator (tools/iameval), with the
// policies as CloudFormation would make them for one concrete stack
// (samtemplate.Resolve, for the variants of this file). Its tests are the
// rules; `make lint` and `make test` run them.
package preflight

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/plantstore/plantstore/samlocal/samconfig"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/samtranslate"
)

// The account, region and repository every concrete stack is made in.
const (
	account   = "123456789012"
	region    = "eu-west-1"
	partition = "aws"
	owner     = "plantstore"
	repo      = "plant-store"
)

// edgeParams are the parameters that turn on every feature adding resources
// (the web ACL, the custom domain, reserved concurrency, all-at-once
// releases): the "edge" variant is default's stack with them. They are the
// Makefile's EDGE_PARAMETERS, which its second cfn-lint call passes, so
// that the template cfn-lint checks with every feature on is the one the
// guards read.
func edgeParams(root string) (map[string]string, error) {
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return nil, err
	}
	m := edgeLine.FindStringSubmatch(string(raw))
	if m == nil {
		return nil, fmt.Errorf("the Makefile has no line `EDGE_PARAMETERS := ...`, the edge variant's parameters")
	}
	params := map[string]string{}
	for _, kv := range strings.Fields(m[1]) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("the Makefile's EDGE_PARAMETERS: %q is not NAME=VALUE", kv)
		}
		params[k] = v
	}
	return params, nil
}

// edgeLine is the Makefile's line that edgeParams reads: all the stack
// part reads of the Makefile.
var edgeLine = regexp.MustCompile(`(?m)^EDGE_PARAMETERS := (.+)$`)

// stackVariants are the stacks the guards read: each samconfig.toml
// environment, and the edge variant (default's stack with edgeParams).
var stackVariants = []string{"default", "dev", "prod", "edge"}

// env is one variant made concrete: the stack that template.yaml becomes with
// its parameters and, for dev and prod, the pipeline stack of
// pipeline/roles.yaml for it.
type env struct {
	name     string
	root     string
	app      *samtemplate.Resolved
	pipeline *samtemplate.Resolved // nil for default and edge, which no pipeline deploys
}

// translations holds each template's translation, by its content: the SAM
// translator is a Python process of about a second, and a copy of the
// repository whose template.yaml is unchanged (a mutant of samconfig.toml
// alone) shares the translation of the template it copies.
var translations sync.Map // sha256 of the template -> func() (map[string]any, error)

func translate(path string) (map[string]any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, _ := translations.LoadOrStore(sha256.Sum256(raw), sync.OnceValues(func() (map[string]any, error) { return samtranslate.Translate(path) }))
	return f.(func() (map[string]any, error))()
}

// loadVariant makes the variant name of the repository at root concrete.
func loadVariant(root, name string) (env, error) {
	doc, err := translate(filepath.Join(root, "template.yaml"))
	if err != nil {
		return env{}, err
	}
	cfg := name
	if name == "edge" {
		cfg = "default"
	}
	stackName, params, err := readSamconfig(root, cfg)
	if err != nil {
		return env{}, err
	}
	if name == "edge" {
		edge, err := edgeParams(root)
		if err != nil {
			return env{}, err
		}
		maps.Copy(params, edge)
	}
	app, err := samtemplate.Resolve(doc, samtemplate.Stack{Name: stackName, Region: region, Account: account, Partition: partition, Params: params})
	if err != nil {
		return env{}, fmt.Errorf("template.yaml as %s: %v", stackName, err)
	}
	e := env{name: name, root: root, app: app}
	if name == "default" || name == "edge" {
		return e, nil
	}
	roles, err := samtemplate.Load(filepath.Join(root, "pipeline", "roles.yaml"))
	if err != nil {
		return env{}, err
	}
	e.pipeline, err = samtemplate.Resolve(roles.Doc, samtemplate.Stack{Name: "plant-store-pipeline-" + name, Region: region, Account: account, Partition: partition,
		Params: map[string]string{"GitHubOwner": owner, "GitHubRepo": repo, "Environment": name}})
	if err != nil {
		return env{}, fmt.Errorf("pipeline/roles.yaml for %s: %v", name, err)
	}
	return e, nil
}

// readSamconfig reads an environment's stack name and parameter overrides
// from samconfig.toml, as sam deploy --config-env reads them (its global
// parameters, each overridden by its deploy parameters).
func readSamconfig(root, name string) (string, map[string]string, error) {
	f, err := samconfig.Read(filepath.Join(root, "samconfig.toml"))
	if err != nil {
		return "", nil, err
	}
	p, _, err := f.Params(name, "deploy")
	if err != nil {
		return "", nil, err
	}
	stack, _ := p["stack_name"].(string)
	if stack == "" {
		return "", nil, fmt.Errorf("samconfig.toml has no stack_name for %s", name)
	}
	params, err := samtemplate.ParseOverrides(samconfig.Values(p["parameter_overrides"]))
	if err != nil {
		return "", nil, fmt.Errorf("samconfig.toml [%s.deploy.parameters] parameter_overrides: %v", name, err)
	}
	return stack, params, nil
}

// role is an IAM role as the evaluator sees it: its ARN, the documents of
// its inline and managed policies, its permissions boundary and trust policy.
type role struct {
	id         string
	arn        string
	identity   []any
	boundaries []any
	trust      any
}

// role gathers the role id of r. Managed policies are AWS's
// (testdata/managed) or the environment's own (its pipeline stack's
// boundary).
func (e env) roleOf(r *samtemplate.Resolved, id string) (role, error) {
	p, err := r.Properties(id)
	if err != nil {
		return role{}, err
	}
	arn, err := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
	if err != nil {
		return role{}, err
	}
	ro := role{id: id, arn: fmt.Sprint(arn), trust: p["AssumeRolePolicyDocument"]}
	for _, pol := range asList(p["Policies"]) {
		ro.identity = append(ro.identity, pol.(map[string]any)["PolicyDocument"])
	}
	for _, m := range asList(p["ManagedPolicyArns"]) {
		doc, err := e.managedPolicy(fmt.Sprint(m))
		if err != nil {
			return role{}, fmt.Errorf("role %s: %v", id, err)
		}
		ro.identity = append(ro.identity, doc)
	}
	if b, ok := p["PermissionsBoundary"]; ok {
		doc, err := e.managedPolicy(fmt.Sprint(b))
		if err != nil {
			return role{}, fmt.Errorf("role %s's boundary: %v", id, err)
		}
		ro.boundaries = []any{doc}
	}
	return ro, nil
}

// managedPolicy is the document of a managed policy: AWS's, from
// testdata/managed (copied from AWS's managed policy reference), or one
// that the environment's stacks create.
func (e env) managedPolicy(arn string) (any, error) {
	if name, ok := strings.CutPrefix(arn, "arn:"+partition+":iam::aws:policy/"); ok {
		raw, err := os.ReadFile(filepath.Join(e.root, "tools", "preflight", "testdata", "managed", filepath.Base(name)+".json"))
		if err != nil {
			return nil, fmt.Errorf("AWS managed policy %s: no copy of its document in tools/preflight/testdata/managed (add it from AWS's managed policy reference): %v", arn, err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("%s: %v", arn, err)
		}
		return doc, nil
	}
	for _, r := range []*samtemplate.Resolved{e.app, e.pipeline} {
		if r == nil {
			continue
		}
		for _, id := range r.ResourcesOfType("AWS::IAM::ManagedPolicy") {
			if ref, _ := r.Value(map[string]any{"Ref": id}); ref == arn {
				p, err := r.Properties(id)
				if err != nil {
					return nil, err
				}
				return p["PolicyDocument"], nil
			}
		}
	}
	return nil, fmt.Errorf("policy %s exists in no template of environment %s (a boundary the pipeline stack does not create)", arn, e.name)
}

// where names a resource of one of the variant's stacks for a finding:
// "<LogicalId> (<file>, <variant>)".
func (e env) where(r *samtemplate.Resolved, id string) string {
	return fmt.Sprintf("%s (%s, %s)", id, fileOf(e, r), e.name)
}

// placedRole is a role with the stack it belongs to.
type placedRole struct {
	stack *samtemplate.Resolved
	where string
	role
}

// roles are the roles of every stack of the variant.
func (e env) roles() ([]placedRole, error) {
	var out []placedRole
	for _, r := range e.stacks() {
		for _, id := range r.ResourcesOfType("AWS::IAM::Role") {
			ro, err := e.roleOf(r, id)
			if err != nil {
				return nil, err
			}
			out = append(out, placedRole{r, e.where(r, id), ro})
		}
	}
	return out, nil
}

// stackKinds names the stacks of stacks() in their order, for the labels
// of their resources as targets ("this:app:...", "this:pipeline:...").
var stackKinds = [...]string{"app", "pipeline"}

// stacks are the variant's resolved stacks, the app's first.
func (e env) stacks() []*samtemplate.Resolved {
	if e.pipeline == nil {
		return []*samtemplate.Resolved{e.app}
	}
	return []*samtemplate.Resolved{e.app, e.pipeline}
}

func asList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	}
	return []any{v}
}
