// Excerpt from https://github.com/ollama/ollama at commit fb30760996871fa9460115c753afd2c60d4ab0f7; license: MIT. Source llm/llama_server.go lines 477,486 516,520. Small excerpt for scanner testing; unmodified except for elision markers.
func llamaServerLibraryPathEnv() string {
	switch runtime.GOOS {
	case "windows":
		return "PATH"
	case "darwin":
		return "DYLD_LIBRARY_PATH"
	default:
		return "LD_LIBRARY_PATH"
	}
}
// ... (llm/llama_server.go)
	if libraryPath, ok := os.LookupEnv(llamaServerLibraryPathEnv()); ok {
		for _, dir := range filepath.SplitList(libraryPath) {
			addPath(dir)
		}
	}
