// Excerpt from https://github.com/huggingface/text-generation-inference at commit db931fcf42da018a3657580c64bf2720f167f9ab; license: Apache-2.0. Source launcher/src/main.rs lines 2043,2052. Small excerpt for scanner testing; unmodified except for elision markers.

    // Filter events with LOG_LEVEL
    let varname = "LOG_LEVEL";
    let env_filter = if let Ok(log_level) = std::env::var(varname) {
        // Override to avoid simple logs to be spammed with tokio level informations
        let log_level = match &log_level[..] {
            "warn" => "text_generation_launcher=warn,text_generation_router=warn",
            "info" => "text_generation_launcher=info,text_generation_router=info",
            "debug" => "text_generation_launcher=debug,text_generation_router=debug",
            log_level => log_level,
