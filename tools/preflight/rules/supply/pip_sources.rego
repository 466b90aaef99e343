# METADATA
# title: pip installs from PyPI alone
# related_resources:
#   - ref: https://pip.pypa.io/en/stable/topics/secure-installs/
# custom:
#   id: PS-SUP-010
#   danger: "an extra or other index, a find-links page, a trusted plain-HTTP host, an editable VCS checkout or a nested requirements file lets pip take a package from a source no pin or hash checks: a same-named package on another index wins (dependency confusion), a branch moves, an unread file pins nothing."
#   fix: "install only name==X.Y.Z lines of .github/requirements.txt from PyPI; a package PyPI lacks, as a wheel URL with --hash=sha256:..."
package preflight.rules.pip_sources

import data.preflight.lib.supply

options := `(^|\s)(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host|-e|--editable|-r|--requirement|-c|--constraint)(\s|=|$)`

script_options := `(^|\s)(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host|-e|--editable)(\s|=)`

# A requirements file's own options.
deny contains {"file": ".github/requirements.txt", "line": i + 1, "msg": sprintf("`%s` in the requirements takes packages from a source that no ==pin or --hash checks", [trim_space(l)])} if {
	some i, l in input.files[".github/requirements.txt"].lines
	not startswith(trim_space(l), "#")
	regex.match(options, trim_space(l))
}

# pip's options on a command line.
deny contains {"file": l.file, "line": l.line, "msg": sprintf("%s: `%s` makes pip fetch from another index, a links page or a VCS checkout", [l.where, trim_space(l.text)])} if {
	some l in supply.script_lines
	regex.match(`(^|[\s;&|(])(pip3?|uv pip|-m pip)\s+install\b`, l.text)
	regex.match(script_options, l.text)
}

# pip's environment (PIP_<OPTION>, uv's UV_INDEX...).
deny contains {"file": s.file, "line": s.line, "msg": sprintf("%s sets %s: pip or uv takes packages from %s", [s.where, s.name, s.value])} if {
	some s in supply.settings
	s.name in {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_TRUSTED_HOST", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_FIND_LINKS"}
}
