package samtemplate

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// A template is a pull request's data. The functions a tool runs are
// handed to make as build-<Function> targets and joined into bootstrap
// paths, so the function an authorizer names must be a function of the
// template, whose logical ID Parse has checked: `!GetAtt X.Arn` or `!Ref
// X.Alias` naming anything else (a make assignment, a path, another
// resource) is refused, as CloudFormation refuses a GetAtt or Ref of an
// undefined resource.
func TestAnAuthorizerRunsAFunctionOfTheTemplate(t *testing.T) {
	t.Parallel()
	const api = `
Globals:
  Function:
    AutoPublishAlias: live
    Runtime: provided.al2023
Resources:
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      Auth:
        DefaultAuthorizer: Tok
        Authorizers:
          Tok:
            FunctionArn: %s
  Table:
    Type: AWS::DynamoDB::Table
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Post:
          Type: Api
          Properties:
            RestApiId: !Ref Api
            Path: /plants
            Method: post
`
	for _, arn := range []string{
		`!GetAtt "Evil:=$(shell id > pwned).Arn"`,
		`{"Fn::GetAtt": ["../../scripts/evil", "Arn"]}`,
		`!Ref "Evil:=$(shell id > pwned).Alias"`,
		`!Ref "Clip\e]52;c;aGk=\a.Alias"`,
		`!GetAtt Table.Arn`,
		`!GetAtt Nope.Arn`,
	} {
		tpl, err := Parse([]byte(fmt.Sprintf(api, arn)))
		if err != nil {
			t.Fatalf("%s: %v", arn, err)
		}
		a, err := tpl.RestAPI("Api")
		if err == nil {
			t.Errorf("FunctionArn %s: no error; the authorizer runs %q", arn, a.Authorizer.Function)
			continue
		}
		if strings.ContainsAny(err.Error(), "\x1b\x07") || !strings.Contains(err.Error(), "no function") {
			t.Errorf("FunctionArn %s: %q; want one line saying the template has no such function, escaped", arn, err)
		}
	}
	tpl, err := Parse([]byte(fmt.Sprintf(api, "!GetAtt Fn.Arn")))
	if err != nil {
		t.Fatal(err)
	}
	if a, err := tpl.RestAPI("Api"); err != nil || a.Authorizer.Function != "Fn" {
		t.Errorf("a function of the template: %v, %v", a, err)
	}
}

// What reaches a function's environment is data, and it must be a
// variable Lambda would set: a declared name outside Lambda's key pattern
// ([a-zA-Z]([a-zA-Z0-9_])+; `A=B` would set another variable, a NUL cuts the
// entry) and a value holding a NUL (which no process environment can
// carry; the Handler's too) are refused with one line naming the function
// and the variable.
func TestEnvironmentNamesAndValuesAreLambdas(t *testing.T) {
	t.Parallel()
	const fn = `
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: %s
      Environment:
        Variables:
          %s: %s
`
	for _, tc := range []struct{ handler, name, value string }{
		{"bootstrap", `"PATH=/tmp/evil"`, "x"},
		{"bootstrap", `"A\0B"`, "x"},
		{"bootstrap", `"_HIDDEN"`, "x"},
		{"bootstrap", `"X"`, "x"},
		{"bootstrap", `"9LIVES"`, "x"},
		{"bootstrap", `"CLIP\e]52;c;aGk=\a"`, "x"},
		{"bootstrap", "TABLE_NAME", `"plants\0more"`},
		{`"boot\0strap"`, "TABLE_NAME", "plants"},
	} {
		tpl, err := Parse([]byte(fmt.Sprintf(fn, tc.handler, tc.name, tc.value)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		env, err := tpl.ResolveEnv("Fn", func(string) (string, bool) { return "", false }, nil, Session{})
		if err == nil {
			t.Errorf("Handler %s, %s: %s: no error; the environment is %q", tc.handler, tc.name, tc.value, Environ(env))
			continue
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\x00\x1b\x07") || !strings.Contains(msg, "Fn") {
			t.Errorf("%s: %q; want one line naming the function and the variable, escaped", tc.name, msg)
		}
	}
	// An env file's value for a declared name is held to the same rule.
	tpl, err := Parse([]byte(fmt.Sprintf(fn, "bootstrap", "TABLE_NAME", "plants")))
	if err != nil {
		t.Fatal(err)
	}
	file := EnvFile{"Fn": {"TABLE_NAME": "plants\x00"}}
	if _, err := tpl.ResolveEnv("Fn", func(string) (string, bool) { return "", false }, file, Session{}); err == nil || !strings.Contains(err.Error(), strconv.Quote("TABLE_NAME")) {
		t.Errorf("an env file's NUL: %v, want an error naming TABLE_NAME", err)
	}
	// Newlines and escapes in a value are data: they reach the function as
	// they are (only the terminal escapes them).
	file = EnvFile{"Fn": {"TABLE_NAME": "a\nb\x1b]52;c;aGk=\x07"}}
	if env, err := tpl.ResolveEnv("Fn", func(string) (string, bool) { return "", false }, file, Session{}); err != nil || env["TABLE_NAME"] != "a\nb\x1b]52;c;aGk=\x07" {
		t.Errorf("a value with a newline and an escape: %q, %v; want it as it is", env["TABLE_NAME"], err)
	}
}
