// Excerpt from https://github.com/ollama/ollama at commit fb30760996871fa9460115c753afd2c60d4ab0f7; license: MIT. Source server/cloud_proxy.go lines 29,32 58,61. Small excerpt for scanner testing; unmodified except for elision markers.
	defaultCloudProxyBaseURL       = "https://ollama.com:443"
	defaultCloudProxySigningHost   = "ollama.com"
	cloudProxyBaseURLEnv           = "OLLAMA_CLOUD_BASE_URL"
	cloudWebSearchOrchestrationKey = "cloud_web_search_orchestration"
// ... (server/cloud_proxy.go)

func init() {
	baseURL, signingHost, overridden, err := resolveCloudProxyBaseURL(envconfig.Var(cloudProxyBaseURLEnv), mode)
	if err != nil {
