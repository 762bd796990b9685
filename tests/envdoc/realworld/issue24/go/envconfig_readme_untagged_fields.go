// Excerpt from https://github.com/kelseyhightower/envconfig at commit 10e87fe9eaec671f89425dc366f004a9336bcc8f (README.md lines 30-55, the Go usage example); license: MIT (Copyright (c) 2013 Kelsey Hightower). The first block is unmodified; the second is marked below.
package main

import (
    "fmt"
    "log"
    "time"

    "github.com/kelseyhightower/envconfig"
)

type Specification struct {
    Debug       bool
    Port        int
    User        string
    Users       []string
    Rate        float32
    Timeout     time.Duration
    ColorCodes  map[string]int
}

func main() {
    var s Specification
    err := envconfig.Process("myapp", &s)
    if err != nil {
        log.Fatal(err.Error())
    }
}

// ... (README.md lines 100-107, the struct tag example: its type renamed TaggedSpecification so both share one file, and a call processing it with the README's prefix added; the README names the variables each field reads)
type TaggedSpecification struct {
    ManualOverride1 string `envconfig:"manual_override_1"`
    DefaultVar      string `default:"foobar"`
    RequiredVar     string `required:"true"`
    IgnoredVar      string `ignored:"true"`
    AutoSplitVar    string `split_words:"true"`
    RequiredAndAutoSplitVar    string `required:"true" split_words:"true"`
}
func tagged() {
    var t TaggedSpecification
    envconfig.Process("myapp", &t)
}
