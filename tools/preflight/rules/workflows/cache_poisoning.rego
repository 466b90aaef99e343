# METADATA
# title: No cache restored where what is built ships
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#cache-poisoning
# custom:
#   id: PS-WF-007
#   danger: a job of a workflow that ships what it builds restores a cache that anyone holding a GITHUB_TOKEN of the repository can write, and then runs it.
#   fix: disable the step's cache (setup-go `cache false`, setup-node `package-manager-cache false`, no `cache` input) or drop the step
package preflight.rules.cache_poisoning

import data.preflight.lib.github

# Each cache-aware action zizmor's audit knows, with whether the step's
# inputs leave its cache on (an input given as an expression counts as on).
truthy(v) if v == "true"

truthy(v) if contains(v, "${{")

input_of(s, k) := object.get(s.with, k, "")

on(s) if {
	s.action in {"actions/cache", "swatinem/rust-cache"}
	input_of(s, "lookup-only") != "true"
}

on(s) if {
	s.action in {"actions/setup-java", "actions/setup-python", "graalvm/setup-graalvm", "actions/setup-node"}
	input_of(s, "cache") != ""
}

on(s) if {
	s.action in {"actions/setup-go", "actions-rust-lang/setup-rust-toolchain", "jdx/mise-action"}
	input_of(s, "cache") != "false"
}

on(s) if {
	s.action == "actions/setup-node"
	input_of(s, "package-manager-cache") != "false"
}

on(s) if {
	s.action == "actions/setup-dotnet"
	truthy(input_of(s, "cache"))
}

on(s) if {
	s.action == "astral-sh/setup-uv"
	input_of(s, "enable-cache") != "false"
}

on(s) if {
	s.action == "ruby/setup-ruby"
	truthy(input_of(s, "bundler-cache"))
}

on(s) if {
	s.action == "pyo3/maturin-action"
	truthy(input_of(s, "sccache"))
}

on(s) if {
	s.action == "mlugg/setup-zig"
	input_of(s, "use-cache") != "false"
}

on(s) if {
	s.action == "oven-sh/setup-bun"
	input_of(s, "no-cache") != "true"
}

on(s) if {
	s.action == "determinatesystems/magic-nix-cache-action"
	input_of(s, "use-gha-cache") != "false"
}

on(s) if {
	s.action == "gradle/actions/setup-gradle"
	input_of(s, "cache-disabled") != "true"
}

on(s) if {
	s.action == "docker/setup-buildx-action"
	input_of(s, "cache-binary") != "false"
	input_of(s, "version") != ""
}

on(s) if s.action in {"mozilla-actions/sccache-action", "nix-community/cache-nix-action", "awalsh128/cache-apt-pkgs-action"}

on(s) if {
	s.action == "ramsey/composer-install"
	not input_of(s, "ignore-cache") in {"yes", "true", "1"}
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: %s restores a cache in a job of a workflow that ships what it builds", [github.step_where(j, s), s.action])} if {
	some w in input.workflows
	github.publishes(w)
	some j in w.jobs
	some s in j.steps
	on(s)
}

# A workflow of this repository that a publishing workflow calls (ci.yml
# aside: its caches feed nothing that ships).
deny contains {"file": cw.file, "line": s.line, "msg": sprintf("%s: %s restores a cache in a job that %s (job %s) calls on a push to main", [github.step_where(cj, s), s.action, w.name, j.name])} if {
	some w in input.workflows
	github.publishes(w)
	some j in w.jobs
	called := trim_prefix(j.uses, "./.github/workflows/")
	called != j.uses
	called != "ci.yml"
	some cw in input.workflows
	cw.name == called
	some cj in cw.jobs
	some s in cj.steps
	on(s)
}
