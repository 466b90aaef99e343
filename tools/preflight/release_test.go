package preflight

import (
	"strings"
	"testing"
)

// prodOverridesLine is samconfig.toml's prod parameter_overrides, which a
// release edit changes.
const prodOverridesLine = `parameter_overrides = "DeploymentType=Canary10Percent5Minutes LogRetentionDays=90 `

// releaseEdits: edits that would let a bad version reach prod's clients and
// stay (all traffic at once, no rollback, alarms that cannot fire in time
// or at all), let attacks through a counting WAF, or lift the stage's
// throttle past the account's quota; and one that keeps prod safe.
func releaseEdits() []guardEdit {
	const (
		rollbackAlarms = "        Alarms:\n          - !Ref CreatePlantAliasErrorsAlarm\n          - !Ref ReleaseServerErrorsAlarm\n"
		releaseStat    = "      Statistic: Sum\n      Period: 60\n      EvaluationPeriods: 1\n      Threshold: 5\n"
		aliasPeriod    = "          Value: !Sub ${CreatePlantFunction}:live\n      Statistic: Sum\n      Period: 60\n"
		commonGroup    = "        - Name: common\n          Priority: 1\n          OverrideAction:\n            None: {}\n"
	)
	return []guardEdit{
		{"prod releases all at once", "a hotfix should not wait for the canary's five minutes",
			"samconfig.toml", replaceOnce(prodOverridesLine, strings.Replace(prodOverridesLine, "Canary10Percent5Minutes", "AllAtOnce", 1)), "PS-REL-001"},
		{"createplant's release without rollback alarms", "a flaky minute of 5xx rolled a good release back twice; watch the dashboard instead",
			"template.yaml", replaceOnce(rollbackAlarms, ""), "PS-REL-002"},
		{"the release alarm on the error rate", "alarm on the share of 5xx, not a count, so that busy hours do not roll back",
			"template.yaml", replaceOnce(releaseStat, strings.Replace(releaseStat, "Sum", "Average", 1)), "PS-REL-003"},
		{"the alias errors alarm over an hour", "one crash is noise: look at a whole hour before rolling back",
			"template.yaml", replaceOnce(aliasPeriod, strings.Replace(aliasPeriod, "60", "3600", 1)), "PS-REL-004"},
		{"AWS's common rules only count in prod", "the common rule set blocked a partner's uploads; count first, block later",
			"template.yaml", replaceOnce(commonGroup, strings.Replace(commonGroup, "None", "Count", 1)), "PS-REL-006"},
		{"prod's throttle lifted for a launch", "launch day: nobody should see a 429",
			"samconfig.toml", replaceOnce(prodOverridesLine, prodOverridesLine+"ThrottlingRateLimit=20000 ThrottlingBurstLimit=10000 "), "PS-REL-007"},
		{"the alias alarm on the alias the runbook names", "the runbook calls the serving alias current; name it so in the alarm",
			"template.yaml", replaceOnce(aliasPeriod, strings.Replace(aliasPeriod, ":live", ":current", 1)), "PS-REL-008"},
		{"the store alarm on a metric spelt as in the docs' prose", "SystemError reads better on the dashboard",
			"template.yaml", replaceOnce("      MetricName: SystemErrors\n", "      MetricName: SystemError\n"), "PS-REL-008"},
		{"the API alarm by the API's short name", "plants is the name everyone uses; the stack prefix is noise",
			"template.yaml", replaceOnce("          Value: !Sub ${AWS::StackName}-plants\n        - Name: Stage\n          Value: v1\n      Statistic: Sum\n      Period: 60\n      EvaluationPeriods: 1\n", "          Value: plants\n        - Name: Stage\n          Value: v1\n      Statistic: Sum\n      Period: 60\n      EvaluationPeriods: 1\n"), "PS-REL-008"},
		{"the failures alarm in a shared namespace", "one PlantStore namespace for every stack makes one dashboard",
			"template.yaml", replaceOnce("      Namespace: !Sub PlantStore/${AWS::StackName}\n      MetricName: Failures\n", "      Namespace: PlantStore\n      MetricName: Failures\n"), "PS-REL-008"},
		{"a slower release and more headroom (safe)", "a launch: release in ten steps and let the stage take 500 a second",
			"samconfig.toml", replaceOnce(prodOverridesLine, strings.Replace(prodOverridesLine, "Canary10Percent5Minutes", "Linear10PercentEvery1Minute", 1)+"ThrottlingRateLimit=500 ThrottlingBurstLimit=1000 "), ""},
	}
}

// Each of releaseEdits, made to a copy of the files the rules read, is
// refused with one line of its rule (or, the safe one, passes).
func TestReleaseRulesCatchDangerousEdits(t *testing.T) {
	t.Parallel()
	skipMutantsInShort(t)
	needEvaluator(t)
	checkGuardEdits(t, releaseEdits(), copyCheckedFiles, checkWorkflowsOf)
}
