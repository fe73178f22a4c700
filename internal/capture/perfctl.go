package capture

import (
	"bufio"
	"os"
	"strings"
)

// perfControl drives perf record's --control descriptors: perflab writes
// commands ("enable") on ctl, perf answers "ack" on ack.
type perfControl struct {
	ctlR, ctlW *os.File // perf reads ctlR
	ackR, ackW *os.File // perf writes ackW
}

func newPerfControl() (*perfControl, error) {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	return &perfControl{ctlR: ctlR, ctlW: ctlW, ackR: ackR, ackW: ackW}, nil
}

// childFiles are perf's ends, as its descriptors 3 and 4.
func (c *perfControl) childFiles() []*os.File { return []*os.File{c.ctlR, c.ackW} }

// started closes perf's ends in perflab, so a perf that exits ends the
// ack read.
func (c *perfControl) started() {
	c.ctlR.Close()
	c.ackW.Close()
}

// enable asks perf to enable its events and calls attached once perf
// acknowledges; not at all if perf exits first.
func (c *perfControl) enable(attached func()) {
	if _, err := c.ctlW.WriteString("enable\n"); err != nil {
		return
	}
	line, err := bufio.NewReader(c.ackR).ReadString('\n')
	if err == nil && strings.TrimSpace(line) == "ack" {
		attached()
	}
}

func (c *perfControl) close() {
	for _, f := range []*os.File{c.ctlR, c.ctlW, c.ackR, c.ackW} {
		f.Close()
	}
}
