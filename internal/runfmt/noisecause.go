package runfmt

// NoiseCause is what made a measurement noisy: run.json's
// quality.causes. Each cause's figures are in the quality record itself;
// the words are made where the record is shown.
type NoiseCause string

// The causes.
const (
	// NoiseOtherProcesses: other processes used a notable share of the
	// host's cores (Quality.OtherCores of HostCores, TopOther by name).
	NoiseOtherProcesses NoiseCause = "other-processes"
	// NoiseSteal: the hypervisor gave CPU time to other guests
	// (Quality.StealCores).
	NoiseSteal NoiseCause = "steal"
	// NoiseGeneratorWaited: the load generator waited for a CPU long
	// enough to inflate the latencies it recorded
	// (Quality.PerflabWaitMsPerRequest).
	NoiseGeneratorWaited NoiseCause = "generator-waited"
)

// NoiseCauses lists the causes.
var NoiseCauses = newVocabulary("noise cause", NoiseOtherProcesses, NoiseSteal, NoiseGeneratorWaited)

// UnmarshalText reads a cause's name, refusing one it does not know.
func (c *NoiseCause) UnmarshalText(b []byte) error { return NoiseCauses.unmarshal(c, b) }
