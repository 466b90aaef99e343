//go:build !unix

package dynamoemu

// holder is 0 where fcntl's locks do not exist: a second run on the same
// folder fails at its first request, as dynalite's LevelDB cannot open it.
func holder(string) int { return 0 }
