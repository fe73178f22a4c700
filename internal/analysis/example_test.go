package analysis_test

import (
	"os"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
)

// Example shows the pipeline on a tiny CPU profile: a handler that spends
// most of its time in strings.ToLower. The user-code table charges that cost
// to main.search.
func Example() {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	loc := func(id uint64, f *profile.Function) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
	}
	handler, search, lower := fn(1, "main.handler"), fn(2, "main.search"), fn(3, "strings.ToLower")
	lh, ls, ll := loc(1, handler), loc(2, search), loc(3, lower)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Function:   []*profile.Function{handler, search, lower},
		Location:   []*profile.Location{lh, ls, ll},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{ll, ls, lh}, Value: []int64{90e6}},
			{Location: []*profile.Location{ls, lh}, Value: []int64{10e6}},
		},
	}
	t, err := analysis.Top(p, analysis.TopOptions{User: true, Requests: 1000})
	if err != nil {
		panic(err)
	}
	t.WriteText(os.Stdout)
	// Output:
	// Type: cpu
	// Showing nodes accounting for 100ms, 100.00% of 100ms total (1000 requests)
	//       flat  flat%   sum%        cum   cum%   flat/req    cum/req  name
	//      100ms 100.00% 100.00%      100ms 100.00%      100µs      100µs  main.search (90% in callees outside user code)
	//          0  0.00% 100.00%      100ms 100.00%          0      100µs  main.handler
}
