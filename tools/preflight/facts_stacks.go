package preflight

// The facts of the stacks: each variant's translated template (and, for
// dev and prod, pipeline/roles.yaml's stack), resource by resource, with
// its properties as written (raw: intrinsics kept) and as CloudFormation
// would resolve them for that variant, and the line of the resource in
// the file a person edits. The evidence probe of each variant (the app
// stack with access logs on and an alarm topic: exposure.go) is a stack
// of its own, with probe true.

// stacksFacts are the stacks of every variant, for input.stacks:
//
//	{"variant": "dev", "probe": false, "file": "template.yaml", "name": "plant-store-dev",
//	 "account": "123456789012", "params": {...}, "resources": {"<LogicalId>": {"type": ..., "raw": {...},
//	 "properties": {...} or null, "error": "", "source": "<id in file>", "line": n}}}
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
					"error": problem, "source": src, "line": line}
			}
			params := map[string]any{}
			for k, v := range r.Stack().Params {
				params[k] = v
			}
			out = append(out, map[string]any{"variant": e.name, "probe": r == probe, "file": file, "name": r.Stack().Name, "account": r.Stack().Account,
				"params": params, "resources": resources})
		}
	}
	return out
}
