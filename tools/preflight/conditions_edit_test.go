package preflight

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A grant hidden behind a condition (issue 49, class 7): each edit adds a
// permission statement whose Condition names a key the reach questions do
// not set, with the motive a teammate would give, and each is refused by
// PS-IAM-001 in one finding on the role's line, because some request
// carries the key ("AWS global condition context keys": the region it
// calls, the services it calls through, its own role's tags, the transport
// it uses, its source IP, the time it is made: a date's candidates are a
// second each side of it). The safe edit narrows a statement by such a
// key and grants nothing new.
func TestConditionsHideNoGrant(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	skipMutantsInShort(t)
	// statement adds a statement first in a role's policy; the role's line
	// in the file is where the finding must be.
	statement := func(role, old, stmt string) textEdit {
		return func(s string) string {
			at := strings.Index(s, "\n  "+role+":\n")
			if at < 0 {
				return s
			}
			i := strings.Index(s[at:], old)
			if i < 0 {
				return s
			}
			i += at + len(old)
			return s[:i] + stmt + s[i:]
		}
	}
	const policyStatements = "            Statement:\n" // a role's inline policy
	const boundaryStatements = "        Statement:\n"   // the managed policy's
	edits := []guardEdit{
		{name: "sqs:* only in our region", motive: "createplant will queue a plant-created event; keep SQS to our own region",
			file: "template.yaml", rule: "PS-IAM-001", edit: statement("CreatePlantRole", policyStatements,
				"              - Sid: PlantEvents\n                Effect: Allow\n                Action: 'sqs:*'\n                Resource: '*'\n"+
					"                Condition:\n                  StringEquals:\n                    aws:RequestedRegion: !Ref AWS::Region\n")},
		{name: "secretsmanager:* only through CloudFormation", motive: "the pre-traffic hook may rotate its test secret, but only when CloudFormation calls on its behalf",
			file: "template.yaml", rule: "PS-IAM-001", edit: statement("PreTrafficRole", policyStatements,
				"              - Sid: RotateTestSecret\n                Effect: Allow\n                Action: 'secretsmanager:*'\n                Resource: '*'\n"+
					"                Condition:\n                  ForAnyValue:StringEquals:\n                    aws:CalledVia: cloudformation.amazonaws.com\n")},
		{name: "s3:* for roles tagged with the stack", motive: "the authorizer caches the issuer's keys in S3; scope it by the stack's tag on the role, ABAC style",
			file: "template.yaml", rule: "PS-IAM-001", edit: statement("AuthorizerRole", policyStatements,
				"              - Sid: KeysCache\n                Effect: Allow\n                Action: 's3:*'\n                Resource: '*'\n"+
					"                Condition:\n                  StringEquals:\n                    aws:PrincipalTag/PlantStoreStack: !Ref AWS::StackName\n")},
		{name: "logs:* from GitHub's runners only", motive: "the smoke step tails the stack's logs; allow it only from the hosted runners' addresses",
			file: "pipeline/roles.yaml", rule: "PS-IAM-001", edit: statement("DeployRole", policyStatements,
				"              - Sid: TailLogs\n                Effect: Allow\n                Action: 'logs:*'\n                Resource: '*'\n"+
					"                Condition:\n                  IpAddress:\n                    aws:SourceIp: 192.0.2.0/24\n")},
		{name: "kms:* over TLS only, in the boundary", motive: "the functions will encrypt plants' notes with a KMS key; Security Hub asks for TLS only, so the boundary allows it with aws:SecureTransport",
			file: "pipeline/roles.yaml", rule: "PS-IAM-001", edit: statement("PermissionsBoundary", boundaryStatements,
				"          - Sid: Notes\n            Effect: Allow\n            Action: 'kms:*'\n            Resource: '*'\n"+
					"            Condition:\n              Bool:\n                aws:SecureTransport: 'true'\n")},
		{name: "sqs:* until the migration ends", motive: "createplant drains the old queue during the migration; the grant ends by itself on the first of January",
			file: "template.yaml", rule: "PS-IAM-001", edit: statement("CreatePlantRole", policyStatements,
				"              - Sid: DrainOldQueue\n                Effect: Allow\n                Action: 'sqs:*'\n                Resource: '*'\n"+
					"                Condition:\n                  DateLessThan:\n                    aws:CurrentTime: '2030-01-01T00:00:00Z'\n")},
		{name: "safe: the plants' table only in our region", motive: "Security Hub's region control: createplant's table access only in the stack's region",
			file: "template.yaml", edit: replaceOnce("                Resource: !GetAtt PlantsTable.Arn\n",
				"                Resource: !GetAtt PlantsTable.Arn\n                Condition:\n                  StringEquals:\n                    aws:RequestedRegion: !Ref AWS::Region\n")},
	}
	// The role whose line each dangerous edit's finding names.
	role := map[string]string{
		edits[0].name: "CreatePlantRole", edits[1].name: "PreTrafficRole", edits[2].name: "AuthorizerRole",
		edits[3].name: "DeployRole", edits[4].name: "PermissionsBoundary", edits[5].name: "CreatePlantRole",
	}
	checkGuardEdits(t, edits, copyCheckedFiles, func(t *testing.T, dir string, tc guardEdit) []Finding {
		t.Helper()
		findings, err := Check(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(findings) == 1 && tc.rule != "" {
			raw, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			before, _, _ := strings.Cut(string(raw), "\n  "+role[tc.name]+":\n")
			if f := findings[0]; f.File != tc.file || f.Line != strings.Count(before, "\n")+2 {
				t.Errorf("the finding names %s:%d, not %s's line of %s", f.File, f.Line, role[tc.name], tc.file)
			}
		}
		return findings
	})
}
