// Command paint opens HTML pages in headless Chromium (Debian's
// /usr/bin/chromium) and prints, for each, the median over -n loads of its
// first paint and first contentful paint (performance.getEntriesByType
// ("paint"), in ms from navigation start), and the page's size.
//
//	go run ./bench/report/paint [-n 5] report.html [more.html...]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/chromedp/chromedp"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "paint:", err)
		os.Exit(1)
	}
}

func run() error {
	n := flag.Int("n", 5, "loads per page")
	flag.Parse()
	dir, err := os.MkdirTemp("", "paint-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("/usr/bin/chromium"), chromedp.NoSandbox,
		chromedp.UserDataDir(dir), chromedp.WindowSize(1400, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, page := range flag.Args() {
		abs, err := filepath.Abs(page)
		if err != nil {
			return err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return err
		}
		var fp, fcp []float64
		for range *n {
			// A fresh tab each time, so nothing is cached between loads.
			ctx, cancelTab := chromedp.NewContext(actx)
			tctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
			err := chromedp.Do(tctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady(chromedp.CSS("body")), chromedp.Sleep(300*time.Millisecond))
			var got [2]float64
			if err == nil {
				got, err = chromedp.Run(tctx, chromedp.Evaluate[[2]float64](`(() => { const p = n => (performance.getEntriesByName(n)[0] || {startTime: -1}).startTime; return [p("first-paint"), p("first-contentful-paint")]; })()`))
			}
			cancelTimeout()
			cancelTab()
			if err != nil {
				return fmt.Errorf("%s: %w", page, err)
			}
			fp, fcp = append(fp, got[0]), append(fcp, got[1])
		}
		fmt.Printf("%s: %d bytes; first paint median %.0f ms, first contentful paint median %.0f ms (%d loads)\n",
			page, st.Size(), median(fp), median(fcp), *n)
	}
	return nil
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
