# METADATA
# title: Nothing downloaded runs unchecked
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#unpinned-tools
# custom:
#   id: PS-SUP-001
#   danger: a script piped from curl into a shell, handed to one by substitution, or downloaded and run before its checksum is checked runs whatever its server sends when CI runs.
#   fix: "download it to a file, check its sha256 (echo \"<sha256>  file\" | sha256sum -c -), then run it; or install a pinned version from a registry"
package preflight.rules.unchecked_download

import data.preflight.lib.shell

# Interpreters run what they read: a download piped into one, or handed to
# it by a process or command substitution, runs unchecked; tar and unzip
# unpack what they read.
interpreters := {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node", "pwsh", "eval", "source", ".", "tar", "unzip", "bsdtar"}

finding(sc, s, what) := {"file": sc.file, "line": s.line, "msg": sprintf("%s: %s", [shell.where(sc), what])}

fetches(s) if shell.command(s)[0] in {"curl", "wget"}

deny contains finding(sc, p, sprintf("a download is piped into `%s`: it runs whatever the server sends today", [a[0]])) if {
	some sc in input.scripts
	some p in sc.stmts
	p.kind == "pipe"
	some i, d in p.parts
	fetches(sc.stmts[d])
	some k, q in p.parts
	k > i
	a := shell.command(sc.stmts[q])
	a[0] in interpreters
	stdin(a)
}

# stdin: the interpreter takes its program (or tar its archive) from
# standard input: no -c, -e or -m and no file named before a -.
stdin(a) if {
	not a[0] in {"eval", "source", "."}
	ks := {k | some k, _ in a; k > 0; decisive(a, k)}
	count(ks) > 0
	takes_stdin(a, min(ks))
}

stdin(a) if {
	not a[0] in {"eval", "source", ".", "unzip"}
	count({k | some k, _ in a; k > 0; decisive(a, k)}) == 0
}

tar(a) if a[0] in {"tar", "bsdtar"}

tar_file(w) if w in {"-f", "--file"}

tar_file(w) if regex.match(`^-[^-]*f$`, w)

decisive(a, k) if a[k] in {"-", "-s", "/dev/stdin", "-c", "-e", "-m", "-E"}

decisive(a, k) if {
	tar(a)
	tar_file(a[k])
}

decisive(a, k) if {
	not tar(a)
	not startswith(a[k], "-")
}

takes_stdin(a, k) if a[k] in {"-", "-s", "/dev/stdin"}

takes_stdin(a, k) if {
	tar(a)
	tar_file(a[k])
	a[k + 1] == "-"
}

deny contains finding(sc, s, sprintf("`%s` runs a download handed to it by substitution, unchecked", [a[0]])) if {
	some sc in input.scripts
	some s in sc.stmts
	a := shell.command(s)
	a[0] in interpreters
	some t in shell.within(sc, s)
	t.id != s.id
	fetches(t)
}

# download(s) is the file a curl or wget writes: its output option's, the
# URL's last part, or where its standard output is redirected.
download(s) := trim_prefix(r.word, "./") if {
	shell.command(s)[0] in {"curl", "wget"}
	some r in s.redirs
	r.op in {">", ">|"}
	r.fd in {"", "1"}
}

download(s) := trim_prefix(a[k + 1], "./") if {
	a := shell.command(s)
	some k, w in a
	output_flag(a[0], w)
	a[k + 1] != "-"
}

download(s) := regex.replace(url, `^.*/`, "") if {
	a := shell.command(s)
	a[0] in {"curl", "wget"}
	not has_output(a)
	some url in a
	contains(url, "://")
	remote_name(a)
}

# An option that names the output file: alone, or last of a cluster of
# single-letter options (curl -fsSLo file, wget -qO file).
output_flag("curl", w) if w in {"-o", "--output"}

output_flag("curl", w) if regex.match(`^-[A-Za-z]+o$`, w)

output_flag("wget", w) if w in {"-O", "--output-document"}

output_flag("wget", w) if regex.match(`^-[A-Za-z]+O$`, w)

has_output(a) if {
	some w in a
	output_flag(a[0], w)
}

remote_name(a) if a[0] == "wget"

remote_name(a) if {
	a[0] == "curl"
	some w in a
	regex.match(`^-[A-Za-z]*O[A-Za-z]*$`, w)
}

remote_name(a) if "--remote-name" in a

checksum(a) if {
	a[0] in {"sha256sum", "sha512sum", "sha384sum", "b2sum", "shasum"}
	some w in a
	w in {"-c", "--check"}
}

checksum(a) if a[0] == "gpgv"

checksum(a) if {
	a[0] == "gpg"
	"--verify" in a
}

checksum(a) if {
	a[0] == "cosign"
	startswith(a[1], "verify")
}

checksum(a) if {
	a[0] == "minisign"
	"-V" in a
}

# runs(a, f): a call that runs, makes runnable or unpacks file f.
runs(a, f) if trim_prefix(a[0], "./") == f

runs(a, f) if {
	a[0] in {"chmod", "install", "dpkg", "rpm", "apt", "apt-get", "tar", "unzip", "bsdtar", "sh", "bash", "python", "python3", "source", "."}
	some w in a
	trim_prefix(w, "./") == f
}

between(sc, d, r) := [t | some t in sc.stmts; t.id > d.id; t.id < r.id; t.kind == "call"]

deny contains finding(sc, r, sprintf("`%s` was downloaded and is run (or unpacked) without a checksum check", [f])) if {
	some sc in input.scripts
	some d in sc.stmts
	f := download(d)
	some r in sc.stmts
	r.id > d.id
	runs(shell.command(r), f)
	every t in between(sc, d, r) {
		not checksum(shell.command(t))
		not runs(shell.command(t), f)
	}
}
