# Helpers of the stacks' rules (input.stacks): a finding that several
# variants share is told once, naming them, and a value that comes from a
# parameter says so.
package preflight.lib.stacks

# told tells each finding of found ({"variant", "file", "line", "id",
# "msg"}, and "fix" where it says more than the METADATA) once, as
# "<id> [<variants>]: <msg>", the variants in the order of input.stacks.
told(found) := {object.union(object.remove(f, ["variant", "id", "msg"]), {"msg": sprintf("%s [%s]: %s", [f.id, concat(", ", variants(found, f)), f.msg])}) |
	some f in found
}

variants(found, f) := [v |
	some v in order
	some g in found
	g.variant == v
	object.remove(g, ["variant"]) == object.remove(f, ["variant"])
]

# order is the variants as input.stacks has them, each once.
order := [s.variant |
	some i, s in input.stacks
	first(i, s)
]

first(i, s) if {
	not s.probe
	s.file == "template.yaml"
	not earlier(i, s.variant)
}

earlier(i, v) if {
	some j, t in input.stacks
	j < i
	t.variant == v
	not t.probe
	t.file == "template.yaml"
}

# source says where a resolved value comes from when it is written as a
# parameter: " (Name=value in dev's parameters)", or its default.
source(s, raw, value) := sprintf(" (%s=%v in %s's parameters)", [raw.Ref, s.params[raw.Ref], s.variant]) if {
	s.params[raw.Ref]
} else := sprintf(" (%s, whose default is %v)", [raw.Ref, value]) if {
	raw.Ref
} else := ""

as_list(x) := x if is_array(x)

as_list(null) := []

as_list(x) := [x] if {
	not is_array(x)
	x != null
}

# is_true reads a boolean property as CloudFormation does: true or "true".
is_true(v) if lower(sprintf("%v", [v])) == "true"

# short is v in JSON, cut to at most n bytes.
short(v, n) := s if {
	s := json.marshal(v)
	count(s) <= n
} else := sprintf("%s…", [substring(json.marshal(v), 0, n)])
