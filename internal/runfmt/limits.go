package runfmt

// Sizes of the profiles perflab fetches, keeps and reads. A real profile
// is far smaller (a 30 s CPU profile of a busy service is a few MB); the
// bounds keep a hostile endpoint or file from exhausting perflab's memory.
const (
	// MaxProfileBytes bounds a profile as stored or served (gzipped).
	MaxProfileBytes = 256 << 20
	// MaxProfileDecodedBytes bounds a profile once decompressed: gzip
	// can expand 1000-fold, so the compressed bound alone is not enough.
	MaxProfileDecodedBytes = 1 << 30
)
