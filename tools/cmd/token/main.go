// Command token prints the token that Plant Store's authorizer accepts
// under samlocal start-api (devtoken.Sign): make start-api runs
// `SAMLOCAL_TOKEN=$(bin/token) samlocal start-api ...`. TOKEN_SCOPE picks
// its scope (AUTH_REQUIRED_SCOPE by default).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/plantstore/plantstore/samlocal/proc"
	"github.com/plantstore/plantstore/tools/devtoken"
)

func main() {
	proc.Main("token", func(context.Context) error {
		template := flag.String("t", "template.yaml", "the SAM template")
		envFile := flag.String("n", "events/env.json", "the env file of samlocal start-api")
		flag.Parse()
		tok, err := devtoken.Sign(*template, *envFile, os.Getenv("TOKEN_SCOPE"), time.Now())
		if err != nil {
			return err
		}
		_, err = fmt.Println(tok)
		return err
	})
}
