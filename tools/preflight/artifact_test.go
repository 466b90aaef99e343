package preflight

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bootstraps that `sam build` makes in the build job reach Lambda with
// their executable bit: the test runs the build job's own packing steps and
// the deploy jobs' own unpacking steps from deploy.yml, moves the artifact
// between them as GitHub's artifact actions do, zips each function's folder
// by SAM's rule, and reads the mode inside the zip.
//
// GitHub's rule (actions/upload-artifact README, "Permission Loss"): "File
// permissions are not maintained during artifact upload. All directories
// will have 755 and all files will have 644." The README's answer is to tar
// the files first.
func TestArtifactKeepsTheExecutableBits(t *testing.T) {
	t.Parallel()
	wf := loadWorkflow(t, "deploy.yml")
	functions := templateFunctions(t)
	build := t.TempDir()
	for _, fn := range functions {
		dir := filepath.Join(build, ".aws-sam", "build", fn)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// go build writes 0755 (0777 less the usual umask).
		if err := os.WriteFile(filepath.Join(dir, "bootstrap"), []byte("\x7fELF"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	buildJob := wf.job(t, "build")
	runSteps(t, build, buildJob.stepsBetween(t, "sam build", "actions/upload-artifact"))
	upload := buildJob.step(t, "actions/upload-artifact")
	artifact := t.TempDir()
	for _, p := range strings.Fields(upload.With["path"]) {
		uploadAsGitHubDoes(t, build, p, artifact)
	}
	for _, name := range []string{"dev", "prod"} {
		job := wf.job(t, name)
		ws := t.TempDir()
		download := job.step(t, "actions/download-artifact")
		copyTree(t, artifact, filepath.Join(ws, download.With["path"]))
		runSteps(t, ws, job.stepsBetween(t, "actions/download-artifact", "aws-actions/configure-aws-credentials"))
		for _, fn := range functions {
			mode := samZipMode(t, filepath.Join(ws, ".aws-sam", "build", fn))
			if mode&0o555 != 0o555 {
				t.Errorf("job %s: %s's bootstrap reaches Lambda as %v in SAM's zip; Lambda cannot execute it (Runtime.InvalidEntrypoint)", name, fn, mode)
			}
		}
	}
}

// uploadAsGitHubDoes copies what an upload-artifact path names into dst with
// the modes download-artifact gives back: 0644 for every file.
func uploadAsGitHubDoes(t *testing.T, root, path, dst string) {
	t.Helper()
	src := filepath.Join(root, path)
	info, err := os.Stat(src)
	if err != nil {
		t.Fatalf("upload-artifact path %s: %v", path, err)
	}
	if !info.IsDir() {
		// A single file is uploaded under its base name.
		copyFile(t, src, filepath.Join(dst, filepath.Base(src)), 0o644)
		return
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(dst, rel), 0o644)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(dst, rel), 0o644)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string, mode fs.FileMode) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, mode); err != nil {
		t.Fatal(err)
	}
}

// runSteps runs workflow steps' scripts with bash in dir, as a runner does
// (bash -e, with the job's workspace as the working directory).
func runSteps(t *testing.T, dir string, steps []step) {
	t.Helper()
	for _, s := range steps {
		if s.Run == "" {
			continue
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("step %q: %v\n%s", s.name(), err, out)
		}
	}
}

// samZipMode zips dir by SAM CLI's rule and returns the bootstrap's mode as
// the zip records it. SAM's make_zip_with_permissions
// (samcli/lib/package/utils.py) records each file's own st_mode after its
// AdditiveFilePermissionPermissionMapper has added 0o444 (read for all) and
// nothing else; directories get 0o111 added. So a 0644 file stays 0644.
func samZipMode(t *testing.T, dir string) fs.FileMode {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h := &zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate}
		h.SetMode(info.Mode() | 0o444)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatalf("zip %s: %v", dir, err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == "bootstrap" {
			return f.Mode()
		}
	}
	t.Fatalf("%s: no bootstrap in the zip (the artifact lost it)", dir)
	return 0
}
