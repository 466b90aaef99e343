package preflight.rules.template_transform_test

import data.preflight.rules.template_transform

facts(transforms) := {"supply": {"template": {"file": "template.yaml", "layers": [], "transforms": transforms}}}

test_refuses_a_macro if {
	some f in template_transform.deny with input as facts([{"line": 2, "name": "AWS::Serverless-2016-10-31", "location": ""}, {"line": 3, "name": "CommonTags", "location": ""}])
	f.line == 3
}

test_refuses_an_include if {
	count(template_transform.deny) == 1 with input as facts([{"line": 40, "name": "AWS::Include", "location": "s3://shared-snippets/alarms.yaml"}])
}

test_passes_sam_and_language_extensions if {
	count(template_transform.deny) == 0 with input as facts([{"line": 2, "name": "AWS::LanguageExtensions", "location": ""}, {"line": 3, "name": "AWS::Serverless-2016-10-31", "location": ""}])
}
