package preflight

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docsSnippet is the shell lines of docs/deploy.md's "A token, and a plant"
// that read the stack name and region from samconfig.toml: the console
// lines from the one defining cfg to the region's export.
func docsSnippet(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	in := false
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "$ cfg() ") {
			in = true
		}
		if !in {
			continue
		}
		l, _ = strings.CutPrefix(l, "$ ")
		lines = append(lines, l)
		if strings.Contains(l, "AWS_DEFAULT_REGION=") {
			return strings.Join(lines, "\n")
		}
	}
	t.Fatal("docs/deploy.md has no `$ cfg() ...` lines ending in the AWS_DEFAULT_REGION export")
	return ""
}

// The lines docs/deploy.md gives for the stack name and region read what
// `sam deploy --guided` saved (the SAM developer guide, "AWS SAM CLI
// Config": the file --guided creates has stack_name, region, s3_bucket and
// the rest under [default.deploy.parameters]), and this repository's own
// file, whose stack_name is in [default.global.parameters], when nothing
// was saved.
func TestDeployDocReadsTheSavedStack(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("awk"); err != nil {
		t.Skip("no awk")
	}
	ours, err := os.ReadFile(filepath.Join(repoRoot, "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	guided := strings.Replace(string(ours), "[default.deploy.parameters]\n",
		"[default.deploy.parameters]\nstack_name = \"my-plants\"\nregion = \"eu-central-1\"\ns3_prefix = \"my-plants\"\n", 1)
	snippet := docsSnippet(t)
	for _, c := range []struct{ name, file, want string }{
		{"as --guided saved it", guided, "my-plants eu-central-1"},
		{"as this repository has it", string(ours), "plant-store "},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "samconfig.toml"), []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-c", snippet+"\necho \"$STACK $AWS_DEFAULT_REGION\"")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: the lines fail: %v\n%s\n%s", c.name, err, snippet, out)
		}
		if got := strings.TrimRight(string(out), "\n"); got != c.want {
			t.Errorf("%s: the lines give %q, want %q", c.name, got, c.want)
		}
	}
}
