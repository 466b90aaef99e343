module github.com/plantstore/plantstore

go 1.26

require go.etcd.io/bbolt v1.5.0

require golang.org/x/sys v0.45.0 // indirect
