# METADATA
# title: Go modules are verified against the checksum database
# related_resources:
#   - ref: https://go.dev/ref/mod#authenticating
# custom:
#   id: PS-SUP-016
#   danger: a Go setting that turns off the checksum database (GOSUMDB=off, GONOSUMDB, GOPRIVATE, GOINSECURE), fetches around the module proxy (GOPROXY=direct) or lets go rewrite go.mod and go.sum (GOFLAGS=-mod=mod) builds and ships module code that no one's go.sum or sum.golang.org vouches for.
#   fix: "remove the setting: the defaults (GOPROXY=https://proxy.golang.org,direct, GOSUMDB=sum.golang.org, go.sum read-only) verify every module; the repository has no private modules"
package preflight.rules.go_checksum

import data.preflight.lib.supply

# off(name, value) is what a Go setting turns off, or nothing.
off(name, value) := "turns off the checksum database" if {
	name == "GOSUMDB"
	value != ""
	value != "sum.golang.org"
}

off(name, value) := "exempts matching modules from the checksum database (and GOPRIVATE from the proxy too)" if {
	name in {"GONOSUMDB", "GONOSUMCHECK", "GOPRIVATE", "GONOPROXY"}
	value != ""
}

off(name, value) := "lets matching modules be fetched over plain HTTP or unchecked TLS, and unverified" if {
	name == "GOINSECURE"
	value != ""
}

off(name, value) := "fetches modules around proxy.golang.org, from wherever their import path points today" if {
	name == "GOPROXY"
	first := trim_space(split(value, ",")[0])
	first != ""
	first != "off"
	not startswith(first, "https://proxy.golang.org")
}

off(name, value) := "lets go resolve modules anew and rewrite go.mod and go.sum instead of refusing what they do not already list" if {
	name == "GOFLAGS"
	regex.match(`(^|\s)-(mod=mod|insecure)\b`, value)
}

deny contains {"file": s.file, "line": s.line, "msg": msg} if {
	some s in supply.settings
	why := off(s.name, s.value)
	msg := sprintf("%s sets %s=%s: it %s", [s.where, s.name, s.value, why])
}
