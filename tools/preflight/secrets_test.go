package preflight

import "testing"

// then is the edit a, then b.
func then(a, b textEdit) textEdit { return func(s string) string { return b(a(s)) } }

// secretEdits: edits that would put a secret where everyone who reads the
// stack or a function's configuration reads it; and one that passes the
// secret's name instead.
func secretEdits() []guardEdit {
	const (
		alarmTopic  = "  AlarmTopicArn:\n"
		clientID    = "  ClientId:\n"
		hookClient  = "          COGNITO_CLIENT_ID: !If [UseCognito, !Ref UserPoolClient, '']\n"
		createPlant = "          METRICS_NAMESPACE: !Sub PlantStore/${AWS::StackName}\n          LOG_LEVEL: info\n"
	)
	param := func(name, noEcho string) textEdit {
		return replaceOnce(alarmTopic, "  "+name+":\n    Type: String\n    Default: ''\n"+noEcho+"    Description: given per environment\n"+alarmTopic)
	}
	return []guardEdit{
		{"the app client's secret as an output", "partners read the client's id and secret from the stack's outputs",
			"template.yaml", replaceOnce(clientID, "  ClientSecret:\n    Condition: UseCognito\n    Description: App client secret\n    Value: !GetAtt UserPoolClient.ClientSecret\n"+clientID), "PS-SEC-001"},
		{"a token parameter without NoEcho", "the alerts' Slack webhook token, given per environment",
			"template.yaml", param("AlertWebhookToken", ""), "PS-SEC-002"},
		{"the client secret in the hook's environment", "save the hook its describe-user-pool-client call",
			"template.yaml", replaceOnce(hookClient, hookClient+"          COGNITO_CLIENT_SECRET: !If [UseCognito, !GetAtt UserPoolClient.ClientSecret, '']\n"), "PS-SEC-003"},
		{"a Secrets Manager value resolved into createplant's environment", "createplant calls a partner: resolve its key at deploy, no SDK call at run time",
			"template.yaml", replaceOnce(createPlant, createPlant+"          PARTNER_API_KEY: '{{resolve:secretsmanager:plantstore/partner:SecretString:apiKey}}'\n"), "PS-SEC-003"},
		{"a NoEcho parameter in createplant's environment", "the partner's key, hidden in the console, handed to createplant",
			"template.yaml", then(param("PartnerApiKey", "    NoEcho: true\n"), replaceOnce(createPlant, createPlant+"          PARTNER_API_KEY: !Ref PartnerApiKey\n")), "PS-SEC-003"},
		{"the secret's name in createplant's environment (safe)", "createplant reads the partner's key from Secrets Manager at run time",
			"template.yaml", then(param("PartnerApiKeySecretName", ""), replaceOnce(createPlant, createPlant+"          PARTNER_API_KEY_SECRET_NAME: !Ref PartnerApiKeySecretName\n")), ""},
	}
}

// Each of secretEdits, made to a copy of the files the rules read, is
// refused with one line of its rule (or, the safe one, passes).
func TestSecretRulesCatchDangerousEdits(t *testing.T) {
	t.Parallel()
	skipMutantsInShort(t)
	needEvaluator(t)
	checkGuardEdits(t, secretEdits(), copyCheckedFiles, checkWorkflowsOf)
}
