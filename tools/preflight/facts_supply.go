package preflight

// The facts of what a build fetches and where its settings stand, that
// the other facts give without their lines or not at all: every env: and
// with: entry of the workflows on its own line, npm's lockfile entry by
// entry (where each package comes from, its integrity, whether it has an
// install script), and template.yaml's transforms and Lambda layers as
// written. Lines are those of the file a person edits.

import (
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// supplyFacts are input.supply:
//
//	{"settings": [{"file", "line", "job": "" or a job's, "step": 0 or its index, "in": "env" or "with", "name", "value"}],
//	 "npm_lock": {"file": "package-lock.json", "packages": [{"path", "line", "resolved", "resolved_line",
//	   "integrity", "link", "version"}]},
//	 "template": {"file": "template.yaml", "transforms": [{"line", "name", "location"}],
//	   "layers": [{"line", "resource", "tag": "", "!Ref", "!Sub", "!GetAtt" or "other", "value"}]}}
func supplyFacts(root string, wfs []*workflow, template *yaml.Node) map[string]any {
	return map[string]any{
		"settings": workflowSettings(wfs),
		"npm_lock": npmLockFacts(filepath.Join(root, "package-lock.json")),
		"template": templateSourceFacts(template),
	}
}

// workflowSettings are the entries of every env: (the workflow's, a
// job's, a step's) and with: (a step's, a reusable workflow call's).
func workflowSettings(wfs []*workflow) []any {
	out := []any{}
	add := func(file, job string, step int, in string, m *yaml.Node) {
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			out = append(out, map[string]any{"file": file, "line": m.Content[i].Line, "job": job, "step": step,
				"in": in, "name": m.Content[i].Value, "value": yamlValue(m.Content[i+1])})
		}
	}
	for _, w := range wfs {
		file := ".github/workflows/" + w.file
		add(file, "", 0, "env", entryNode(w.root, "env"))
		for _, name := range w.order {
			j := w.Jobs[name]
			add(file, name, 0, "env", entryNode(j.node, "env"))
			add(file, name, 0, "with", entryNode(j.node, "with"))
			if steps := entryNode(j.node, "steps"); steps != nil {
				for i, s := range steps.Content {
					add(file, name, i+1, "env", entryNode(s, "env"))
					add(file, name, i+1, "with", entryNode(s, "with"))
				}
			}
		}
	}
	return out
}

// npmLockFacts are the packages of an npm lockfile (v2 and v3:
// "packages"), read as YAML so that each keeps its line.
func npmLockFacts(path string) map[string]any {
	out := map[string]any{"file": "package-lock.json", "packages": []any{}}
	pkgs := entryNode(readYAML(path), "packages")
	if pkgs == nil || pkgs.Kind != yaml.MappingNode {
		return out
	}
	var list []any
	for i := 0; i+1 < len(pkgs.Content); i += 2 {
		k, v := pkgs.Content[i], pkgs.Content[i+1]
		resolvedLine := k.Line
		if n, _ := yamlEntry(v, "resolved"); n != nil {
			resolvedLine = n.Line
		}
		list = append(list, map[string]any{"path": k.Value, "line": k.Line, "version": entryValue(v, "version"),
			"resolved": entryValue(v, "resolved"), "resolved_line": resolvedLine, "integrity": entryValue(v, "integrity"),
			"link": entryValue(v, "link") == "true"})
	}
	out["packages"] = nonNil(list)
	return out
}

// templateSourceFacts are the transforms (the template's Transform and
// every Fn::Transform) and the Lambda layers (Globals' and each
// resource's) of template.yaml as written, whose top node is root.
func templateSourceFacts(root *yaml.Node) map[string]any {
	if root == nil {
		return map[string]any{"file": "template.yaml", "transforms": []any{}, "layers": []any{}}
	}
	transforms, layers := []any{}, []any{}
	if t := entryNode(root, "Transform"); t != nil {
		names := []*yaml.Node{t}
		if t.Kind == yaml.SequenceNode {
			names = t.Content
		}
		for _, n := range names {
			transforms = append(transforms, map[string]any{"line": n.Line, "name": n.Value, "location": ""})
		}
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if k, v := n.Content[i], n.Content[i+1]; k.Value == "Fn::Transform" {
				transforms = append(transforms, map[string]any{"line": k.Line, "name": entryValue(v, "Name"), "location": entryValue(entryNode(v, "Parameters"), "Location")})
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	layersOf := func(resource string, props *yaml.Node) {
		l := entryNode(props, "Layers")
		if l == nil || l.Kind != yaml.SequenceNode {
			return
		}
		for _, item := range l.Content {
			tag, value := layerRef(item)
			layers = append(layers, map[string]any{"line": item.Line, "resource": resource, "tag": tag, "value": value})
		}
	}
	layersOf("Globals", entryNode(entryNode(root, "Globals"), "Function"))
	if res := entryNode(root, "Resources"); res != nil && res.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(res.Content); i += 2 {
			layersOf(res.Content[i].Value, entryNode(res.Content[i+1], "Properties"))
		}
	}
	return map[string]any{"file": "template.yaml", "transforms": transforms, "layers": layers}
}

// layerRef is a layer as written: a string, or an intrinsic in its short
// (!Ref x) or long ({Ref: x}) form.
func layerRef(n *yaml.Node) (tag, value string) {
	switch {
	case n.Kind == yaml.ScalarNode && (n.Tag == "!!str" || n.Tag == "!Ref" || n.Tag == "!Sub" || n.Tag == "!GetAtt"):
		if n.Tag == "!!str" {
			return "", n.Value
		}
		return n.Tag, n.Value
	case n.Kind == yaml.MappingNode && len(n.Content) == 2:
		long := map[string]string{"Ref": "!Ref", "Fn::Sub": "!Sub", "Fn::GetAtt": "!GetAtt"}
		t, ok := long[n.Content[0].Value]
		switch v := n.Content[1]; {
		case ok && v.Kind == yaml.ScalarNode:
			return t, v.Value
		case ok && v.Kind == yaml.SequenceNode && len(v.Content) > 0: // Fn::GetAtt: [Id, Arn]
			return t, v.Content[0].Value
		}
	}
	return "other", ""
}
