package samtemplate

// The one evaluator of CloudFormation's intrinsic functions: a template, as
// Parse (or Translate) reads it, made concrete for one stack. tools/preflight
// asks it what CloudFormation would make of template.yaml and
// pipeline/roles.yaml; Number asks it for sam local's values.

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Stack is one concrete stack of a template: the names CloudFormation would
// give its resources follow from it.
type Stack struct {
	Name      string
	Region    string
	Account   string
	Partition string
	// Params overrides the template's parameter defaults.
	Params map[string]string
	// SAMLocal resolves as SAM CLI resolves a template for its local
	// commands (samlocal), where CloudFormation's answers are not known:
	// a Ref to a resource gives its logical ID, a Ref to a parameter with
	// no value its name, a GetAtt of Arn an ARN of a Lambda function of
	// that logical ID, and any other GetAtt is unresolved (SAM CLI's
	// IntrinsicResolver with its default symbol table,
	// samcli/lib/intrinsic_resolver/intrinsics_symbol_table.py).
	SAMLocal bool
}

// samLocal is the stack SAM CLI resolves a template for under sam local: the
// pseudo parameters' placeholders (DEFAULT_PSEUDO_PARAM_VALUES in
// samcli/lib/intrinsic_resolver/intrinsics_symbol_table.py) and the
// template's parameter defaults. SAM CLI's AWS::URLSuffix there is
// "localhost" and its AWS::StackId another placeholder; Resolved gives
// CloudFormation's forms, which no number or setting read locally uses.
var samLocal = Stack{Name: "local", Region: "us-east-1", Account: "123456789012", Partition: "aws", SAMLocal: true}

// local is the template resolved as SAM CLI resolves it for its local
// commands: samLocal with the template's Overrides. An override that
// names no parameter is left unused, as SAM CLI leaves it.
func (t *Template) local() *Resolved {
	s := samLocal
	s.Params = map[string]string{}
	for k, v := range t.Overrides {
		if _, ok := t.Map("Parameters")[k]; ok {
			s.Params[k] = v
		}
	}
	r, _ := newResolved(t.Doc, s) // every override names a parameter
	return r
}

// stringValue resolves v to a string, as local commands see it.
func (r *Resolved) stringValue(v any) (string, error) {
	out, err := r.Value(v)
	if err != nil {
		return "", err
	}
	return stringify(out), nil
}

// Resolved is a template with its conditions decided and every intrinsic
// function replaced by the value CloudFormation would give it for a Stack.
// A parameter's value is a string (a CommaDelimitedList's too, for
// Fn::Split to cut).
type Resolved struct {
	tpl        *Template
	stack      Stack
	params     map[string]string
	conditions map[string]bool // the conditions decided so far
}

// noValue stands for AWS::NoValue until the enclosing map or list drops it.
type noValue struct{}

// Resolve decides the template's conditions for the stack. doc is a
// template in long form: Template.Doc, or Translate's output.
func Resolve(doc map[string]any, s Stack) (*Resolved, error) {
	r, err := newResolved(doc, s)
	if err != nil {
		return nil, err
	}
	for name := range r.tpl.Map("Conditions") {
		if _, err := r.condition(name, map[string]bool{}); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// newResolved is Resolve without deciding the conditions up front: each is
// decided when an Fn::If or a resource first asks for it.
func newResolved(doc map[string]any, s Stack) (*Resolved, error) {
	t := &Template{Doc: doc}
	r := &Resolved{tpl: t, stack: s, params: map[string]string{}, conditions: map[string]bool{}}
	params := t.Map("Parameters")
	for name := range params {
		if d, ok := t.ParameterDefault(name); ok {
			r.params[name] = d
		}
	}
	for k, v := range s.Params {
		if _, ok := params[k]; !ok {
			return nil, fmt.Errorf("parameter %s is not a parameter of the template", k)
		}
		r.params[k] = v
	}
	return r, nil
}

func (r *Resolved) condition(name string, seen map[string]bool) (bool, error) {
	if v, ok := r.conditions[name]; ok {
		return v, nil
	}
	if seen[name] {
		return false, fmt.Errorf("condition %s refers to itself", name)
	}
	seen[name] = true
	def, ok := r.tpl.Map("Conditions")[name]
	if !ok {
		return false, fmt.Errorf("no condition %s", name)
	}
	v, err := r.boolean(def, seen)
	if err != nil {
		return false, fmt.Errorf("condition %s: %w", name, err)
	}
	r.conditions[name] = v
	return v, nil
}

func (r *Resolved) boolean(v any, seen map[string]bool) (bool, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false, fmt.Errorf("%v is not a condition function", v)
	}
	for fn, arg := range m {
		args, _ := arg.([]any)
		switch fn {
		case "Condition":
			return r.condition(arg.(string), seen)
		case "Fn::Equals":
			if len(args) != 2 {
				return false, fmt.Errorf("Fn::Equals wants 2 arguments")
			}
			a, err := r.Value(args[0])
			if err != nil {
				return false, err
			}
			b, err := r.Value(args[1])
			if err != nil {
				return false, err
			}
			return fmt.Sprint(a) == fmt.Sprint(b), nil
		case "Fn::Not", "Fn::And", "Fn::Or":
			var vals []bool
			for _, a := range args {
				b, err := r.boolean(a, seen)
				if err != nil {
					return false, err
				}
				vals = append(vals, b)
			}
			switch fn {
			case "Fn::Not":
				return !vals[0], nil
			case "Fn::And":
				for _, b := range vals {
					if !b {
						return false, nil
					}
				}
				return true, nil
			default:
				for _, b := range vals {
					if b {
						return true, nil
					}
				}
				return false, nil
			}
		}
		return false, fmt.Errorf("%s is not a condition function", fn)
	}
	return false, nil
}

// Stack is the stack the template is resolved for.
func (r *Resolved) Stack() Stack { return r.stack }

// Condition is the value of a named condition (false for one the template
// does not define).
func (r *Resolved) Condition(name string) bool {
	v, _ := r.condition(name, map[string]bool{})
	return v
}

// Exists says whether a logical id is a resource the stack creates (its
// condition, if any, holds).
func (r *Resolved) Exists(id string) bool {
	res, ok := r.Resource(id)
	if !ok {
		return false
	}
	c, has := res["Condition"].(string)
	return !has || r.Condition(c)
}

// ResourceIDs lists the logical ids of the resources the stack creates,
// sorted.
func (r *Resolved) ResourceIDs() []string {
	var ids []string
	for id := range r.tpl.Map("Resources") {
		if r.Exists(id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// ResourcesOfType lists the logical ids of the resources of a type that the
// stack creates, sorted.
func (r *Resolved) ResourcesOfType(typ string) []string {
	var ids []string
	for _, id := range r.ResourceIDs() {
		if res, _ := r.Resource(id); res["Type"] == typ {
			ids = append(ids, id)
		}
	}
	return ids
}

// Resource is a resource as the template has it, unresolved.
func (r *Resolved) Resource(id string) (map[string]any, bool) {
	m, ok := r.tpl.Map("Resources")[id].(map[string]any)
	return m, ok
}

// Properties is a resource's Properties, resolved.
func (r *Resolved) Properties(id string) (map[string]any, error) {
	res, ok := r.Resource(id)
	if !ok {
		return nil, fmt.Errorf("no resource %s", id)
	}
	v, err := r.Value(res["Properties"])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// Attribute is a resource attribute outside Properties (DeletionPolicy ...).
func (r *Resolved) Attribute(id, name string) any {
	res, _ := r.Resource(id)
	return res[name]
}

// Value resolves every intrinsic function in v.
func (r *Resolved) Value(v any) (any, error) {
	out, err := r.value(v)
	if _, ok := out.(noValue); ok {
		return nil, err
	}
	return out, err
}

func (r *Resolved) value(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := []any{}
		for _, e := range x {
			val, err := r.value(e)
			if err != nil {
				return nil, err
			}
			if _, drop := val.(noValue); !drop {
				out = append(out, val)
			}
		}
		return out, nil
	case map[string]any:
		if len(x) == 1 {
			for k, arg := range x {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					return r.intrinsic(k, arg)
				}
			}
		}
		out := map[string]any{}
		for k, e := range x {
			val, err := r.value(e)
			if err != nil {
				return nil, err
			}
			if _, drop := val.(noValue); !drop {
				out[k] = val
			}
		}
		return out, nil
	}
	return v, nil
}

func (r *Resolved) intrinsic(fn string, arg any) (any, error) {
	args, _ := arg.([]any)
	switch fn {
	case "Ref":
		return r.ref(fmt.Sprint(arg))
	case "Fn::GetAtt":
		if s, ok := arg.(string); ok {
			obj, attr, _ := strings.Cut(s, ".")
			return r.getAtt(obj, attr)
		}
		if len(args) != 2 {
			return nil, fmt.Errorf("Fn::GetAtt %v", arg)
		}
		return r.getAtt(fmt.Sprint(args[0]), fmt.Sprint(args[1]))
	case "Fn::Sub":
		return r.sub(arg)
	case "Fn::If":
		if len(args) != 3 {
			return nil, fmt.Errorf("Fn::If %v", arg)
		}
		name := fmt.Sprint(args[0])
		if _, defined := r.tpl.Map("Conditions")[name]; !defined {
			return nil, fmt.Errorf("Fn::If names no condition %v", args[0])
		}
		c, err := r.condition(name, map[string]bool{})
		if err != nil {
			return nil, err
		}
		if c {
			return r.value(args[1])
		}
		return r.value(args[2])
	case "Fn::Join", "Fn::Select", "Fn::Split":
		if len(args) != 2 {
			return nil, fmt.Errorf("%s %v", fn, arg)
		}
		second, err := r.value(args[1])
		if err != nil {
			return nil, err
		}
		list, isList := second.([]any)
		switch fn {
		case "Fn::Join":
			if !isList {
				return nil, fmt.Errorf("Fn::Join of %v, which is not a list", second)
			}
			var parts []string
			for _, e := range list {
				parts = append(parts, fmt.Sprint(e))
			}
			return strings.Join(parts, fmt.Sprint(args[0])), nil
		case "Fn::Select":
			var i int
			fmt.Sscan(fmt.Sprint(args[0]), &i)
			if i < 0 || i >= len(list) {
				return nil, fmt.Errorf("Fn::Select %d of %d", i, len(list))
			}
			return list[i], nil
		}
		var out []any
		for _, p := range strings.Split(fmt.Sprint(second), fmt.Sprint(args[0])) {
			out = append(out, p)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is not resolved (samtemplate.Resolve)", fn)
}

var subVar = regexp.MustCompile(`\$\{([^!}][^}]*)\}`)

func (r *Resolved) sub(arg any) (any, error) {
	format, vars := "", map[string]any{}
	switch x := arg.(type) {
	case string:
		format = x
	case []any:
		if len(x) != 2 {
			return nil, fmt.Errorf("Fn::Sub %v", arg)
		}
		format = fmt.Sprint(x[0])
		m, _ := x[1].(map[string]any)
		for k, v := range m {
			val, err := r.value(v)
			if err != nil {
				return nil, err
			}
			vars[k] = val
		}
	}
	var failed error
	out := subVar.ReplaceAllStringFunc(format, func(m string) string {
		name := m[2 : len(m)-1]
		if v, ok := vars[name]; ok {
			return fmt.Sprint(v)
		}
		var v any
		var err error
		if obj, attr, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "AWS::") {
			v, err = r.getAtt(obj, attr)
		} else {
			v, err = r.ref(name)
		}
		if err != nil && failed == nil {
			failed = err
		}
		return fmt.Sprint(v)
	})
	return strings.ReplaceAll(out, "${!", "${"), failed
}

func (r *Resolved) ref(name string) (any, error) {
	s := r.stack
	switch name {
	case "AWS::StackName":
		return s.Name, nil
	case "AWS::Region":
		return s.Region, nil
	case "AWS::AccountId":
		return s.Account, nil
	case "AWS::Partition":
		return s.Partition, nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::StackId":
		return fmt.Sprintf("arn:%s:cloudformation:%s:%s:stack/%s/0f0e0d0c-0b0a-0908-0706-050403020100", s.Partition, s.Region, s.Account, s.Name), nil
	case "AWS::NoValue":
		return noValue{}, nil
	}
	if v, ok := r.params[name]; ok {
		return v, nil
	}
	if _, isParam := r.tpl.Map("Parameters")[name]; isParam && s.SAMLocal {
		return name, nil // a parameter with no value: SAM CLI gives its name
	}
	res, ok := r.Resource(name)
	if !ok {
		return nil, fmt.Errorf("no parameter or resource named %s (Ref)", name)
	}
	if s.SAMLocal {
		return name, nil
	}
	typ, _ := res["Type"].(string)
	switch typ {
	case "AWS::Lambda::Version":
		fn, err := r.versionFunction(res)
		return fn + ":1", err
	case "AWS::Lambda::Alias":
		p, _ := res["Properties"].(map[string]any)
		fn, err := r.value(p["FunctionName"])
		if err != nil {
			return nil, err
		}
		alias, _ := p["Name"].(string)
		return r.FunctionArn(fmt.Sprint(fn)) + ":" + alias, nil
	case "AWS::IAM::ManagedPolicy":
		return fmt.Sprintf("arn:%s:iam::%s:policy/%s", s.Partition, s.Account, r.name(name, res, "ManagedPolicyName")), nil
	case "AWS::Cognito::UserPool":
		return s.Region + "_PreFlight1", nil
	case "AWS::IAM::OIDCProvider":
		p, _ := res["Properties"].(map[string]any)
		url, err := r.value(p["Url"])
		return fmt.Sprintf("arn:%s:iam::%s:oidc-provider/%s", s.Partition, s.Account, strings.TrimPrefix(fmt.Sprint(url), "https://")), err
	case "AWS::ApiGateway::RestApi":
		return "preflight1", nil
	// The Ref of each type below is what CloudFormation's resource type
	// reference gives under "Return values": a topic's and a secret's ARN, a
	// queue's URL, a key's id, a layer version's ARN.
	case "AWS::SNS::Topic":
		return fmt.Sprintf("arn:%s:sns:%s:%s:%s", s.Partition, s.Region, s.Account, r.name(name, res, nameProperty[typ])), nil
	case "AWS::SQS::Queue":
		return fmt.Sprintf("https://sqs.%s.amazonaws.com/%s/%s", s.Region, s.Account, r.name(name, res, nameProperty[typ])), nil
	case "AWS::KMS::Key":
		return "preflight-" + strings.ToLower(name), nil
	case "AWS::SecretsManager::Secret":
		return fmt.Sprintf("arn:%s:secretsmanager:%s:%s:secret:%s-PreFl1", s.Partition, s.Region, s.Account, r.name(name, res, nameProperty[typ])), nil
	case "AWS::Lambda::LayerVersion":
		return fmt.Sprintf("arn:%s:lambda:%s:%s:layer:%s:1", s.Partition, s.Region, s.Account, r.name(name, res, nameProperty[typ])), nil
	}
	return r.name(name, res, nameProperty[typ]), nil
}

// nameProperty is the property that names a resource of a type, where the
// template may set the name.
var nameProperty = map[string]string{
	"AWS::Lambda::Function":        "FunctionName",
	"AWS::IAM::Role":               "RoleName",
	"AWS::DynamoDB::Table":         "TableName",
	"AWS::Logs::LogGroup":          "LogGroupName",
	"AWS::CloudWatch::Alarm":       "AlarmName",
	"AWS::CloudWatch::Dashboard":   "DashboardName",
	"AWS::WAFv2::WebACL":           "Name",
	"AWS::S3::Bucket":              "BucketName",
	"AWS::IAM::ManagedPolicy":      "ManagedPolicyName",
	"AWS::CodeDeploy::Application": "ApplicationName",
	"AWS::SNS::Topic":              "TopicName",
	"AWS::SQS::Queue":              "QueueName",
	"AWS::SecretsManager::Secret":  "Name",
	"AWS::ECR::Repository":         "RepositoryName",
	"AWS::Events::EventBus":        "Name",
	"AWS::Lambda::LayerVersion":    "LayerName",
}

// name is the resource's physical name: the named property, or the name
// CloudFormation generates, <stack>-<LogicalId>-<random> (the random part
// a fixed PREFLIGHT1AB, as the other generated ids are fixed placeholders).
func (r *Resolved) name(id string, res map[string]any, prop string) string {
	if p, _ := res["Properties"].(map[string]any); prop != "" && p[prop] != nil {
		if v, err := r.Value(p[prop]); err == nil && v != nil {
			return fmt.Sprint(v)
		}
	}
	return r.stack.Name + "-" + id + "-PREFLIGHT1AB"
}

// FunctionArn is the ARN of the function a FunctionName names in the
// stack's account and region: the name itself when it is an ARN.
func (r *Resolved) FunctionArn(name string) string {
	if strings.HasPrefix(name, "arn:") {
		return name
	}
	s := r.stack
	return fmt.Sprintf("arn:%s:lambda:%s:%s:function:%s", s.Partition, s.Region, s.Account, name)
}

func (r *Resolved) versionFunction(res map[string]any) (string, error) {
	p, _ := res["Properties"].(map[string]any)
	fn, err := r.value(p["FunctionName"])
	return r.FunctionArn(fmt.Sprint(fn)), err
}

func (r *Resolved) getAtt(id, attr string) (any, error) {
	res, ok := r.Resource(id)
	if !ok {
		return nil, fmt.Errorf("Fn::GetAtt %s.%s: no resource %s", id, attr, id)
	}
	s := r.stack
	if s.SAMLocal {
		if attr != "Arn" {
			return nil, fmt.Errorf("Fn::GetAtt %s.%s is not resolved locally, as under sam local", id, attr)
		}
		return fmt.Sprintf("arn:%s:lambda:%s:%s:function:%s", s.Partition, s.Region, s.Account, id), nil
	}
	typ, _ := res["Type"].(string)
	ref, err := r.ref(id)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprint(ref)
	switch typ + "." + attr {
	case "AWS::Lambda::Function.Arn":
		return r.FunctionArn(name), nil
	case "AWS::Lambda::Version.Version":
		return "1", nil
	case "AWS::IAM::Role.Arn":
		return fmt.Sprintf("arn:%s:iam::%s:role/%s", s.Partition, s.Account, name), nil
	case "AWS::DynamoDB::Table.Arn":
		return fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%s", s.Partition, s.Region, s.Account, name), nil
	case "AWS::Logs::LogGroup.Arn":
		return fmt.Sprintf("arn:%s:logs:%s:%s:log-group:%s:*", s.Partition, s.Region, s.Account, name), nil
	case "AWS::CloudWatch::Alarm.Arn":
		return fmt.Sprintf("arn:%s:cloudwatch:%s:%s:alarm:%s", s.Partition, s.Region, s.Account, name), nil
	case "AWS::S3::Bucket.Arn":
		return fmt.Sprintf("arn:%s:s3:::%s", s.Partition, strings.ToLower(name)), nil
	case "AWS::Cognito::UserPool.Arn":
		return fmt.Sprintf("arn:%s:cognito-idp:%s:%s:userpool/%s", s.Partition, s.Region, s.Account, name), nil
	case "AWS::WAFv2::WebACL.Arn":
		return fmt.Sprintf("arn:%s:wafv2:%s:%s:regional/webacl/%s/preflight", s.Partition, s.Region, s.Account, name), nil
	case "AWS::SNS::Topic.TopicArn", "AWS::SQS::Queue.QueueUrl", "AWS::KMS::Key.KeyId", "AWS::SecretsManager::Secret.Id":
		return name, nil
	case "AWS::SNS::Topic.TopicName", "AWS::SQS::Queue.QueueName":
		return name[strings.LastIndexAny(name, ":/")+1:], nil
	case "AWS::SQS::Queue.Arn":
		return fmt.Sprintf("arn:%s:sqs:%s:%s:%s", s.Partition, s.Region, s.Account, name[strings.LastIndex(name, "/")+1:]), nil
	case "AWS::KMS::Key.Arn":
		return fmt.Sprintf("arn:%s:kms:%s:%s:key/%s", s.Partition, s.Region, s.Account, name), nil
	case "AWS::ECR::Repository.Arn":
		return fmt.Sprintf("arn:%s:ecr:%s:%s:repository/%s", s.Partition, s.Region, s.Account, name), nil
	case "AWS::Events::EventBus.Arn":
		return fmt.Sprintf("arn:%s:events:%s:%s:event-bus/%s", s.Partition, s.Region, s.Account, name), nil
	}
	return fmt.Sprintf("%s.%s", name, attr), nil
}
