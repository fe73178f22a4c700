// Command rsscount is the batch program of the execution-tracing lesson:
// it counts the news items that mention a term (-term, "president") in N
// RSS documents, reading each file and decoding it with xml.Unmarshal. In
// -mode=buggy main.freq does the documents one after the other on one
// goroutine, so one core works however many the machine has; -mode=fixed
// (main.freqConcurrent) fans them out over GOMAXPROCS goroutines. Both
// count the same.
//
// Without -dir it first writes -n (4000) deterministic documents to a
// temporary directory, removed at exit: under /dev/shm when $TMPDIR is
// unset and the machine has it (creating 4000 files on a disk can take
// longer than counting them); -dir DIR reads DIR's *.xml files instead,
// and -write DIR only writes the -n documents into DIR. It prints
// "Searching N files, found TERM K times." and exits 0; bad flags exit 2,
// unreadable documents 1.
package main

import (
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rsscount", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 4000, "how many documents to write (1 to 100000)")
	dir := fs.String("dir", "", "read the *.xml documents of `directory` instead of writing -n of them")
	write := fs.String("write", "", "write the -n documents into `directory` and exit")
	term := fs.String("term", "president", "the term to count")
	mode := fs.String("mode", "buggy", "`buggy` (one goroutine) or fixed (GOMAXPROCS goroutines)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case *mode != "buggy" && *mode != "fixed":
		fmt.Fprintf(stderr, "rsscount: -mode %q: want buggy or fixed\n", *mode)
		return 2
	case *n < 1 || *n > 100000:
		fmt.Fprintf(stderr, "rsscount: -n %d: want 1 to 100000\n", *n)
		return 2
	case *term == "":
		fmt.Fprintln(stderr, "rsscount: -term is empty")
		return 2
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "rsscount: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *write != "" {
		if err := writeDocs(*write, *n); err != nil {
			fmt.Fprintf(stderr, "rsscount: -write %s: %v\n", *write, err)
			return 1
		}
		return 0
	}
	docs, cleanup, err := documents(*dir, *n)
	defer cleanup()
	if err != nil {
		fmt.Fprintf(stderr, "rsscount: %v\n", err)
		return 1
	}
	var found int
	if *mode == "buggy" {
		found, err = freq(*term, docs)
	} else {
		found, err = freqConcurrent(*term, docs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rsscount: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Searching %d files, found %s %d times.\n", len(docs), *term, found)
	return 0
}

// documents lists the documents of dir, or writes n of them to a
// temporary directory that cleanup removes.
func documents(dir string, n int) (docs []string, cleanup func(), err error) {
	cleanup = func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp(tempBase(), "rsscount-"); err != nil {
			return nil, cleanup, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		if err := writeDocs(dir, n); err != nil {
			return nil, cleanup, err
		}
	}
	docs, err = filepath.Glob(filepath.Join(dir, "*.xml"))
	if err == nil && len(docs) == 0 {
		err = fmt.Errorf("-dir %s: no *.xml documents", dir)
	}
	sort.Strings(docs)
	return docs, cleanup, err
}

// tempBase is where the written documents go: tmpfs when there is one.
func tempBase() string {
	if os.Getenv("TMPDIR") == "" {
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() && unix.Access("/dev/shm", unix.W_OK) == nil {
			return "/dev/shm"
		}
	}
	return os.TempDir()
}

type item struct {
	XMLName     xml.Name `xml:"item"`
	Title       string   `xml:"title"`
	Description string   `xml:"description"`
	Link        string   `xml:"link"`
}

type channel struct {
	XMLName     xml.Name `xml:"channel"`
	Title       string   `xml:"title"`
	Description string   `xml:"description"`
	Link        string   `xml:"link"`
	PubDate     string   `xml:"pubDate"`
	Items       []item   `xml:"item"`
}

type document struct {
	XMLName xml.Name `xml:"rss"`
	Channel channel  `xml:"channel"`
	URI     string
}

// freq counts the items of docs that mention topic in the title or,
// failing that, in the description, one document after the other. Its
// loop body is freqConcurrent's, written out in each as the lesson's
// program does, so a profile charges the decoding to the function's own
// line.
func freq(topic string, docs []string) (int, error) {
	var found int
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			return 0, err
		}
		var d document
		if err := xml.Unmarshal(data, &d); err != nil {
			return 0, fmt.Errorf("decoding %s: %w", doc, err)
		}
		for _, it := range d.Channel.Items {
			if strings.Contains(it.Title, topic) || strings.Contains(it.Description, topic) {
				found++
			}
		}
	}
	return found, nil
}

// freqConcurrent counts as freq does, with GOMAXPROCS goroutines each
// taking the next document from a channel.
func freqConcurrent(topic string, docs []string) (int, error) {
	var found atomic.Int64
	var errs sync.Map
	ch := make(chan string, len(docs))
	for _, doc := range docs {
		ch <- doc
	}
	close(ch)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var local int
			for doc := range ch {
				data, err := os.ReadFile(doc)
				if err != nil {
					errs.Store(doc, err)
					return
				}
				var d document
				if err := xml.Unmarshal(data, &d); err != nil {
					errs.Store(doc, fmt.Errorf("decoding %s: %w", doc, err))
					return
				}
				for _, it := range d.Channel.Items {
					if strings.Contains(it.Title, topic) || strings.Contains(it.Description, topic) {
						local++
					}
				}
			}
			found.Add(int64(local))
		})
	}
	wg.Wait()
	var err error
	errs.Range(func(_, v any) bool { err = errors.Join(err, v.(error)); return true })
	return int(found.Load()), err
}
