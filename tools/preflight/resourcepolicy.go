package preflight

// The questions of the rule of resource policies (PS-IAM-004,
// rules/iam/resource_policy.rego, judges the answers and says who is
// outside): IAM Access Analyzer's external-access finding, offline. Every
// resource policy that either template (after the SAM transform) can
// create, for every type that has one (policyReaders, which Access
// Analyzer's list of resource types bounds:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/access-analyzer-resources.html),
// is asked by every principal the trust rule asks as an outsider and every
// principal it names, for every action of its service that takes the
// resource, in every context its conditions could match (conditions.go).
// A resource that carries a policy no reader reads is a fact, so that no
// type goes unasked.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/iameval"
)

// guarded is a resource with the policy that guards it.
type guarded struct {
	stack   *samtemplate.Resolved
	id      string   // the resource that carries the policy
	subject string   // the resource it guards, its logical id
	arns    []string // what requests name: the resource, and what lies in it
	doc     any
}

// policyProperties are the properties that carry a resource policy in
// CloudFormation's resource types; a resource with one that policyReaders
// cannot read is a finding. IAM's own types carry identity policies.
var policyProperties = []string{"Policy", "PolicyDocument", "PolicyText", "KeyPolicy", "ResourcePolicy", "AccessPolicy", "AccessPolicies",
	"RepositoryPolicyText", "FileSystemPolicy", "PermissionsPolicyDocument", "PolicyInJson"}

// policyReaders read the resource policy of each type that carries one.
var policyReaders = map[string]func(r *samtemplate.Resolved, id string, p map[string]any) []guarded{
	// AWS::Lambda::Permission is one statement of the function's policy,
	// as AddPermission writes it (Lambda's "Granting function access to an
	// organization" shows the statement).
	"AWS::Lambda::Permission": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		arn := r.FunctionArn(fmt.Sprint(p["FunctionName"]))
		st := map[string]any{"Sid": id, "Effect": "Allow", "Principal": principalOf(fmt.Sprint(p["Principal"])), "Action": p["Action"], "Resource": arn}
		cond := map[string]any{}
		for prop, c := range map[string][2]string{
			"SourceArn": {"ArnLike", "aws:SourceArn"}, "SourceAccount": {"StringEquals", "aws:SourceAccount"}, "PrincipalOrgID": {"StringEquals", "aws:PrincipalOrgID"},
			"FunctionUrlAuthType": {"StringEquals", "lambda:FunctionUrlAuthType"}, "EventSourceToken": {"StringEquals", "lambda:EventSourceToken"},
		} {
			if v, ok := p[prop]; ok {
				m, _ := cond[c[0]].(map[string]any)
				if m == nil {
					m = map[string]any{}
					cond[c[0]] = m
				}
				m[c[1]] = v
			}
		}
		if len(cond) > 0 {
			st["Condition"] = cond
		}
		return []guarded{{r, id, ownerOf(r, arn), []string{arn}, statementDoc(st)}}
	},
	"AWS::Lambda::LayerVersionPermission": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		arn := fmt.Sprint(p["LayerVersionArn"])
		st := map[string]any{"Sid": id, "Effect": "Allow", "Principal": principalOf(fmt.Sprint(p["Principal"])), "Action": p["Action"], "Resource": arn}
		if org, ok := p["OrganizationId"]; ok {
			st["Condition"] = map[string]any{"StringEquals": map[string]any{"aws:PrincipalOrgID": org}}
		}
		return []guarded{{r, id, ownerOf(r, arn), []string{arn}, statementDoc(st)}}
	},
	"AWS::S3::BucketPolicy": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		arn := fmt.Sprintf("arn:%s:s3:::%s", r.Stack().Partition, strings.ToLower(fmt.Sprint(p["Bucket"])))
		return []guarded{{r, id, ownerOf(r, arn), []string{arn, arn + "/" + neighbourName}, p["PolicyDocument"]}}
	},
	"AWS::SNS::TopicPolicy": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		var out []guarded
		for _, t := range asList(p["Topics"]) {
			out = append(out, guarded{r, id, ownerOf(r, fmt.Sprint(t)), []string{fmt.Sprint(t)}, p["PolicyDocument"]})
		}
		return out
	},
	"AWS::SNS::TopicInlinePolicy": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		return []guarded{{r, id, ownerOf(r, fmt.Sprint(p["TopicArn"])), []string{fmt.Sprint(p["TopicArn"])}, p["PolicyDocument"]}}
	},
	"AWS::SQS::QueuePolicy": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		var out []guarded
		for _, q := range asList(p["Queues"]) {
			out = append(out, guarded{r, id, ownerOf(r, fmt.Sprint(q)), []string{queueArn(fmt.Sprint(q))}, p["PolicyDocument"]})
		}
		return out
	},
	"AWS::SQS::QueueInlinePolicy": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		return []guarded{{r, id, ownerOf(r, fmt.Sprint(p["Queue"])), []string{queueArn(fmt.Sprint(p["Queue"]))}, p["PolicyDocument"]}}
	},
	"AWS::KMS::Key": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		arn, _ := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
		return []guarded{{r, id, id, []string{fmt.Sprint(arn)}, p["KeyPolicy"]}}
	},
	"AWS::SecretsManager::ResourcePolicy": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		return []guarded{{r, id, ownerOf(r, fmt.Sprint(p["SecretId"])), []string{fmt.Sprint(p["SecretId"])}, p["ResourcePolicy"]}}
	},
	"AWS::ECR::Repository": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		arn, _ := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
		return []guarded{{r, id, id, []string{fmt.Sprint(arn)}, p["RepositoryPolicyText"]}}
	},
	"AWS::DynamoDB::Table": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		v, _ := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
		arn := fmt.Sprint(v)
		var out []guarded
		if rp, ok := p["ResourcePolicy"].(map[string]any); ok {
			out = append(out, guarded{r, id, id, []string{arn}, rp["PolicyDocument"]})
		}
		if ss, ok := p["StreamSpecification"].(map[string]any); ok {
			if rp, ok := ss["ResourcePolicy"].(map[string]any); ok {
				out = append(out, guarded{r, id, id, []string{arn + "/stream/2026-01-01T00:00:00.000"}, rp["PolicyDocument"]})
			}
		}
		return out
	},
	// An API's resource policy is its Policy, or its OpenAPI body's
	// x-amazon-apigateway-policy (what SAM makes of Auth.ResourcePolicy),
	// with resources written execute-api:/<stage>/<METHOD>/<path>, which API
	// Gateway expands to the API's own ARNs (API Gateway developer guide,
	// "x-amazon-apigateway-policy" and "API Gateway resource policy
	// examples"); requests name each route of each stage.
	"AWS::ApiGateway::RestApi": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		s := r.Stack()
		ref, _ := r.Value(map[string]any{"Ref": id})
		base := fmt.Sprintf("arn:%s:execute-api:%s:%s:%v/", s.Partition, s.Region, s.Account, ref)
		doc := policyDoc(p["Policy"])
		if body, ok := p["Body"].(map[string]any); ok && doc == nil {
			doc = policyDoc(body["x-amazon-apigateway-policy"])
		}
		if doc == nil {
			return nil
		}
		doc = expandExecuteAPI(doc, base).(map[string]any)
		arns := []string{base + neighbourName + "/GET/" + neighbourName}
		apis, _ := restAPIsOf(r)
		for _, api := range apis {
			if api.id != id {
				continue
			}
			for _, stage := range append(api.stages, neighbourName) {
				for _, rt := range api.routes {
					arns = append(arns, base+stage+"/"+strings.ReplaceAll(rt.arn(), "*", neighbourName))
				}
			}
		}
		return []guarded{{r, id, id, arns, doc}}
	},
	// A CloudWatch Logs resource policy is the account's, for the log
	// groups its statements name.
	"AWS::Logs::ResourcePolicy": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		doc := policyDoc(p["PolicyDocument"])
		var arns []string
		for _, st := range statementsOf(doc) {
			for _, res := range asList(st["Resource"]) {
				group := strings.TrimSuffix(inAccount(fill(fmt.Sprint(res)), r.Stack().Account), ":"+neighbourName)
				arns = append(arns, group, group+":log-stream:"+neighbourName)
			}
		}
		if len(arns) == 0 {
			arns = []string{fmt.Sprintf("arn:%s:logs:%s:%s:log-group:%s", r.Stack().Partition, r.Stack().Region, r.Stack().Account, neighbourName)}
		}
		return []guarded{{r, id, id, arns, doc}}
	},
	"AWS::Events::EventBusPolicy": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		s := r.Stack()
		bus := fmt.Sprint(p["EventBusName"])
		if p["EventBusName"] == nil {
			bus = "default"
		}
		arn := bus
		if !strings.HasPrefix(bus, "arn:") {
			arn = fmt.Sprintf("arn:%s:events:%s:%s:event-bus/%s", s.Partition, s.Region, s.Account, bus)
		}
		st, _ := p["Statement"].(map[string]any)
		if st == nil {
			st = map[string]any{"Effect": "Allow", "Action": p["Action"], "Resource": arn,
				"Principal": principalOf(fmt.Sprint(p["Principal"])), "Condition": p["Condition"]}
		}
		return []guarded{{r, id, ownerOf(r, arn), []string{arn}, statementDoc(st)}}
	},
	"AWS::Events::EventBus": func(r *samtemplate.Resolved, id string, p map[string]any) []guarded {
		arn, _ := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
		if p["Policy"] == nil {
			return nil
		}
		return []guarded{{r, id, id, []string{fmt.Sprint(arn)}, policyDoc(p["Policy"])}}
	},
}

// principalOf is the Principal element of a principal as Lambda's and
// EventBridge's permissions name it: *, an account id, an ARN or a service.
func principalOf(p string) any {
	switch {
	case p == "*":
		return "*"
	case len(p) == 12 && strings.Trim(p, "0123456789") == "":
		return map[string]any{"AWS": fmt.Sprintf("arn:%s:iam::%s:root", partition, p)}
	case strings.HasPrefix(p, "arn:"):
		return map[string]any{"AWS": p}
	}
	return map[string]any{"Service": p}
}

func statementDoc(st map[string]any) map[string]any {
	if st["Condition"] == nil {
		delete(st, "Condition")
	}
	return map[string]any{"Version": "2012-10-17", "Statement": []any{st}}
}

// queueArn is the ARN of a queue its URL names
// (https://sqs.<region>.amazonaws.com/<account>/<name>).
func queueArn(url string) string {
	parts := strings.Split(strings.TrimPrefix(url, "https://"), "/")
	if len(parts) != 3 {
		return url
	}
	host := strings.Split(parts[0], ".")
	if len(host) < 2 {
		return url
	}
	return fmt.Sprintf("arn:%s:sqs:%s:%s:%s", partition, host[1], parts[1], parts[2])
}

// expandExecuteAPI writes API Gateway's execute-api:/... resources as ARNs.
func expandExecuteAPI(v any, base string) any {
	switch x := v.(type) {
	case string:
		if rest, ok := strings.CutPrefix(x, "execute-api:/"); ok {
			return base + rest
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = expandExecuteAPI(e, base)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = expandExecuteAPI(e, base)
		}
		return out
	}
	return v
}

// ownerOf is the logical id of the resource of r whose Ref or ARN is v,
// or v itself.
func ownerOf(r *samtemplate.Resolved, v string) string {
	for _, id := range r.ResourceIDs() {
		ref, _ := r.Value(map[string]any{"Ref": id})
		arn, _ := arnOf(r, id)
		if fmt.Sprint(ref) == v || arn == v {
			return id
		}
	}
	return v
}

// typesOf are the patterns of each action's resource types, by action.
func typesOf(actions []iameval.Action) map[string][]*regexp.Regexp {
	out := map[string][]*regexp.Regexp{}
	for _, a := range actions {
		out[a.Name] = append(out[a.Name], arnPatterns(a)...)
	}
	return out
}

// takes says whether an action (its resource types' patterns) takes the
// ARN as exactly one of its types (the evaluator cannot tell two apart:
// effectiveAccess). A qualified ARN, a function's alias or version, is the
// resource its unqualified ARN names, where no type names it as it stands.
func takes(types []*regexp.Regexp, arn string) bool {
	count := func(arn string) int {
		n := 0
		for _, re := range types {
			if re.MatchString(arn) {
				n++
			}
		}
		return n
	}
	switch n := count(arn); {
	case n == 1:
		return true
	case n > 1:
		return false
	}
	i := strings.LastIndex(arn, ":")
	return i > 0 && count(arn[:i]) == 1
}

// guardedOf lists every resource policy of the variant's stacks, and the
// resources with a policy no reader reads: {"variant", "file", "id",
// "property", "type"}.
func guardedOf(e env) ([]guarded, []any) {
	var out []guarded
	var unread []any
	for _, r := range e.stacks() {
		for _, id := range r.ResourceIDs() {
			res, _ := r.Resource(id)
			typ, _ := res["Type"].(string)
			p, err := r.Properties(id)
			if err != nil {
				continue // the template rules tell what cannot be resolved
			}
			if read, ok := policyReaders[typ]; ok {
				for _, g := range read(r, id, p) {
					if g.doc != nil {
						out = append(out, g)
					}
				}
				continue
			}
			if strings.HasPrefix(typ, "AWS::IAM::") {
				continue
			}
			if i := slices.IndexFunc(policyProperties, func(prop string) bool { return p[prop] != nil }); i >= 0 {
				unread = append(unread, map[string]any{"variant": e.name, "file": fileOf(e, r), "id": id, "property": policyProperties[i], "type": typ})
			}
		}
	}
	return out, unread
}

// ownResources are the ARNs of the variant's own resources with their
// labels, an API's also as execute-api ARNs (what API Gateway sends as
// aws:SourceArn).
func ownResources(e env) []target {
	out := stackTargets(e, "this")
	for i, r := range e.stacks() {
		kind := stackKinds[i]
		for _, id := range r.ResourceIDs() {
			if ref, _ := r.Value(map[string]any{"Ref": id}); strings.HasPrefix(fmt.Sprint(ref), "arn:") {
				out = append(out, target{"this:" + kind + ":" + id, fmt.Sprint(ref), nil})
			}
		}
		for _, id := range r.ResourcesOfType("AWS::ApiGateway::RestApi") {
			ref, _ := r.Value(map[string]any{"Ref": id})
			s := r.Stack()
			out = append(out, target{"this:" + kind + ":" + id, fmt.Sprintf("arn:%s:execute-api:%s:%s:%v", s.Partition, s.Region, s.Account, ref), nil})
		}
	}
	return out
}

// ownLabel is the label of the own resource an ARN is, or lies under.
func ownLabel(own []target, arn string) (string, bool) {
	label, longest := "", 0
	for _, t := range own {
		if (arn == t.arn || strings.HasPrefix(arn, t.arn+"/") || strings.HasPrefix(arn, t.arn+":")) && len(t.arn) > longest {
			label, longest = t.label, len(t.arn)
		}
	}
	return label, longest > 0
}

// lookup is a context key's value, whatever the case of the key.
func lookup(ctx map[string]any, key string) (string, bool) {
	for k, v := range ctx {
		if strings.EqualFold(k, key) {
			return fmt.Sprint(v), true
		}
	}
	return "", false
}

// possible says whether a service's request could be made: the source
// account it sends is the account of the source ARN it sends.
func possible(ctx map[string]any) bool {
	src, okArn := lookup(ctx, "aws:SourceArn")
	acct, okAcct := lookup(ctx, "aws:SourceAccount")
	if !okArn || !okAcct {
		return true
	}
	parts := strings.SplitN(src, ":", 6)
	return len(parts) < 6 || parts[4] == "" || parts[4] == acct
}

// resourceAccess asks every resource policy of the variants: its facts
// for PS-IAM-004 (rules/iam/resource_policy.rego), and the snapshot's
// lines "<variant> <who> <action> <resource>" of what the policies let
// anyone do, <who> a principal of this account, a service "for" one of
// the stack's resources, or a caller from outside: the principal the
// policy names, * (another account's principals at large), a service, or
// any-service (those the policy does not name). The facts:
//   - grants: each request a policy allows, with its caller (kind, account,
//     whether the policy names it, the keys of the context it chose, the
//     own resource its aws:SourceArn names, if any) and its line;
//   - unread: the resources with a policy no reader reads;
//   - untaken: the policies whose resources no action takes;
//   - errors: the requests the evaluator could not read.
func resourceAccess(envs []env) (map[string]any, []string, error) {
	type asked struct {
		e env
		g guarded
	}
	var all []asked
	unread, untaken, problems, grants := []any{}, []any{}, []any{}, []any{}
	facts := map[string]any{"unread": unread, "untaken": untaken, "errors": problems, "grants": grants}
	services := map[string]bool{}
	for _, e := range envs {
		gs, un := guardedOf(e)
		unread = append(unread, un...)
		for _, g := range gs {
			all = append(all, asked{e, g})
			services[strings.SplitN(g.arns[0], ":", 4)[2]] = true
		}
	}
	facts["unread"] = unread
	if len(all) == 0 {
		return facts, nil, nil
	}
	data, err := iameval.Actions(slices.Sorted(maps.Keys(services)))
	if err != nil {
		return nil, nil, err
	}
	svcs, err := iameval.Services()
	if err != nil {
		return nil, nil, err
	}
	principals := askedPrincipals(svcs)
	types := map[string]map[string][]*regexp.Regexp{} // service -> action -> its resource types' patterns
	probes := make([]probe, len(all))
	for i, a := range all {
		p := probe{doc: a.g.doc}
		for _, x := range actorsOf(a.g.doc, principals, func(x actor) []any {
			// Another account's caller holds every permission; this
			// account's holds none, so that what it is asked measures
			// what the resource policy alone gives it.
			if x.kind == iamCaller && x.account != account {
				return allowAllPolicies
			}
			return nil
		}) {
			// A web identity calls resources as the role it assumes.
			if x.kind != webCaller || x.named {
				p.actors = append(p.actors, x)
			}
		}
		svc := strings.SplitN(a.g.arns[0], ":", 4)[2]
		if types[svc] == nil {
			types[svc] = typesOf(data[svc])
		}
		for _, act := range data[svc] {
			for _, arn := range a.g.arns {
				if !act.WildcardOnly && takes(types[svc][act.Name], arn) {
					p.requests = append(p.requests, [2]string{svc + ":" + act.Name, arn})
					break
				}
			}
		}
		if len(p.requests) == 0 {
			untaken = append(untaken, map[string]any{"variant": a.e.name, "file": fileOf(a.e, a.g.stack), "id": a.g.id, "arns": a.g.arns, "service": svc})
			continue
		}
		first := p.requests[0]
		p.first = func(actor) (string, string) { return first[0], first[1] }
		probes[i] = p
	}
	facts["untaken"] = untaken
	second, err := neighbours(probes)
	if err != nil {
		return nil, nil, err
	}
	var qs []iameval.Question
	var who []neighbourRequest
	var of []int
	for i, reqs := range second {
		for _, r := range reqs {
			qs = append(qs, r.q)
			who = append(who, r)
			of = append(of, i)
		}
	}
	answers, err := iameval.Ask(qs)
	if err != nil {
		return nil, nil, err
	}
	own := map[string][]target{}
	for _, e := range envs {
		own[e.name] = ownResources(e)
	}
	var lines []string
	for n, ans := range answers {
		a, r := all[of[n]], who[n]
		policy := map[string]any{"variant": a.e.name, "file": fileOf(a.e, a.g.stack), "id": a.g.id, "resource": a.g.subject}
		switch {
		case ans.Result == "Error" && strings.Contains(ans.Error, "multiple.resource.types"):
			continue // as in effectiveAccess: IAM tells the types apart, the evaluator cannot
		case ans.Result == "Error":
			problems = append(problems, map[string]any{"policy": policy, "action": r.q.Action, "arn": r.q.Resource, "error": ans.Error})
			continue
		case !ans.Allowed() || !possible(r.q.Context):
			continue
		}
		g := grantOf(r, a.g.doc, own[a.e.name])
		resource := a.g.subject
		if l, ok := ownLabel(own[a.e.name], r.q.Resource); ok {
			resource = l
		}
		g["policy"], g["action"] = policy, r.q.Action
		g["line"] = fmt.Sprintf("%s %s %s %s", a.e.name, g["caller"], r.q.Action, resource)
		lines = append(lines, g["line"].(string))
		grants = append(grants, g)
	}
	facts["errors"], facts["grants"] = problems, grants
	sort.Strings(lines)
	return facts, slices.Compact(lines), nil
}

// grantOf tells who a policy lets in: the caller's kind ("iam", "service",
// "web") and account, whether the policy names it, the keys of the
// context it chose itself, the own resource its aws:SourceArn names, and
// the caller a snapshot's line names.
func grantOf(r neighbourRequest, doc any, own []target) map[string]any {
	kind := map[actorKind]string{iamCaller: "iam", serviceCaller: "service", webCaller: "web"}[r.actor.kind]
	chose := []any{}
	for k := range r.q.Context {
		if r.actor.free(k) {
			chose = append(chose, k)
		}
	}
	src, hasSrc := lookup(r.q.Context, "aws:SourceArn")
	source, _ := ownLabel(own, src)
	caller := r.actor.principal
	switch {
	case kind == "iam" && r.actor.account == account:
	case kind == "service" && source != "":
		caller += "(for:" + source + ")"
	case r.actor.named:
		caller = r.actor.as
	case kind == "iam":
		caller = "*"
	case r.actor.anyone:
		caller = "any-service"
	}
	return map[string]any{"kind": kind, "account": r.actor.account, "own_account": account, "named": r.actor.named, "caller": caller,
		"label": r.actor.label(), "chose": chose, "brought": chosen(r.actor, doc, r.q.Context), "source": source, "sourced": hasSrc}
}
