// Written for vtgate's tests (not an excerpt): calls that must not be taken for the helpers above.
package other

// Another package's function of the same name: its argument is not read by this package's code.
func libraryName(name, base string) string { return base + name }

func use() {
	_ = libraryName("NOT_READ_OTHER_PACKAGE", "lib")
	_ = rebinds("NOT_READ_REASSIGNED")
	_ = inClosure("NOT_READ_CLOSURE")
	_ = twoParams("A", "B")
}

// The parameter is assigned before the read: the caller's argument is not the name read.
func rebinds(key string) string {
	key = "OTHER_" + key
	return os.Getenv(key)
}

// Read from a closure: the parameter may be another one's by the time it runs.
func inClosure(key string) func() string {
	return func() string { return os.Getenv(key) }
}

// Two parameters in the name: not a name one argument decides.
func twoParams(a, b string) string { return os.Getenv(a + b) }
