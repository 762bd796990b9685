// Excerpt from https://github.com/ollama/ollama at commit fb30760996871fa9460115c753afd2c60d4ab0f7; license: MIT. Source x/mlxrunner/mlx/dynamic.go lines 173,189. Small excerpt for scanner testing; unmodified except for elision markers.
func prependLibraryPath(dir string) {
	var envVar string
	switch runtime.GOOS {
	case "darwin":
		envVar = "DYLD_LIBRARY_PATH"
	case "linux":
		envVar = "LD_LIBRARY_PATH"
	default:
		return
	}
	if existing := os.Getenv(envVar); existing != "" {
		os.Setenv(envVar, dir+string(filepath.ListSeparator)+existing)
	} else {
		os.Setenv(envVar, dir)
	}
}

