# METADATA
# title: The authorizer's keys are its issuer's own
# related_resources:
#   - ref: https://datatracker.ietf.org/doc/html/rfc8725#section-3.10
# custom:
#   id: PS-EXP-003
#   danger: a JWKS URL outside its issuer's https URL lets whoever controls that URL sign tokens the authorizer accepts.
#   fix: derive AUTH_JWKS_URL from AUTH_ISSUER, the jwks_uri under the issuer's URL (…/.well-known/jwks.json), for Cognito the user pool's own
package preflight.rules.key_source

import data.preflight.lib.stacks

# internal/auth reads its keys from AUTH_JWKS_URL. OpenID Connect
# Discovery 1.0, section 3: the issuer is "a URL that uses the https
# scheme with no query or fragment components", its keys at its jwks_uri
# (Cognito's at https://cognito-idp.<region>.amazonaws.com/<pool>/.well-known/jwks.json).
# RFC 8725, section 3.10: a key URL from anywhere else risks keys of
# whoever controls it; so the JWKS URL lies under the issuer's URL, the
# same https origin and within its path, which on a host of many issuers
# (Cognito's serves every pool of the region) is the issuer itself.
deny := stacks.told(found)

found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": sprintf("AUTH_JWKS_URL %s %s", [jwks, why])} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Lambda::Function"
	vars := r.properties.Environment.Variables
	jwks := sprintf("%v", [vars.AUTH_JWKS_URL])
	why := refused(sprintf("%v", [object.get(vars, "AUTH_ISSUER", "")]), jwks)
}

# refused says why a JWKS URL is not its issuer's own; undefined when it
# is, or when there is none.
refused(issuer, jwks) := "is a dynamic reference: the keys come from whatever that parameter holds at deploy time, which no review of the template sees" if {
	startswith(jwks, "{{resolve:")
} else := "is not a URL" if {
	jwks != ""
	not url(jwks)
} else := sprintf("is %s, not https: anyone on the path to it can hand the authorizer keys and mint tokens it accepts", [url(jwks).scheme]) if {
	url(jwks).scheme != "https"
} else := "carries user information, a query, a fragment, escapes or dot segments: it may lead elsewhere than it reads, to keys of whoever answers there" if {
	misleads(url(jwks))
} else := "has no issuer (AUTH_ISSUER) to be derived from" if {
	url(jwks)
	issuer == ""
} else := sprintf("belongs to the issuer %q, which is no https URL without query or fragment", [issuer]) if {
	url(jwks)
	not https_issuer(issuer)
} else := sprintf("is on host %s, not the issuer's %s: whoever controls that host hands the authorizer keys and mints tokens it accepts", [url(jwks).host, url(issuer).host]) if {
	host_port(url(jwks).host) != host_port(url(issuer).host)
} else := sprintf("lies outside the issuer's path %s: on a host that serves many issuers (Cognito's serves every user pool of the region) these are another issuer's keys, and whoever that issuer signs for gets tokens the authorizer accepts", [trim_suffix(url(issuer).path, "/")]) if {
	url(jwks)
	not startswith(url(jwks).path, concat("", [trim_suffix(url(issuer).path, "/"), "/"]))
}

# url parses an absolute URL with a host (RFC 3986, appendix B).
url(s) := {"scheme": lower(m[1]), "host": m[2], "path": m[3], "query": m[4], "fragment": m[5]} if {
	some m in regex.find_all_string_submatch_n(`^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]+)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$`, s, 1)
}

https_issuer(issuer) if {
	url(issuer).scheme == "https"
	not contains(issuer, "?")
	not contains(issuer, "#")
}

# misleads: user information, a query, a fragment, escapes or a path
# that is not its own clean form (no empty, . or .. segment, no trailing
# slash).
misleads(u) if contains(u.host, "@")

misleads(u) if u.query != ""

misleads(u) if u.fragment != ""

misleads(u) if contains(u.path, "%")

misleads(u) if unclean(u.path)

# unclean: the path is not its own clean form (no empty, . or .. segment,
# no trailing slash).
unclean(p) if p == ""

unclean(p) if {
	p != "/"
	some seg in array.slice(split(p, "/"), 1, count(split(p, "/")))
	seg in {"", ".", ".."}
}

host_port(h) := lower(h) if contains(h, ":")

host_port(h) := concat("", [lower(h), ":443"]) if not contains(h, ":")
