package load

import (
	"net/url"
	"testing"
	"time"
)

func TestEngineChoice(t *testing.T) {
	plain, _ := url.Parse("http://127.0.0.1:1/")
	tls, _ := url.Parse("https://127.0.0.1:1/")
	for _, tc := range []struct {
		name  string
		cfg   Config
		loops bool
	}{
		{"plain closed", Config{Targets: []Target{{Method: "GET", URL: plain}}}, true},
		{"no keep-alive", Config{Targets: []Target{{Method: "GET", URL: plain}}, DisableKeepAlive: true}, true},
		{"tls", Config{Targets: []Target{{Method: "GET", URL: tls}}}, false},
		{"http2", Config{Targets: []Target{{Method: "GET", URL: plain}}, HTTP2: true}, false},
		{"rate cap", Config{Targets: []Target{{Method: "GET", URL: plain}}, QPS: 10}, false},
		{"open", Config{Targets: []Target{{Method: "GET", URL: plain}}, Rate: 10, Duration: time.Second}, true},
		{"open over tls", Config{Targets: []Target{{Method: "GET", URL: tls}}, Rate: 10, Duration: time.Second}, false},
		{"forced", Config{Targets: []Target{{Method: "GET", URL: plain}}, engine: engineGoroutines}, false},
	} {
		a, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		loops := evLoopsFor(a)
		if (loops != nil) != tc.loops {
			t.Errorf("%s: event loops %v; want %v", tc.name, loops != nil, tc.loops)
		}
		for _, l := range loops {
			l.close()
		}
	}
}
