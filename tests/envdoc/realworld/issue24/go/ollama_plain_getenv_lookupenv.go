// Excerpt from https://github.com/ollama/ollama at commit fb30760996871fa9460115c753afd2c60d4ab0f7; license: MIT. Source cmd/launch/openclaw.go lines 368,389. Small excerpt for scanner testing; unmodified except for elision markers.
	var env []string
	for _, e := range os.Environ() {
		key, _, _ := strings.Cut(e, "=")
		if !clear[key] {
			env = append(env, e)
		}
	}
	if _, ok := os.LookupEnv("OPENCLAW_PLUGIN_STAGE_DIR"); !ok {
		if dir := openclawPluginStageDir(); dir != "" {
			env = append(env, "OPENCLAW_PLUGIN_STAGE_DIR="+dir)
		}
	}
	return env
}

func openclawInstallEnv() []string {
	env := openclawEnv()
	if _, ok := os.LookupEnv("OPENCLAW_EAGER_BUNDLED_PLUGIN_DEPS"); !ok {
		env = append(env, "OPENCLAW_EAGER_BUNDLED_PLUGIN_DEPS=1")
	}
	return env
}
