package analysis

import "strings"

// Importing a module is start-up work: it runs once per process (at its
// start, or the first time a handler imports lazily) and never again
// once the module is loaded, so its cost is not a cost per request and
// the function that imports is not where to optimise. A stack is an
// import when it passes through CPython's importlib loader
// (_find_and_load, which runs only for a module not loaded yet).

// importFrame says whether a function is the import machinery's entry.
func importFrame(name, file string) bool {
	return name == "_find_and_load" && strings.HasPrefix(file, "<frozen importlib") ||
		name == "importlib._bootstrap._find_and_load"
}

// importStack says whether stack st imports a module.
func (c *Costs) importStack(st []int32) bool {
	if !c.imports {
		return false
	}
	for _, f := range st {
		if c.importer[f] {
			return true
		}
	}
	return false
}

// Importing is the cost of the selected stacks that import a module
// (start-up work, see importFrame). No function is charged it (Charged,
// the hot table, top's user rows, the owners): it is not a cost of any
// request; it stays in the profile's flat and cumulative costs.
func (c *Costs) Importing() int64 { return c.imported }
