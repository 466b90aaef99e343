package samtemplate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// EnvFile is an --env-vars file: {"Parameters": {...}, "<LogicalId>": {...}}.
type EnvFile map[string]map[string]any

// ReadEnvFile reads an --env-vars file. As in SAM CLI, every top-level value
// must be an object.
func ReadEnvFile(path string) (EnvFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers reach the function as written
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := EnvFile{}
	for k, v := range top {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: environment variables %v in incorrect format (each entry must be an object)", path, v)
		}
		f[k] = m
	}
	return f, nil
}

// Session is what SAM CLI takes from the caller's AWS session: region and
// credentials. Empty fields get SAM's placeholders.
type Session struct {
	Region, AccessKeyID, SecretAccessKey, SessionToken string
}

// SessionFromEnv reads the session from the standard AWS variables, as the
// session of SAM CLI (boto3) does when they are set.
func SessionFromEnv(getenv func(string) string) Session {
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	return Session{Region: region, AccessKeyID: getenv("AWS_ACCESS_KEY_ID"),
		SecretAccessKey: getenv("AWS_SECRET_ACCESS_KEY"), SessionToken: getenv("AWS_SESSION_TOKEN")}
}

// Declared returns the environment variables that the template declares
// for function, with their template values (Globals.Function's first, the
// function's own over them, as the SAM translator merges them: Properties).
func (t *Template) Declared(function string) (map[string]any, error) {
	if !slices.Contains(t.Functions(), function) {
		return nil, fmt.Errorf("template has no function %q (it has %v)", function, t.Functions())
	}
	env, _ := t.Properties(function)["Environment"].(map[string]any)
	vars, _ := env["Variables"].(map[string]any)
	return maps.Clone(vars), nil
}

// ResolveEnv is the environment that SAM CLI gives function under `sam local
// invoke` and `sam local start-api` (EnvironmentVariables.resolve in
// samcli/local/lambdafn/env_vars.py, with the overrides of _make_env_vars in
// samcli/commands/local/lib/local_lambda.py):
//
//   - first the AWS variables: region and credentials from the session (SAM's
//     placeholders us-east-1, defaultkey, defaultsecret where it has none),
//     AWS_SAM_LOCAL and the function's AWS_LAMBDA_* settings;
//   - then, for each variable the template declares and for no other name:
//     the template's value, replaced by the shell's value of that name,
//     replaced by the env file's "Parameters" entry, replaced by the env
//     file's entry for the function (by logical ID); every value stringified
//     (see stringify).
//
// Nothing undeclared reaches the function, from the shell or the file.
//
// The template's value is resolved as SAM CLI resolves it
// (samcli/lib/providers/sam_base_provider.py get_template runs
// samcli/lib/intrinsic_resolver/intrinsic_property_resolver.py with
// ignore_errors): a parameter's !Ref becomes its value (the default, or
// the template's Overrides), a resource's !Ref its logical ID, an !GetAtt
// of Arn a placeholder ARN, an !Sub what those give; what stays
// unresolved (another !GetAtt, an !If on a condition the template lacks)
// is "" by stringify. The settings (MemorySize, Timeout) resolve alike.
func (t *Template) ResolveEnv(function string, shell func(string) (string, bool), file EnvFile, session Session) (map[string]string, error) {
	declared, err := t.Declared(function)
	if err != nil {
		return nil, err
	}
	props := t.Properties(function)
	memory := t.functionSetting(props, "MemorySize", "128")
	timeout := t.functionSetting(props, "Timeout", "3")
	handler := t.functionSetting(props, "Handler", "")
	env := map[string]string{
		"AWS_SAM_LOCAL":                   "true",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": memory,
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     timeout,
		"AWS_LAMBDA_FUNCTION_HANDLER":     handler,
		"AWS_LAMBDA_FUNCTION_NAME":        function,
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_LOG_GROUP_NAME":       "aws/lambda/" + function,
		"AWS_LAMBDA_LOG_STREAM_NAME":      "$LATEST",
		"AWS_REGION":                      or(session.Region, "us-east-1"),
		"AWS_DEFAULT_REGION":              or(session.Region, "us-east-1"),
		"AWS_ACCESS_KEY_ID":               or(session.AccessKeyID, "defaultkey"),
		"AWS_SECRET_ACCESS_KEY":           or(session.SecretAccessKey, "defaultsecret"),
		"AWS_ACCOUNT_ID":                  "123456789012",
	}
	if session.SessionToken != "" {
		env["AWS_SESSION_TOKEN"] = session.SessionToken
	}
	overrides := map[string]any{}
	maps.Copy(overrides, file["Parameters"])
	maps.Copy(overrides, file[function])
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		if !envName.MatchString(name) {
			return nil, fmt.Errorf("%s: environment variable %q: Lambda allows only names of %s", function, name, envName)
		}
		value, err := t.local().Value(declared[name])
		if err != nil {
			value = nil // unresolved: "", as under SAM CLI
		}
		if v, ok := shell(name); ok {
			value = v
		}
		if v, ok := overrides[name]; ok {
			value = v
		}
		env[name] = stringify(value)
	}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		if strings.Contains(env[name], "\x00") {
			return nil, fmt.Errorf("%s: environment variable %q holds a NUL, which no process's environment can carry", function, name)
		}
	}
	return env, nil
}

// envName is Lambda's rule for an environment variable's name (the key
// pattern [a-zA-Z]([a-zA-Z0-9_])+ of the Environment API type,
// https://docs.aws.amazon.com/lambda/latest/dg/API_Environment.html; a
// deploy with another name fails). SAM CLI hands any name to Docker; here
// the function runs on the reviewer's machine, where a name holding "=" or
// NUL would set another variable or cut the entry, so the deployed rule
// holds locally too. The names and values are otherwise data: PATH or
// LD_PRELOAD may be declared, as Lambda allows, and reach the function (and
// the Delve that runs it under DEBUG=...), which runs the pull request's
// own code already.
var envName = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]+$`)

// FunctionTimeout is the function's Timeout (or Globals'), 3 s by default.
func (t *Template) FunctionTimeout(function string) time.Duration { return t.timeout(function) }

// Environ is env as a process environment ("NAME=value", sorted).
func Environ(env map[string]string) []string {
	list := make([]string, 0, len(env))
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	sort.Strings(list)
	return list
}

// functionSetting is a function property (with the Globals'), else def.
func (t *Template) functionSetting(props map[string]any, key, def string) string {
	v, ok := props[key]
	if !ok {
		return def
	}
	if n, err := t.Number(v); err == nil {
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	s, _ := t.local().stringValue(v)
	return s
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
