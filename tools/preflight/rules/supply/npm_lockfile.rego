# METADATA
# title: Every package of the lockfile comes from the registry with its integrity
# related_resources:
#   - ref: https://docs.npmjs.com/cli/v11/configuring-npm/package-lock-json#packages
# custom:
#   id: PS-SUP-012
#   danger: a lockfile entry resolved outside https://registry.npmjs.org/ (a git host, a tarball URL, another registry) or without an integrity hash installs whatever that source serves when npm ci runs, unchecked.
#   fix: "reinstall the package from the registry (npm install name@X.Y.Z) so that the lockfile records its registry tarball and sha512 integrity"
package preflight.rules.npm_lockfile

lock := input.supply.npm_lock

deny contains {"file": lock.file, "line": p.resolved_line, "msg": sprintf("%s is resolved from %s, outside the npm registry", [p.path, p.resolved])} if {
	some p in lock.packages
	p.resolved != ""
	not p.link
	not startswith(p.resolved, "https://registry.npmjs.org/")
}

deny contains {"file": lock.file, "line": p.line, "msg": sprintf("%s has no integrity hash: npm ci installs it unchecked", [p.path])} if {
	some p in lock.packages
	p.path != ""
	not p.link
	p.integrity == ""
}
