// Command bare is the floor for the local API's throughput: a net/http server
// on loopback that decodes the same JSON body and answers 200, with no
// token, no validation and no store.
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(os.Stdout, "listening on http://%s\n", ln.Addr())
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p struct {
			ID   int64   `json:"id"`
			Name string  `json:"name"`
			Tag  *string `json:"tag"`
		}
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"name": p.Name, "tag": p.Tag})
	})}
	if err := srv.Serve(ln); err != nil {
		panic(err)
	}
}
