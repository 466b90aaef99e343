package samtemplate

import (
	"reflect"
	"strings"
	"testing"
)

const resolveTemplate = `
Parameters:
  Env:
    Type: String
    Default: dev
  Retention:
    Type: Number
    Default: 30
  Names:
    Type: CommaDelimitedList
    Default: a,b,c
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  NotProd: !Not [!Condition IsProd]
  ProdAndLong: !And [!Condition IsProd, !Equals [!Ref Retention, 365]]
  ProdOrLong: !Or [!Condition IsProd, !Equals [!Ref Retention, 30]]
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    DeletionPolicy: Retain
    Properties:
      TableName: !Sub ${AWS::StackName}-plants
  Role:
    Type: AWS::IAM::Role
    Properties:
      Policies:
        - PolicyName: data
          PolicyDocument:
            Statement:
              - Effect: Allow
                Action: dynamodb:PutItem
                Resource: !GetAtt Table.Arn
              - !If [IsProd, {Effect: Deny, Action: '*', Resource: '*'}, !Ref AWS::NoValue]
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Role: !GetAtt Role.Arn
      Environment:
        Variables:
          TABLE: !Ref Table
          STAGE: !If [IsProd, live, !Ref AWS::NoValue]
          SECOND: !Select [1, !Split [',', !Ref Names]]
          JOINED: !Join ['-', [!Ref Env, !Select [0, !Split [',', !Ref Names]]]]
          SUBST: !Sub ['${Fn.Arn}:${Alias} ${!Literal} ${AWS::Region}', {Alias: live}]
  ProdOnly:
    Type: AWS::Logs::LogGroup
    Condition: IsProd
`

func resolveFor(t *testing.T, params map[string]string) *Resolved {
	t.Helper()
	tpl, err := Parse([]byte(resolveTemplate))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(tpl.Doc, Stack{Name: "shop", Region: "eu-west-1", Account: "111122223333", Partition: "aws", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Resolve gives each intrinsic function the value CloudFormation would give
// it for the stack: conditions decided on the parameters, names generated or
// set, ARNs of the stack's account and region, AWS::NoValue dropped.
func TestResolveGivesCloudFormationsValues(t *testing.T) {
	t.Parallel()
	dev := resolveFor(t, nil)
	for name, want := range map[string]bool{"IsProd": false, "NotProd": true, "ProdAndLong": false, "ProdOrLong": true, "Undefined": false} {
		if got := dev.Condition(name); got != want {
			t.Errorf("dev: condition %s = %v, want %v", name, got, want)
		}
	}
	if got := dev.ResourcesOfType("AWS::Logs::LogGroup"); len(got) != 0 || dev.Exists("ProdOnly") {
		t.Errorf("dev creates %v; ProdOnly is prod's alone", got)
	}
	if got := dev.ResourceIDs(); !reflect.DeepEqual(got, []string{"Fn", "Role", "Table"}) {
		t.Errorf("dev's resources %v", got)
	}
	fn, err := dev.Properties("Fn")
	if err != nil {
		t.Fatal(err)
	}
	if fn["Role"] != "arn:aws:iam::111122223333:role/shop-Role-PREFLIGHT1AB" {
		t.Errorf("Role = %v, want the generated role name's ARN", fn["Role"])
	}
	vars := fn["Environment"].(map[string]any)["Variables"].(map[string]any)
	want := map[string]any{
		"TABLE":  "shop-plants",
		"SECOND": "b",
		"JOINED": "dev-a",
		"SUBST":  "arn:aws:lambda:eu-west-1:111122223333:function:shop-Fn-PREFLIGHT1AB:live ${Literal} eu-west-1",
	}
	if !reflect.DeepEqual(vars, want) {
		t.Errorf("dev's variables %v, want %v (STAGE dropped)", vars, want)
	}
	role, _ := dev.Properties("Role")
	statements := role["Policies"].([]any)[0].(map[string]any)["PolicyDocument"].(map[string]any)["Statement"].([]any)
	if len(statements) != 1 || statements[0].(map[string]any)["Resource"] != "arn:aws:dynamodb:eu-west-1:111122223333:table/shop-plants" {
		t.Errorf("dev's statements %v, want the table's Allow alone", statements)
	}
	if dev.Attribute("Table", "DeletionPolicy") != "Retain" || dev.Stack().Name != "shop" {
		t.Error("attributes or stack lost")
	}

	prod := resolveFor(t, map[string]string{"Env": "prod"})
	if !prod.Condition("IsProd") || !prod.Exists("ProdOnly") {
		t.Error("prod: IsProd does not hold")
	}
	p, _ := prod.Properties("Fn")
	if stage := p["Environment"].(map[string]any)["Variables"].(map[string]any)["STAGE"]; stage != "live" {
		t.Errorf("prod STAGE = %v, want live", stage)
	}
}

func TestResolveRefusesWhatCloudFormationRefuses(t *testing.T) {
	t.Parallel()
	tpl, err := Parse([]byte(resolveTemplate))
	if err != nil {
		t.Fatal(err)
	}
	s := Stack{Name: "shop", Region: "eu-west-1", Account: "111122223333", Partition: "aws"}
	s.Params = map[string]string{"Nope": "x"}
	if _, err := Resolve(tpl.Doc, s); err == nil || !strings.Contains(err.Error(), "Nope") {
		t.Errorf("an unknown parameter: err = %v", err)
	}
	loop, err := Parse([]byte("Conditions:\n  A: !Condition B\n  B: !Not [!Condition A]\nResources: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(loop.Doc, Stack{}); err == nil || !strings.Contains(err.Error(), "refers to itself") {
		t.Errorf("a condition that refers to itself: err = %v", err)
	}
	r, err := Resolve(tpl.Doc, Stack{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{
		map[string]any{"Ref": "Missing"},
		map[string]any{"Fn::GetAtt": []any{"Missing", "Arn"}},
		map[string]any{"Fn::If": []any{"Missing", "a", "b"}},
		map[string]any{"Fn::Join": []any{",", "not a list"}},
		map[string]any{"Fn::Select": []any{"3", []any{"a"}}},
		map[string]any{"Fn::ImportValue": "x"},
	} {
		if got, err := r.Value(v); err == nil {
			t.Errorf("%v = %v, want an error", v, got)
		}
	}
}

// Number resolves what sam local resolves: a parameter's default, through
// the same evaluator (an !If too).
func TestNumberResolvesThroughTheEvaluator(t *testing.T) {
	t.Parallel()
	tpl, err := Parse([]byte(resolveTemplate))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    any
		want float64
	}{
		{7, 7},
		{2.5, 2.5},
		{"12", 12},
		{map[string]any{"Ref": "Retention"}, 30},
		{map[string]any{"Fn::If": []any{"IsProd", 365, map[string]any{"Ref": "Retention"}}}, 30},
	} {
		if got, err := tpl.Number(c.v); err != nil || got != c.want {
			t.Errorf("Number(%v) = %v, %v; want %v", c.v, got, err, c.want)
		}
	}
	for _, v := range []any{map[string]any{"Ref": "Env"}, map[string]any{"Ref": "Missing"}, true} {
		if got, err := tpl.Number(v); err == nil {
			t.Errorf("Number(%v) = %v, want an error", v, got)
		}
	}
}

// The resources a resource policy guards resolve as CloudFormation resolves
// them (each type's "Return values"): a policy's Resource written with Ref
// or Fn::GetAtt names the ARN the policy is attached to.
func TestResolveGivesPolicyTargetsTheirARNs(t *testing.T) {
	t.Parallel()
	tpl, err := Parse([]byte(`
Resources:
  Topic: {Type: AWS::SNS::Topic}
  Queue: {Type: AWS::SQS::Queue, Properties: {QueueName: !Sub '${AWS::StackName}-dlq'}}
  Key: {Type: AWS::KMS::Key}
  Secret: {Type: AWS::SecretsManager::Secret}
  Repo: {Type: AWS::ECR::Repository}
  Bus: {Type: AWS::Events::EventBus, Properties: {Name: shop-bus}}
`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(tpl.Doc, Stack{Name: "shop", Region: "eu-west-1", Account: "111122223333", Partition: "aws"})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"Topic":           "arn:aws:sns:eu-west-1:111122223333:shop-Topic-PREFLIGHT1AB",
		"Topic.TopicName": "shop-Topic-PREFLIGHT1AB",
		"Queue":           "https://sqs.eu-west-1.amazonaws.com/111122223333/shop-dlq",
		"Queue.Arn":       "arn:aws:sqs:eu-west-1:111122223333:shop-dlq",
		"Queue.QueueName": "shop-dlq",
		"Key":             "preflight-key",
		"Key.Arn":         "arn:aws:kms:eu-west-1:111122223333:key/preflight-key",
		"Secret":          "arn:aws:secretsmanager:eu-west-1:111122223333:secret:shop-Secret-PREFLIGHT1AB-PreFl1",
		"Repo.Arn":        "arn:aws:ecr:eu-west-1:111122223333:repository/shop-Repo-PREFLIGHT1AB",
		"Bus.Arn":         "arn:aws:events:eu-west-1:111122223333:event-bus/shop-bus",
	} {
		v := any(map[string]any{"Ref": in})
		if id, attr, ok := strings.Cut(in, "."); ok {
			v = map[string]any{"Fn::GetAtt": []any{id, attr}}
		}
		got, err := r.Value(v)
		if err != nil || got != want {
			t.Errorf("%s = %v (%v), want %s", in, got, err, want)
		}
	}
}
