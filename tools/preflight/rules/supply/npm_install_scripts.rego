# METADATA
# title: A dependency's install script runs only by its reviewed, pinned approval
# related_resources:
#   - ref: https://docs.npmjs.com/cli/v11/commands/npm-install-scripts
# custom:
#   id: PS-SUP-014
#   danger: npm blocks dependencies' install scripts unless package.json's allowScripts approves them; an approval by name alone (any future version), dangerously-allow-all-scripts, allow-scripts in the settings or an approval run by CI lets the next release of a package run code on the build machine at npm ci.
#   fix: "approve a package's script pinned to the version reviewed (`npm install-scripts approve name`, which writes \"name@X.Y.Z\": true), by a person, in package.json"
package preflight.rules.npm_install_scripts

import data.preflight.lib.supply

pinned(key) if regex.match(`^(@[^/@]+/)?[^@]+@\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$`, key)

deny contains {"file": "package.json", "line": supply.json_line("allowScripts", key), "msg": msg} if {
	some key, allowed in object.get(supply.package_json, "allowScripts", {})
	allowed == true
	not pinned(key)
	msg := sprintf("allowScripts approves `%s` without a version: the install script of any version npm resolves later runs unreviewed", [key])
}

deny contains {"file": ".npmrc", "line": s.line, "msg": sprintf(".npmrc's `%s=%s` lets dependencies' install scripts run past package.json's allowScripts", [s.key, s.value])} if {
	some s in supply.npmrc
	s.key in {"dangerously-allow-all-scripts", "allow-scripts"}
	s.value != "false"
	s.value != ""
}

deny contains {"file": l.file, "line": l.line, "msg": sprintf("%s: `%s` lets dependencies' install scripts run without a person's pinned approval", [l.where, trim_space(l.text)])} if {
	some l in supply.script_lines
	regex.match(`(--dangerously-allow-all-scripts|--allow-scripts\b|--no-allow-scripts-pin|\bnpm\s+(install-scripts\s+approve|approve-scripts)\b)`, l.text)
	not regex.match(`--dangerously-allow-all-scripts=false`, l.text)
}

deny contains {"file": s.file, "line": s.line, "msg": sprintf("%s sets %s=%s: dependencies' install scripts run past package.json's allowScripts", [s.where, s.name, s.value])} if {
	some s in supply.settings
	lower(s.name) in {"npm_config_dangerously_allow_all_scripts", "npm_config_allow_scripts"}
	s.value != "false"
	s.value != ""
}
