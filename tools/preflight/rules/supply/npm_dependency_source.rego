# METADATA
# title: package.json depends on registry versions alone
# related_resources:
#   - ref: https://docs.npmjs.com/cli/v11/configuring-npm/package-json#git-urls-as-dependencies
# custom:
#   id: PS-SUP-013
#   danger: a dependency named by a git URL, a GitHub shorthand, a tarball URL or a local path installs whatever that branch, server or directory holds, with no registry version or integrity behind it.
#   fix: "depend on a published version (\"name\": \"X.Y.Z\") and let npm ci check the lockfile's integrity"
package preflight.rules.npm_dependency_source

import data.preflight.lib.supply

sections := ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides"]

not_registry(spec) if regex.match(`^(git\+|git:|github:|gitlab:|bitbucket:|gist:|https?:|file:|link:|portal:|\.{0,2}/|~/)`, spec)

# user/repo, the GitHub shorthand (not a scope: no @ at the start).
not_registry(spec) if regex.match(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(#.*)?$`, spec)

deny contains {"file": "package.json", "line": supply.json_line(section, name), "msg": msg} if {
	some section in sections
	some name, spec in object.get(supply.package_json, section, {})
	is_string(spec)
	not_registry(spec)
	msg := sprintf("%s's %s is `%s`: npm installs whatever that source holds, with no registry version", [section, name, spec])
}
