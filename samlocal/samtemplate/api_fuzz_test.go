package samtemplate

import (
	"os"
	"testing"
)

// A template is a pull request's data: whatever it holds, reading its APIs
// ends in APIs or an error, never a panic.
func FuzzAPIs(f *testing.F) {
	for _, path := range []string{"../testdata/shop/template.yaml", "../gateway/testdata/template.yaml"} {
		raw, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(raw))
	}
	f.Add("Resources:\n  A:\n    Type: AWS::Serverless::HttpApi\n    Properties:\n      DefinitionBody: {openapi: '3', paths: {/x: {get: {x-amazon-apigateway-integration: {type: aws_proxy, uri: 1}}}}, components: 7}\n")
	f.Add("Resources:\n  M:\n    Type: AWS::ApiGateway::Method\n    Properties: {RestApiId: !Ref R, ResourceId: !Ref M, Integration: [1]}\n  R:\n    Type: AWS::ApiGateway::RestApi\n")
	f.Add("Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n      Events: {E: {Type: HttpApi, Properties: {Auth: 3, PayloadFormatVersion: [1]}}}\n")
	f.Fuzz(func(t *testing.T, raw string) {
		tpl, err := Parse([]byte(raw))
		if err != nil {
			return
		}
		_, _, _ = tpl.APIs()
	})
}
