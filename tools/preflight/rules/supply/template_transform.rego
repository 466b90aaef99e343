# METADATA
# title: The template uses AWS's own transforms alone
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/template-macros.html
# custom:
#   id: PS-SUP-019
#   danger: a macro (a Transform or Fn::Transform other than AWS's) runs a Lambda function, possibly another account's, that rewrites the template at deploy time, and AWS::Include splices in a snippet from S3; what deploys is then not the template reviewed and checked here.
#   fix: "write the resources into template.yaml; keep Transform to AWS::Serverless-2016-10-31 (and AWS::LanguageExtensions)"
package preflight.rules.template_transform

tpl := input.supply.template

aws_transforms := {"AWS::Serverless-2016-10-31", "AWS::LanguageExtensions"}

deny contains {"file": tpl.file, "line": t.line, "msg": msg} if {
	some t in tpl.transforms
	t.name == "AWS::Include"
	msg := sprintf("AWS::Include splices %s into the template when CloudFormation processes it: a file outside the repository, replaceable at any time", [t.location])
}

deny contains {"file": tpl.file, "line": t.line, "msg": msg} if {
	some t in tpl.transforms
	t.name != "AWS::Include"
	not t.name in aws_transforms
	msg := sprintf("the transform %s is a macro: a Lambda function rewrites the template at deploy time, so what deploys is not what was reviewed", [t.name])
}
