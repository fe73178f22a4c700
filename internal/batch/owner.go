package batch

import (
	"os/exec"

	"perflab/internal/analysis"
	"perflab/internal/decide"
	"perflab/internal/ownership"
)

// userCode is the batch program's ownership model: from its executable
// (the command as the shell would find it), the executables its CPU
// profile names, and the project root, decided when it has exited.
func (b *batch) userCode() analysis.UserCode {
	if b.owners == nil {
		b.owners = b.detectOwnership()
	}
	return analysis.UserCode{Model: b.owners}
}

// detectOwnership decides the batch program's ownership model.
func (b *batch) detectOwnership() *ownership.Model {
	c := &b.cfg
	in := ownership.Inputs{Root: c.Src}
	if c.UserCode != nil {
		in.UserCode = c.UserCode.String()
	}
	if in.Root == "" {
		in.Root, in.RootFrom = decide.ProjectRoot(c.Command, c.Dir, nil)
	}
	if len(c.Command) > 0 {
		if exe, err := exec.LookPath(c.Command[0]); err == nil {
			in.Executables = append(in.Executables, exe)
		}
	}
	if b.cpu != nil {
		in.Executables = append(in.Executables, ownership.ProfileBinaries(b.cpu)...)
	}
	m, err := ownership.Detect(in)
	if err != nil {
		m, _ = ownership.New(ownership.Spec{Root: in.Root})
	}
	return m
}
