# Helpers of the rules over the stacks (input.stacks) and the templates as
# written (input.templates, input.declared).
package preflight.lib.stacks

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

resolved(_, t) := t if is_string(t)

resolved(s, t) := s.params[t.Ref] if s.params[t.Ref]

resolved(s, t) := input.declared[s.file].parameters[t.Ref].value.Default if {
	t.Ref
	not s.params[t.Ref]
}

# SAM prefixes CodeDeploy's predefined Lambda configurations; any other
# Type names a configuration of the account.
predefined(t) := concat("", ["CodeDeployDefault.Lambda", t]) if {
	regex.match(`^(AllAtOnce|Canary10Percent[0-9]+Minutes|Linear10PercentEvery[0-9]+Minutes?)$`, t)
} else := t
