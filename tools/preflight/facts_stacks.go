package preflight

// The facts of the stacks: each variant's translated template (and, for
// dev and prod, pipeline/roles.yaml's stack), resource by resource, with
// its properties as written (raw: intrinsics kept) and as CloudFormation
// would resolve them for that variant, and the line of the resource in
// the file a person edits. The evidence probe of each variant (the app
// stack with access logs on and an alarm topic: exposure.go) is a stack
// of its own, with probe true.

import (
	"strings"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// stacksFacts are the stacks of every variant, for input.stacks:
//
//	{"variant": "dev", "probe": false, "file": "template.yaml", "name": "plant-store-dev",
//	 "account": "123456789012", "params": {...},
//	 "apis": [{"id": "PlantsApi", "routes": [{"name": "POST /plants", "resource": "<LogicalId>",
//	   "authorized": true, "instead": "", "function": "<LogicalId>" or ""}]}],
//	 "unread_apis": [{"id": ..., "msg": ...}], "resources": {"<LogicalId>": {"type": ..., "raw": {...},
//	 "properties": {...} or null, "error": "", "source": "<id in file>", "line": n,
//	 "update_policy": {...} or null}}}
func stacksFacts(envs []env, places map[string]map[string]int) []any {
	var out []any
	for _, e := range envs {
		stacks := e.stacks()
		probe, err := evidenceProbe(e)
		if err == nil {
			stacks = append(stacks, probe)
		}
		for _, r := range stacks {
			file := "template.yaml"
			if r == e.pipeline {
				file = "pipeline/roles.yaml"
			}
			resources := map[string]any{}
			for _, id := range r.ResourceIDs() {
				res, _ := r.Resource(id)
				props, err := r.Properties(id)
				problem := ""
				if err != nil {
					problem = err.Error()
				}
				src, line := sourceOf(places[file], id)
				resources[id] = map[string]any{"type": res["Type"], "raw": res["Properties"], "properties": props,
					"error": problem, "source": src, "line": line, "update_policy": res["UpdatePolicy"]}
			}
			params := map[string]any{}
			for k, v := range r.Stack().Params {
				params[k] = v
			}
			apis, unread := apisFacts(r)
			out = append(out, map[string]any{"variant": e.name, "probe": r == probe, "file": file, "name": r.Stack().Name, "account": r.Stack().Account,
				"params": params, "resources": resources, "apis": apis, "unread_apis": unread})
		}
	}
	return out
}

// apisFacts are the stack's REST APIs as restAPIsOf reads them (each route,
// what guards it, the function it reaches), and what it cannot read.
func apisFacts(r *samtemplate.Resolved) ([]any, []any) {
	apis, problems := restAPIsOf(r)
	fns := stackFunctions(r)
	out, unread := []any{}, []any{}
	for _, api := range apis {
		routes := []any{}
		for _, rt := range api.routes {
			resource := rt.resource
			if resource == "" {
				resource = api.id
			}
			routes = append(routes, map[string]any{"name": rt.name(), "resource": resource, "authorized": rt.authorized,
				"instead": rt.instead, "function": fns[rt.function]})
		}
		out = append(out, map[string]any{"id": api.id, "routes": routes})
	}
	for _, p := range problems {
		unread = append(unread, map[string]any{"id": p.Where, "msg": p.Rule})
	}
	return out, unread
}

// allowlistFacts are input.allowlist: the entries of
// tools/preflight/allowlist.yaml with a reason ({"kind", "what", "reason"}),
// the exceptions a rule may take.
func allowlistFacts(a *Allowlist) []any {
	out := []any{}
	for _, e := range a.Entries {
		if strings.TrimSpace(e.Reason) != "" {
			out = append(out, map[string]any{"kind": e.Kind, "what": e.What, "reason": e.Reason})
		}
	}
	return out
}
