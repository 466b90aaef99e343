# METADATA
# title: The Makefile's version pins are the versions CI installs
# related_resources:
#   - ref: https://www.gnu.org/software/make/manual/html_node/Conditional-Assignment.html
# custom:
#   id: PS-SUP-015
#   danger: a `?=` pin of the Makefile (STATICCHECK_VERSION ?= v0.8.2) that a workflow's env, .ci/run or a make command line sets again installs a version no reviewer sees beside the pin, and the pins' checks read only the Makefile.
#   fix: "change the pin in the Makefile itself and drop the override"
package preflight.rules.make_pin_override

import data.preflight.lib.supply

# pins are the Makefile's ?= assignments that name a version.
pins[a.name] := a if {
	some a in input.makefile.assignments
	a.op == "?="
	pin(a)
}

pin(a) if endswith(a.name, "_VERSION")

pin(a) if regex.match(`^v?\d+\.\d+(\.\d+)?([-+.][0-9A-Za-z.+-]*)?$`, a.value)

deny contains {"file": s.file, "line": s.line, "msg": msg} if {
	some s in supply.settings
	s.file != input.makefile.file
	a := pins[s.name]
	msg := sprintf("%s sets %s=%s over the Makefile's pin `%s ?= %s` (Makefile:%d): CI installs what the override says, not the pin a reviewer reads", [s.where, s.name, s.value, a.name, a.value, a.line])
}
