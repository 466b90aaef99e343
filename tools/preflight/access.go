package preflight

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/iameval"
)

// The questions of the rule of reach (PS-IAM-001, rules/iam/reach.rego,
// judges the answers): every role, and the permissions boundary alone, is
// asked every action of every service its policies name (AWS's service
// reference, from the evaluator's own copy) on every resource of its own
// stacks and of the other environment's (prod's for dev; dev's for prod and
// for the stacks no pipeline deploys), and on new resources of every type
// the action takes, named for either, for another application of this
// account and for this stack in another account. What it may do is its
// effective access, kept as a reviewed snapshot (testdata/access.txt,
// PS-IAM-002), as IAM Access Analyzer's check-no-new-access keeps a
// reference policy: a change that grants new access fails until
// `make preflight-accept` writes the snapshot again.

// accessFile is the reviewed snapshot, relative to the repository root.
const accessFile = "tools/preflight/testdata/access.txt"

// subject is who is asked: a role (its policies within its boundary), or a
// boundary alone.
type subject struct {
	variant, id, file string
	name              string // "<variant> <LogicalId>", the snapshot's key
	arn               string
	identity          []any
	boundaries        []any
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
	return slices.ContainsFunc([]string{"other-env:", "other-account:", "unrelated:"}, func(p string) bool { return strings.HasPrefix(label, p) })
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

// fileOf is the file a person edits for a stack of the variant.
func fileOf(e env, r *samtemplate.Resolved) string {
	if r == e.pipeline {
		return "pipeline/roles.yaml"
	}
	return "template.yaml"
}

// subjectsOf lists the roles of a variant's stacks and its pipeline's
// permissions boundaries.
func subjectsOf(e env) ([]subject, error) {
	placed, err := e.roles()
	if err != nil {
		return nil, err
	}
	var out []subject
	for _, pr := range placed {
		out = append(out, subject{e.name, pr.id, fileOf(e, pr.stack), e.name + " " + pr.id, pr.arn, pr.identity, pr.boundaries})
	}
	for _, r := range e.stacks() {
		for _, id := range r.ResourcesOfType("AWS::IAM::ManagedPolicy") {
			p, err := r.Properties(id)
			if err != nil {
				return nil, err
			}
			arn := fmt.Sprintf("arn:%s:iam::%s:role/%s-%s-Probe", partition, account, r.Stack().Name, id)
			out = append(out, subject{e.name, id, fileOf(e, r), e.name + " " + id, arn, []any{p["PolicyDocument"]}, nil})
		}
	}
	return out, nil
}

// servicesNamed are the services whose actions a subject's Allow statements
// name. An Allow of every action ("*"), or of NotAction, cannot be
// enumerated: PS-IAM-001 reads the statements and refuses it.
func servicesNamed(s subject) []string {
	services := map[string]bool{}
	for _, doc := range s.identity {
		for _, st := range statementsOf(doc) {
			if st["Effect"] != "Allow" {
				continue
			}
			for _, a := range asList(st["Action"]) {
				if svc, _, ok := strings.Cut(fmt.Sprint(a), ":"); ok {
					services[strings.ToLower(svc)] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(services))
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
		kind := stackKinds[i]
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
		if rt.ARN != "" {
			res = append(res, arnPattern(rt.ARN))
		}
	}
	return res
}

// arnPatternOf holds each resource type's pattern, compiled once: the
// questions of every stack part match thousands of ARNs against them.
var arnPatternOf sync.Map // ARN form -> *regexp.Regexp

func arnPattern(form string) *regexp.Regexp {
	if re, ok := arnPatternOf.Load(form); ok {
		return re.(*regexp.Regexp)
	}
	parts := arnVariable.Split(form, -1)
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	re, _ := arnPatternOf.LoadOrStore(form, regexp.MustCompile("^"+strings.Join(parts, "[^:]+")+"$"))
	return re.(*regexp.Regexp)
}

// matcher says whether an ARN is of one of the action's resource types.
func matcher(a iameval.Action) func(string) bool {
	res := arnPatterns(a)
	return func(arn string) bool {
		return slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(arn) })
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

// otherEnv is the environment whose stacks e must not reach.
func otherEnv(e env, all []env) env {
	want := map[string]string{"dev": "prod"}[e.name]
	if want == "" {
		want = "dev"
	}
	if i := slices.IndexFunc(all, func(o env) bool { return o.name == want }); i >= 0 {
		return all[i]
	}
	return all[0]
}

// accessQuestion is a question with what it is about.
type accessQuestion struct {
	subject *subject
	action  string
	level   string // AWS's access level: Read, List, Write, Tagging, Permissions management
	target  target
	when    string // the condition keys a context of the rule of conditions brought
}

// accessAnswers are the evaluator's answers of the roles' and the resource
// policies' access, for input.access (accessFacts): the snapshot's lines of
// every allowed request, and the parts PS-IAM-001 and PS-IAM-004 judge.
type accessAnswers struct {
	lines []string
	facts map[string]any
}

// effectiveAccess asks every action of every service a subject's policies
// name, on every target that action takes, and again, in every context
// that could satisfy them, those its policies' conditions deny for want of
// a key (hiddenGrants), and asks the trust and resource policies
// (trust.go, resourcepolicy.go). It answers the access facts:
//   - lines: "<variant> <subject> <action> <label>", every allowed request;
//   - subjects: each role and boundary, its file, logical id and Allow and
//     Deny statements, and the services it names that AWS's service
//     reference does not know;
//   - reach: the allowed requests on targets outside the subject's stacks,
//     with their access level (PS-IAM-001, rules/iam/reach.rego, judges);
//   - errors: the requests the evaluator could not read.
func effectiveAccess(envs []env, all []env) (accessAnswers, error) {
	var subjects []*subject
	named := map[*subject][]string{}
	services := map[string]bool{}
	for _, e := range envs {
		ss, err := subjectsOf(e)
		if err != nil {
			return accessAnswers{}, err
		}
		for i := range ss {
			s := &ss[i]
			subjects = append(subjects, s)
			named[s] = servicesNamed(*s)
			for _, svc := range named[s] {
				services[svc] = true
			}
		}
	}
	data, err := iameval.Actions(slices.Sorted(maps.Keys(services)))
	if err != nil {
		return accessAnswers{}, err
	}
	unknown := map[*subject][]any{}
	var questions []iameval.Question
	var about []accessQuestion
	for _, e := range envs {
		qs, as := questionsOf(e, all, subjects, named, data, unknown)
		questions, about = append(questions, qs...), append(about, as...)
	}
	// Variants that share a stack name (default and edge) ask many of the
	// same questions: Ask puts each to the evaluator once.
	answers, err := iameval.Ask(questions)
	if err != nil {
		return accessAnswers{}, err
	}
	more, moreAbout, err := hiddenGrants(questions, about, answers)
	if err != nil {
		return accessAnswers{}, err
	}
	moreAnswers, err := iameval.Ask(more)
	if err != nil {
		return accessAnswers{}, err
	}
	answers, about = append(answers, moreAnswers...), append(about, moreAbout...)
	var lines []string
	reach, problems := []any{}, []any{}
	for i, ans := range answers {
		q := about[i]
		switch {
		case ans.Result == "Error" && strings.Contains(ans.Error, "multiple.resource.types"):
			// The evaluator cannot tell which of two resource types of the
			// action an ARN is (a Lambda alias and a version share a form):
			// IAM can, and the question is left out.
		case ans.Result == "Error":
			problems = append(problems, map[string]any{"subject": q.subject.name, "action": q.action, "arn": q.target.arn, "error": ans.Error})
		case ans.Allowed():
			lines = append(lines, fmt.Sprintf("%s %s %s", q.subject.name, q.action, q.target.label))
			if outside(q.target.label) {
				reach = append(reach, map[string]any{"subject": q.subject.name, "action": q.action, "level": q.level, "target": q.target.label, "arn": q.target.arn, "when": q.when})
			}
		}
	}
	roles, err := trustFacts(envs)
	if err != nil {
		return accessAnswers{}, err
	}
	// And who else may call the stacks' resources, through their resource
	// policies (resourcepolicy.go).
	resources, more2, err := resourceAccess(envs)
	if err != nil {
		return accessAnswers{}, err
	}
	facts := map[string]any{"variants": variantNames(envs), "subjects": subjectFacts(envs, subjects, unknown), "reach": reach, "errors": problems, "roles": roles, "resources": resources}
	lines = append(lines, more2...)
	sort.Strings(lines)
	return accessAnswers{slices.Compact(lines), facts}, nil
}

// questionsOf are the questions of the subjects of variant e: every action
// of every service each names, on each target it takes (its own stacks'
// resources, the other environment's and new ones named for either, for
// another app and another account). A service AWS's service reference does
// not know is noted in unknown.
func questionsOf(e env, all []env, subjects []*subject, named map[*subject][]string, data map[string][]iameval.Action, unknown map[*subject][]any) ([]iameval.Question, []accessQuestion) {
	var questions []iameval.Question
	var about []accessQuestion
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
		if s.variant != e.name {
			continue
		}
		for _, svc := range named[s] {
			actions := data[svc]
			if len(actions) == 0 {
				unknown[s] = append(unknown[s], svc)
				continue
			}
			for _, a := range actions {
				action := svc + ":" + a.Name
				ask := func(t target) {
					ctx := map[string]any{}
					maps.Copy(ctx, t.context)
					if boundary != "" && svc == "iam" {
						ctx["iam:PermissionsBoundary"] = boundary
					}
					tos := []string{""}
					if action == "iam:PassRole" {
						tos = passedTo
					}
					for _, to := range tos {
						c, label := ctx, t.label
						if to != "" {
							c = maps.Clone(ctx)
							c["iam:PassedToService"] = to
							label += " via " + to
						}
						questions = append(questions, iameval.Question{Principal: s.arn, Action: action, Resource: t.arn, Account: account, Context: c, IdentityPolicies: s.identity, Boundaries: s.boundaries})
						about = append(about, accessQuestion{subject: s, action: action, level: a.AccessLevel, target: target{label, t.arn, c}})
					}
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
	return questions, about
}

// subjectFacts are input.access.subjects: each role and boundary asked, with
// the statements of its own policies and the services it names that AWS's
// service reference does not know.
func subjectFacts(envs []env, subjects []*subject, unknown map[*subject][]any) []any {
	out := []any{}
	for _, s := range subjects {
		statements := append([]any{}, statementsOfAll(s.identity)...)
		out = append(out, map[string]any{"name": s.name, "variant": s.variant, "id": s.id, "file": s.file, "statements": statements, "unknown_services": append([]any{}, unknown[s]...)})
	}
	return out
}

func variantNames(envs []env) []any {
	var out []any
	for _, e := range envs {
		out = append(out, e.name)
	}
	return out
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
// compares and a rule may ask of (does any role get s3:PutBucketPolicy?),
// and the parts effectiveAccess tells.
func accessFacts(snapshot []string, now accessAnswers) map[string]any {
	out := map[string]any{"file": accessFile, "granted": append([]string{}, now.lines...), "reviewed": append([]string{}, snapshot...)}
	maps.Copy(out, now.facts)
	return out
}

const accessHeader = `# The effective access of every role and boundary within its own stacks:
# "<variant> <role or boundary> <action> <resource>", one allowed request a
# line, enumerated with the IAM evaluator by tools/preflight (access.go);
# and what the stacks' resource policies let anyone do (resourcepolicy.go):
# "<variant> <principal, or service(for:resource)> <action> <resource>".
# Reviewed: a change that grants new access fails until this file is
# written again on purpose, with make preflight-accept.
`
