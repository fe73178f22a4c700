package decide

import (
	"fmt"
	"slices"
	"strings"

	"perflab/internal/runfmt"
)

// perRequest is the count the window's figures per request divide by: the
// requests of this load the service answered; 0 (no figure per request)
// when other clients reached the service in the window, whose requests
// its CPU, profile and allocations hold too. It says so in a warning and
// in the target's note.
func (d *decider) perRequest(l *runfmt.LoadResult) int64 {
	n, hosts := d.in.Peers.OtherClients, slices.Clone(d.in.Peers.Clients)
	if n == 0 {
		return l.Answered() // the refused cost next to nothing (96.6% refused read 0.018 ms)
	}
	if len(hosts) > 3 {
		hosts = append(hosts[:3], fmt.Sprintf("%d more", len(hosts)-3))
	}
	d.otherClients = n
	d.perRequestNote = fmt.Sprintf("not given: other clients reached the service in the window (%d connection(s) that are not perflab's, from %s), so its CPU is not this load's alone", n, strings.Join(hosts, ", "))
	d.warn("CPU per request " + d.perRequestNote + "; profile shares still hold")
	return 0
}
