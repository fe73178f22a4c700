package files

// TracefsDirs are where the kernel's trace events may be mounted:
// tracefs, or the tracing directory of debugfs on older systems.
var TracefsDirs = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}
