# METADATA
# title: npm installs from the public registry, over verified TLS
# related_resources:
#   - ref: https://docs.npmjs.com/cli/v11/using-npm/config#registry
# custom:
#   id: PS-SUP-011
#   danger: a registry other than https://registry.npmjs.org/ (in .npmrc, for a scope, on a command line or in npm_config_registry) or strict-ssl=false lets another server, or anyone on the path, answer the names the lockfile asks for.
#   fix: "drop the setting; npm's default registry is https://registry.npmjs.org/ and strict-ssl stays true"
package preflight.rules.npm_registry

import data.preflight.lib.supply

public(url) if trim_suffix(url, "/") == "https://registry.npmjs.org"

deny contains {"file": ".npmrc", "line": s.line, "msg": sprintf(".npmrc's `%s=%s` sends npm's requests to another registry", [s.key, s.value])} if {
	some s in supply.npmrc
	regex.match(`^(@[^:]+:)?registry$`, s.key)
	not public(s.value)
}

deny contains {"file": ".npmrc", "line": s.line, "msg": ".npmrc's `strict-ssl=false` accepts any certificate for the registry"} if {
	some s in supply.npmrc
	s.key == "strict-ssl"
	s.value == "false"
}

deny contains {"file": l.file, "line": l.line, "msg": sprintf("%s: `%s` installs from another registry", [l.where, trim_space(l.text)])} if {
	some l in supply.script_lines
	some m in regex.find_all_string_submatch_n(`(^|[\s;&|(])(npm|npx|yarn|pnpm)\b[^;&|]*\s--registry[=\s]+(\S+)`, l.text, -1)
	not public(trim(m[3], `"'`))
}

deny contains {"file": l.file, "line": l.line, "msg": sprintf("%s: `%s` points npm at another registry", [l.where, trim_space(l.text)])} if {
	some l in supply.script_lines
	some m in regex.find_all_string_submatch_n(`npm\s+config\s+set\s+(@[^:\s]+:)?registry[=\s]+(\S+)`, l.text, -1)
	not public(trim(m[2], `"'`))
}

deny contains {"file": s.file, "line": s.line, "msg": sprintf("%s sets %s=%s: npm installs from another registry", [s.where, s.name, s.value])} if {
	some s in supply.settings
	lower(s.name) in {"npm_config_registry", "yarn_registry", "yarn_npm_registry_server"}
	not public(s.value)
}
