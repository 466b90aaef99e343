package preflight.rules.gone_packages_test

import data.preflight.rules.gone_packages

pkgs(dirs) := {
	"proof": {"file": "proof.json", "reviewed": {"packages": ["a", "b"]}},
	"gate": {"packages": [{"dir": d, "import_path": d, "module": "."} | some d in dirs]},
}

test_passes_every_package_and_a_new_one if {
	count(gone_packages.deny) == 0 with input as pkgs(["a", "b", "c"])
}

test_refuses_a_package_gone if {
	count(gone_packages.deny) == 1 with input as pkgs(["a"])
}

test_passes_a_checkout_without_sources if {
	count(gone_packages.deny) == 0 with input as pkgs([])
}
