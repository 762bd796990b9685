// Excerpt from https://github.com/ollama/ollama at commit fb30760996871fa9460115c753afd2c60d4ab0f7; license: MIT. Source discover/native_probe_linux.go lines 382,389. Small excerpt for scanner testing; unmodified except for elision markers.
func rocmVisibleDevicesEnvSet() bool {
	for _, name := range []string{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"} {
		if os.Getenv(name) != "" {
			return true
		}
	}
	return false
}
