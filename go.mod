module github.com/servesim/servesim

go 1.26

require (
	github.com/stretchr/testify v1.11.1
	go.yaml.in/yaml/v3 v3.0.4
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
