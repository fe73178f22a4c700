package analysis

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// FlameOptions configures a flame graph page.
type FlameOptions struct {
	// Title heads the page; "" names the sample type.
	Title string
	// SampleIndex selects the sample type as in TopOptions.
	SampleIndex string
	// Requests, when > 0, makes the tooltips show cost per request;
	// Scale multiplies it, as TopOptions.Scale.
	Requests int64
	Scale    float64
	// MinFraction drops call paths below this fraction of the total into
	// their callers; 0 means DefaultMinFraction, a negative value keeps all.
	MinFraction float64
	// UserCode adjusts what counts as user code (coloured warm).
	UserCode UserCode
	// Leaves, by sample type, split each stack's value of SampleIndex
	// under leaf frames named by the types that make it up (see
	// stacks.Set.SplitLeaves); OffCPULeaves for a wall-time profile.
	Leaves map[string]string
}

// OffCPULeaves name the kinds of a wall-time profile's time off a CPU as
// the off-CPU flame graph's leaves: the wait for a CPU after a network
// read is then drawn as that, not as the read.
func OffCPULeaves() map[string]string {
	out := map[string]string{}
	for _, k := range runfmt.TimeKinds.List() {
		switch k {
		case runfmt.TimeRunning:
		case runfmt.TimeRunnable:
			out[string(k)] = "[runnable: waiting for a CPU]"
		default:
			out[string(k)] = "[" + string(k) + "]"
		}
	}
	return out
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
	Scale        float64  `json:"scale,omitempty"`
	BaseRequests int64    `json:"base_requests,omitempty"`
	Diff         bool     `json:"diff"`
	Stride       int      `json:"stride"`
	Names        []string `json:"names"`
	User         []int    `json:"user"`
	Nodes        []int64  `json:"nodes"`
	Pruned       int      `json:"pruned"`
	MinFraction  float64  `json:"min_fraction"`
	// Changes (diff only) lists the functions whose own cost per request
	// changed most, gains then losses, as groups of three integers: name
	// index, new value, base value.
	Changes []int64 `json:"changes,omitempty"`

	nameIdx func(id int32) int64 // the tree's name id -> index in Names
}

//go:embed flame.html
var flamePage string

// dataMarker is replaced by the JSON data in flame.html.
const dataMarker = "/*FLAME_DATA*/"

// WriteFlameHTML writes a self-contained interactive flame graph of p.
func WriteFlameHTML(w io.Writer, p *profile.Profile, opt FlameOptions) error {
	return writeFlameOf(w, stacks.FromProfile(p), opt)
}

// WriteFlameHTMLFile writes the flame graph of the profile file at path,
// read with the lean decoder (see decode.go), so a large profile costs
// little more to draw than to list with top.
func WriteFlameHTMLFile(w io.Writer, path string, opt FlameOptions) error {
	f, err := ReadFlameFile(path)
	if err != nil {
		return err
	}
	return f.WriteHTML(w, opt)
}

// FlameFile is a profile file decoded for a flame graph, so a caller can
// tell a profile it cannot read from an output it cannot write.
type FlameFile struct{ set *stacks.Set }

// ReadFlameFile reads the profile file at path with the lean decoder.
func ReadFlameFile(path string) (*FlameFile, error) {
	s, err := stacks.ReadFile(path, false)
	if err != nil {
		return nil, err
	}
	return &FlameFile{set: s}, nil
}

// WriteHTML writes the file's flame graph as WriteFlameHTML does.
func (f *FlameFile) WriteHTML(w io.Writer, opt FlameOptions) error {
	return writeFlameOf(w, f.set, opt)
}

func writeFlameOf(w io.Writer, s *stacks.Set, opt FlameOptions) error {
	vi, err := s.SampleIndex(opt.SampleIndex)
	if err != nil {
		return fmt.Errorf("writing flame graph: %w", err)
	}
	if len(opt.Leaves) > 0 {
		parts := map[int]string{}
		for i, st := range s.SampleTypes {
			if name, ok := opt.Leaves[st.Type]; ok {
				parts[i] = name
			}
		}
		s, vi = s.SplitLeaves(vi, parts), 0
	}
	min := minFraction(opt.MinFraction)
	t := buildFlame([]flameSide{{set: s, vi: vi, weight: 1}}, opt.UserCode, thresholdOf(opt.MinFraction, min))
	d := newFlameData(t, s.SampleTypes[vi], opt, min)
	d.Requests, d.Scale = opt.Requests, opt.Scale
	return writeFlamePage(w, d)
}

// WriteDiffFlameHTML writes a differential flame graph: each profile is
// normalised per request; widths follow the new profile (the page switches
// to the base profile's, or to the difference's); frames are coloured on a
// diverging scale by how much more (vermilion) or less (blue) the new
// profile spends in them per request; beside the graph, the functions
// whose own cost per request grew or shrank the most.
func WriteDiffFlameHTML(w io.Writer, base, new *profile.Profile, baseRequests, newRequests int64, opt FlameOptions) error {
	bs, ns := stacks.FromProfile(base), stacks.FromProfile(new)
	bi, err := bs.SampleIndex(opt.SampleIndex)
	if err != nil {
		return fmt.Errorf("writing diff flame graph: base: %w", err)
	}
	ni, err := ns.SampleIndex(opt.SampleIndex)
	if err != nil {
		return fmt.Errorf("writing diff flame graph: new: %w", err)
	}
	br, nr := max(baseRequests, 1), max(newRequests, 1)
	min := minFraction(opt.MinFraction)
	t := buildFlame([]flameSide{{set: ns, vi: ni, weight: 1 / float64(nr)}, {set: bs, vi: bi, weight: 1 / float64(br)}},
		opt.UserCode, thresholdOf(opt.MinFraction, min))
	d := newFlameData(t, ns.SampleTypes[ni], opt, min)
	d.Diff, d.Stride = true, 4
	d.Requests, d.BaseRequests = nr, br
	d.Changes = t.changes(d, float64(nr), float64(br), maxChanges)
	return writeFlamePage(w, d)
}

// maxChanges is how many gains and how many losses a diff lists.
const maxChanges = 12

// thresholdOf is the pruning fraction buildFlame takes: < 0 keeps all.
func thresholdOf(asked, min float64) float64 {
	if asked < 0 {
		return -1
	}
	return min
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

func newFlameData(t *flameTree, st profile.ValueType, opt FlameOptions, min float64) *flameData {
	d := &flameData{Title: opt.Title, SampleType: st.Type, Unit: st.Unit, Stride: 3, Pruned: t.pruned, MinFraction: min}
	if d.Title == "" {
		d.Title = st.Type + " flame graph"
	}
	// Only the names of drawn nodes go into the page.
	remap := make([]int64, len(t.names))
	for i := range remap {
		remap[i] = -1
	}
	d.nameIdx = func(id int32) int64 {
		if remap[id] < 0 {
			remap[id] = int64(len(d.Names))
			d.Names = append(d.Names, t.names[id])
			u := 0
			if t.user[id] {
				u = 1
			}
			d.User = append(d.User, u)
		}
		return remap[id]
	}
	n := len(t.name)
	d.Nodes = make([]int64, 0, n*4)
	for i := 0; i < n; i++ {
		idx := d.rootName() // node 0, the root, is named "root"
		if i > 0 {
			idx = d.nameIdx(t.name[i])
		}
		d.Nodes = append(d.Nodes, idx, t.val[0][i])
		if t.diff {
			d.Nodes = append(d.Nodes, t.val[1][i])
		}
		d.Nodes = append(d.Nodes, int64(t.kids[i]))
	}
	return d
}

// rootName adds the root's name, "root", and returns its index.
func (d *flameData) rootName() int64 {
	d.Names = append(d.Names, "root")
	d.User = append(d.User, 0)
	return int64(len(d.Names) - 1)
}

// changes lists the functions whose own (leaf) cost per request changed
// most between base and new, the largest gains and losses, as groups of
// (name index, new value, base value); names are added to the page's.
func (t *flameTree) changes(d *flameData, nr, br float64, n int) []int64 {
	type change struct {
		id    int32
		delta float64
	}
	var gains, losses []change
	for id := range t.names {
		delta := float64(t.flat[0][id])/nr - float64(t.flat[1][id])/br
		switch {
		case delta < 0:
			gains = append(gains, change{int32(id), delta})
		case delta > 0:
			losses = append(losses, change{int32(id), delta})
		}
	}
	sort.Slice(gains, func(i, j int) bool { return gains[i].delta < gains[j].delta })
	sort.Slice(losses, func(i, j int) bool { return losses[i].delta > losses[j].delta })
	var out []int64
	for _, list := range [][]change{gains[:min(n, len(gains))], losses[:min(n, len(losses))]} {
		for _, c := range list {
			out = append(out, d.nameIdx(c.id), t.flat[0][c.id], t.flat[1][c.id])
		}
	}
	return out
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
