// Excerpt from https://github.com/mudler/LocalAI at commit 82c191afadf5f005281e798ccfa0ffd0d5805030; license: MIT. Source backend/go/nemo-speech-cpp/main.go lines 1, 35-41. Small excerpt for scanner testing; unmodified except for elision markers.
package main

// ...

// libraryName resolves an override env var, falling back to the platform name.
func libraryName(envVar, base string) string {
	if v := os.Getenv(envVar); v != "" {
		return v
	}
	return base + libSuffix()
}
