package preflight

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/plantstore/plantstore/tools/iameval"
)

// The rule of trust: a role is assumed by the one principal that uses it,
// with the one action that principal calls, and by nobody else with any
// action of STS that takes a role. Who uses a role follows from the
// template (a function's Role: Lambda; a deployment group's ServiceRoleArn:
// CodeDeploy; the API Gateway account's CloudWatchRoleArn: API Gateway) or,
// for the pipeline's roles, from pipelineAssumers. The evaluator is asked, for
// every role of every variant, whether each principal outside the intended
// one may assume it: every service principal AWS's service reference names,
// other accounts' and this account's root, roles, users and sessions (each
// holding every permission its own account can give it: IAM's cross-account
// rule wants the caller's own allow too), GitHub's OIDC subjects of other
// repositories, owners, branches, tags, pull requests and environments, and
// other identity providers; each with the keys IAM sets from who it is
// (identityOf). The rule of conditions (conditions.go) adds the principals
// the trust policy names and, where it has conditions, every context of
// every outsider that its condition keys could match.

// assumer is the principal a role is for, with the action it calls and the
// context its request carries.
type assumer struct {
	principal string
	action    string
	context   map[string]any
}

const (
	githubIssuer = "token.actions.githubusercontent.com"
	githubSub    = githubIssuer + ":sub"
	githubAud    = githubIssuer + ":aud"
	otherAccount = "999999999999"
)

var oidcProvider = "arn:" + partition + ":iam::" + account + ":oidc-provider/" + githubIssuer

// pipelineAssumers states who assumes each role of pipeline/roles.yaml: the
// deploy role, the jobs of its own GitHub environment (GitHub's "Security
// hardening with OpenID Connect": a job that names an environment gets the
// sub repo:<owner>/<repo>:environment:<name>, and the environment's
// deployment branches decide which code runs it); the execution role,
// CloudFormation in this account.
var pipelineAssumers = map[string]func(e env) assumer{
	"DeployRole": func(e env) assumer {
		return assumer{oidcProvider, "sts:AssumeRoleWithWebIdentity",
			map[string]any{githubSub: fmt.Sprintf("repo:%s/%s:environment:%s", owner, repo, e.name), githubAud: "sts.amazonaws.com"}}
	},
	"CloudFormationExecutionRole": func(env) assumer {
		return assumer{"cloudformation.amazonaws.com", "sts:AssumeRole", map[string]any{"aws:SourceAccount": account}}
	},
}

// serviceUses are the properties through which a service assumes a role of
// the app's template.
var serviceUses = []struct{ typ, property, service string }{
	{"AWS::Lambda::Function", "Role", "lambda.amazonaws.com"},
	{"AWS::CodeDeploy::DeploymentGroup", "ServiceRoleArn", "codedeploy.amazonaws.com"},
	{"AWS::ApiGateway::Account", "CloudWatchRoleArn", "apigateway.amazonaws.com"},
}

// trustedRole is a role with the stack it belongs to and its assumer.
type trustedRole struct {
	where string // "<variant> <template> <LogicalId>"
	role
	assumer assumer
}

// rolesOf lists every role of the variant's stacks with its intended
// assumer; a role whose assumer cannot be told is a finding.
func rolesOf(e env) ([]trustedRole, []Finding, error) {
	var out []trustedRole
	var findings []Finding
	placed, err := e.roles()
	if err != nil {
		return nil, nil, err
	}
	for _, pr := range placed {
		r, ro, id := pr.stack, pr.role, pr.id
		tr := trustedRole{where: pr.where, role: ro}
		var users []string
		if r == e.pipeline {
			if f, ok := pipelineAssumers[id]; ok {
				tr.assumer = f(e)
				users = append(users, tr.assumer.principal)
			}
		} else {
			for _, use := range serviceUses {
				for _, res := range r.ResourcesOfType(use.typ) {
					p, err := r.Properties(res)
					if err != nil {
						return nil, nil, err
					}
					if p[use.property] == ro.arn && !slices.Contains(users, use.service) {
						users = append(users, use.service)
						tr.assumer = assumer{principal: use.service, action: "sts:AssumeRole"}
					}
				}
			}
		}
		switch len(users) {
		case 0:
			findings = append(findings, Finding{ID: idTrust, Where: tr.where, Rule: "no rule says who assumes this role",
				Fix: "use it as a function's Role, a deployment group's ServiceRoleArn or the API Gateway account's CloudWatchRoleArn, or (pipeline/roles.yaml) add it to pipelineAssumers in tools/preflight/trust.go"})
			continue
		case 1:
		default:
			findings = append(findings, Finding{ID: idTrust, Where: tr.where, Rule: fmt.Sprintf("one role is used by %s", strings.Join(users, " and ")), Fix: "give each service a role of its own"})
			continue
		}
		out = append(out, tr)
	}
	return out, findings, nil
}

// outsiders are the requests that must not assume role tr: every STS action
// that takes a role (by AWS's service reference), from every principal but
// the intended one, and the intended principal calling another action.
func outsiders(tr trustedRole, services []string, stsActions []string) []iameval.Question {
	type caller struct {
		principal string
		context   map[string]any
		identity  []any
		deputy    bool // the intended service on another account's behalf
	}
	var callers []caller
	seen := map[string]bool{}
	for _, s := range services {
		p := s + ".amazonaws.com"
		if seen[p] {
			continue
		}
		seen[p] = true
		callers = append(callers, caller{principal: p, context: withIdentity(p, map[string]any{"aws:SourceAccount": account})})
	}
	iam := func(acct, rest string) string { return fmt.Sprintf("arn:%s:iam::%s:%s", partition, acct, rest) }
	for _, acct := range []string{otherAccount, account} {
		for _, p := range []string{iam(acct, "root"), iam(acct, "role/plant-store-dev-Outsider"), iam(acct, "role/plant-store-pipeline-prod-DeployRole-X"), iam(acct, "user/someone"),
			fmt.Sprintf("arn:%s:sts::%s:assumed-role/plant-store-dev-Outsider/session", partition, acct)} {
			callers = append(callers, caller{principal: p, identity: allowAllPolicies, context: withIdentity(p, nil)})
		}
	}
	// Web identities: GitHub's subjects of every kind, for this repository
	// and its look-alikes, with the right and a wrong audience; GitHub's
	// provider in another account; other providers.
	for _, r := range []string{owner + "/" + repo, owner + "/" + repo + "-fork", "someone/" + repo, owner + "/" + repo + "2"} {
		for _, kind := range []string{"environment:dev", "environment:prod", "environment:staging", "ref:refs/heads/main", "ref:refs/heads/feature", "ref:refs/tags/v1", "pull_request"} {
			for _, aud := range []string{"sts.amazonaws.com", "https://github.com/" + owner} {
				callers = append(callers, caller{principal: oidcProvider, context: map[string]any{githubSub: "repo:" + r + ":" + kind, githubAud: aud}})
			}
		}
	}
	// A service on another account's behalf (the confused deputy), where the
	// role's assumer is asked with aws:SourceAccount.
	if _, ok := tr.assumer.context["aws:SourceAccount"]; ok {
		callers = append(callers, caller{principal: tr.assumer.principal, context: withIdentity(tr.assumer.principal, map[string]any{"aws:SourceAccount": otherAccount}), deputy: true})
	}
	callers = append(callers,
		caller{principal: iam(otherAccount, "oidc-provider/"+githubIssuer), context: map[string]any{githubSub: fmt.Sprintf("repo:%s/%s:environment:dev", owner, repo), githubAud: "sts.amazonaws.com"}},
		caller{principal: iam(account, "oidc-provider/gitlab.com")},
		caller{principal: iam(account, "saml-provider/Corp")},
		caller{principal: "cognito-identity.amazonaws.com"},
		caller{principal: "accounts.google.com"},
		caller{principal: "graph.facebook.com"},
		caller{principal: "www.amazon.com"},
	)
	var qs []iameval.Question
	for _, c := range callers {
		for _, action := range stsActions {
			if c.principal == tr.assumer.principal && action == tr.assumer.action && !c.deputy &&
				(!strings.HasPrefix(c.principal, "arn:") || sameContext(c.context, tr.assumer.context)) {
				continue
			}
			qs = append(qs, iameval.Question{Principal: c.principal, Action: action, Resource: tr.arn, Account: account,
				Context: c.context, IdentityPolicies: c.identity, ResourcePolicy: tr.trust, Trust: true})
		}
	}
	return qs
}

func sameContext(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// trustActions are the actions of STS whose resource is a role.
func trustActions(data map[string][]iameval.Action) []string {
	var out []string
	for _, a := range data["sts"] {
		for _, rt := range a.ResourceTypes {
			if rt.Name == "role" {
				out = append(out, "sts:"+a.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkTrust applies the rule of trust to every role of the variants.
func checkTrust(envs []env) ([]Finding, error) {
	services, err := iameval.Services()
	if err != nil {
		return nil, err
	}
	data, err := iameval.Actions([]string{"sts"})
	if err != nil {
		return nil, err
	}
	acts := trustActions(data)
	if len(acts) == 0 {
		return nil, fmt.Errorf("the evaluator's data names no STS action on a role")
	}
	var findings []Finding
	type asked struct {
		tr        trustedRole
		intended  int
		outsiders []int
	}
	var all []iameval.Question
	var roles []asked
	// One question per distinct (trust policy, request): roles of the
	// variants share most of their trust policies.
	// A question's key is its trust policy's (encoded once a role, not once
	// a question) and the rest of it.
	index := map[string]int{}
	policies := map[string]string{} // trust policy -> its encoding, by its role
	add := func(q iameval.Question, role string) int {
		doc, ok := policies[role]
		if !ok {
			raw, _ := json.Marshal(q.ResourcePolicy)
			doc = string(raw)
			policies[role] = doc
		}
		rest := q
		rest.ResourcePolicy = nil
		raw, _ := json.Marshal(rest)
		key := doc + string(raw)
		if i, ok := index[key]; ok {
			return i
		}
		index[key] = len(all)
		all = append(all, q)
		return len(all) - 1
	}
	const trusted = "arn:aws:iam::" + account + ":role/trusted" // the same trust policy asks the same questions
	for _, e := range envs {
		trs, fs, err := rolesOf(e)
		if err != nil {
			return nil, err
		}
		findings = append(findings, fs...)
		for _, tr := range trs {
			a := asked{tr: tr}
			arn := tr.arn
			tr.arn = trusted
			a.intended = add(iameval.Question{Principal: tr.assumer.principal, Action: tr.assumer.action, Resource: tr.arn, Account: account,
				Context: tr.assumer.context, ResourcePolicy: tr.trust, Trust: true}, a.tr.where)
			for _, q := range outsiders(tr, services, acts) {
				a.outsiders = append(a.outsiders, add(q, a.tr.where))
			}
			tr.arn = arn
			roles = append(roles, a)
		}
	}
	// The rule of conditions (conditions.go): each trust policy is asked by
	// the principals it names and, where it has conditions, by every
	// outsider in every context its condition keys could match.
	principals := askedPrincipals(services)
	probes := make([]probe, len(roles))
	for i, a := range roles {
		probes[i] = trustProbe(a.tr, principals, acts, trusted)
	}
	second, err := neighbours(probes)
	if err != nil {
		return nil, err
	}
	byCondition := map[int]string{} // a neighbour's question -> who asked, with the keys it brought
	for i, reqs := range second {
		for _, r := range reqs {
			if r.q.Principal == roles[i].tr.assumer.principal && r.q.Action == roles[i].tr.assumer.action && holds(r.q.Context, roles[i].tr.assumer.context) {
				continue
			}
			n := add(r.q, roles[i].tr.where)
			roles[i].outsiders = append(roles[i].outsiders, n)
			if c := chosen(r.actor, r.q.ResourcePolicy, r.q.Context); c != "" {
				byCondition[n] = r.actor.label() + " (" + c + ")"
			}
		}
	}
	answers, err := iameval.Ask(all)
	if err != nil {
		return nil, err
	}
	for _, a := range roles {
		if ans := answers[a.intended]; !ans.Allowed() {
			findings = append(findings, Finding{ID: idTrust, Where: a.tr.where, Rule: fmt.Sprintf("its trust policy does not let %s call %s (the evaluator: %s %s)", a.tr.assumer.principal, a.tr.assumer.action, ans.Result, ans.Error),
				Fix: "allow exactly that principal and action in AssumeRolePolicyDocument"})
		}
		// Who is admitted, one principal (with its actions) at a time: the
		// intended principal's other actions first, then accounts' principals,
		// web identities and services, in the order they were asked.
		var order []string
		actions := map[string][]string{}
		conditional := false
		for _, i := range a.outsiders {
			ans := answers[i]
			if !ans.Allowed() && ans.Result != "Error" {
				continue
			}
			q := all[i]
			who := q.Principal
			if c, ok := byCondition[i]; ok {
				who, conditional = c, true
			} else if sub, ok := q.Context[githubSub]; ok {
				who += fmt.Sprintf(" (sub %v, aud %v)", sub, q.Context[githubAud])
			} else if src, ok := q.Context["aws:SourceAccount"]; ok && src != account {
				who += fmt.Sprintf(" (for account %v)", src)
			}
			if ans.Result == "Error" {
				who += " [the evaluator could not read the policy: " + ans.Error + "]"
			}
			if _, ok := actions[who]; !ok {
				order = append(order, who)
			}
			if !slices.Contains(actions[who], q.Action) {
				actions[who] = append(actions[who], q.Action)
			}
		}
		if len(order) == 0 {
			continue
		}
		rank := func(who string) int {
			switch {
			case who == a.tr.assumer.principal:
				return 0
			case strings.Contains(who, ":iam::") && !strings.Contains(who, "-provider/"), strings.Contains(who, ":sts::"):
				return 1
			case strings.Contains(who, "(sub "), strings.Contains(who, "-provider/"):
				return 2
			}
			return 3
		}
		sort.SliceStable(order, func(i, j int) bool { return rank(order[i]) < rank(order[j]) })
		var shown []string
		for _, who := range order[:min(4, len(order))] {
			shown = append(shown, fmt.Sprintf("%s (%s)", who, strings.Join(actions[who], ", ")))
		}
		more := ""
		if len(order) > 4 {
			more = fmt.Sprintf(" and %d more principals", len(order)-4)
		}
		fix := "remove the statement (or the principal, action or condition) that admits them from AssumeRolePolicyDocument"
		if conditional {
			fix = conditionFix
		}
		findings = append(findings, Finding{ID: idTrust, Where: a.tr.where, Rule: fmt.Sprintf("its trust policy admits %s%s; only %s may assume it, with %s", strings.Join(shown, ", "), more, a.tr.assumer.principal, a.tr.assumer.action), Fix: fix})
	}
	return findings, nil
}
