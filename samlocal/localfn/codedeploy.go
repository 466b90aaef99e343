package localfn

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/plantstore/plantstore/samlocal/devserver"
)

// SAM CLI's placeholder credentials (samtemplate.ResolveEnv gives them to a
// function when the shell has none).
const (
	placeholderKeyID  = "defaultkey"
	placeholderSecret = "defaultsecret"
)

// codeDeploy keeps the function that reports to CodeDeploy (the one whose
// template declares AWS_ENDPOINT_URL_CODEDEPLOY: the PreTraffic hook) off
// real AWS when it runs here. On AWS the hook's role signs its calls and the
// variable is empty, so the SDK reaches the region's CodeDeploy; run as SAM
// CLI runs it, it would sign with the shell's credentials and report to a
// real deployment. So such a function gets SAM's placeholder credentials
// instead of the shell's (a call that still reaches AWS, say to an empty
// AWS_ENDPOINT_URL_LAMBDA, is refused there unsigned by anyone), and, where
// its endpoint is empty, a recorder on loopback that answers
// PutLifecycleEventHookExecutionStatus as CodeDeploy does and prints each
// report. The recorder starts on first need and serves every reload.
type codeDeploy struct {
	log io.Writer // one line per report

	mu  sync.Mutex // a reload may provide while the tool stops
	srv *http.Server
	url string
}

// provide applies the above to a resolved environment, which holds only
// declared names beside the AWS ones.
func (c *codeDeploy) provide(env map[string]string) error {
	endpoint, declared := env["AWS_ENDPOINT_URL_CODEDEPLOY"]
	if !declared {
		return nil
	}
	env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = placeholderKeyID, placeholderSecret
	delete(env, "AWS_SESSION_TOKEN")
	if endpoint != "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.srv == nil {
		if err := c.start(); err != nil {
			return fmt.Errorf("the local CodeDeploy recorder: %w", err)
		}
	}
	env["AWS_ENDPOINT_URL_CODEDEPLOY"] = c.url
	return nil
}

func (c *codeDeploy) start() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	refuse := func(w http.ResponseWriter, _ *http.Request, reason string) {
		writeAWSJSON(w, http.StatusForbidden, map[string]string{"__type": "AccessDeniedException", "message": reason})
	}
	// A report is a few hundred bytes from a process on this machine.
	c.srv = &http.Server{
		Handler:           devserver.LoopbackOnly(http.HandlerFunc(c.serve), nil, refuse),
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, IdleTimeout: 60 * time.Second,
	}
	c.url = "http://" + ln.Addr().String()
	go func() { _ = c.srv.Serve(ln) }()
	fmt.Fprintf(c.log, "CodeDeploy recorder on %s: the PreTraffic hook reports there, not to AWS\n", c.url)
	return nil
}

// putStatus is the operation the hook calls (CodeDeploy's JSON 1.1 protocol).
const putStatus = "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus"

func (c *codeDeploy) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("X-Amz-Target") != putStatus {
		writeAWSJSON(w, http.StatusBadRequest, map[string]string{"__type": "UnknownOperationException", "message": "the local CodeDeploy recorder takes PutLifecycleEventHookExecutionStatus only"})
		return
	}
	var in struct {
		DeploymentID string `json:"deploymentId"`
		ExecutionID  string `json:"lifecycleEventHookExecutionId"`
		Status       string `json:"status"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&in); err != nil {
		writeAWSJSON(w, http.StatusBadRequest, map[string]string{"__type": "SerializationException", "message": "the body is not a PutLifecycleEventHookExecutionStatus input"})
		return
	}
	fmt.Fprintf(c.log, "CodeDeploy (local): PutLifecycleEventHookExecutionStatus deployment %q hook execution %q: %q\n", in.DeploymentID, in.ExecutionID, in.Status)
	writeAWSJSON(w, http.StatusOK, map[string]string{"lifecycleEventHookExecutionId": in.ExecutionID})
}

func writeAWSJSON(w http.ResponseWriter, status int, v map[string]string) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// stop ends the recorder, if it was started.
func (c *codeDeploy) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.srv != nil {
		_ = c.srv.Close()
	}
}
