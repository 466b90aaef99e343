package samtemplate

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const shopTemplate = "../testdata/shop/template.yaml"

// The shop's functions are read as sam build and sam local read them: a
// BuildMethod go1.x function builds CodeUri into bootstrap, a makefile one
// runs the Makefile of CodeUri, Globals reach both, and what is not served
// (a Python function, layers) is said, once each.
func TestGoFunctionsFollowSAM(t *testing.T) {
	t.Parallel()
	tpl, err := Load(shopTemplate)
	if err != nil {
		t.Fatal(err)
	}
	fns, notes, err := tpl.GoFunctions()
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("../testdata/shop")
	want := []Function{
		{ID: "AdminAuthorizerFunction", Type: "AWS::Serverless::Function", Runtime: "provided.al2023", Handler: "bootstrap", BuildMethod: "go1.x", CodeDir: filepath.Join(dir, "authorizer"), MakefileDir: filepath.Join(dir, "authorizer"), Executable: "bootstrap"},
		{ID: "AuditFunction", Type: "AWS::Serverless::Function", Runtime: "provided.al2023", Handler: "bootstrap", BuildMethod: "go1.x", CodeDir: filepath.Join(dir, "audit"), MakefileDir: filepath.Join(dir, "audit"), Executable: "bootstrap"},
		{ID: "CategoryFunction", Type: "AWS::Serverless::Function", Runtime: "provided.al2023", Handler: "bootstrap", BuildMethod: "makefile", CodeDir: dir, MakefileDir: dir, Executable: "bootstrap"},
		{ID: "OrdersFunction", Type: "AWS::Serverless::Function", Runtime: "provided.al2023", Handler: "bootstrap", BuildMethod: "go1.x", CodeDir: filepath.Join(dir, "orders"), MakefileDir: filepath.Join(dir, "orders"), Executable: "bootstrap"},
		{ID: "ProductsFunction", Type: "AWS::Serverless::Function", Runtime: "provided.al2023", Handler: "bootstrap", BuildMethod: "go1.x", CodeDir: filepath.Join(dir, "products"), MakefileDir: filepath.Join(dir, "products"), Executable: "bootstrap"},
	}
	if !slices.Equal(fns, want) {
		t.Errorf("functions:\n got %+v\nwant %+v", fns, want)
	}
	for _, w := range []string{"CategoryFunction: Layers are not served", `ReportFunction: Runtime "python3.12" is not served`} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, w) }) {
			t.Errorf("no note %q in %q", w, notes)
		}
	}
}

// What samlocal does not serve is said in one line, for each way a
// function can be out of its reach.
func TestUnservedFunctionsAreSaid(t *testing.T) {
	t.Parallel()
	tpl, err := Parse([]byte(`
Resources:
  Image:
    Type: AWS::Serverless::Function
    Properties: {PackageType: Image, ImageUri: repo:tag}
  Inline:
    Type: AWS::Serverless::Function
    Properties: {Runtime: provided.al2023, InlineCode: "x"}
  InS3:
    Type: AWS::Lambda::Function
    Properties: {Runtime: provided.al2023, Handler: bootstrap, Code: {S3Bucket: b, S3Key: k}}
  Zip:
    Type: AWS::Lambda::Function
    Properties: {Runtime: go1.x, Handler: main, Code: {ZipFile: "x"}}
  Java:
    Type: AWS::Serverless::Function
    Properties: {Runtime: java21, Handler: a.B}
  Odd:
    Type: AWS::Serverless::Function
    Metadata: {BuildMethod: rust-cargolambda}
    Properties: {Runtime: provided.al2023, Handler: bootstrap}
  Legacy:
    Type: AWS::Lambda::Function
    Properties: {Runtime: go1.x, Handler: hello, Code: src/}
  Child:
    Type: AWS::Serverless::Application
    Properties: {Location: ./child.yaml}
`))
	if err != nil {
		t.Fatal(err)
	}
	fns, notes, err := tpl.GoFunctions()
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 1 || fns[0].ID != "Legacy" || fns[0].Executable != "hello" || fns[0].BuildMethod != "go1.x" || fns[0].CodeDir != "src" {
		t.Errorf("served %+v, want Legacy alone, built by the Go modules builder into hello", fns)
	}
	for _, id := range []string{"Image", "Inline", "InS3", "Zip", "Java", "Odd", "Child"} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, id+": ") && strings.Contains(n, "not served") }) {
			t.Errorf("no note says %s is not served: %q", id, notes)
		}
	}
}

// Globals merge into a function as the SAM translator merges them: maps key
// by key, lists concatenated, anything else the function's own.
func TestGlobalsMergeAsSAM(t *testing.T) {
	t.Parallel()
	tpl, err := Parse([]byte(`
Globals:
  Function:
    Timeout: 5
    Layers: [g]
    Environment: {Variables: {A: global, B: global}}
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 9
      Layers: [own]
      Environment: {Variables: {B: own, C: !Ref X}}
  Plain:
    Type: AWS::Lambda::Function
    Properties: {Handler: h}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := tpl.Properties("Fn")
	vars := p["Environment"].(map[string]any)["Variables"].(map[string]any)
	if p["Timeout"] != 9 || !slices.Equal(p["Layers"].([]any), []any{"g", "own"}) || vars["A"] != "global" || vars["B"] != "own" || RefTo(vars["C"]) != "X" {
		t.Errorf("merged %v", p)
	}
	if _, ok := tpl.Properties("Plain")["Timeout"]; ok {
		t.Error("an AWS::Lambda::Function got the Globals, which apply to AWS::Serverless::* only")
	}
}

// A function's environment resolves as SAM CLI's does locally: a Ref to a
// resource is its logical ID, a parameter its override or default, a
// GetAtt of Arn a Lambda ARN, and any other GetAtt "".
func TestEnvironmentResolvesAsSAMLocal(t *testing.T) {
	t.Parallel()
	tpl, err := Load(shopTemplate)
	if err != nil {
		t.Fatal(err)
	}
	none := func(string) (string, bool) { return "", false }
	env, err := tpl.ResolveEnv("ProductsFunction", none, EnvFile{}, Session{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"TABLE_NAME": "ProductsTable", "CURRENCY": "EUR", "TABLE_ARN": "arn:aws:lambda:us-east-1:123456789012:function:ProductsTable"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	tpl.Overrides = map[string]string{"Currency": "USD", "NotAParameter": "x"}
	if env, _ = tpl.ResolveEnv("ProductsFunction", none, EnvFile{}, Session{}); env["CURRENCY"] != "USD" {
		t.Errorf("with --parameter-overrides Currency=USD, CURRENCY = %q", env["CURRENCY"])
	}
	tables, err := tpl.Tables()
	if err != nil || len(tables) != 2 || tables[0].Name != "AuditTable" || tables[1].Name != "ProductsTable" {
		t.Errorf("tables %+v, %v; want AuditTable and ProductsTable, named by their logical IDs", tables, err)
	}
}

// --parameter-overrides reads both of SAM CLI's forms, and refuses what
// SAM CLI refuses (samcli/cli/types.py CfnParameterOverridesType).
func TestParseOverridesAsSAM(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []string
		want map[string]string
	}{
		{[]string{"A=1 B=2"}, map[string]string{"A": "1", "B": "2"}},
		{[]string{`A="x y" C=a\ b`}, map[string]string{"A": "x y", "C": "a b"}},
		{[]string{"A=x=y"}, map[string]string{"A": "x=y"}},
		{[]string{"A=1,B=2"}, map[string]string{"A": "1,B=2"}},
		{[]string{"ParameterKey=Stage,ParameterValue=dev ParameterKey=Size,ParameterValue=3"}, map[string]string{"Stage": "dev", "Size": "3"}},
		{[]string{"A="}, nil},
		{[]string{"My_Param=1"}, nil},
	} {
		got, err := ParseOverrides(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%q: %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
