# Helpers of the rules over the stacks (input.stacks) and the templates as
# written (input.templates, input.declared): a finding that several
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

else := [] if x == null

else := [x]

# is_true reads a boolean property as CloudFormation does: true or "true".
is_true(v) if lower(sprintf("%v", [v])) == "true"

# short is v in JSON, cut to at most n bytes.
short(v, n) := s if {
	s := json.marshal(v)
	count(s) <= n
} else := sprintf("%s…", [substring(json.marshal(v), 0, n)])

# prod are the stacks of samconfig.toml's prod environment, the one that
# serves the public (its evidence probe too).
prod contains s if {
	some s in input.stacks
	s.variant == "prod"
}

# prop_line is the line of a top-level property of a resource as written
# (its source's, for what SAM makes of it), else the resource's line.
prop_line(s, r, prop) := line if {
	some t in input.templates[s.file].resources
	t.id == r.source
	line := t.properties[prop]
} else := r.line

# number is a resolved value as a number (CloudFormation hands parameters
# on as strings), undefined when it is not one.
number(v) := v if is_number(v)

number(v) := to_number(v) if {
	is_string(v)
	regex.match(`^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`, v)
}

# param_source says where a property's value comes from when it is a
# parameter: the environment's override, or the parameter's default.
param_source(s, raw) := sprintf(" (%s=%v in %s's parameters)", [raw.Ref, s.params[raw.Ref], s.variant]) if {
	s.params[raw.Ref]
} else := sprintf(" (%s's default)", [raw.Ref]) if {
	is_string(raw.Ref)
} else := ""

# deployment_config is the CodeDeploy configuration of a deployment group
# as the deployed SAM transform names it: from its function's
# DeploymentPreference Type as written (or Globals'), resolved with the
# stack's parameters, else as the shared translation says.
deployment_config(s, g) := name if {
	t := resolved(s, written_type(s, g.source))
	is_string(t)
	name := predefined(t)
} else := g.properties.DeploymentConfigName

written_type(s, fn) := object.get(input.declared, [s.file, "resources", fn, "value", "Properties", "DeploymentPreference", "Type"], object.get(input.declared, [s.file, "globals", "Function", "DeploymentPreference", "Type"], null))

resolved(s, t) := t if is_string(t)

else := s.params[t.Ref] if s.params[t.Ref]

else := input.declared[s.file].parameters[t.Ref].value.Default if t.Ref

# SAM prefixes CodeDeploy's predefined Lambda configurations; any other
# Type names a configuration of the account.
predefined(t) := concat("", ["CodeDeployDefault.Lambda", t]) if {
	regex.match(`^(AllAtOnce|Canary10Percent[0-9]+Minutes|Linear10PercentEvery[0-9]+Minutes?)$`, t)
} else := t
