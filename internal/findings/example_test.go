package findings_test

import (
	"fmt"

	"perflab/internal/findings"
	"perflab/internal/prose"
	"perflab/internal/stacks"
)

// Example applies the rules to the CPU profile of a handler that spends
// most of its time in strings.ToLower (1000 requests), and words what they
// found.
func Example() {
	cpu, err := stacks.ReadProfileFile("testdata/search.pb.gz")
	if err != nil {
		panic(err)
	}
	for _, f := range findings.Findings(findings.FindingInput{CPU: cpu, Requests: 1000}) {
		w := prose.Wording(&f)
		fmt.Printf("%s: %s\n", f.Kind, w.Title.Text())
	}
	// Output:
	// hot-user-function: main.search: 100% of CPU, 100.0 µs/request, mostly in strings.ToLower
}
