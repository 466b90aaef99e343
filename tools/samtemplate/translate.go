package samtemplate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// translateScript runs the SAM translator (aws-sam-translator, the library
// behind `sam deploy`'s transform and cfn-lint's SAM support) on a template,
// as CloudFormation's AWS::Serverless-2016-10-31 transform would after `sam
// package` has replaced CodeUri with an S3 location.
const translateScript = `
import json, sys
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse
class NoManagedPolicies:
    def load(self): return {}
tpl = yaml_parse(open(sys.argv[1]).read())
tpl.setdefault("Globals", {}).setdefault("Function", {})["CodeUri"] = "s3://bucket/key"
json.dump(transform(tpl, {}, NoManagedPolicies()), sys.stdout, default=str)
`

// ErrNoTranslator is Translate's error where python3 has no aws-sam-translator.
var ErrNoTranslator = errors.New("aws-sam-translator is not installed (pip install aws-sam-translator; cfn-lint brings it)")

// Translate returns the CloudFormation template that the SAM translator makes
// of the SAM template at path. It needs python3 with aws-sam-translator.
func Translate(path string) (map[string]any, error) {
	cmd := exec.Command("python3", "-c", translateScript, path)
	cmd.Env = append(os.Environ(), "AWS_DEFAULT_REGION=us-east-1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "No module named 'samtranslator'") {
			return nil, ErrNoTranslator
		}
		return nil, fmt.Errorf("SAM translator: %v\n%s", err, stderr.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("translator output: %v", err)
	}
	return doc, nil
}
