package preflight

import (
	"slices"
	"strings"
	"testing"
)

// resourceLines are the snapshot's lines of what resource policies give
// (their caller is a principal, a service or *, never a logical id).
func resourceLines(lines []string, variant string) []string {
	var out []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 4 && f[0] == variant && strings.ContainsAny(f[1], ".:*") {
			out = append(out, l)
		}
	}
	return out
}

// Each edit is one a teammate could write, with its motive, that lets
// someone outside the account call a resource of the stacks through its
// resource policy; each is refused in one line naming the policy, who gets
// in and the fix. The safe edit changes nothing anyone outside may do, nor
// the snapshot.
func TestResourcePoliciesAdmitNoOutsider(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	skipMutantsInShort(t)
	const bucketStatements = "        Statement:\n          - Sid: TLSOnly\n"
	bucket := func(sid, principal, cond string) edit {
		return edit{"pipeline/roles.yaml", "  ArtifactsBucketPolicy:", bucketStatements, "        Statement:\n          - Sid: " + sid + "\n            Effect: Allow\n" +
			"            Principal: " + principal + "\n            Action: s3:GetObject\n            Resource: !Sub ${ArtifactsBucket.Arn}/*\n" + cond + "          - Sid: TLSOnly\n"}
	}
	resources := func(yaml string) edit {
		return edit{"template.yaml", "", "  PlantsApi:\n", yaml + "\n  PlantsApi:\n"}
	}
	snapshot, err := readAccess(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, motive string
		variant      string
		edits        []edit
		where, says  string // "" for a safe edit
	}{
		{"another account reads the artifacts", "let the staging account's pipeline read the packaged templates", "dev",
			[]edit{bucket("StagingReads", "{AWS: 'arn:aws:iam::111122223333:root'}", "")},
			"PS-IAM-004 ArtifactsBucketPolicy", "arn:aws:iam::111122223333:root (s3 (1, first s3:GetObject))"},
		{"anyone reads the artifacts", "the release page links the packaged template for download", "prod",
			[]edit{bucket("ReleasePage", "'*'", "")},
			"PS-IAM-004 ArtifactsBucketPolicy", "public access to ArtifactsBucket: any principal of another account (public)"},
		{"the organization invokes createplant", "let the org's shared scheduler invoke createplant", "default",
			[]edit{resources("  OrgSchedulerPermission:\n    Type: AWS::Lambda::Permission\n    Properties:\n      Action: lambda:InvokeFunction\n" +
				"      FunctionName: !Ref CreatePlantFunction.Alias\n      Principal: '*'\n      PrincipalOrgID: o-a1b2c3d4e5\n")},
			"PS-IAM-004 OrgSchedulerPermission", "another account's principals (aws:PrincipalOrgID=o-a1b2c3d4e5)"},
		{"a public function URL", "a quick URL for the demo, without the gateway", "default",
			[]edit{resources("  DemoUrl:\n    Type: AWS::Lambda::Url\n    Properties:\n      AuthType: NONE\n      TargetFunctionArn: !Ref CreatePlantFunction.Alias\n\n" +
				"  DemoUrlPermission:\n    Type: AWS::Lambda::Permission\n    Properties:\n      Action: lambda:InvokeFunctionUrl\n" +
				"      FunctionName: !Ref CreatePlantFunction.Alias\n      Principal: '*'\n      FunctionUrlAuthType: NONE\n")},
			"PS-IAM-004 DemoUrlPermission", "public access to CreatePlantFunctionAliaslive"},
		{"CloudWatch of any account publishes to the alarm topic", "give the alarms a topic CloudWatch may publish to", "default",
			[]edit{resources("  AlarmTopic:\n    Type: AWS::SNS::Topic\n\n  AlarmTopicPolicy:\n    Type: AWS::SNS::TopicPolicy\n    Properties:\n      Topics: [!Ref AlarmTopic]\n" +
				"      PolicyDocument:\n        Version: '2012-10-17'\n        Statement:\n          - Effect: Allow\n            Principal: {Service: cloudwatch.amazonaws.com}\n" +
				"            Action: sns:Publish\n            Resource: !Ref AlarmTopic\n")},
			"PS-IAM-004 AlarmTopicPolicy", "cloudwatch.amazonaws.com for any account's resource (sns (1, first sns:Publish))"},
		{"topics named like ours in any account feed the queue", "a dead-letter queue that the stacks' topics may send to", "default",
			[]edit{resources("  DeadLetterQueue:\n    Type: AWS::SQS::Queue\n\n  DeadLetterQueuePolicy:\n    Type: AWS::SQS::QueuePolicy\n    Properties:\n      Queues: [!Ref DeadLetterQueue]\n" +
				"      PolicyDocument:\n        Version: '2012-10-17'\n        Statement:\n          - Effect: Allow\n            Principal: '*'\n            Action: sqs:SendMessage\n" +
				"            Resource: !GetAtt DeadLetterQueue.Arn\n            Condition:\n              ArnLike:\n                aws:SourceArn: arn:aws:sns:*:*:plant-store-*\n")},
			"PS-IAM-004 DeadLetterQueuePolicy", "aws:SourceArn=arn:aws:sns:eu-west-1:999999999999:plant-store-x-neighbour"},
		{"the API from a VPC endpoint, if any", "only our VPC endpoint may call the API (requests from the internet carry no aws:SourceVpce)", "default",
			[]edit{{"template.yaml", "  PlantsApi:", "        DefaultAuthorizer: TokenAuthorizer\n", "        DefaultAuthorizer: TokenAuthorizer\n        ResourcePolicy:\n" +
				"          CustomStatements:\n            - Effect: Allow\n              Principal: '*'\n              Action: execute-api:Invoke\n              Resource: execute-api:/*\n" +
				"              Condition:\n                StringEqualsIfExists:\n                  aws:SourceVpce: vpce-0a1b2c3d4e5f60718\n"}},
			"PS-IAM-004 PlantsApi", "any principal of another account (public) (no aws:SourceVpce)"},
		{"the analytics account decrypts", "a key for the table that the analytics account can decrypt exports with", "default",
			[]edit{resources("  TableKey:\n    Type: AWS::KMS::Key\n    Properties:\n      KeyPolicy:\n        Version: '2012-10-17'\n        Statement:\n" +
				"          - Effect: Allow\n            Principal: {AWS: !Sub 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root'}\n            Action: kms:*\n            Resource: '*'\n" +
				"          - Effect: Allow\n            Principal: {AWS: 'arn:aws:iam::444455556666:root'}\n            Action: kms:Decrypt\n            Resource: '*'\n")},
			"PS-IAM-004 TableKey", "arn:aws:iam::444455556666:root (kms (1, first kms:Decrypt))"},
		{"Route 53 writes query logs for anyone", "log the domain's DNS queries", "default",
			[]edit{resources("  QueryLogsPolicy:\n    Type: AWS::Logs::ResourcePolicy\n    Properties:\n      PolicyName: route53-query-logs\n" +
				"      PolicyDocument: !Sub '{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"Service\":\"route53.amazonaws.com\"}," +
				"\"Action\":[\"logs:CreateLogStream\",\"logs:PutLogEvents\"],\"Resource\":\"arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/route53/*\"}]}'\n")},
			"PS-IAM-004 QueryLogsPolicy", "route53.amazonaws.com for any account's resource"},
		{"a file system policy the preflight cannot read", "share the cache's file system", "default",
			[]edit{resources("  CacheFileSystem:\n    Type: AWS::EFS::FileSystem\n    Properties:\n      FileSystemPolicy:\n        Version: '2012-10-17'\n        Statement:\n" +
				"          - Effect: Allow\n            Principal: {AWS: '*'}\n            Action: elasticfilesystem:ClientMount\n            Resource: '*'\n")},
			"PS-IAM-004 CacheFileSystem", "carries a resource policy (FileSystemPolicy of AWS::EFS::FileSystem) that the preflight cannot ask who may use"},
		{"safe: TLS 1.2 or later only", "Security Hub's S3 control asks for a minimum TLS version on the bucket", "dev",
			[]edit{{"pipeline/roles.yaml", "  ArtifactsBucketPolicy:", bucketStatements, "        Statement:\n          - Sid: TLS12\n            Effect: Deny\n            Principal: '*'\n" +
				"            Action: 's3:*'\n            Resource: [!GetAtt ArtifactsBucket.Arn, !Sub '${ArtifactsBucket.Arn}/*']\n" +
				"            Condition:\n              NumericLessThan:\n                s3:TlsVersion: '1.2'\n          - Sid: TLSOnly\n"}},
			"", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			envs := loadMutant(t, mutant(t, c.edits...), c.variant)
			findings, lines := resourceFindings(t, envs, committedAllowlist(t))
			if c.where == "" {
				compared, err := compareAccess(resourceLines(snapshot, c.variant), lines)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range append(findings, compared...) {
					t.Errorf("a safe edit (%s) is refused: %s", c.motive, f)
				}
				return
			}
			wantFinding(t, findings, c.where, c.says)
			if len(findings) != 1 {
				t.Errorf("%d findings, want one line: %v", len(findings), findings)
			}
		})
	}
}

// Access from outside that allowlist.yaml names with a reason passes and
// enters the snapshot; an entry that names nothing is stale.
func TestResourcePoliciesTakeTheAllowlistsReasons(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	skipMutantsInShort(t)
	envs := loadMutant(t, mutant(t, edit{"pipeline/roles.yaml", "  ArtifactsBucketPolicy:", "        Statement:\n          - Sid: TLSOnly\n",
		"        Statement:\n          - Sid: StagingReads\n            Effect: Allow\n            Principal: {AWS: 'arn:aws:iam::111122223333:root'}\n" +
			"            Action: s3:GetObject\n            Resource: !Sub ${ArtifactsBucket.Arn}/*\n          - Sid: TLSOnly\n"}), "dev")
	allow := parseAllowlist(t, "entries:\n  - kind: external-access\n    what: dev ArtifactsBucket arn:aws:iam::111122223333:root\n    reason: staging promotes dev's packaged templates\n"+
		"  - kind: external-access\n    what: dev ArtifactsBucket *\n    reason: nothing\n")
	findings, lines := resourceFindings(t, envs, allow)
	wantFinding(t, findings, `PS-IAM-004 external-access "dev ArtifactsBucket *"`, "is stale")
	if len(findings) != 1 {
		t.Errorf("findings %v, want the stale entry's alone", findings)
	}
	if want := "dev arn:aws:iam::111122223333:root s3:GetObject this:pipeline:ArtifactsBucket"; !slices.Contains(lines, want) {
		t.Errorf("the snapshot's lines %v lack %q", lines, want)
	}
	if fs := AllowlistFindings(allow, envs, nil); len(fs) > 0 {
		t.Errorf("the allowlist refuses its external-access kind: %v", fs)
	}
}

// resourceFindings are PS-IAM-004's findings for the variants, and the
// snapshot's lines of what their resource policies give.
func resourceFindings(t *testing.T, envs []env, allow *Allowlist) ([]Finding, []string) {
	t.Helper()
	resources, lines, err := resourceAccess(envs)
	if err != nil {
		t.Fatal(err)
	}
	access := map[string]any{"resources": resources, "variants": variantNames(envs)}
	fs := iamBookFindings(t, envs, map[string]any{"access": access, "allowlist": allowlistFacts(allow)})
	return slices.DeleteFunc(fs, func(f Finding) bool { return f.ID != "PS-IAM-004" }), lines
}
