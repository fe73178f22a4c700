package analysis

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/google/pprof/profile"
)

// FlameOptions configures a flame graph page.
type FlameOptions struct {
	// Title heads the page; "" names the sample type.
	Title string
	// SampleIndex selects the sample type as in TopOptions.
	SampleIndex string
	// Requests, when > 0, makes the tooltips show cost per request.
	Requests int64
	// MinFraction drops frames below this fraction of the total into their
	// parent; 0 means DefaultMinFraction, a negative value keeps all.
	MinFraction float64
	// UserCode adjusts what counts as user code (coloured warm).
	UserCode UserCode
}

// DefaultMinFraction is the pruning threshold of flame graphs: 0.05% of the
// total, which keeps pages small and quick to draw while every frame left is
// at least a pixel wide on a 2000-pixel screen.
const DefaultMinFraction = 0.0005

// flameData is the JSON embedded in a flame graph page. Nodes lists the tree
// in preorder as groups of Stride integers: name index, value (new value in
// a diff), base value (diff only), number of children.
type flameData struct {
	Title        string   `json:"title"`
	SampleType   string   `json:"sample_type"`
	Unit         string   `json:"unit"`
	Requests     int64    `json:"requests"`
	BaseRequests int64    `json:"base_requests,omitempty"`
	Diff         bool     `json:"diff"`
	Stride       int      `json:"stride"`
	Names        []string `json:"names"`
	User         []int    `json:"user"`
	Nodes        []int64  `json:"nodes"`
	Pruned       int      `json:"pruned"`
	MinFraction  float64  `json:"min_fraction"`
}

//go:embed flame.html
var flamePage string

// dataMarker is replaced by the JSON data in flame.html.
const dataMarker = "/*FLAME_DATA*/"

// WriteFlameHTML writes a self-contained interactive flame graph of p.
func WriteFlameHTML(w io.Writer, p *profile.Profile, opt FlameOptions) error {
	s := fromProfile(p)
	vi, err := s.sampleIndex(opt.SampleIndex)
	if err != nil {
		return fmt.Errorf("writing flame graph: %w", err)
	}
	t := newFlameTree(false)
	t.add(s, vi, 0, opt.UserCode)
	min := minFraction(opt.MinFraction)
	total := float64(t.val[0][0])
	nodes, pruned := t.flatten(func(n int32) bool { return total > 0 && float64(t.val[0][n]) >= min*total })
	d := newFlameData(t, s.sampleTypes[vi], opt, nodes, pruned, min)
	d.Requests = opt.Requests
	return writeFlamePage(w, d)
}

// WriteDiffFlameHTML writes a differential flame graph: each profile is
// normalised per request, widths follow the new profile (switchable to the
// base or the mean of both in the page), red marks frames where new spends
// more per request, blue where it spends less.
func WriteDiffFlameHTML(w io.Writer, base, new *profile.Profile, baseRequests, newRequests int64, opt FlameOptions) error {
	bs, ns := fromProfile(base), fromProfile(new)
	bi, err := bs.sampleIndex(opt.SampleIndex)
	if err != nil {
		return fmt.Errorf("writing diff flame graph: base: %w", err)
	}
	ni, err := ns.sampleIndex(opt.SampleIndex)
	if err != nil {
		return fmt.Errorf("writing diff flame graph: new: %w", err)
	}
	br, nr := float64(max(baseRequests, 1)), float64(max(newRequests, 1))
	t := newFlameTree(true)
	t.add(ns, ni, 0, opt.UserCode)
	t.add(bs, bi, 1, opt.UserCode)
	min := minFraction(opt.MinFraction)
	total := max(float64(t.val[0][0])/nr, float64(t.val[1][0])/br)
	nodes, pruned := t.flatten(func(n int32) bool {
		return total > 0 && max(float64(t.val[0][n])/nr, float64(t.val[1][n])/br) >= min*total
	})
	d := newFlameData(t, ns.sampleTypes[ni], opt, nodes, pruned, min)
	d.Diff, d.Stride = true, 4
	d.Requests, d.BaseRequests = max(newRequests, 1), max(baseRequests, 1)
	return writeFlamePage(w, d)
}

func minFraction(f float64) float64 {
	switch {
	case f == 0:
		return DefaultMinFraction
	case f < 0:
		return 0
	}
	return f
}

func newFlameData(t *flameTree, st profile.ValueType, opt FlameOptions, nodes []int64, pruned int, min float64) *flameData {
	d := &flameData{Title: opt.Title, SampleType: st.Type, Unit: st.Unit, Stride: 3, Names: t.names, Nodes: nodes, Pruned: pruned, MinFraction: min}
	if d.Title == "" {
		d.Title = st.Type + " flame graph"
	}
	d.User = make([]int, len(t.user))
	for i, u := range t.user {
		if u {
			d.User[i] = 1
		}
	}
	return d
}

// writeFlamePage fills the page template; json.Marshal escapes <, > and &,
// so the data cannot close its <script> element.
func writeFlamePage(w io.Writer, d *flameData) error {
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encoding flame graph data: %w", err)
	}
	head, tail, ok := strings.Cut(flamePage, dataMarker)
	if !ok {
		return fmt.Errorf("writing flame graph: template lacks %s", dataMarker)
	}
	head = strings.ReplaceAll(head, "{{TITLE}}", html.EscapeString(d.Title))
	bw := bufio.NewWriter(w)
	bw.WriteString(head)
	bw.Write(data)
	bw.WriteString(tail)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing flame graph: %w", err)
	}
	return nil
}
