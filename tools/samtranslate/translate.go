package samtranslate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/plantstore/plantstore/tools/toolcache"
)

// translateScript runs the SAM translator (aws-sam-translator, the library
// behind `sam deploy`'s transform and cfn-lint's SAM support) on a template,
// as CloudFormation's AWS::Serverless-2016-10-31 transform would after `sam
// package` has replaced CodeUri with an S3 location. The template comes on
// stdin: the bytes translated are the bytes keyed.
const translateScript = `
import json, sys
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse
class NoManagedPolicies:
    def load(self): return {}
tpl = yaml_parse(sys.stdin.read())
tpl.setdefault("Globals", {}).setdefault("Function", {})["CodeUri"] = "s3://bucket/key"
json.dump(transform(tpl, {}, NoManagedPolicies()), sys.stdout, default=str)
`

// ErrNoTranslator is Translate's error where python3 has no aws-sam-translator.
var ErrNoTranslator = errors.New("aws-sam-translator is not installed (pip install aws-sam-translator; cfn-lint brings it)")

// Translate returns the CloudFormation template that the SAM translator makes
// of the SAM template at path. It needs python3 with aws-sam-translator.
//
// A translation is a python process, and depends on nothing but the
// template's bytes, the script above and the translator: it is kept in the
// user's cache folder (toolcache), keyed by the sha256 of the template and
// the script, in a folder named by python's and the translator's versions.
func Translate(path string) (map[string]any, error) {
	cache, err := translations()
	if err != nil {
		return nil, err
	}
	return translateIn(cache, path)
}

func translateIn(cache *toolcache.Cache, path string) (map[string]any, error) {
	tpl, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key := toolcache.KeyOf([]byte(translateScript), tpl)
	var doc map[string]any
	if kept, ok := cache.Get(key); ok && json.Unmarshal(kept, &doc) == nil {
		return doc, nil
	}
	cmd := exec.Command("python3", "-c", translateScript)
	cmd.Stdin = bytes.NewReader(tpl)
	cmd.Env = append(os.Environ(), "AWS_DEFAULT_REGION=us-east-1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "No module named 'samtranslator'") {
			return nil, ErrNoTranslator
		}
		return nil, fmt.Errorf("SAM translator on %s: %v\n%s", path, err, stderr.String())
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("translator output: %v", err)
	}
	if err := cache.Put(key, out); err != nil {
		return nil, err
	}
	return doc, nil
}

// translatorVersion asks python3 for its own version and the translator's.
const translatorVersion = `
import sys
from importlib.metadata import version
print(sys.version)
print(version("aws-sam-translator"))
`

// translations is the translator's cache, opened once per process.
var translations = sync.OnceValues(func() (*toolcache.Cache, error) {
	var stderr strings.Builder
	cmd := exec.Command("python3", "-c", translatorVersion)
	cmd.Stderr = &stderr
	v, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "PackageNotFoundError") {
			return nil, ErrNoTranslator
		}
		return nil, fmt.Errorf("SAM translator's version: %v\n%s", err, stderr.String())
	}
	return toolcache.Open("", "sam-translator", v)
})

// Version names the translator's version (python's and
// aws-sam-translator's) as its cache does: "" when caching is off.
func Version() (string, error) {
	c, err := translations()
	if err != nil || c.Dir() == "" {
		return "", err
	}
	return filepath.Base(c.Dir()), nil
}
