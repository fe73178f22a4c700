package runfmt

// CPUScale is what a run's CPU profile is multiplied by to stand for the
// CPU measured over the window that could be sampled: SampledCPUSeconds
// over the profile's (1/Profiling.Coverage); 1 when either is unknown. The findings, the
// verdict's top table, perflab top and list, the CPU account and
// report.html's flame graph all apply it, with the same count of requests
// (PerRequestCount), so a function reads one number on every page.
func (r *Run) CPUScale() float64 {
	p := r.Profiling
	if p == nil || p.ProfileCPUSeconds <= 0 || p.SampledCPUSeconds() <= 0 {
		return 1
	}
	return p.SampledCPUSeconds() / p.ProfileCPUSeconds
}

// SampledShare is the fraction of the measured CPU a profile can stand
// for (SampledCPUSeconds over MeasuredCPUSeconds); 1 when unknown.
func (p *Profiling) SampledShare() float64 {
	if p == nil || p.MeasuredCPUSeconds <= 0 {
		return 1
	}
	return p.SampledCPUSeconds() / p.MeasuredCPUSeconds
}

// SampledCPUSeconds is the measured CPU a profile can stand for: the
// measured less the start-up of workers started during the window,
// spent before they were sampled (UnsampledStartCPUSeconds).
func (p *Profiling) SampledCPUSeconds() float64 {
	return max(p.MeasuredCPUSeconds-p.UnsampledStartCPUSeconds, 0)
}

// Answered is how many of the load's requests the service answered, with
// any status: those its CPU in the window was spent on. A refused
// connection, a timeout or a dropped arrival cost it next to nothing, and
// counted in the denominator they would make CPU per request read low.
func (l *LoadResult) Answered() int64 {
	var n int64
	for _, c := range l.Status {
		n += c
	}
	return n
}

// PerRequestCount is the count a run's figures per request divide by: the
// requests the service answered; 0 without a load, or when other clients
// reached the service in the window (no figure per request is given then).
func (r *Run) PerRequestCount() int64 {
	if r.Load == nil || r.Target != nil && r.Target.OtherClients > 0 {
		return 0
	}
	return r.Load.Answered()
}
