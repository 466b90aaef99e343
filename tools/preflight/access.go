package preflight

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/iameval"
)

// The rule of reach: every role, and the permissions boundary alone, reaches
// only its own environment's stacks. For each of them, every action of
// every service its policies name (AWS's service reference, from the
// evaluator's own copy) is asked on every resource of the other
// environment's stacks (prod's for dev; dev's for prod and for the stacks
// no pipeline deploys), and on new resources of every type the action takes,
// named for the other environment's stacks, for another application of this
// account and for this stack in another account: each that would change
// something (Write, Tagging, Permissions management) must be denied. What a
// role may do, and may read anywhere, is its effective access, kept as a
// reviewed snapshot
// (testdata/access.txt), as IAM Access Analyzer's check-no-new-access keeps
// a reference policy: a change that grants new access fails until
// `make preflight-accept` writes the snapshot again, so every widening is a
// diff a reviewer sees.

// accessFile is the reviewed snapshot, relative to the repository root.
const accessFile = "tools/preflight/testdata/access.txt"

// subject is who is asked: a role (its policies within its boundary), or a
// boundary alone.
type subject struct {
	where      string // "<LogicalId> (<file>, <variant>)"
	name       string // "<variant> <LogicalId>", the snapshot's key
	arn        string
	identity   []any
	boundaries []any
}

// target is a resource a question names: its label ("this:PlantsTable",
// "other-env:plant-store-prod:PlantsTable", "*"), its ARN and the context
// IAM gives a request on it (its tags).
type target struct {
	label, arn string
	context    map[string]any
}

// outside says whether a label names something outside the subject's own
// stacks.
func outside(label string) bool {
	for _, p := range []string{"other-env:", "other-account:", "unrelated:"} {
		if strings.HasPrefix(label, p) {
			return true
		}
	}
	return false
}

// passedTo are the services iam:PassRole is asked for: every service that
// assumes one of this project's roles (serviceUses, and CloudFormation for
// the pipeline's), and one that none does.
var passedTo = func() []string {
	out := []string{"cloudformation.amazonaws.com", "ec2.amazonaws.com"}
	for _, u := range serviceUses {
		out = append(out, u.service)
	}
	return out
}()

// subjectsOf lists the roles of a variant's stacks and its pipeline's
// permissions boundaries.
func subjectsOf(e env) ([]subject, error) {
	placed, err := e.roles()
	if err != nil {
		return nil, err
	}
	var out []subject
	for _, pr := range placed {
		out = append(out, subject{pr.where, e.name + " " + pr.id, pr.arn, pr.identity, pr.boundaries})
	}
	for _, r := range e.stacks() {
		for _, id := range r.ResourcesOfType("AWS::IAM::ManagedPolicy") {
			p, err := r.Properties(id)
			if err != nil {
				return nil, err
			}
			arn := fmt.Sprintf("arn:%s:iam::%s:role/%s-%s-Probe", partition, account, r.Stack().Name, id)
			out = append(out, subject{e.where(r, id), e.name + " " + id, arn, []any{p["PolicyDocument"]}, nil})
		}
	}
	return out, nil
}

// servicesNamed are the services whose actions a subject's Allow statements
// name; an Allow of every action, or of NotAction, cannot be enumerated and
// is a finding.
func servicesNamed(s subject) ([]string, []Finding) {
	var services []string
	var findings []Finding
	for _, doc := range s.identity {
		m, _ := doc.(map[string]any)
		for _, st := range asList(m["Statement"]) {
			st, _ := st.(map[string]any)
			if st["Effect"] != "Allow" {
				continue
			}
			if st["NotAction"] != nil {
				findings = append(findings, Finding{ID: idReach, Where: s.where, Rule: fmt.Sprintf("statement %v allows NotAction, every action but some", st["Sid"]), Fix: "name the actions it needs in Action"})
			}
			for _, a := range asList(st["Action"]) {
				svc, _, ok := strings.Cut(fmt.Sprint(a), ":")
				if !ok {
					findings = append(findings, Finding{ID: idReach, Where: s.where, Rule: fmt.Sprintf("statement %v allows %v, every action of every service", st["Sid"], a), Fix: "name the actions it needs"})
					continue
				}
				if !slices.Contains(services, strings.ToLower(svc)) {
					services = append(services, strings.ToLower(svc))
				}
			}
		}
	}
	sort.Strings(services)
	return services, findings
}

// arnOf is the ARN of a resource of r, where the preflight knows its form.
func arnOf(r *samtemplate.Resolved, id string) (string, bool) {
	res, _ := r.Resource(id)
	typ, _ := res["Type"].(string)
	s := r.Stack()
	switch typ {
	case "AWS::Lambda::Alias", "AWS::Lambda::Version", "AWS::IAM::ManagedPolicy", "AWS::IAM::OIDCProvider":
		v, err := r.Value(map[string]any{"Ref": id})
		return fmt.Sprint(v), err == nil
	case "AWS::CodeDeploy::Application":
		v, _ := r.Value(map[string]any{"Ref": id})
		return fmt.Sprintf("arn:%s:codedeploy:%s:%s:application:%v", s.Partition, s.Region, s.Account, v), true
	case "AWS::CodeDeploy::DeploymentGroup":
		p, _ := r.Properties(id)
		v, _ := r.Value(map[string]any{"Ref": id})
		return fmt.Sprintf("arn:%s:codedeploy:%s:%s:deploymentgroup:%v/%v", s.Partition, s.Region, s.Account, p["ApplicationName"], v), true
	case "AWS::ApiGateway::RestApi":
		v, _ := r.Value(map[string]any{"Ref": id})
		return fmt.Sprintf("arn:%s:apigateway:%s::/restapis/%v", s.Partition, s.Region, v), true
	case "AWS::CloudWatch::Dashboard":
		v, _ := r.Value(map[string]any{"Ref": id})
		return fmt.Sprintf("arn:%s:cloudwatch::%s:dashboard/%v", s.Partition, s.Account, v), true
	}
	v, err := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
	arn := fmt.Sprint(v)
	return arn, err == nil && strings.HasPrefix(arn, "arn:")
}

// resourceTags is the aws:ResourceTag/* context of a resource: the tags the
// template sets on it.
func resourceTags(r *samtemplate.Resolved, id string) map[string]any {
	p, err := r.Properties(id)
	if err != nil {
		return nil
	}
	ctx := map[string]any{}
	if tags, ok := p["UserPoolTags"].(map[string]any); ok {
		for k, v := range tags {
			ctx["aws:ResourceTag/"+k] = fmt.Sprint(v)
		}
	}
	for _, tag := range asList(p["Tags"]) {
		if m, ok := tag.(map[string]any); ok {
			ctx["aws:ResourceTag/"+fmt.Sprint(m["Key"])] = fmt.Sprint(m["Value"])
		}
	}
	return ctx
}

// stackTargets are the resources of a variant's stacks, labelled class:id.
func stackTargets(e env, class string) []target {
	var out []target
	for i, r := range e.stacks() {
		kind := "app"
		if i == 1 {
			kind = "pipeline"
		}
		for _, id := range r.ResourceIDs() {
			arn, ok := arnOf(r, id)
			if !ok {
				continue
			}
			arn = strings.TrimSuffix(arn, ":*") // a log group's Arn attribute ends in :*, its IAM ARN does not
			label := class + ":" + kind + ":" + id
			if class == "other-env" {
				label = class + ":" + r.Stack().Name + ":" + id
			}
			out = append(out, target{label, arn, resourceTags(r, id)})
		}
	}
	return out
}

var arnVariable = regexp.MustCompile(`\$\{[A-Za-z]+\}`)

// arnPatterns are the patterns of the action's resource types' ARNs, each
// ${Variable} one or more characters but a colon.
func arnPatterns(a iameval.Action) []*regexp.Regexp {
	var res []*regexp.Regexp
	for _, rt := range a.ResourceTypes {
		if rt.ARN == "" {
			continue
		}
		parts := arnVariable.Split(rt.ARN, -1)
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		res = append(res, regexp.MustCompile("^"+strings.Join(parts, "[^:]+")+"$"))
	}
	return res
}

// matcher says whether an ARN is of one of the action's resource types.
func matcher(a iameval.Action) func(string) bool {
	res := arnPatterns(a)
	return func(arn string) bool {
		for _, re := range res {
			if re.MatchString(arn) {
				return true
			}
		}
		return false
	}
}

// newResources are resources the action's types name that no stack has yet:
// named for the stack (this:new), for each other variant's stack
// (other-env:new), for another application of the account (unrelated:new)
// and for this stack in another account (other-account:new).
func newResources(a iameval.Action, own string, others []string) []target {
	var out []target
	for _, rt := range a.ResourceTypes {
		if rt.ARN == "" {
			continue
		}
		fill := func(prefix, acct string) string {
			return arnVariable.ReplaceAllStringFunc(rt.ARN, func(v string) string {
				switch v {
				case "${Partition}":
					return partition
				case "${Region}":
					return region
				case "${Account}":
					return acct
				}
				return prefix + "-New" + strings.Trim(v, "${}")
			})
		}
		tags := func(stack string) map[string]any { return map[string]any{"aws:ResourceTag/PlantStoreStack": stack} }
		out = append(out, target{"this:new:" + rt.Name, fill(own, account), tags(own)})
		for _, o := range others {
			out = append(out, target{"other-env:" + o + ":new:" + rt.Name, fill(o, account), tags(o)})
		}
		out = append(out, target{"unrelated:new:" + rt.Name, fill("other-app", account), tags("other-app")})
		if t := fill(own, otherAccount); t != fill(own, account) {
			out = append(out, target{"other-account:new:" + rt.Name, t, tags(own)})
		}
	}
	return out
}

// reachKey is what an allowlist entry of kind reach names: "<variant>
// <role or boundary> <service>".
func reachKey(s *subject, action string) string {
	service, _, _ := strings.Cut(action, ":")
	return s.name + " " + service
}

// otherEnv is the environment whose stacks e must not reach.
func otherEnv(e env, all []env) env {
	want := map[string]string{"dev": "prod"}[e.name]
	if want == "" {
		want = "dev"
	}
	for _, o := range all {
		if o.name == want {
			return o
		}
	}
	return all[0]
}

// accessQuestion is a question with what it is about.
type accessQuestion struct {
	subject *subject
	action  string
	level   string // AWS's access level: Read, List, Write, Tagging, Permissions management
	target  target
}

// effectiveAccess asks every action of every service a subject's policies
// name, on every target that action takes. It answers the findings of the
// rule of reach and the lines of the snapshot: "<variant> <subject>
// <action> <label>" for each allowed request within the subject's stacks.
//
// Reach that cannot be scoped (a service that names its resources by ids
// it makes) is an allowlist entry of kind reach, with its reason; an entry
// for a variant asked that acknowledges nothing is stale.
func effectiveAccess(envs []env, all []env, allow *Allowlist) ([]Finding, []string, error) {
	var findings []Finding
	var subjects []*subject
	named := map[*subject][]string{}
	services := map[string]bool{}
	for _, e := range envs {
		ss, err := subjectsOf(e)
		if err != nil {
			return nil, nil, err
		}
		for i := range ss {
			s := &ss[i]
			svcs, fs := servicesNamed(*s)
			findings = append(findings, fs...)
			subjects = append(subjects, s)
			named[s] = svcs
			for _, svc := range svcs {
				services[svc] = true
			}
		}
	}
	var keys []string
	for k := range services {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	data, err := iameval.Actions(keys)
	if err != nil {
		return nil, nil, err
	}
	var questions []iameval.Question
	var about []accessQuestion
	for _, e := range envs {
		own := stackTargets(e, "this")
		ownArns := map[string]bool{}
		for _, t := range own {
			ownArns[t.arn] = true
		}
		// The other environment: prod's for dev, dev's for prod and for the
		// stacks no pipeline deploys. Its resources whose made-up physical id
		// is the same as one of this stack's (a user pool's, an API's) cannot
		// be told apart and are left to the new resources below.
		o := otherEnv(e, all)
		var others []target
		for _, t := range stackTargets(o, "other-env") {
			if !ownArns[t.arn] {
				others = append(others, t)
			}
		}
		otherNames := []string{}
		for _, r := range o.stacks() {
			otherNames = append(otherNames, r.Stack().Name)
		}
		boundary := ""
		if e.pipeline != nil {
			for _, id := range e.pipeline.ResourcesOfType("AWS::IAM::ManagedPolicy") {
				v, _ := e.pipeline.Value(map[string]any{"Ref": id})
				boundary = fmt.Sprint(v)
			}
		}
		for _, s := range subjects {
			if !strings.HasPrefix(s.name, e.name+" ") {
				continue
			}
			for _, svc := range named[s] {
				actions, ok := data[svc]
				if !ok || len(actions) == 0 {
					findings = append(findings, Finding{ID: idReach, Where: s.where, Rule: fmt.Sprintf("names the service %s, which AWS's service reference does not know", svc), Fix: "correct the action's prefix"})
					continue
				}
				for _, a := range actions {
					action := svc + ":" + a.Name
					ask := func(t target) {
						ctx := map[string]any{}
						for k, v := range t.context {
							ctx[k] = v
						}
						if boundary != "" && svc == "iam" {
							ctx["iam:PermissionsBoundary"] = boundary
						}
						if action == "iam:PassRole" {
							for _, to := range passedTo {
								c := map[string]any{"iam:PassedToService": to}
								for k, v := range ctx {
									c[k] = v
								}
								questions = append(questions, iameval.Question{Principal: s.arn, Action: action, Resource: t.arn, Account: account, Context: c, IdentityPolicies: s.identity, Boundaries: s.boundaries})
								about = append(about, accessQuestion{s, action, a.AccessLevel, target{t.label + " via " + to, t.arn, c}})
							}
							return
						}
						questions = append(questions, iameval.Question{Principal: s.arn, Action: action, Resource: t.arn, Account: account, Context: ctx, IdentityPolicies: s.identity, Boundaries: s.boundaries})
						about = append(about, accessQuestion{s, action, a.AccessLevel, t})
					}
					if a.WildcardOnly || len(a.ResourceTypes) == 0 {
						ask(target{"*", "*", nil})
						continue
					}
					match := matcher(a)
					for _, group := range [][]target{own, others} {
						for _, t := range group {
							if match(t.arn) {
								ask(t)
							}
						}
					}
					for _, t := range newResources(a, e.app.Stack().Name, otherNames) {
						ask(t)
					}
				}
			}
		}
	}
	// Variants that share a stack name (default and edge) ask many of the
	// same questions: Ask puts each to the evaluator once.
	answers, err := iameval.Ask(questions)
	if err != nil {
		return nil, nil, err
	}
	var lines []string
	reached := map[*subject][]string{}
	used := map[string]bool{}
	for i, ans := range answers {
		q := about[i]
		if ans.Result == "Error" && strings.Contains(ans.Error, "multiple.resource.types") {
			// The evaluator cannot tell which of two resource types of the
			// action an ARN is (a Lambda alias and a version share a form):
			// IAM can, and the question is left out.
			continue
		}
		if ans.Result == "Error" {
			findings = append(findings, Finding{ID: idReach, Where: q.subject.where, Rule: fmt.Sprintf("the evaluator cannot read %s on %s: %s", q.action, q.target.arn, ans.Error), Fix: "correct the policy"})
			continue
		}
		if !ans.Allowed() {
			continue
		}
		// Reading outside (AWS's Read and List levels: CodeDeploy's
		// DescribeAlarms, which AWS's own policy for it grants on every
		// alarm) is access like any other, kept in the snapshot for review;
		// changing anything outside is refused.
		// Acknowledged reach stays in the snapshot, so that it too widens
		// only under review.
		if outside(q.target.label) && q.level != "Read" && q.level != "List" {
			key := reachKey(q.subject, q.action)
			if !allow.allows(kindReach, key) {
				reached[q.subject] = append(reached[q.subject], fmt.Sprintf("%s on %s (%s)", q.action, q.target.label, q.target.arn))
				continue
			}
			used[key] = true
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", q.subject.name, q.action, q.target.label))
	}
	for _, s := range subjects {
		if r := reached[s]; len(r) > 0 {
			findings = append(findings, Finding{ID: idReach, Where: s.where, Rule: "reaches beyond its own stacks: " + byService(r),
				Fix: "narrow the Resource (or add the Condition) of the statement that allows it to this stack's names"})
		}
	}
	if allow != nil {
		for _, e := range allow.Entries {
			variant, _, _ := strings.Cut(e.What, " ")
			if e.Kind == kindReach && !used[e.What] && slices.ContainsFunc(envs, func(x env) bool { return x.name == variant }) {
				findings = append(findings, Finding{ID: idReach, Where: fmt.Sprintf("%s (reach %q)", AllowlistFile, e.What), Rule: "is stale: that role reaches nothing of that service outside its stacks", Fix: "remove the entry"})
			}
		}
	}
	// And who else may call the stacks' resources, through their resource
	// policies (resourcepolicy.go).
	fs, more, err := resourceAccess(envs, allow)
	if err != nil {
		return nil, nil, err
	}
	findings = append(findings, fs...)
	lines = append(lines, more...)
	sort.Strings(lines)
	lines = slices.Compact(lines)
	return findings, lines, nil
}

// readAccess reads the reviewed snapshot.
func readAccess(root string) ([]string, error) {
	f, err := os.Open(filepath.Join(root, accessFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

// accessFacts are input.access: the requests the evaluator allows now and
// those of the reviewed snapshot, each "<variant> <role or boundary>
// <action> <resource>", which PS-IAM-002 (rules/iam/reviewed_access.rego)
// compares and a rule may ask of (does any role get s3:PutBucketPolicy?).
func accessFacts(snapshot, now []string) map[string]any {
	return map[string]any{"file": accessFile, "granted": append([]string{}, now...), "reviewed": append([]string{}, snapshot...)}
}

// byService tells "<service>:<Action> on ..." requests one service at a
// time: its count and its first request.
func byService(requests []string) string {
	count := map[string]int{}
	first := map[string]string{}
	var order []string
	for _, r := range requests {
		svc, _, _ := strings.Cut(r, ":")
		if count[svc] == 0 {
			order = append(order, svc)
			first[svc] = r
		}
		count[svc]++
	}
	var parts []string
	for _, svc := range order {
		parts = append(parts, fmt.Sprintf("%s (%d, first %s)", svc, count[svc], first[svc]))
	}
	return strings.Join(parts, ", ")
}

const accessHeader = `# The effective access of every role and boundary within its own stacks:
# "<variant> <role or boundary> <action> <resource>", one allowed request a
# line, enumerated with the IAM evaluator by tools/preflight (access.go);
# and what the stacks' resource policies let anyone do (resourcepolicy.go):
# "<variant> <principal, or service(for:resource)> <action> <resource>".
# Reviewed: a change that grants new access fails until this file is
# written again on purpose, with make preflight-accept.
`

// writeAccess writes the snapshot.
func writeAccess(root string, lines []string) error {
	return os.WriteFile(filepath.Join(root, accessFile), []byte(accessHeader+strings.Join(lines, "\n")+"\n"), 0o644)
}
