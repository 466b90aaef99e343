package dynamoemu_test

import (
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

// moto's front passes on one request at a time, whoever sends it: a test's
// client, samlocal's stream poller and every function alike. dynalite's
// passes them on as they come. The server behind holds each request until
// a second has arrived (or 300ms have passed), so a front that lets two
// through at once is seen doing it.
func TestMotosFrontSendsOneRequestAtATime(t *testing.T) {
	t.Parallel()
	if most := mostAtOnce(t, true, 3); most != 1 {
		t.Errorf("moto's front: %d requests at once at the server, want 1", most)
	}
	if most := mostAtOnce(t, false, 3); most < 2 {
		t.Errorf("dynalite's front: %d request at once at the server, want them as they come", most)
	}
}

// mostAtOnce sends n signed requests at once through a front (serial or
// not) and returns how many the server behind it held at once at the most.
func mostAtOnce(t *testing.T, serial bool, n int) int {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	arrived, inFlight, most := 0, 0, 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived++
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		for range 60 { // a second arrival, or 300ms
			mu.Lock()
			two := arrived >= 2
			mu.Unlock()
			if two {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{"TableNames":[]}`))
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	creds := dynamoemu.NewCredentials()
	url, stop, err := dynamoemu.FrontOn(sock, creds, serial)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		req := dynamoemutest.SignedRequest(t, url, creds, "ListTables", "{}", time.Now())
		wg.Go(func() {
			<-start
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("through the front: %d", resp.StatusCode)
			}
		})
	}
	close(start)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return most
}
