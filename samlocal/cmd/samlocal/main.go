// Command samlocal is SAM CLI's local commands (invoke, start-api,
// start-lambda, generate-event) for the Go functions of any SAM project,
// without Docker: each function's real executable, built for this machine
// as sam build builds it, on a local Lambda Runtime API. Run it in the
// project's folder; the cli package says what each command does.
//
//	go install github.com/plantstore/plantstore/samlocal/cmd/samlocal@latest
package main

import "github.com/plantstore/plantstore/samlocal/cli"

func main() { cli.Main() }
